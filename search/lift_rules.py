"""The lifting rules: how a finding at n users × m resources becomes one at N × M (`fairlab.search.lift`).

A lifted instance is the base instance with M − m resources and N − n users appended (the base's
users and resources keep their indices, so a witness naming them still names them):

* **resources** — every added resource is a copy of ONE new column built from the base:

  - ``mean-column``: user i demands its *mean share* of the base's resources,
    ``(1/m) Σ_r d_ir / c_r``, of a resource of capacity ``(1/m) Σ_r c_r / c_r = 1`` (each machine k:
    ``(1/m) Σ_r c_kr / c_r``; scaled to 1 per machine when the machines are alike, as with unit
    capacities). Its load is the mean of the base's load ratios, so it is implied by them
    (saturated only when every base resource is), it is never a user's strictly largest share, and the
    Leontief utility of any bundle is unchanged by it (a ratio of weighted sums is at least the least
    ratio). Positive demands stay positive; a weight vector gets ``max_r w_ir`` for it.
  - ``copy-column:r``: a copy of resource r (its demands, its capacity on every machine, its weights).

  A deviation of the witness over resources is extended by the same column: a misreport row
  gets the column's value of that row, grown capacities the column's value of those capacities
  (so the deviated instance is the lift of the base's deviated instance).

* **users** — every added user is the same kind of user:

  - ``clone:j``: an identical copy of user j (demands, weights, task cap; arriving after every
    event of the base in the dynamic setting);
  - ``inert``: a user whose one task fits nowhere — twice the largest capacity of every resource —
    so it runs nothing in any feasible allocation. Only where tasks are whole (machines, a discrete
    mechanism, an indivisible impossibility): a divisible pool gives such a user a share.

Which rule keeps a violation depends on the mechanism and the property: `fairlab.search.lift`
tries them in a fixed order and keeps the first whose lifted finding re-verifies exactly.
This module only builds; it decides nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

from fairlab.core.domain import Domain
from fairlab.core.exact import to_fraction
from fairlab.core.instance import Instance

MEAN = "mean-column"
COPY = "copy-column"
CLONE = "clone"
INERT = "inert"

#: witness fields that name users or resources of the base (unchanged by a lift: indices are kept)
INDEX_FIELDS = ("user", "envied", "removed", "resource", "other", "step")
#: witness fields that are a vector over resources: extended by the column rule
ROW_FIELDS = ("misreport",)
CAPACITY_FIELDS = ("capacities",)


# --------------------------------------------------------------------------- the domain a lift keeps
def tightest(instance: Instance) -> Domain:
    """The narrowest domain containing `instance` (each field at the first level that admits it)."""
    positive = all(d > 0 for row in instance.demands for d in row)
    if all(w == 1 for row in instance.weights for w in row):
        weights = "none"
    elif all(len(set(row)) == 1 for row in instance.weights):
        weights = "scalar"
    else:
        weights = "vector"
    pools = list(instance.machines) if instance.machines is not None else [instance.capacities]
    unit = all(c == 1 for pool in pools for c in pool)
    departs = instance.events is not None and any(kind == "depart" for kind, _ in instance.events)
    return Domain(demands="positive" if positive else "nonnegative", weights=weights,
                  caps="allowed" if any(t is not None for t in instance.max_tasks) else "none",
                  capacities="unit" if unit else "arbitrary", departures="allowed" if departs else "none")


def union(a: Domain, b: Domain) -> Domain:
    """The narrowest domain containing both (each field the wider of the two)."""
    from fairlab.core.domain import LEVELS

    return Domain(**{k: max(getattr(a, k), getattr(b, k), key=LEVELS[k].index) for k in LEVELS})


# --------------------------------------------------------------------------- rules
@dataclass(frozen=True)
class ColumnRule:
    """How one added resource is built from the base (see the module docstring)."""

    kind: str  # MEAN | COPY
    resource: int | None = None  # COPY: the copied resource
    scale: Fraction = Fraction(1)  # MEAN: a common factor of the column (capacity 1 per machine when alike)

    @property
    def name(self) -> str:
        return MEAN if self.kind == MEAN else f"{COPY}:{self.resource}"

    def value(self, row: Sequence[Fraction], base_capacities: Sequence[Fraction]) -> Fraction:
        """The new column's entry for a row over the base's resources (a demand row, a misreport, a
        machine's or the pool's capacities): the scaled mean of its shares, or its entry r."""
        if self.kind == COPY:
            assert self.resource is not None  # a copy names its resource
            return Fraction(row[self.resource])
        m = len(base_capacities)
        return self.scale * sum((Fraction(x) / c for x, c in zip(row, base_capacities, strict=True)),
                                Fraction(0)) / m

    def weight(self, weights: Sequence[Fraction]) -> Fraction:
        """A weight vector's entry for the new resource."""
        return Fraction(weights[self.resource]) if self.kind == COPY and self.resource is not None else max(weights)


def column_rules(base: Instance) -> list[ColumnRule]:
    """The resource rules in the order they are tried: the mean column, then a copy of each resource."""
    mean = ColumnRule(MEAN)
    if base.machines is not None:
        per_machine = {mean.value(machine, base.capacities) for machine in base.machines}
        if len(per_machine) == 1:  # machines alike (unit capacities): capacity 1 on each
            mean = ColumnRule(MEAN, scale=1 / per_machine.pop())
    return [mean, *(ColumnRule(COPY, r) for r in range(base.m))]


@dataclass(frozen=True)
class UserRule:
    """How one added user is built from the base (see the module docstring)."""

    kind: str  # CLONE | INERT
    user: int | None = None  # CLONE: the copied user

    @property
    def name(self) -> str:
        return INERT if self.kind == INERT else f"{CLONE}:{self.user}"


def user_rules(base: Instance, whole_tasks: bool, named: Sequence[int] = ()) -> list[UserRule]:
    """The user rules in the order they are tried: an inert user where tasks are whole, then a clone of
    each user — those the witness does not name first (a clone of a user the violation is about moves
    it most), each group by index."""
    others = [j for j in range(base.n) if j not in named]
    return [*([UserRule(INERT)] if whole_tasks else []),
            *(UserRule(CLONE, j) for j in [*others, *[j for j in range(base.n) if j in named]])]


# --------------------------------------------------------------------------- building
def _fresh(names: Sequence[str], stem: str) -> str:
    k = 1
    while f"{stem}{k}" in names:
        k += 1
    return f"{stem}{k}"


def lift_instance(inst: Instance, base: Instance, users: int, resources: int, user_rule: UserRule | None,
                  column: ColumnRule | None) -> Instance:
    """`inst` (the base itself, or a member of its family / a deviated instance whose rows follow the
    base's) with `users` users of `user_rule` appended, then `resources` copies of `column` appended to
    every row (the added users' too). The column is computed against the BASE's capacities, so every
    member of a family gets the same column; a clone copies the BASE's row of its user (in an sp
    member, the truthful one); an inert user asks twice the largest capacity of every resource."""
    data = inst.to_dict()
    demands = [list(row) for row in inst.demands]
    weights = [list(row) for row in inst.weights]
    max_tasks = list(inst.max_tasks)
    user_names = list(inst.users)
    events = data.get("arrivals")
    machines = [list(row) for row in inst.machines] if inst.machines is not None else None
    capacities = list(inst.capacities)
    pools = machines if machines is not None else [capacities]
    for _ in range(users):
        assert user_rule is not None  # users are added by a rule
        if user_rule.kind == CLONE:
            j = user_rule.user
            assert j is not None  # a clone names its user
            demands.append(list(base.demands[j]))
            weights.append(list(base.weights[j]))
            max_tasks.append(base.max_tasks[j])
            user_names.append(_fresh(user_names, f"{base.users[j]}'"))
        else:
            demands.append([2 * max(pool[r] for pool in pools) for r in range(inst.m)])
            weights.append([Fraction(1)] * inst.m)
            max_tasks.append(None)
            user_names.append(_fresh(user_names, "inert"))
        if events is not None:
            events = [*events, user_names[-1]]
    names = list(inst.resources)
    if resources:
        assert column is not None  # resources are added by a rule
        caps = base.capacities
        for i, row in enumerate(demands):
            extra = column.value(row, caps)
            demands[i] = [*row, *([extra] * resources)]
            weights[i] = [*weights[i], *([column.weight(weights[i])] * resources)]
        if machines is not None:
            machines = [[*row, *([column.value(row, caps)] * resources)] for row in machines]
        capacities = [*capacities, *([column.value(capacities, caps)] * resources)]
        for _ in range(resources):
            names.append(_fresh(names, "r"))
    out: dict[str, Any] = {"demands": demands, "users": user_names, "resources": names}
    if machines is not None:
        out["machines"] = machines
        out["machine_names"] = data.get("machine_names")
    else:
        out["capacities"] = capacities
    if inst.weights_given == "scalar":
        out["weights"] = [row[0] for row in weights]
    elif inst.weights_given == "vector":
        out["weights"] = weights
    if any(t is not None for t in max_tasks):
        out["max_tasks"] = max_tasks
    if events is not None:
        out["arrivals"] = events
        if data.get("departures"):
            out["departures"] = data["departures"]
    return Instance.from_dict(out)


def lift_witness(witness: dict, base: Instance, resources: int, column: ColumnRule | None) -> dict | None:
    """The witness of the lifted instance, field by field (indices kept, vectors over resources
    extended by the column), or None when a field cannot be carried over (an improvement, a lottery:
    the property's own check then finds the lifted witness)."""
    out: dict[str, Any] = {}
    for key, value in witness.items():
        if key in INDEX_FIELDS:
            out[key] = value
        elif key in ROW_FIELDS + CAPACITY_FIELDS and isinstance(value, list) and len(value) == base.m:
            if not resources:
                out[key] = value
                continue
            assert column is not None
            row = [to_fraction(x, f"witness {key}") for x in value]
            out[key] = [*value, *([_json_number(column.value(row, base.capacities))] * resources)]
        else:
            return None
    return out


def lift_allocations(allocations: Sequence[Sequence[Any]], users: int, user_rule: UserRule | None) -> list | None:
    """A non-uniqueness witness's task vectors for the lifted instance: a clone runs what its user
    runs, an inert user nothing (the lifted pair must still pass the exact membership test)."""
    if not users:
        return [list(a) for a in allocations]
    assert user_rule is not None
    out = []
    for a in allocations:
        extra = a[user_rule.user] if user_rule.kind == CLONE and user_rule.user is not None else 0
        out.append([*a, *([extra] * users)])
    return out


def _json_number(value: Fraction) -> int | str:
    return int(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
