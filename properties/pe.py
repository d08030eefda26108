"""Pareto efficiency (DRF paper §3, property 4), decided exactly.

No feasible allocation makes some user better off and nobody worse off. With Leontief utilities
a user's utility only rises if its tasks rise, so a Pareto improvement is a task vector
``t' >= t`` (componentwise), within capacities and caps, in which some user gains. Such a t'
letting user i gain exists iff user i is *wasted* (non-wastefulness, the lecture's "efficient"
slide and the DRF paper's appendix argument): i is below its cap and none of the resources it
uses is saturated — that is the rule. For discrete mechanisms (whole tasks) an improvement must
add whole tasks: one exists for i iff i fits one more whole task in what is left.

The witness is an improvement: for rational allocations the optimum of the exact LP
``max sum t'`` over that polytope (`fairlab.core.lp.solve_lp`: HiGHS basis re-solved in Fractions
with a duality certificate, z3 otherwise), which must agree with the rule; for allocations with
irrational (algebraic) entries t with the wasted user grown by its slack. Weights do not enter.
"""

from __future__ import annotations

from fractions import Fraction

from fairlab.core.exact import Algebraic, format_exact
from fairlab.core.lp import OPTIMAL, solve_lp
from fairlab.mechanisms.base import check_feasible
from fairlab.properties import leontief
from fairlab.properties.base import fmt_tasks, number, read_vector
from fairlab.properties.property import ALLOCATION, AllocationProperty, ImprovementWitness, register


def wasted(view, tasks, i):
    """The rule: user i can gain without anyone losing — below its cap with every resource it uses
    unsaturated (whole tasks: room for one more whole task within its cap and every capacity)."""
    if view.integral:
        return view.all([view.within_cap(i, tasks[i] + 1)] + [
            view.load(tasks, r) + view.demands[i][r] <= view.capacities[r] for r in range(view.m)
        ])
    return view.all([view.below_cap(i, tasks[i])] + [
        view.implies(view.demands[i][r] > 0, view.load(tasks, r) < view.capacities[r]) for r in range(view.m)
    ])


def users(view):
    return [(i,) for i in range(view.n)]


def wasted_users(instance, tasks) -> list[int]:
    """Users below their cap none of whose resources is saturated (each can grow alone)."""
    return [i for i in range(instance.n) if PROPERTY.violated_at(instance, tasks, (i,))]


def whole_task_room(instance, tasks) -> list[int]:
    """Users who can run one more WHOLE task in what is left (and stay within their cap)."""
    return [i for i in range(instance.n) if PROPERTY.violated_at(instance, tasks, (i,), integral=True)]


def slack(instance, tasks, i):
    """How many more tasks user i alone can run: min over its resources of leftover / d_ir, and its cap."""
    room = [
        (instance.capacities[r] - leontief.load(instance, tasks, r)) / instance.demands[i][r]
        for r in range(instance.m) if instance.demands[i][r] > 0
    ]
    cap = instance.max_tasks[i]
    if cap is not None:
        room.append(cap - tasks[i])
    return min(room)


def grown(instance, tasks, i):
    """t with user i grown by its slack: a Pareto improvement when i is a wasted user."""
    return tuple(t + slack(instance, tasks, i) if k == i else t for k, t in enumerate(tasks))


def best_improvement(instance, tasks):
    """Exact LP: max sum t' s.t. t' >= t, caps, capacities. Returns (status, t')."""
    n, m = instance.n, instance.m
    result = solve_lp(
        [1] * n,
        A_ub=[[instance.demands[i][r] for i in range(n)] for r in range(m)],
        b_ub=list(instance.capacities),
        lower=list(tasks),
        upper=list(instance.max_tasks),
        maximize=True,
    )
    return result.status, result.x


def improvement(instance, tasks, choice, integral):
    """The witness for wasted user i: one more whole task (discrete), the exact LP optimum
    (rational allocations; it must agree with the rule), or t with i grown by its slack."""
    (i,) = choice
    if integral:
        return ImprovementWitness([number(t + 1 if k == i else t) for k, t in enumerate(tasks)], i)
    if all(isinstance(t, Fraction) for t in tasks):
        status, better = best_improvement(instance, tasks)
        if status == OPTIMAL:
            if not sum(better) > sum(tasks):  # the two exact tests must agree
                raise AssertionError(f"pe: LP and saturation test disagree on {fmt_tasks(tasks)}")
            gainer = next(k for k in range(instance.n) if better[k] > tasks[k])
            return ImprovementWitness([number(b) for b in better], gainer)
    return ImprovementWitness([number(b) for b in grown(instance, tasks, i)], i)


def dominates(instance, tasks, witness, integral) -> bool:
    """What `confirm` checks besides the rule: the witness's improvement is feasible, whole tasks for a
    discrete mechanism, nobody loses and its user gains (irrational allocations: it is t grown for the
    user, recomputed exactly, whose printed form must be the witness's)."""
    i = witness.user
    better = read_vector(witness.improvement, instance.n, "improvement")
    if integral and any(Fraction(x).denominator != 1 for x in better):
        return False  # whole tasks only
    if any(isinstance(t, Algebraic) for t in tasks):
        return _grown_matches(instance, tasks, witness)
    check_feasible(instance, better, "witness improvement")
    return all(b >= t for b, t in zip(better, tasks)) and better[i] > tasks[i]


def _grown_matches(instance, tasks, witness) -> bool:
    i = witness.user
    if not PROPERTY.violated_at(instance, tasks, (i,)):
        return False
    return list(witness.improvement) == [number(b) for b in grown(instance, tasks, i)]


def explain(instance, tasks, witness, integral):
    i = witness.user
    if any(isinstance(t, Algebraic) for t in tasks):
        better = grown(instance, tasks, i)
    else:
        better = read_vector(witness.improvement, instance.n, "improvement")
    return (
        f"the allocation {fmt_tasks(tasks)} is dominated by the feasible {fmt_tasks(better)}: "
        f"user {instance.users[i]} gains {format_exact(better[i] - tasks[i])} tasks, nobody loses"
    )


PROPERTY = register(AllocationProperty(
    name="pe",
    title="Pareto efficiency",
    definition=(
        "No feasible allocation makes some user better off without making another worse off; decided "
        "by an exact LP over task vectors that dominate the allocation. Source: §3 of the DRF paper "
        "(property 4, 'Pareto efficiency'); the lecture's 'efficient'."
    ),
    source="Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §3 property 4; appendix A",
    weighted=(
        "weights do not enter (Pareto efficiency compares utilities only); a user at its task cap cannot "
        "gain. Source: the DRF paper §3 (property 4), unchanged by weights"
    ),
    witness=ImprovementWitness,
    witness_help='{"improvement": [tasks per user], "user": i}'
                 '  (a feasible allocation dominating it; i strictly gains)',
    compares=ALLOCATION,
    rule=wasted,
    choices=users,
    explain=explain,
    complete=improvement,
    completed_fields=("improvement",),
    valid=dominates,
))
