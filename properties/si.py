"""Sharing incentive (DRF paper §3, property 1; lecture "proportional"), weighted.

Weighted version: user i runs at least as many tasks as its bundle in the weighted equal split,
``w_ir / sum_k w_kr * c_r`` of each resource r (``c / n`` without weights; ``w_i / sum w * c`` with
scalar weights), capped by its task cap. Theorem 1 of the DRF paper: asset fairness violates it
on <30, 30>, D1 = <1, 3>, D2 = <1, 1> (user 2 gets 12 tasks, the equal split gives 15).
"""

from __future__ import annotations

import z3

from fairlab.core.exact import format_exact
from fairlab.properties import leontief
from fairlab.properties.base import (
    Encoding, fresh_tasks, model_index, read_index, resolve_instance, resolve_mechanism, run, static_check,
)
from fairlab.mechanisms.base import Constraint

NAME = "si"
TITLE = "sharing incentive"
DEFINITION = (
    "Every user runs at least as many tasks as it would with its own slice of the cluster: the "
    "equal split c/n (weighted: the share w_ir / sum_k w_kr of each resource r). Source: §3 of the "
    "DRF paper (property 1, 'sharing incentive'); the lecture calls it proportionality."
)
WITNESS = '{"user": i}  (0-based index of a user below its equal-split utility)'


def equal_split_utility(instance, i, integral=False):
    """Utility of user i for its weighted equal-split bundle (whole tasks if `integral`)."""
    return leontief.utility(instance, i, leontief.entitlement(instance, i), integral)


def find(instance, tasks, integral=False):
    for i, t in enumerate(tasks):
        if t < equal_split_utility(instance, i, integral):
            return {"user": i}
    return None


def check(mechanism, instance, **budget):
    return static_check(NAME, mechanism, instance, budget, find)


def confirm(mechanism, instance, witness, options):
    inst = resolve_instance(instance)
    i = read_index(witness.get("user"), inst.n, "user")
    mech = resolve_mechanism(mechanism)
    tasks = run(mech, inst, options)
    split = equal_split_utility(inst, i, mech.discrete)
    if tasks[i] < split:
        return (
            f"user {inst.users[i]} runs {format_exact(tasks[i])} tasks but its equal-split bundle "
            f"<{', '.join(format_exact(b) for b in leontief.entitlement(inst, i))}> runs {format_exact(split)}"
        )
    return None


def encode(sym, spec, prefix: str = "si") -> Encoding:
    """spec(sym, t) and some user i with u_i(equal split) > t_i."""
    tasks = fresh_tasks(prefix, sym.n)
    guards = [leontief.z3_prefers(sym, i, leontief.z3_entitlement(sym, i), tasks[i]) for i in range(sym.n)]
    constraints = list(spec(sym, tasks)) + [Constraint(f"{prefix}.violated", z3.Or(guards))]
    return Encoding(
        constraints,
        lambda model: {"user": model_index(model, list(enumerate(guards)))},
        {"tasks": tasks},
    )
