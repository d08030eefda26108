"""Leontief utilities, exactly and for z3 (lecture "The model"; DRF paper §3).

A user runs tasks that need resources in fixed proportions `d_i`; its utility for a bundle `B`
is the number of tasks the bundle runs: ``u_i(B) = min over r with d_ir > 0 of B_r / d_ir``,
capped by the user's task cap. A mechanism's allocation gives user i ``tasks_i * d_i``, whose
utility is ``tasks_i`` itself, so utilities are compared in tasks.

Weights (DRF paper §4.3) enter only through the *entitlement* of a user: the weighted equal
split gives user i the share ``w_ir / sum_k w_kr`` of resource r (``w_i / sum w`` for scalar
weights, ``1/n`` without weights).

All functions work with `Fraction` and `fairlab.core.exact.Algebraic` values alike; the z3 forms avoid
division so that they stay linear whenever the demands are numerals.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Sequence

import z3

from fairlab.core.exact import Exact
from fairlab.core.instance import Instance
from fairlab.mechanisms import _filling
from fairlab.mechanisms.base import SymbolicInstance


def bundle(instance: Instance, i: int, tasks_i: Exact) -> tuple[Exact, ...]:
    """Resources user i holds when it runs `tasks_i` tasks: tasks_i * d_i."""
    return tuple(tasks_i * d for d in instance.demands[i])


def utility(instance: Instance, i: int, bundle_: Sequence[Exact], integral: bool = False, demand_row=None) -> Exact:
    """Leontief utility of user i for `bundle_`: tasks it runs, capped by its task cap.

    `integral`: tasks are indivisible (discrete mechanisms such as drf-tasks and pdrf), so the
    utility is the number of WHOLE tasks the bundle runs (the floor). `demand_row` is user i's
    true demand (defaults to its row of `instance`)."""
    row = instance.demands[i] if demand_row is None else demand_row
    value = min(bundle_[r] / row[r] for r in range(instance.m) if row[r] > 0)
    if integral:
        value = Fraction(math.floor(value))
    cap = instance.max_tasks[i]
    return value if cap is None or value < cap else cap


def entitlement_share(instance: Instance, i: int, r: int) -> Fraction:
    """Weighted equal-split share of resource r for user i: w_ir / sum_k w_kr (1/n unweighted)."""
    return instance.weights[i][r] / sum(instance.weights[k][r] for k in range(instance.n))


def entitlement(instance: Instance, i: int) -> tuple[Fraction, ...]:
    """User i's bundle in the weighted equal split: w_ir / sum_k w_kr * c_r for each resource."""
    return tuple(entitlement_share(instance, i, r) * instance.capacities[r] for r in range(instance.m))


def load(instance: Instance, tasks: Sequence[Exact], r: int) -> Exact:
    """Amount of resource r the allocation uses: sum_i tasks_i d_ir."""
    return sum((t * instance.demands[i][r] for i, t in enumerate(tasks)), Fraction(0))


def saturated(instance: Instance, tasks: Sequence[Exact]) -> list[int]:
    """Resources the allocation uses completely."""
    return [r for r in range(instance.m) if load(instance, tasks, r) == instance.capacities[r]]


def common_bottlenecks(instance: Instance) -> list[int]:
    """Resources that are, share-wise, every user's most demanded resource (ties allowed; DRF paper
    §3, 'bottleneck fairness')."""
    return [
        r for r in range(instance.m)
        if all(instance.demand_share(i, r) >= instance.demand_share(i, s)
               for i in range(instance.n) for s in range(instance.m))
    ]


def max_min_on(instance: Instance, r: int) -> tuple:
    """Tasks of the weighted max-min fair (water-filling) allocation of resource r alone, with caps."""
    sigma = [instance.demands[i][r] / (instance.capacities[r] * instance.weights[i][r]) for i in range(instance.n)]
    single = Instance.build(
        capacities=[instance.capacities[r]],
        demands=[[instance.demands[i][r]] for i in range(instance.n)],
        weights=[[instance.weights[i][r]] for i in range(instance.n)],
        max_tasks=list(instance.max_tasks),
    )
    tasks, _ = _filling.fill(single, sigma)
    return tasks


def below_cap(instance: Instance, i: int, tasks_i: Exact) -> bool:
    cap = instance.max_tasks[i]
    return cap is None or tasks_i < cap


# --------------------------------------------------------------------------- z3 forms
def z3_below_cap(sym: SymbolicInstance, i: int, tasks_i) -> z3.BoolRef:
    cap = sym.max_tasks[i]
    return z3.BoolVal(True) if cap is None else tasks_i < cap


def z3_prefers(sym: SymbolicInstance, i: int, bundle_: Sequence, tasks_i, demand_row=None,
               integral: bool = False) -> z3.BoolRef:
    """z3: u_i(bundle_) > tasks_i, i.e. below cap and tasks_i d_ir < bundle_r for every r it uses.

    `demand_row` is user i's true demand (defaults to the row of `sym`). `integral`: whole tasks
    (`tasks_i` an integer): floor(u_i) > tasks_i, i.e. (tasks_i + 1) d_ir <= bundle_r for every r it uses."""
    row = sym.demands[i] if demand_row is None else demand_row
    if integral:
        per_resource = [z3.Implies(row[r] > 0, (tasks_i + 1) * row[r] <= bundle_[r]) for r in range(sym.m)]
    else:
        per_resource = [z3.Implies(row[r] > 0, tasks_i * row[r] < bundle_[r]) for r in range(sym.m)]
    return z3.And(z3_below_cap(sym, i, tasks_i), *per_resource)


def z3_at_least(sym: SymbolicInstance, i: int, bundle_, tasks_i, demand_row=None) -> z3.BoolRef:
    """z3: u_i(bundle_) >= tasks_i (a weak gain), i.e. tasks_i within the cap and tasks_i d_ir <= bundle_r
    for every r it uses. The same for whole tasks when `tasks_i` is whole (floor(u) >= t iff u >= t)."""
    row = sym.demands[i] if demand_row is None else demand_row
    cap = sym.max_tasks[i]
    within = z3.BoolVal(True) if cap is None else tasks_i <= cap
    return z3.And(within, *[z3.Implies(row[r] > 0, tasks_i * row[r] <= bundle_[r]) for r in range(sym.m)])


def z3_not_max_min_on(sym: SymbolicInstance, tasks, r: int, i: int) -> z3.BoolRef:
    """z3: user i is below its cap and either r is not saturated or another user's weighted share
    of r exceeds i's (negation of the single-resource bottleneck characterisation of max-min
    fairness, Bertsekas & Gallager §6.5.2): some such i exists iff t is not the water-filling."""
    share = [tasks[k] * sym.demands[k][r] / (sym.capacities[r] * sym.weights[k][r]) for k in range(sym.n)]
    return z3.And(z3_below_cap(sym, i, tasks[i]),
                  z3.Or(sym.load(tasks, r) < sym.capacities[r], *[share[k] > share[i] for k in range(sym.n) if k != i]))


def z3_common_bottleneck(sym: SymbolicInstance, r: int) -> z3.BoolRef:
    """z3: resource r is, share-wise, every user's most demanded resource."""
    return z3.And(*[
        sym.demands[i][r] * sym.capacities[s] >= sym.demands[i][s] * sym.capacities[r]
        for i in range(sym.n) for s in range(sym.m) if s != r
    ])


def z3_entitlement(sym: SymbolicInstance, i: int) -> list:
    """z3 terms for user i's weighted equal-split bundle."""
    return [
        sym.weights[i][r] / z3.Sum([sym.weights[k][r] for k in range(sym.n)]) * sym.capacities[r]
        for r in range(sym.m)
    ]
