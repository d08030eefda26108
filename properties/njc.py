"""No justified complaints, Bonald & Roberts §2.4's simplified definition (after Dolev et al.), weighted.

A user has no justified complaint if it is at its task cap or receives at least its entitlement
share of some fully allocated (saturated) resource: ``tasks_i d_ir >= w_ir / sum_k w_kr * c_r``
for a resource r with ``sum_k tasks_k d_kr = c_r`` (``1/n`` of it without weights). Receiving a
positive share implies the user uses the resource. Users at their cap are exempt (they want
nothing more) — an extension of the source, which has no caps.
"""

from __future__ import annotations

import z3

from fairlab.core.exact import format_exact
from fairlab.mechanisms.base import Constraint
from fairlab.properties import leontief
from fairlab.properties.base import (
    Encoding, fresh_tasks, model_index, read_index, resolve_instance, resolve_mechanism, run, static_check,
)

NAME = "njc"
TITLE = "no justified complaints"
DEFINITION = (
    "Every user (below its task cap) receives at least 1/n (weighted: w_ir / sum_k w_kr) of at "
    "least one fully allocated resource. Source: Bonald & Roberts §2.4, simplified definition of "
    "Dolev et al.'s 'no justified complaints'."
)
WITNESS = '{"user": i}  (0-based index of a user with a justified complaint)'


def complaint(instance, tasks, i) -> bool:
    if not leontief.below_cap(instance, i, tasks[i]):
        return False
    for r in leontief.saturated(instance, tasks):
        if tasks[i] * instance.demands[i][r] >= leontief.entitlement(instance, i)[r]:
            return False
    return True


def find(instance, tasks, integral=False):
    """`integral` (discrete mechanisms) is ignored: this property compares shares, not whole tasks."""
    for i in range(instance.n):
        if complaint(instance, tasks, i):
            return {"user": i}
    return None


def check(mechanism, instance, **budget):
    return static_check(NAME, mechanism, instance, budget, find)


def confirm(mechanism, instance, witness, options):
    inst = resolve_instance(instance)
    i = read_index(witness.get("user"), inst.n, "user")
    tasks = run(resolve_mechanism(mechanism), inst, options)
    if complaint(inst, tasks, i):
        sat = [inst.resources[r] for r in leontief.saturated(inst, tasks)]
        return (
            f"user {inst.users[i]} ({format_exact(tasks[i])} tasks, below its cap) gets less than its entitlement"
            f" share of every saturated resource ({', '.join(sat) or 'none saturated'})"
        )
    return None


def encode(sym, spec, prefix: str = "njc") -> Encoding:
    """spec(sym, t) and some user below its cap with less than its share of every saturated resource."""
    tasks = fresh_tasks(prefix, sym.n)
    guards = []
    for i in range(sym.n):
        share = leontief.z3_entitlement(sym, i)
        ok = [z3.And(sym.load(tasks, r) == sym.capacities[r], tasks[i] * sym.demands[i][r] >= share[r])
              for r in range(sym.m)]
        guards.append(z3.And(leontief.z3_below_cap(sym, i, tasks[i]), z3.Not(z3.Or(ok))))
    constraints = list(spec(sym, tasks)) + [Constraint(f"{prefix}.violated", z3.Or(guards))]
    return Encoding(constraints, lambda model: {"user": model_index(model, list(enumerate(guards)))}, {"tasks": tasks})
