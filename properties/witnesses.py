"""The typed witnesses of the properties (`fairlab.properties.property`): frozen dataclasses whose
field names are the JSON keys of a verdict's witness, one class per shape of counterexample."""

from __future__ import annotations

import dataclasses
from collections.abc import ItemsView
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Mapping, Self

from fairlab.core.errors import InputError


# --------------------------------------------------------------------------- typed witnesses
class Witness:
    """Base of the typed witnesses: frozen dataclasses whose field names are the JSON keys.

    Numbers are stored as JSON writes them (an int, or ``"p/q"``; an irrational as its exact
    description), so ``to_dict()`` is the JSON form. A witness also reads like the mapping it
    replaces (``w["user"]``, ``w.get("user")``, ``w == {"user": 1}``) for stored fixtures and callers."""

    if TYPE_CHECKING:  # what every concrete witness is: a dataclass, built from its fields
        __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

        def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    def to_dict(self) -> dict:
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, raw: Any) -> Self:
        """A witness from its mapping (missing keys become None: `confirm` rejects them)."""
        if isinstance(raw, cls):
            return raw
        if isinstance(raw, Witness):
            raw = raw.to_dict()
        if not isinstance(raw, Mapping):
            keys = [f.name for f in dataclasses.fields(cls)]
            raise InputError(f"witness: expected a mapping with keys {keys}, got {raw!r}")
        return cls(**{f.name: raw.get(f.name) for f in dataclasses.fields(cls)})

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default) if key in self.keys() else default

    def __getitem__(self, key: str) -> Any:
        if key not in self.keys():
            raise KeyError(key)
        return getattr(self, key)

    def keys(self) -> list[str]:
        return [f.name for f in dataclasses.fields(self)]

    def items(self) -> ItemsView[str, Any]:
        return self.to_dict().items()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Witness):
            return type(self) is type(other) and self.to_dict() == other.to_dict()
        if isinstance(other, Mapping):
            return self.to_dict() == dict(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((type(self).__name__, repr(self.to_dict())))


def _plain(value: Any) -> Any:
    return [_plain(v) for v in value] if isinstance(value, (list, tuple)) else value


@dataclass(frozen=True, eq=False)
class UserWitness(Witness):
    """si, njc, srf: the user who is harmed (0-based)."""

    user: int


@dataclass(frozen=True, eq=False)
class EnvyWitness(Witness):
    """ef: `user` prefers `envied`'s (weight-scaled) bundle."""

    user: int
    envied: int


@dataclass(frozen=True, eq=False)
class BottleneckWitness(Witness):
    """bf: `user` gets less of the common bottleneck `resource` than max-min fairness gives."""

    resource: int
    user: int


@dataclass(frozen=True, eq=False)
class ImprovementWitness(Witness):
    """pe: a feasible allocation (tasks per user) dominating it, in which `user` strictly gains."""

    improvement: list
    user: int


@dataclass(frozen=True, eq=False)
class MisreportWitness(Witness):
    """sp: `user` gains (measured with its true demand) by declaring `misreport`."""

    user: int
    misreport: list


@dataclass(frozen=True, eq=False)
class CapacityWitness(Witness):
    """rm: with the grown `capacities`, `user` runs fewer tasks."""

    capacities: list
    user: int


@dataclass(frozen=True, eq=False)
class DepartureWitness(Witness):
    """pm: when user `removed` leaves, `user` (index in the original instance) runs fewer tasks."""

    removed: int
    user: int
