"""What the dynamic properties (agents over time, Kash, Procaccia & Shah, JAIR 51 (2014) §3) share.

A dynamic mechanism's allocation has ``steps``: the allocation after each event of the instance
(`fairlab.mechanisms.base.Step`). A dynamic property is checked exactly at EVERY step; its witness
names the step (``"step": s``, 1-based: the allocation after the s-th event; without departures
the s-th event is the s-th arrival, KPS's "step k") and `confirm` re-verifies it from scratch (a
fresh exact run of the mechanism, exact arithmetic).

Source note: the lab's reference search reached only the paper's opening pages (title, abstract,
introduction: JAIR page copies at vdocuments.us and paperzz.com) and the lecture slide ("no
reallocation allowed [Kash, Procaccia, Shah 2013]"); the definitions here follow KPS's wording as
the lab's brief states it (water-filling with at most k/n of each resource; DEF's exact words), and the
section numbers cited are to be checked against JAIR 51:579-603.

`run_steps` is the one place these properties obtain a dynamic allocation: exact only, and every
step checked feasible (non-negative, within the capacities, nothing for a user not present).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Sequence, overload

from fairlab.core.errors import InexactAllocation, InputError
from fairlab.core.exact import Exact, format_exact, to_fraction
from fairlab.core.instance import Instance
from fairlab.core.results import Status
from fairlab.mechanisms.base import Step, check_feasible
from fairlab.properties.base import resolve_instance, resolve_mechanism, verdict, violated
from fairlab.properties.property import Property, Witness, not_defined


# --------------------------------------------------------------------------- witnesses
@dataclass(frozen=True, eq=False)
class StepUserWitness(Witness):
    """dynamic-si, no-takeback: at `step` (1-based event index), `user` is harmed."""

    step: int
    user: int


@dataclass(frozen=True, eq=False)
class StepEnvyWitness(Witness):
    """dynamic-ef: at `step`, `user` envies `envied`, which KPS's exception does not cover."""

    step: int
    user: int
    envied: int


@dataclass(frozen=True, eq=False)
class StepImprovementWitness(Witness):
    """dynamic-dpo, dynamic-pe-free: at `step`, the allocation `improvement` (tasks per user, within
    the step's budget) dominates, `user` strictly gaining."""

    step: int
    user: int
    improvement: list


@dataclass(frozen=True, eq=False)
class StepMisreportWitness(Witness):
    """dynamic-sp: declaring `misreport`, `user` runs more true tasks at `step`."""

    step: int
    user: int
    misreport: list


def number(value: Fraction):
    return int(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


# --------------------------------------------------------------------------- exact runs
def run_steps(mechanism, instance: Instance, options) -> tuple[Step, ...]:
    """The mechanism's exact allocation after every event, each step checked feasible."""
    allocation = mechanism(instance, **dict(options or {}))
    if not allocation.is_exact():
        raise InexactAllocation(f"{mechanism.name}'s allocation is {allocation.describe_exactness()}; "
                                "dynamic properties are decided on exact allocations only")
    steps = allocation.steps
    events = instance.events or ()
    if steps is None or len(steps) != len(events):
        raise InputError(f"mechanism {mechanism.name!r}: gave {0 if steps is None else len(steps)} steps for "
                         f"{len(events)} events (a dynamic mechanism gives the allocation after each event)")
    for s, step in enumerate(steps, start=1):
        check_feasible(instance, step.tasks, f"mechanism {mechanism.name!r} at step {s}")
        for i, t in enumerate(step.tasks):
            if i not in step.present and t != 0:
                raise InputError(f"mechanism {mechanism.name!r}: at step {s} user {i} is not present but gets "
                                 f"{format_exact(t)} tasks")
    return tuple(steps)


def present_sets(instance: Instance) -> list[tuple[int, ...]]:
    """Who is present after each event (from the instance, not the mechanism)."""
    here: list[int] = []
    out = []
    for kind, i in instance.events or ():
        here = here + [i] if kind == "arrive" else [j for j in here if j != i]
        out.append(tuple(sorted(here)))
    return out


def arrivals_until(instance: Instance, s: int) -> int:
    """Number of arrivals among the first s events (KPS's k at step s)."""
    return sum(kind == "arrive" for kind, _ in (instance.events or ())[:s])


def arrival_event(instance: Instance, i: int) -> int:
    """1-based index of user i's arrival event."""
    return next(k for k, (kind, j) in enumerate(instance.events or (), start=1) if kind == "arrive" and j == i)


@overload
def utility(instance: Instance, i: int, bundle: Sequence[Fraction]) -> Fraction: ...
@overload
def utility(instance: Instance, i: int, bundle: Sequence[Exact]) -> Exact: ...
def utility(instance: Instance, i: int, bundle: Sequence[Exact]) -> Exact:
    """User i's Leontief utility (tasks, continuous) of a resource bundle."""
    return min(bundle[r] / instance.demands[i][r] for r in range(instance.m) if instance.demands[i][r] > 0)


def bundle(instance: Instance, j: int, tasks_j: Exact, row=None) -> tuple[Exact, ...]:
    row = instance.demands[j] if row is None else row
    return tuple(tasks_j * d for d in row)


def loads(instance: Instance, tasks: Sequence[Fraction]) -> list[Fraction]:
    """Fraction of each resource in use."""
    return [sum((t * instance.demands[i][r] for i, t in enumerate(tasks)), Fraction(0)) / instance.capacities[r]
            for r in range(instance.m)]


def improvement_within(instance: Instance, tasks, present, limit: Fraction):
    """(user, dominating allocation) using at most `limit` of each resource, or None: a dominating
    allocation exists iff the allocation is within `limit` and some present user uses only
    resources below it (loads only grow with tasks, so a user on a resource at the limit cannot gain)."""
    load = loads(instance, tasks)
    if any(x > limit for x in load):
        return None
    for i in present:
        used = [r for r in range(instance.m) if instance.demands[i][r] > 0]
        if all(load[r] < limit for r in used):
            extra = min((limit - load[r]) * instance.capacities[r] / instance.demands[i][r] for r in used)
            better = list(tasks)
            better[i] += extra
            return i, better
    return None


def dominates_within(instance: Instance, tasks, present, improvement, user: int, limit: Fraction) -> bool:
    """`improvement` gives every present user at least its tasks, `user` more, absent users nothing,
    and uses at most `limit` of each resource."""
    if any(t < 0 for t in improvement) or not improvement[user] > tasks[user]:
        return False
    if any(improvement[i] < tasks[i] for i in present) or any(improvement[i] != 0 for i in range(instance.n)
                                                              if i not in present):
        return False
    return all(x <= limit for x in loads(instance, improvement))


def find_improvement(instance: Instance, steps, s: int, limit: Fraction):
    """The `StepImprovementWitness` of a dominating allocation within `limit` at step s, or None
    (the `find` of dynamic-dpo, limit k/n, and dynamic-pe-free, limit 1)."""
    found = improvement_within(instance, steps[s - 1].tasks, present_sets(instance)[s - 1], limit)
    if found is None:
        return None
    i, better = found
    return StepImprovementWitness(s, i, [number(t) for t in better])


def confirmed_improvement(instance: Instance, steps, witness, limit: Fraction):
    """(its improvement, the present users, the step's tasks) when the witness's allocation
    dominates step `witness.step` within `limit` with its user gaining, else None (for `explain`)."""
    s, i = witness.step, witness.user
    better = read_vector(witness.improvement, instance.n, "witness improvement")
    here = present_sets(instance)[s - 1]
    tasks = steps[s - 1].tasks
    if better is None or i not in here or not dominates_within(instance, tasks, here, better, i, limit):
        return None
    return better, here, tasks


# --------------------------------------------------------------------------- the property class
@dataclass(eq=False)
class StepProperty(Property):
    """A dynamic property checked at every step of one allocation: ``find(instance, steps, s)`` ->
    the witness of a violation at step s (1-based) or None; ``explain(instance, steps, witness)``
    the words, or None if the witness shows nothing (`confirm` calls it on a fresh run)."""

    find: Callable = not_defined
    explain: Callable = not_defined

    def _check(self, mech, inst, b):
        steps = run_steps(mech, inst, b.options)
        b.used_evaluations = 1
        for s in range(1, len(steps) + 1):
            witness = self.find(inst, steps, s)
            if witness is not None:
                return violated(self.name, mech, inst, witness, b, steps=len(steps)).replace(exactness="rational")
        return verdict(self.name, mech, "holds", b, f"exact check at every one of the {len(steps)} steps",
                       steps=len(steps)).replace(exactness="rational")

    def confirm(self, mechanism, instance, witness, options):
        inst = resolve_instance(instance)
        w = self.witness.from_dict(witness)
        s = getattr(w, "step", None)  # every step witness has one
        if isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= len(inst.events or ()):
            return None
        for f in dataclasses.fields(w):
            value = getattr(w, f.name)
            if f.name in ("user", "envied") and (isinstance(value, bool) or not isinstance(value, int)
                                                 or not 0 <= value < inst.n):
                return None
        steps = run_steps(resolve_mechanism(mechanism), inst, options)
        return self.explain(inst, steps, w)


def read_vector(raw, length: int, what: str) -> list[Fraction] | None:
    if not isinstance(raw, (list, tuple)) or len(raw) != length:
        return None
    try:
        return [to_fraction(v, what) for v in raw]
    except InputError:
        return None


def none_found(name, mech, b, text, **used):
    return verdict(name, mech, Status.NONE_FOUND.value, b, text, **used)
