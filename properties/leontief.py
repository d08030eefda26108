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
from fairlab.mechanisms.base import SymbolicInstance


def bundle(instance: Instance, i: int, tasks_i: Exact) -> tuple[Exact, ...]:
    """Resources user i holds when it runs `tasks_i` tasks: tasks_i * d_i."""
    return tuple(tasks_i * d for d in instance.demands[i])


def utility(instance: Instance, i: int, bundle_: Sequence[Exact], integral: bool = False) -> Exact:
    """Leontief utility of user i for `bundle_`: tasks it runs, capped by its task cap.

    `integral`: tasks are indivisible (discrete mechanisms such as drf-tasks and pdrf), so the
    utility is the number of WHOLE tasks the bundle runs (the floor)."""
    row = instance.demands[i]
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


def below_cap(instance: Instance, i: int, tasks_i: Exact) -> bool:
    cap = instance.max_tasks[i]
    return cap is None or tasks_i < cap


# --------------------------------------------------------------------------- z3 forms
def z3_below_cap(sym: SymbolicInstance, i: int, tasks_i) -> z3.BoolRef:
    cap = sym.max_tasks[i]
    return z3.BoolVal(True) if cap is None else tasks_i < cap


def z3_prefers(sym: SymbolicInstance, i: int, bundle_: Sequence, tasks_i, demand_row=None) -> z3.BoolRef:
    """z3: u_i(bundle_) > tasks_i, i.e. below cap and tasks_i d_ir < bundle_r for every r it uses.

    `demand_row` is user i's true demand (defaults to the row of `sym`)."""
    row = sym.demands[i] if demand_row is None else demand_row
    per_resource = [z3.Implies(row[r] > 0, tasks_i * row[r] < bundle_[r]) for r in range(sym.m)]
    return z3.And(z3_below_cap(sym, i, tasks_i), *per_resource)


def z3_entitlement(sym: SymbolicInstance, i: int) -> list:
    """z3 terms for user i's weighted equal-split bundle."""
    return [
        sym.weights[i][r] / z3.Sum([sym.weights[k][r] for k in range(sym.n)]) * sym.capacities[r]
        for r in range(sym.m)
    ]
