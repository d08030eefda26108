"""The instance domain a verdict is about: one value, chosen, declared, searched and reported.

A verdict is only as useful as the question it answers: "DRF is strategyproof" is a theorem on the
DRF paper's domain (positive demands), and a researcher whose mechanism is unweighted asks about
unweighted instances. A `Domain` says which instances a question ranges over:

* ``demands``: ``positive`` (every d_ir > 0) or ``nonnegative`` (zeros allowed, each row non-zero);
* ``weights``: ``none`` (every weight 1), ``scalar`` (one weight per user) or ``vector`` (one per
  user and resource, DRF paper §4.3); each allows the ones before it;
* ``caps``: ``none`` (no task caps) or ``allowed``;
* ``capacities``: ``unit`` (every capacity 1, on every machine) or ``arbitrary``;
* ``departures``: agents over time, ``none`` (arrivals only) or ``allowed``.

Named presets (`PRESETS`) are the sources' domains; ``all`` is the union the lab explored before
domains existed (the default, so verdicts stay the same unless a domain is asked). `parse` is the one
parser of ``--domain NAME``, ``--domain key=value,...`` and ``--domain NAME,key=value,...``.

Mechanisms declare theirs (`fairlab.mechanisms.base.Mechanism.domain`, a plug-in's ``fn.domain``);
an engine explores ``asked.intersect(declared)`` and records it (`record`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Mapping

from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact
from fairlab.core.names import did_you_mean

#: each field's values, narrowest first (a value allows every value before it)
LEVELS: dict[str, tuple[str, ...]] = {
    "demands": ("positive", "nonnegative"),
    "weights": ("none", "scalar", "vector"),
    "caps": ("none", "allowed"),
    "capacities": ("unit", "arbitrary"),
    "departures": ("none", "allowed"),
}
#: other spellings accepted by `parse`
_SYNONYMS = {">0": "positive", "non-negative": "nonnegative", ">=0": "nonnegative", "zero": "nonnegative",
             "unweighted": "none", "no": "none", "yes": "allowed", "any": "arbitrary", "1": "unit"}
_KEYS = {"cap": "caps", "max_tasks": "caps", "capacity": "capacities", "demand": "demands", "weight": "weights"}


@dataclass(frozen=True)
class Domain:
    """Which instances a question ranges over (see the module docstring). Defaults: the union."""

    demands: str = "nonnegative"
    weights: str = "vector"
    caps: str = "allowed"
    capacities: str = "arbitrary"
    departures: str = "allowed"

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if value not in LEVELS[f.name]:
                raise InputError(f"domain {f.name}={value!r}: expected one of {', '.join(LEVELS[f.name])}")

    # ----------------------------------------------------------------- algebra
    def intersect(self, other: Domain) -> Domain:
        """The instances in both: each field the narrower of the two."""
        return Domain(**{f.name: min(getattr(self, f.name), getattr(other, f.name), key=LEVELS[f.name].index)
                         for f in fields(self)})

    def within(self, other: Domain) -> bool:
        """Every instance of this domain is in `other`."""
        return self.intersect(other) == self

    # ----------------------------------------------------------------- membership
    def contains(self, instance) -> str | None:
        """None if `instance` (a `fairlab.core.instance.Instance`) is in the domain, else why not (one line)."""
        inst = instance
        where = f"outside the domain {self.label}"
        if self.demands == "positive":
            for i, row in enumerate(inst.demands):
                for r, d in enumerate(row):
                    if d <= 0:
                        return (f"demand of {inst.users[i]} on {inst.resources[r]} is {format_exact(d)}: {where} "
                                "(demands > 0)")
        if self.weights != "vector":
            for i, row in enumerate(inst.weights):
                if self.weights == "none" and any(w != 1 for w in row):
                    return f"{inst.users[i]} has weight {', '.join(map(format_exact, row))}: {where} (no weights)"
                if len(set(row)) > 1:
                    return (f"{inst.users[i]} has a weight vector {', '.join(map(format_exact, row))}: {where} "
                            "(one weight per user)")
        if self.caps == "none":
            for i, t in enumerate(inst.max_tasks):
                if t is not None:
                    return f"{inst.users[i]} has a task cap {format_exact(t)}: {where} (no task caps)"
        if self.capacities == "unit":
            pools = list(inst.machines) if inst.machines is not None else [inst.capacities]
            for pool in pools:
                for r, c in enumerate(pool):
                    if c != 1:
                        return f"capacity of {inst.resources[r]} is {format_exact(c)}: {where} (capacities 1)"
        if self.departures == "none" and inst.events is not None and any(k == "depart" for k, _ in inst.events):
            return f"a user departs: {where} (arrivals only)"
        return None

    def check(self, instance, what: str = "instance") -> None:
        """Raise a one-line `InputError` unless `instance` is in the domain."""
        why = self.contains(instance)
        if why is not None:
            raise InputError(f"{what}: {why}")

    # ----------------------------------------------------------------- words
    @property
    def name(self) -> str | None:
        """The preset this domain is, if any."""
        return next((k for k, v in PRESETS.items() if v == self), None)

    @property
    def spec(self) -> str:
        """``key=value,...`` of the fields that differ from ``all`` (``""`` for ``all``)."""
        return ",".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self)
                        if getattr(self, f.name) != f.default)

    @property
    def label(self) -> str:
        """A short human label: the preset's name, else ``key=value,...`` (what `parse` reads back)."""
        return self.name or self.spec

    @property
    def words(self) -> str:
        """The restrictions in words: "demands > 0, no weights, no task caps" ("every instance" for all)."""
        parts = []
        if self.demands == "positive":
            parts.append("demands > 0")
        parts += {"none": ["no weights"], "scalar": ["one weight per user"], "vector": []}[self.weights]
        if self.caps == "none":
            parts.append("no task caps")
        if self.capacities == "unit":
            parts.append("capacities 1")
        if self.departures == "none":
            parts.append("arrivals only")
        return ", ".join(parts) or "every instance"

    def to_dict(self) -> dict:
        return {"name": self.label, **{f.name: getattr(self, f.name) for f in fields(self)}}

    def __str__(self) -> str:
        return self.label


ALL = Domain()
#: the sources' domains (lab's reading where the primary text did not state it)
PRESETS: dict[str, Domain] = {
    "all": ALL,
    # DRF paper §3-§4.2: Leontief users with positive demand vectors, no weights; Theorems 1-7 on it
    "drf-paper": Domain(demands="positive", weights="none", caps="none"),
    # DRF paper §4.3 (weighted DRF): weight vectors, zero demands allowed, no task caps
    "weighted": Domain(weights="vector", caps="none"),
    # lab's reading of Bonald & Roberts §2: zero demands allowed (a flow may not use a resource), one
    # weight per class, no caps
    "bonald-roberts": Domain(weights="scalar", caps="none"),
    # lab's reading of Metin's PDRF: positive demands, no weights, a number of tasks per user (caps)
    "pdrf": Domain(demands="positive", weights="none", caps="allowed"),
    # the lecture's dynamic fair division (Kash, Procaccia & Shah 2013): positive demands, no
    # weights, no caps, agents arrive and never leave
    "lecture": Domain(demands="positive", weights="none", caps="none", departures="none"),
    # no weights, no caps, zeros allowed
    "unweighted": Domain(weights="none", caps="none"),
    # lab's reading of Friedman, Ghodsi & Psomas (EC 2014), whole tasks on several machines: no weights,
    # no task caps, zero demands allowed, static (no agents over time); its strategyproofness reads
    # "under-reporting gives zero utility" (`machines-sp`'s rule)
    "fgp-2014": Domain(weights="none", caps="none", departures="none"),
}


#: what every `domain=` argument takes: a preset name or ``key=value,...`` text, a mapping of the
#: fields, a `Domain`, or None (``all``); `parse` reads each
DomainLike = Domain | str | Mapping[str, Any] | None


def parse(text: DomainLike, flag: str = "--domain") -> Domain:
    """The one parser: a `Domain` as is; None -> ``all``; ``NAME`` (a preset); ``key=value,...``
    (fields of ``all`` changed); ``NAME,key=value,...`` (a preset changed); a mapping of fields (a
    JSON dict; `Domain.to_dict`'s ``name`` and a `record`'s ``asked``, ``declared`` and ``note``
    ignored). Bad input: a one-line `InputError` naming it."""
    if text is None:
        return ALL
    if isinstance(text, Domain):
        return text
    if isinstance(text, Mapping):
        try:
            return Domain(**{_key(k, flag): _value(v, flag) for k, v in text.items()
                             if k not in ("name", "asked", "declared", "note")})
        except TypeError as exc:
            raise InputError(f"{flag}: {exc}") from None
    if not isinstance(text, str):
        raise InputError(f"{flag}: expected a domain name or key=value,..., got {type(text).__name__}")
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise InputError(f"{flag}: empty (known: {', '.join(PRESETS)}, or key=value,... with keys "
                         f"{', '.join(LEVELS)})")
    base = ALL
    if "=" not in parts[0]:
        name = parts.pop(0).lower()
        if name not in PRESETS:
            raise InputError(f"{flag} {name!r}: unknown domain{did_you_mean(name, PRESETS)} (known: "
                             f"{', '.join(PRESETS)}, or key=value,...)")
        base = PRESETS[name]
    changes: dict[str, Any] = {}
    for part in parts:
        if "=" not in part:
            raise InputError(f"{flag}: {part!r} is not key=value (after a domain name, only key=value may follow)")
        key, value = (s.strip() for s in part.split("=", 1))
        changes[_key(key, flag)] = _value(value, flag, _key(key, flag))
    return replace(base, **changes)


def _key(key: str, flag: str) -> str:
    key = _KEYS.get(str(key).strip().lower(), str(key).strip().lower())
    if key not in LEVELS:
        raise InputError(f"{flag}: unknown key {key!r} (keys: {', '.join(LEVELS)})")
    return key


def _value(value, flag: str, key: str | None = None) -> str:
    word = _SYNONYMS.get(str(value).strip().lower(), str(value).strip().lower())
    if key is not None and word not in LEVELS[key]:
        raise InputError(f"{flag}: {key}={value!r}: expected one of {', '.join(LEVELS[key])}")
    return word


def record(asked: Domain, declared: Domain, covered: Domain | None = None) -> dict:
    """What a result records about its domain: the domain its verdict is about (``covered``, by
    default asked ∩ declared) as `Domain.to_dict`, plus the asked and the mechanism's declared
    domain by label, and a ``note`` when the verdict is about less than was asked."""
    explored = asked.intersect(declared)
    about = explored if covered is None else covered.intersect(explored)
    out = {**about.to_dict(), "asked": asked.label, "declared": declared.label}
    notes = []
    if explored != asked:
        notes.append(f"the mechanism is declared on {declared.label} ({declared.words}): explored {asked.label} ∩ "
                     f"{declared.label}")
    if about != explored:
        notes.append(f"the verdict covers only the sub-domain {about.label} ({about.words}) of {explored.label}")
    if notes:
        out["note"] = "; ".join(notes)
    return out


def of_result(value) -> Domain:
    """The `Domain` a result's ``domain`` record (or anything `parse` reads) is about."""
    return parse(value)


__all__ = ["Domain", "ALL", "PRESETS", "LEVELS", "parse", "record", "of_result"]
