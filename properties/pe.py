"""Pareto efficiency (DRF paper §3, property 4), with an exact LP.

No feasible allocation makes some user better off and nobody worse off. With Leontief utilities
a user's utility only rises if its tasks rise, so a Pareto improvement is a task vector
``t' >= t`` (componentwise), within capacities and caps, with ``sum t' > sum t``. The check solves
the exact LP ``max sum t'`` over that polytope (`fairlab.core.lp.solve_lp`: HiGHS basis re-solved in
Fractions with a duality certificate, z3 otherwise) and reports its optimum as the improvement.
Equivalently (non-wastefulness, the lecture's "efficient" slide and the DRF paper's appendix
argument): t is Pareto efficient iff every user below its cap uses a saturated resource; this
exact test decides allocations with irrational (algebraic) entries, where the witness is t with
one such user grown by its slack. Weights do not enter. For discrete mechanisms (whole
tasks) an improvement must add whole tasks: one exists iff some user fits one more task.
"""

from __future__ import annotations

from fractions import Fraction

import z3

from fairlab.core.exact import Algebraic, format_exact
from fairlab.core.lp import OPTIMAL, solve_lp
from fairlab.mechanisms.base import Constraint, check_feasible
from fairlab.properties import leontief
from fairlab.properties.base import (
    Encoding, fmt_tasks, fresh_tasks, model_value, number, read_index, read_vector, resolve_instance, resolve_mechanism, run,
    static_check,
)

NAME = "pe"
TITLE = "Pareto efficiency"
DEFINITION = (
    "No feasible allocation makes some user better off without making another worse off; decided "
    "by an exact LP over task vectors that dominate the allocation. Source: §3 of the DRF paper "
    "(property 4, 'Pareto efficiency'); the lecture's 'efficient'."
)
WITNESS = '{"improvement": [tasks per user], "user": i}  (a feasible allocation dominating it; i strictly gains)'


def wasted_users(instance, tasks) -> list[int]:
    """Users below their cap none of whose resources is saturated (each can grow alone)."""
    full = set(leontief.saturated(instance, tasks))
    return [
        i for i, t in enumerate(tasks)
        if leontief.below_cap(instance, i, t)
        and not full.intersection(r for r in range(instance.m) if instance.demands[i][r] > 0)
    ]


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
    """t with user i grown by its slack: a Pareto improvement when i is a `wasted_user`."""
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


def whole_task_room(instance, tasks) -> list[int]:
    """Users who can run one more WHOLE task in what is left (and stay within their cap)."""
    out = []
    for i, t in enumerate(tasks):
        cap = instance.max_tasks[i]
        if cap is not None and t + 1 > cap:
            continue
        if all(leontief.load(instance, tasks, r) + instance.demands[i][r] <= instance.capacities[r]
               for r in range(instance.m)):
            out.append(i)
    return out


def find(instance, tasks, integral=False):
    if integral:
        # Indivisible tasks: a Pareto improvement adds whole tasks, and adding tasks only uses
        # more of every resource, so one exists iff some user fits one more task alone.
        room = whole_task_room(instance, tasks)
        if not room:
            return None
        i = room[0]
        return {"improvement": [number(t + 1 if k == i else t) for k, t in enumerate(tasks)], "user": i}
    wasted = wasted_users(instance, tasks)
    user = wasted[0] if wasted else None
    if all(isinstance(t, Fraction) for t in tasks):
        status, better = best_improvement(instance, tasks)
        if status == OPTIMAL and sum(better) > sum(tasks):
            gainer = next(i for i in range(instance.n) if better[i] > tasks[i])
            return {"improvement": [number(b) for b in better], "user": gainer}
        if status == OPTIMAL and user is not None:  # the two exact tests must agree
            raise AssertionError(f"pe: LP and saturation test disagree on {fmt_tasks(tasks)}")
    if user is None:
        return None
    return {"improvement": [number(b) for b in grown(instance, tasks, user)], "user": user}


def check(mechanism, instance, **budget):
    return static_check(NAME, mechanism, instance, budget, find)


def confirm(mechanism, instance, witness, options):
    inst = resolve_instance(instance)
    i = read_index(witness.get("user"), inst.n, "user")
    mech = resolve_mechanism(mechanism)
    tasks = run(mech, inst, options)
    raw = witness.get("improvement")
    if mech.discrete and any(Fraction(x).denominator != 1 for x in read_vector(raw, inst.n, "improvement")):
        return None  # whole tasks only
    if any(isinstance(t, Algebraic) for t in tasks):
        # Irrational allocation: the improvement is t grown for user i, recomputed exactly here;
        # its printed (20-digit) form must be the one in the witness.
        if i not in wasted_users(inst, tasks):
            return None
        better = grown(inst, tasks, i)
        if raw != [number(b) for b in better]:
            return None
    else:
        better = read_vector(raw, inst.n, "improvement")
        check_feasible(inst, better, "witness improvement")
        if any(b < t for b, t in zip(better, tasks)) or not better[i] > tasks[i]:
            return None
    return (
        f"the allocation {fmt_tasks(tasks)} is dominated by the feasible {fmt_tasks(better)}: "
        f"user {inst.users[i]} gains {format_exact(better[i] - tasks[i])} tasks, nobody loses"
    )


def encode(sym, spec, prefix: str = "pe") -> Encoding:
    """spec(sym, t) and a feasible t' >= t with t'_i > t_i for some i."""
    tasks = fresh_tasks(prefix, sym.n)
    better = fresh_tasks(f"{prefix}.better", sym.n)
    constraints = list(spec(sym, tasks)) + sym.feasibility(better, f"{prefix}.better")
    constraints += [Constraint(f"{prefix}.dominates[{i}]", better[i] >= tasks[i]) for i in range(sym.n)]
    constraints.append(Constraint(f"{prefix}.violated", z3.Or([better[i] > tasks[i] for i in range(sym.n)])))

    def witness(model):
        values = [model_value(model, b) for b in better]
        gains = [i for i in range(sym.n) if z3.is_true(model.eval(better[i] > tasks[i], model_completion=True))]
        return {"improvement": [number(v) for v in values], "user": gains[0] if gains else None}

    return Encoding(constraints, witness, {"tasks": tasks, "improvement": better})
