"""What the properties of the machines setting share ("many machines, whole tasks").

An instance lists machines (`Instance.machines`), each with its own capacity vector; a task runs
whole on ONE machine. A mechanism of this setting returns a placement (`Allocation.placement`:
placement[i][k] tasks of user i on machine k). Utilities are Leontief per machine: a bundle b on
machine k runs ``min over r with d_ir > 0 of b_r / d_ir`` tasks of user i, whole tasks (the floor)
for a discrete mechanism (`Mechanism.discrete`), and a user's utility is the sum over machines,
capped by its task cap (rounded down for whole tasks). A task never spans machines, so bundles on
different machines do not add up before the floor.

`placement_run` is the one place these properties obtain a placement: a fresh run of the
mechanism, exact rationals only, checked feasible machine by machine (whole tasks for a discrete
mechanism, caps, capacities, row sums = tasks). A lottery (`Allocation.lottery`) is refused here
(no randomized mechanism of this setting is implemented; its ex-ante properties would read the
expected tasks).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Sequence

from fairlab.core.errors import InexactAllocation, InputError
from fairlab.core.exact import format_exact, to_fraction
from fairlab.core.instance import Instance
from fairlab.core.results import Result
from fairlab.properties.base import resolve_instance, resolve_mechanism, verdict, violated
from fairlab.properties.property import ALLOCATION, Property, Witness, not_defined

Placement = tuple[tuple[Fraction, ...], ...]


class UnreadablePlacement(InputError):
    """The mechanism ran but returned nothing these properties can read (a lottery, no placement, an
    infeasible or malformed placement) — unlike the mechanism itself declining the instance."""


_Bad = UnreadablePlacement


# --------------------------------------------------------------------------- running a mechanism
def placement_run(mech, inst: Instance, options) -> Placement:
    """The mechanism's placement on `inst` (fresh run), exact and checked feasible per machine."""
    allocation = mech(inst, **dict(options or {}))
    if not allocation.is_exact_rational():
        raise InexactAllocation(f"{mech.name}'s allocation is {allocation.describe_exactness()}; the machines "
                                "properties decide on exact rational placements only")
    if allocation.placement is None:
        if allocation.lottery is not None:
            raise _Bad(f"{mech.name} returns a lottery; the machines properties read a placement")
        raise _Bad(f"{mech.name} returns no placement (tasks per machine)")
    rows = allocation.placement
    who = f"mechanism {mech.name!r}"
    if len(rows) != inst.n or any(len(row) != inst.k for row in rows):
        raise _Bad(f"{who}: placement is not {inst.n} users × {inst.k} machines")
    for i, row in enumerate(rows):
        for k, x in enumerate(row):
            if not isinstance(x, Fraction) or x < 0 or (mech.discrete and x.denominator != 1):
                raise _Bad(f"{who}: placement[{i}][{k}] = {x!r} is not a non-negative "
                                 f"{'whole number' if mech.discrete else 'number'}")
        if sum(row, Fraction(0)) != allocation.tasks[i]:
            raise _Bad(f"{who}: user {i}'s tasks {format_exact(allocation.tasks[i])} are not its placement's sum")
        cap = inst.max_tasks[i]
        if cap is not None and sum(row, Fraction(0)) > cap:
            raise _Bad(f"{who}: user {i} runs {format_exact(sum(row, Fraction(0)))} tasks, above its cap")
    machines, names = inst.machines or (), inst.machine_names or ()
    for k in range(inst.k):
        for r in range(inst.m):
            load = sum((rows[i][k] * inst.demands[i][r] for i in range(inst.n)), Fraction(0))
            if load > machines[k][r]:
                raise _Bad(f"{who}: machine {names[k]} over capacity on {inst.resources[r]} "
                                 f"({format_exact(load)} > {format_exact(machines[k][r])})")
    return tuple(tuple(row) for row in rows)


def totals(placement: Placement) -> tuple[Fraction, ...]:
    return tuple(sum(row, Fraction(0)) for row in placement)


# --------------------------------------------------------------------------- utilities
def runs(inst: Instance, i: int, bundle: Sequence[Fraction], integral: bool, demand_row=None) -> Fraction:
    """Tasks of user i (true demand `demand_row`, default its row) that `bundle` runs on ONE machine."""
    row = inst.demands[i] if demand_row is None else demand_row
    value = min(bundle[r] / row[r] for r in range(inst.m) if row[r] > 0)
    return Fraction(math.floor(value)) if integral else value


def capped(inst: Instance, i: int, value: Fraction, integral: bool) -> Fraction:
    cap = inst.max_tasks[i]
    if cap is None:
        return value
    cap = Fraction(math.floor(cap)) if integral else cap
    return min(value, cap)


def machine_share(inst: Instance, i: int, integral: bool) -> Fraction:
    """What user i runs with 1/n of every machine: sum_k floor(min_r c_kr / (n d_ir)), capped."""
    machines = inst.machines or ()
    total = sum((runs(inst, i, [c / inst.n for c in machine], integral) for machine in machines), Fraction(0))
    return capped(inst, i, total, integral)


def pooled_sigma(inst: Instance, i: int) -> Fraction:
    """Dominant share of one task of user i against the pooled capacities (max over resources with C_r > 0)."""
    return max((inst.demands[i][r] / inst.capacities[r] for r in range(inst.m) if inst.capacities[r] > 0),
               default=Fraction(0))


def fmt_vec(values) -> str:
    return "<" + ", ".join(format_exact(v) for v in values) + ">"


def fmt_placement(placement) -> str:
    return "[" + "; ".join(" ".join(format_exact(x) for x in row) for row in placement) + "]"


def read_index(raw, bound: int, field: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw < bound:
        raise InputError(f"witness {field}: expected an index in 0..{bound - 1}, got {raw!r}")
    return raw


def read_placement(raw, inst: Instance, field: str = "improvement") -> Placement:
    if not isinstance(raw, (list, tuple)) or len(raw) != inst.n:
        raise InputError(f"witness {field}: expected {inst.n} rows (users) of {inst.k} numbers (machines)")
    rows = []
    for i, row in enumerate(raw):
        if not isinstance(row, (list, tuple)) or len(row) != inst.k:
            raise InputError(f"witness {field}[{i}]: expected {inst.k} numbers")
        rows.append(tuple(to_fraction(x, f"witness {field}[{i}][{k}]") for k, x in enumerate(row)))
    return tuple(rows)


def number(value: Fraction):
    return int(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


# --------------------------------------------------------------------------- witnesses
@dataclass(frozen=True, eq=False)
class PlacementWitness(Witness):
    """machines-pe: a feasible placement (tasks per user per machine) in which every user runs at least as
    many tasks and `user` strictly more."""

    improvement: list
    user: int


@dataclass(frozen=True, eq=False)
class PairWitness(Witness):
    """thm7-pairwise: `other`'s dominant share exceeds `user`'s by more than one max-task's dominant share."""

    user: int
    other: int


# --------------------------------------------------------------------------- the property shape
@dataclass(eq=False)
class PlacementProperty(Property):
    """A property of one placement, violated iff ``rule(inst, placement, integral, context, *choice)``
    at some choice. ``context(mech, inst, options)`` computes what the rule needs besides the placement
    (e.g. the continuous DRF allocation) or raises InputError when the property does not apply
    (n/a, with the reason); ``explain(inst, placement, integral, context, witness)`` words it."""

    rule: Callable = not_defined
    choices: Callable = not_defined
    explain: Callable = not_defined
    context: Callable | None = None
    compares: str = ALLOCATION
    setting: str = "machines"

    def _context(self, mech, inst, options):
        return None if self.context is None else self.context(mech, inst, options)

    def _check(self, mech, inst, b) -> Result:
        try:
            context = self._context(mech, inst, b.options)
        except InputError as exc:  # the property does not apply to this instance (e.g. Theorem 7's assumptions)
            return verdict(self.name, mech, "n/a", b, str(exc))
        placement = placement_run(mech, inst, b.options)
        b.used_evaluations = 1
        certificate = {"placement": [[number(x) for x in row] for row in placement]}
        for choice in self.choices(inst):
            if self.rule(inst, placement, mech.discrete, context, *choice):
                return violated(self.name, mech, inst, self.witness(*choice), b).replace(
                    certificate=certificate, exactness="rational")
        return verdict(self.name, mech, "holds", b, f"exact check of the placement {fmt_placement(placement)}").replace(
            certificate=certificate, exactness="rational")

    def confirm(self, mechanism, instance, witness, options):
        inst = resolve_instance(instance)
        mech = resolve_mechanism(mechanism)
        w = self.witness.from_dict(witness)
        choice = tuple(getattr(w, f.name) for f in dataclasses.fields(self.witness))
        if any(isinstance(c, bool) for c in choice) or choice not in [tuple(c) for c in self.choices(inst)]:
            return None
        context = self._context(mech, inst, options)
        placement = placement_run(mech, inst, options)
        if not self.rule(inst, placement, mech.discrete, context, *choice):
            return None
        return self.explain(inst, placement, mech.discrete, context, w)

    def encode(self, sym, spec, prefix=None, **kwargs):
        raise InputError(f"property {self.name}: no symbolic encoding (machines setting: exact checks and "
                         "`fairlab.search.machines`)")


def users(inst):
    return [(i,) for i in range(inst.n)]


def pairs(inst):
    return [(i, j) for i in range(inst.n) for j in range(inst.n) if i != j]


__all__ = ["placement_run", "UnreadablePlacement", "totals",
           "runs", "capped", "machine_share", "pooled_sigma", "PlacementWitness",
           "PairWitness", "PlacementProperty", "users", "pairs", "fmt_vec", "fmt_placement", "read_index",
           "read_placement", "number"]
