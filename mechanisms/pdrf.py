"""Precomputed DRF (Metin, "Precomputed Dominant Resource Fairness", §3.4 Algorithm 1), exactly.

PDRF approximates the DRF task loop in closed form: with ds_i the dominant share of one task of
user i and ds* the largest, one "cycle" launches ds*/ds_i tasks of each user; the cycle fits
k = min_r R_r / sum_i (ds*/ds_i) D_ir times; user i gets floor(k ds*/ds_i) tasks. Here every
quantity is exact (the paper's floats made it prefer k over the equal k' = k ds*; exactly they
agree, see `fairlab.mechanisms._pdrf_kernel.pdrf_counts`). Weights scale the dominant shares (§6.3).

Examples: <9, 18>, A <1, 4>, B <3, 1> -> ds* = 1/3 (B), cycle = 3/2 A + 1 B, k = 2 cycles:
A floor(3) = 3, B 2 (as the DRF loop). <59, 19> (PDRF §6.2) -> k = 19/8, A 2, B floor(19/2) = 9,
one task more for B than the DRF loop's `stop` outcome (2, 8).

Beyond the paper (which has neither): a user whose single task exceeds a capacity takes no part
(it could never run; keeping it would make ds* > 1 and shrink every allocation); task caps clamp
the counts after the fact (said in the notes).
"""

from __future__ import annotations

from fractions import Fraction
from types import MappingProxyType

import z3

from fairlab.core.instance import Instance
from fairlab.mechanisms._pdrf_kernel import pdrf_counts
from fairlab.mechanisms._task_problem import from_instance
from fairlab.mechanisms.base import Allocation, Constraint, Mechanism, SymbolicInstance, register, z3_max
from fairlab.mechanisms.drf_tasks import task_notes


def allocate(instance: Instance) -> Allocation:
    problem = from_instance(instance)
    counts = pdrf_counts(problem)
    notes = list(task_notes(instance, problem.too_big))
    for i, cap in enumerate(problem.cap):
        if cap is not None and counts[i] == cap and problem.eligible(i):
            notes.append(f"{instance.users[i]}: capped at {cap} tasks")
    return Allocation("pdrf", instance, tuple(Fraction(t) for t in counts), notes=tuple(notes),
                      extra=MappingProxyType({}))


def reference(instance: Instance) -> tuple[Fraction, ...]:
    """Algorithm 1 lines 7-17 transcribed literally in Fractions (an oracle for the tests)."""
    n, m = instance.n, instance.m
    users = [
        i for i in range(n)
        if all(instance.demands[i][r] <= instance.capacities[r] for r in range(m))
        and ((cap := instance.max_tasks[i]) is None or cap >= 1)
    ]
    tasks = [Fraction(0)] * n
    if not users:
        return tuple(tasks)
    ds = {i: instance.weighted_dominant_share_per_task(i) for i in users}
    ds_star = max(ds.values())  # line 7
    d_total = [Fraction(0)] * m
    for i in users:  # lines 8-10
        for r in range(m):
            d_total[r] += ds_star / ds[i] * instance.demands[i][r]
    k = min(instance.capacities[r] / d_total[r] for r in range(m) if d_total[r] > 0)  # line 12
    for i in users:  # lines 14-17
        t = Fraction(int(k * ds_star / ds[i]))  # floor (non-negative)
        cap = instance.max_tasks[i]
        tasks[i] = t if cap is None else min(t, Fraction(int(cap)))
    return tuple(tasks)


def spec(sym: SymbolicInstance, tasks) -> list:
    """The closed form itself: tasks_i = floor(k ds*/ds_i) (clamped by the cap), k the largest
    number of cycles fitting every resource, over the users that can run a task."""
    n, m = sym.n, sym.m
    sig = [z3_max([sym.demands[i][r] / (sym.capacities[r] * sym.weights[i][r]) for r in range(m)]) for i in range(n)]
    fits = [z3.And([sym.demands[i][r] <= sym.capacities[r] for r in range(m)]) for i in range(n)]
    takes_part = [
        fits[i] if (cap := sym.max_tasks[i]) is None else z3.And(fits[i], cap >= 1) for i in range(n)
    ]
    ds_star = z3_max([z3.If(takes_part[i], sig[i], 0) for i in range(n)])
    ratio = [ds_star / sig[i] for i in range(n)]
    d_total = [z3.Sum([z3.If(takes_part[i], ratio[i] * sym.demands[i][r], 0) for i in range(n)]) for r in range(m)]
    k = z3.FreshReal("pdrf_k")
    out = [
        Constraint(f"pdrf.k_fits[{r}]", z3.Implies(d_total[r] > 0, k * d_total[r] <= sym.capacities[r]))
        for r in range(m)
    ]
    out.append(
        Constraint(
            "pdrf.k_tight",
            z3.Or(
                z3.Not(z3.Or(takes_part)),
                *[z3.And(d_total[r] > 0, k * d_total[r] == sym.capacities[r]) for r in range(m)],
            ),
        )
    )
    for i in range(n):
        whole = z3.ToReal(z3.ToInt(k * ratio[i]))
        if sym.max_tasks[i] is not None:
            cap = z3.ToReal(z3.ToInt(sym.max_tasks[i]))
            whole = z3.If(cap < whole, cap, whole)
        out.append(Constraint(f"pdrf.tasks[{i}]", tasks[i] == z3.If(takes_part[i], whole, 0)))
    return out


MECHANISM = register(
    Mechanism(
        name="pdrf",
        summary="Precomputed DRF: floor(k ds*/ds_i) whole tasks per user, k cycles of the DRF loop",
        source="Metin, Precomputed DRF, §3.4 Algorithm 1 (weights §6.3)",
        allocate=allocate,
        spec=spec,
        discrete=True,
        # not declared (the safe default): whole tasks against absolute capacities, ties broken by user index
        scale_invariant=False, anonymous=False,
        module=__name__,
    )
)
