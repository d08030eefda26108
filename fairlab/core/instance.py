"""The exact instance model: n users with Leontief demands over m divisible resources.

JSON form (DRF paper §4.1's running example)::

    {"capacities": [9, 18], "demands": [[1, 4], [3, 1]],
     "weights": [1, 2]            # or a vector per user, §4.3 of the DRF paper
     "max_tasks": [null, 5],      # per-user task caps, null = unlimited
     "users": ["A", "B"], "resources": ["CPU", "GB"]}

Numbers are read exactly (`fairlab.core.exact.to_fraction`). Every way an instance can be malformed
raises `InputError` with a one-line message naming the field and the offending value.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction
from operator import attrgetter
from pathlib import Path
from typing import Any, Mapping, Sequence

from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact, short_text, to_fraction
from fairlab.core.json_input import parse_json, read_capped, without_collector
from fairlab.core.names import did_you_mean

KNOWN_KEYS = ("capacities", "demands", "weights", "max_tasks", "users", "resources",
              "machines", "machine_names", "arrivals", "departures")
#: the settings an instance can describe (`Instance.setting`): one divisible pool (the DRF paper's
#: model), whole tasks on several machines (DRF paper §6.2), agents arriving over time (lecture,
#: "dynamic fair division"; Kash, Procaccia & Shah 2013)
SETTINGS = ("pool", "machines", "dynamic")
#: the fields of `Instance`, in order
FIELDS = ("capacities", "demands", "weights", "max_tasks", "users", "resources", "weights_given", "machines",
          "machine_names", "events")


@dataclass(frozen=True)
class Instance:
    """An exact multi-resource instance: ``Instance(capacities=[9, 18], demands=[[1, 4], [3, 1]])``
    (numbers as int/str/Fraction, read exactly), or `Instance.build` / `Instance.from_dict` / a JSON
    file. What is left out takes its default: weights 1 for every user, no task caps, users named
    u1, u2, ... and resources r1, r2, ...; ``machines`` and ``machine_names`` as in the JSON form
    (agents over time: `Instance.build` with ``arrivals``/``departures``)."""

    capacities: tuple[Fraction, ...]
    demands: tuple[tuple[Fraction, ...], ...]
    weights: tuple[tuple[Fraction, ...], ...]
    max_tasks: tuple[Fraction | None, ...]
    users: tuple[str, ...]
    resources: tuple[str, ...]
    weights_given: str = "none"  # "none", "scalar" or "vector": how the weights were written
    #: several machines (DRF paper §6.2): machine k's capacity vector; `capacities` is their sum
    machines: tuple[tuple[Fraction, ...], ...] | None = None
    machine_names: tuple[str, ...] | None = None
    #: agents over time: ("arrive" | "depart", user index) in order; None: everyone at once
    events: tuple[tuple[str, int], ...] | None = None

    # ----------------------------------------------------------------- construction
    def __init__(self, capacities: Sequence[Any], demands: Sequence[Sequence[Any]], weights: Any = None,
                 max_tasks: Any = None, users: Any = None, resources: Any = None, weights_given: str = "none",
                 machines: Any = None, machine_names: Any = None, events: Any = None) -> None:
        """Every field given as the lab keeps it (tuples of Fractions, as `from_dict` and
        `dataclasses.replace` pass them) is taken as it is; anything else (lists, ints, a field left
        out) is read and checked by `from_dict`, defaults filled in, errors one-line `InputError` s."""
        values = (capacities, demands, weights, max_tasks, users, resources, weights_given, machines, machine_names,
                  events)
        if not (type(capacities) is tuple and type(demands) is tuple and weights is not None
                and max_tasks is not None and users is not None and resources is not None):
            if events is not None:
                raise InputError("events: agents over time are given as arrivals/departures to Instance.build")
            read = Instance.from_dict({"capacities": capacities, "demands": demands, "weights": weights,
                                       "max_tasks": max_tasks, "users": users, "resources": resources,
                                       "machines": machines, "machine_names": machine_names})
            values = tuple(getattr(read, name) for name in FIELDS)
        for name, value in zip(FIELDS, values):
            object.__setattr__(self, name, value)  # a frozen dataclass sets its fields so (dataclasses docs)

    @classmethod
    def build(cls, capacities: Any = None, demands: Any = None, weights: Any = None, max_tasks: Any = None,
              users: Any = None, resources: Any = None, **setting: Any) -> Instance:
        """Validate and normalise raw Python values (numbers as int/float/str/Fraction); `setting`:
        ``machines``, ``machine_names``, ``arrivals``, ``departures`` as in the JSON form."""
        return cls.from_dict(
            {
                "capacities": capacities,
                "demands": demands,
                "weights": weights,
                "max_tasks": max_tasks,
                "users": users,
                "resources": resources,
                **setting,
            }
        )

    @classmethod
    def from_network(cls, graph: object, flows: Mapping) -> Instance:
        """The instance of flows routed over a network (`fairlab.core.network`): links and
        middleboxes with a ``capacity`` are the resources, each flow's demand is its route's load
        on each of them, names kept. `graph`: a networkx graph or its JSON form."""
        from fairlab.core import network

        data, _ = network.read(graph, flows)
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Instance:
        if not isinstance(data, Mapping):
            raise InputError(f"instance: expected a JSON object, got {type(data).__name__}")
        if "network" in data:  # flows over a network (`from_network`'s JSON form)
            from fairlab.core import network

            return cls.from_dict(network.from_dict(data)[0])
        unknown = [k for k in data if k not in KNOWN_KEYS]
        if unknown:
            raise InputError(f"instance: unknown key {short_text(unknown[0])} (known: {', '.join(KNOWN_KEYS)})")
        machines = _parse_machines(data.get("machines"))
        if data.get("capacities") is None:
            if machines is None:
                raise InputError("capacities: missing")
            caps_raw = [sum(column) for column in zip(*machines)]
            for r, total in enumerate(caps_raw):
                if total <= 0:  # a field the user never wrote: name the machines and the resource
                    names = data.get("resources")
                    label = (names[r] if isinstance(names, Sequence) and not isinstance(names, (str, bytes))
                             and len(names) == len(caps_raw) and isinstance(names[r], str) else f"r{r + 1}")
                    raise InputError(f"machines: resource {label} has capacity 0 on every machine")
        else:
            caps_raw = data["capacities"]
        if not isinstance(caps_raw, Sequence) or isinstance(caps_raw, (str, bytes)) or len(caps_raw) == 0:
            raise InputError(f"capacities: expected a non-empty list of positive numbers, got {short_text(caps_raw)}")
        capacities = tuple(to_fraction(v, f"capacities[{j}]") for j, v in enumerate(caps_raw))
        for j, c in enumerate(capacities):
            if c <= 0:
                raise InputError(f"capacities[{j}]: must be positive, got {short_text(caps_raw[j])}")
        m = len(capacities)

        if data.get("demands") is None:
            raise InputError("demands: missing")
        dem_raw = data["demands"]
        if not isinstance(dem_raw, Sequence) or isinstance(dem_raw, (str, bytes)) or len(dem_raw) == 0:
            raise InputError(f"demands: expected a non-empty list of rows, got {short_text(dem_raw)}")
        demands = []
        for i, row in enumerate(dem_raw):
            if type(row) is not list and (not isinstance(row, Sequence) or isinstance(row, (str, bytes))):
                raise InputError(f"demands[{i}]: expected a list of {m} numbers, got {short_text(row)}")
            if len(row) != m:
                raise InputError(f"demands[{i}]: has {len(row)} entries but there are {m} capacities (ragged matrix)")
            parsed = _fast_row(row)
            if parsed is None:  # anything but non-negative ints and Fractions: read and checked one by one
                parsed = tuple(to_fraction(v, f"demands[{i}][{j}]") for j, v in enumerate(row))
                for j, d in enumerate(parsed):
                    if d < 0:
                        raise InputError(f"demands[{i}][{j}]: must be non-negative, got {short_text(row[j])}")
            if all(d == 0 for d in parsed):
                raise InputError(f"demands[{i}]: all zero; every user must demand some resource")
            demands.append(parsed)
        n = len(demands)

        weights, weights_given = _parse_weights(data.get("weights"), n, m)
        max_tasks = _parse_max_tasks(data.get("max_tasks"), n)
        users = _parse_names(data.get("users"), n, "users", default=[f"u{i + 1}" for i in range(n)])
        resources = _parse_names(data.get("resources"), m, "resources", default=[f"r{j + 1}" for j in range(m)])
        machine_names = None
        if machines is not None:
            _check_machines(machines, capacities)
            machine_names = _parse_names(data.get("machine_names"), len(machines), "machine_names",
                                         default=[f"m{k + 1}" for k in range(len(machines))])
        elif data.get("machine_names") is not None:
            raise InputError("machine_names: given without machines")
        events = _parse_events(data.get("arrivals"), data.get("departures"), users)
        if machines is not None and events is not None:
            raise InputError("machines and arrivals: one instance describes one setting (several machines "
                             "or agents over time), not both")
        if (machines is not None or events is not None) and weights_given != "none":
            raise InputError("weights: not modelled with machines or arrivals (the sources define these "
                             "settings for unweighted users)")
        if events is not None and any(t is not None for t in max_tasks):
            raise InputError("max_tasks: not modelled with arrivals (Kash, Procaccia & Shah's agents have "
                             "no task caps)")
        return cls(capacities, tuple(demands), weights, max_tasks, users, resources, weights_given,
                   machines, machine_names, events)

    @classmethod
    def from_json(cls, text: str, source: str = "instance") -> Instance:
        with without_collector():  # no cycles made while reading (see there)
            return cls.from_dict(parse_json(text, source))

    @classmethod
    def resolve(cls, value: Instance | Mapping[str, Any] | str | os.PathLike) -> Instance:
        """The instance `value` names, whatever the way: an `Instance` (returned as it is), its
        JSON-shaped dict, a path to a JSON file, or a shipped example's name (``"thm1-asset-si"``,
        see `examples()`). The one reader behind every API and CLI argument that takes an instance."""
        if isinstance(value, Instance):
            return value
        if isinstance(value, Mapping):
            return cls.from_dict(value)
        if isinstance(value, (str, os.PathLike)):
            return cls.load(value)
        raise InputError(
            f"instance: expected an Instance, a dict, a path or an example name, got {type(value).__name__}"
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Instance:
        """Read an instance from a JSON file (or a shipped example's name, see `examples()`)."""
        if not str(path).strip():
            raise InputError("instance: the path is empty")
        path_obj = Path(path)
        if not path_obj.exists():
            shipped = EXAMPLES_DIR / f"{path}.json"
            if shipped.exists():
                path_obj = shipped
            else:
                hint = did_you_mean(str(path), examples())
                raise InputError(f"instance: no such file or shipped example {str(path)!r}"
                                 f"{hint or ' (see fairlab examples)'}")
        try:
            with path_obj.open("rb") as file:
                text = read_capped(file, repr(str(path)))
        except OSError as exc:
            raise InputError(f"instance: cannot read {str(path)!r}: {exc}") from None
        return cls.from_json(text, str(path))

    # ----------------------------------------------------------------- views
    @property
    def setting(self) -> str:
        """"pool" (one divisible pool), "machines" (whole tasks on `machines`) or "dynamic" (`events`)."""
        if self.machines is not None:
            return "machines"
        return "dynamic" if self.events is not None else "pool"

    @property
    def k(self) -> int:
        """Number of machines (1 for a pool or a dynamic instance: one machine, the pool)."""
        return 1 if self.machines is None else len(self.machines)

    @property
    def arrivals(self) -> tuple[int, ...] | None:
        """User indices in arrival order (None for a static instance)."""
        return None if self.events is None else tuple(i for kind, i in self.events if kind == "arrive")

    def pooled(self) -> Instance:
        """The same users and resources as one pool: machines summed, arrivals dropped (the
        continuous relaxation DRF paper §6.2 compares the discrete placement with)."""
        return Instance.from_dict({k: v for k, v in self.to_dict().items()
                                   if k not in ("machines", "machine_names", "arrivals", "departures")})

    @property
    def n(self) -> int:
        return len(self.demands)

    @property
    def m(self) -> int:
        return len(self.capacities)

    def scalar_weights(self) -> tuple[Fraction, ...] | None:
        """Per-user scalar weights, or None if some user's weight vector is not constant."""
        out = []
        for row in self.weights:
            first = row[0]
            top, bottom = first.numerator, first.denominator  # lowest terms: equal values, equal pairs
            if any(w.numerator != top or w.denominator != bottom for w in row):
                return None
            out.append(first)
        return tuple(out)

    def demand_share(self, i: int, r: int) -> Fraction:
        """Fraction of resource r one task of user i takes."""
        return self.demands[i][r] / self.capacities[r]

    def dominant_share_per_task(self, i: int) -> Fraction:
        """max_r d_ir / c_r: the dominant share one task of user i takes (unweighted)."""
        return max(self.demand_share(i, r) for r in range(self.m))

    def weighted_dominant_share_per_task(self, i: int) -> Fraction:
        """max_r d_ir / (c_r w_ir): §4.3 of the DRF paper (equals the unweighted one / w_i for scalar weights)."""
        return max(self.demand_share(i, r) / self.weights[i][r] for r in range(self.m))

    def solo_tasks(self, i: int) -> Fraction:
        """Tasks user i runs with the whole system to itself (capped by its task cap)."""
        best = min(self.capacities[r] / self.demands[i][r] for r in range(self.m) if self.demands[i][r] > 0)
        cap = self.max_tasks[i]
        return best if cap is None else min(best, cap)

    def _repr_html_(self) -> str:
        """A notebook table: users' demands per resource (weights, caps where given), capacities."""
        from fairlab.core.results import instance_html

        return f"<div><small>fairlab instance, {self.n} users × {self.m} resources</small>{instance_html(self)}</div>"

    def to_dict(self) -> dict:
        """JSON-shaped dict with exact numbers written as strings ("45/11", "3")."""
        out: dict[str, Any] = {
            "capacities": [_num(c) for c in self.capacities],
            "demands": [[_num(d) for d in row] for row in self.demands],
        }
        if self.weights_given == "scalar":
            out["weights"] = [_num(row[0]) for row in self.weights]
        elif self.weights_given == "vector":
            out["weights"] = [[_num(w) for w in row] for row in self.weights]
        if any(t is not None for t in self.max_tasks):
            out["max_tasks"] = [None if t is None else _num(t) for t in self.max_tasks]
        out["users"] = list(self.users)
        out["resources"] = list(self.resources)
        if self.machines is not None:
            out["machines"] = [[_num(c) for c in row] for row in self.machines]
            out["machine_names"] = list(self.machine_names or ())
        if self.events is not None:
            out["arrivals"] = [self.users[i] for kind, i in self.events if kind == "arrive"]
            departures, arrived = [], 0
            for kind, i in self.events:
                if kind == "arrive":
                    arrived += 1
                else:
                    departures.append({"user": self.users[i], "after": arrived})
            if departures:
                out["departures"] = departures
        return out

    def replace(self, **changes: Any) -> Instance:
        """A validated copy with some fields replaced (raw values accepted as in `build`)."""
        data = self.to_dict()
        data.update({k: v for k, v in changes.items()})
        if "demands" in changes and "users" not in changes and len(changes["demands"]) != self.n:
            data["users"] = None
            if "max_tasks" not in changes:
                data["max_tasks"] = None
            if "weights" not in changes:
                data["weights"] = None
        if "capacities" in changes and "resources" not in changes and len(changes["capacities"]) != self.m:
            data["resources"] = None
        return Instance.from_dict(data)


#: what the API takes as an instance (`Instance.resolve`): an `Instance`, its JSON-shaped dict, a path
#: to a JSON file, or a shipped example's name
InstanceLike = Instance | Mapping[str, Any] | str | os.PathLike[str]

_INT_ROW = {int}
_EXACT_ROW = {int, Fraction}
_FRACTION_ROW = {Fraction}
_numerator = attrgetter("numerator")


def _new_fraction(numerator: int, denominator: int) -> Fraction:
    """Fraction(numerator, denominator) for Python ints already in lowest terms with denominator > 0.
    The public constructor: filling a bare object's ``_numerator``/``_denominator`` would skip its
    gcd, but those are private attributes of the standard library (the lab uses no private API)."""
    return Fraction(numerator, denominator)


def _int_fraction(value: int) -> Fraction:
    """Fraction(value) for a Python int (the constructor's quickest path: an int alone)."""
    return Fraction(value)


#: Fraction(k) for the small non-negative integers most demands are (Fractions are immutable: shared)
_SMALL = tuple(_int_fraction(k) for k in range(1024))


def _fast_row(row: Any) -> tuple[Fraction, ...] | None:
    """A demand row of exact JSON numbers (ints, and the Fractions `parse_json` makes of decimals),
    none negative, as Fractions; None for anything else (the caller reads it entry by entry, with
    its one-line errors)."""
    kinds = set(map(type, row))
    if kinds <= _INT_ROW:
        if not row or min(row) < 0:
            return None
        if max(row) < len(_SMALL):
            return tuple(map(_SMALL.__getitem__, row))
        return tuple(map(_int_fraction, row))
    if kinds <= _EXACT_ROW:
        if not row or min(map(_numerator, row)) < 0:
            return None
        if kinds == _FRACTION_ROW:
            return tuple(row)
        return tuple(_int_fraction(v) if type(v) is int else v for v in row)
    return None


def _num(x: Fraction) -> int | str:
    return int(x) if x.denominator == 1 else format_exact(x)


def _parse_weights(raw: Any, n: int, m: int) -> tuple[tuple[tuple[Fraction, ...], ...], str]:
    if raw is None:
        ones = (Fraction(1),) * m  # Fractions are immutable: one row shared by every user
        return (ones,) * n, "none"
    if not isinstance(raw, Sequence) or isinstance(raw, (str, bytes)) or len(raw) != n:
        raise InputError(f"weights: expected one weight (or weight vector) per user ({n} users), got {short_text(raw)}")
    rows = []
    kinds = set()
    for i, w in enumerate(raw):
        if isinstance(w, Sequence) and not isinstance(w, (str, bytes)):
            if len(w) != m:
                raise InputError(
                    f"weights[{i}]: a weight vector needs {m} entries (one per resource), got {short_text(w)}"
                )
            row = tuple(to_fraction(v, f"weights[{i}][{j}]") for j, v in enumerate(w))
            kinds.add("vector")
        else:
            row = (to_fraction(w, f"weights[{i}]"),) * m
            kinds.add("scalar")
        for j, v in enumerate(row):
            if v <= 0:
                where = f"weights[{i}][{j}]" if "vector" in kinds and isinstance(w, Sequence) else f"weights[{i}]"
                raise InputError(f"{where}: must be positive, got {short_text(w)}")
        rows.append(row)
    if len(kinds) > 1:
        raise InputError("weights: mix of scalars and vectors; give all users a scalar or all a vector")
    return tuple(rows), kinds.pop()


def _parse_machines(raw: Any) -> tuple[tuple[Fraction, ...], ...] | None:
    """`machines`: a non-empty list of capacity vectors (one per machine), or None."""
    if raw is None:
        return None
    if not isinstance(raw, Sequence) or isinstance(raw, (str, bytes)) or len(raw) == 0:
        raise InputError(f"machines: expected a non-empty list of capacity vectors, got {short_text(raw)}")
    rows = []
    for k, row in enumerate(raw):
        if not isinstance(row, Sequence) or isinstance(row, (str, bytes)) or len(row) == 0:
            raise InputError(f"machines[{k}]: expected a list of capacities, got {short_text(row)}")
        if len(row) != len(raw[0]):
            raise InputError(f"machines[{k}]: has {len(row)} entries but machines[0] has {len(raw[0])} (ragged)")
        parsed = tuple(to_fraction(v, f"machines[{k}][{j}]") for j, v in enumerate(row))
        for j, c in enumerate(parsed):
            if c < 0:
                raise InputError(f"machines[{k}][{j}]: must be non-negative, got {short_text(row[j])}")
        if all(c == 0 for c in parsed):
            raise InputError(f"machines[{k}]: all zero; a machine must have some capacity")
        rows.append(parsed)
    return tuple(rows)


def _check_machines(machines: Sequence[Sequence[Fraction]], capacities: Sequence[Fraction]) -> None:
    """The pooled capacities are the machines' sum (when both are given they must agree)."""
    if len(machines[0]) != len(capacities):
        raise InputError(f"machines: each has {len(machines[0])} entries but there are {len(capacities)} capacities")
    for r, c in enumerate(capacities):
        total = sum(row[r] for row in machines)
        if total != c:
            raise InputError(f"capacities[{r}]: {format_exact(c)} is not the machines' total {format_exact(total)}"
                             " (omit capacities to use the total)")


def _user_index(value: Any, users: Sequence[str], where: str) -> int:
    if isinstance(value, str) and value in users:
        return users.index(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(users):
        return value
    raise InputError(f"{where}: not a user name or 0-based index, got {short_text(value)}")


def _parse_events(arrivals: Any, departures: Any, users: Sequence[str]) -> tuple[tuple[str, int], ...] | None:
    """`arrivals` (every user once, in order) and `departures` ([{"user": U, "after": k}]: U leaves
    after the k-th arrival) as one event sequence; None when there are no arrivals."""
    if arrivals is None:
        if departures is not None:
            raise InputError("departures: given without arrivals")
        return None
    if not isinstance(arrivals, Sequence) or isinstance(arrivals, (str, bytes)):
        raise InputError(f"arrivals: expected a list of users in arrival order, got {short_text(arrivals)}")
    order = [_user_index(v, users, f"arrivals[{t}]") for t, v in enumerate(arrivals)]
    if sorted(order) != list(range(len(users))):
        count = f"{len(users)} user{'s' if len(users) != 1 else ''}"
        raise InputError(f"arrivals: must list every user exactly once ({count}), got {short_text(arrivals)}")
    leaving: dict[int, list[int]] = {}
    if departures is not None:
        if not isinstance(departures, Sequence) or isinstance(departures, (str, bytes)):
            raise InputError(f"departures: expected a list of {{\"user\": U, \"after\": k}}, "
                             f"got {short_text(departures)}")
        gone = set()
        for t, item in enumerate(departures):
            if not isinstance(item, Mapping) or set(item) != {"user", "after"}:
                raise InputError(f"departures[{t}]: expected {{\"user\": U, \"after\": k}}, got {short_text(item)}")
            i = _user_index(item["user"], users, f"departures[{t}].user")
            after = item["after"]
            if isinstance(after, bool) or not isinstance(after, int) or not 1 <= after <= len(users):
                raise InputError(f"departures[{t}].after: expected an arrival count 1..{len(users)}, "
                                 f"got {short_text(after)}")
            if order.index(i) + 1 > after:
                raise InputError(f"departures[{t}]: {users[i]} leaves after arrival {after} "
                                 f"but arrives at {order.index(i) + 1}")
            if i in gone:
                raise InputError(f"departures[{t}]: {users[i]} leaves twice")
            gone.add(i)
            leaving.setdefault(after, []).append(i)
    events = []
    for t, i in enumerate(order, start=1):
        events.append(("arrive", i))
        events.extend(("depart", j) for j in leaving.get(t, []))
    return tuple(events)


def _parse_max_tasks(raw: Any, n: int) -> tuple[Fraction | None, ...]:
    if raw is None:
        return (None,) * n
    if not isinstance(raw, Sequence) or isinstance(raw, (str, bytes)) or len(raw) != n:
        raise InputError(f"max_tasks: expected one cap (or null) per user ({n} users), got {short_text(raw)}")
    out: list[Fraction | None] = []
    for i, v in enumerate(raw):
        if v is None:
            out.append(None)
            continue
        t = to_fraction(v, f"max_tasks[{i}]")
        if t < 0:
            raise InputError(f"max_tasks[{i}]: must be non-negative or null, got {short_text(v)}")
        out.append(t)
    return tuple(out)


def _parse_names(raw: Any, count: int, field: str, default: list[str]) -> tuple[str, ...]:
    if raw is None:
        return tuple(default)
    if not isinstance(raw, Sequence) or isinstance(raw, (str, bytes)) or len(raw) != count:
        raise InputError(f"{field}: expected {count} names, got {short_text(raw)}")
    names = []
    for k, v in enumerate(raw):
        if not isinstance(v, str) or not v.strip():
            raise InputError(f"{field}[{k}]: expected a non-empty name, got {short_text(v)}")
        names.append(v)
    if len(set(names)) != len(names):
        raise InputError(f"{field}: names must be distinct, got {short_text(raw)}")
    return tuple(names)


EXAMPLES_DIR = Path(__file__).resolve().parents[1] / "examples"


def examples() -> dict[str, Path]:
    """The shipped example instances, by name (usable wherever an INSTANCE path is)."""
    return {p.stem: p for p in sorted(EXAMPLES_DIR.glob("*.json"))}
