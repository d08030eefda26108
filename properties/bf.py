"""Bottleneck fairness (DRF paper §3, nice-to-have property 2), weighted.

If some resource r is, share-wise, the most demanded resource of every user
(``d_ir / c_r >= d_ir' / c_r'`` for all users i and resources r'), the allocation must be max-min
fair on r: weighted water-filling of the shares of r, ``tasks_i d_ir / (c_r w_ir)`` equalised
and capped by task caps. Other resources cannot bind before r then, so this is the max-min fair
allocation of the whole instance. Instances without such a common bottleneck satisfy the
property vacuously. Theorem 2 of the DRF paper: asset fairness violates it on <21, 21>,
D1 = <3, 2>, D2 = <4, 1> (user 1 gets 3/7 of resource 1, the max-min fair share is 1/2).
"""

from __future__ import annotations

import z3

from fairlab.core.exact import format_exact
from fairlab.core.instance import Instance
from fairlab.mechanisms import _filling
from fairlab.mechanisms.base import Constraint
from fairlab.properties.base import (
    Encoding, fresh_tasks, model_index, read_index, resolve_instance, resolve_mechanism, run, static_check,
)

NAME = "bf"
TITLE = "bottleneck fairness"
DEFINITION = (
    "If one resource is, share-wise, the most demanded resource of every user, the allocation is "
    "max-min fair on that resource (weighted: on shares divided by the users' weights for it). "
    "Source: §3 of the DRF paper ('bottleneck fairness')."
)
WITNESS = '{"resource": r, "user": i}  (0-based: user i gets less of the common bottleneck r than max-min fairness gives)'


def common_bottlenecks(instance: Instance) -> list[int]:
    """Resources that are every user's most demanded resource (ties allowed)."""
    return [
        r for r in range(instance.m)
        if all(instance.demand_share(i, r) >= instance.demand_share(i, s) for i in range(instance.n) for s in range(instance.m))
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


def short_user(instance, tasks, r):
    """First user below its max-min fair tasks on resource r, or None."""
    fair = max_min_on(instance, r)
    for i, t in enumerate(tasks):
        if t < fair[i]:
            return i
    return None


def find(instance, tasks, integral=False):
    """`integral` (discrete mechanisms) is ignored: this property compares shares, not whole tasks."""
    for r in common_bottlenecks(instance):
        i = short_user(instance, tasks, r)
        if i is not None:
            return {"resource": r, "user": i}
    return None


def check(mechanism, instance, **budget):
    return static_check(NAME, mechanism, instance, budget, find)


def explain_short(inst, tasks, r, i):
    fair = max_min_on(inst, r)
    if tasks[i] < fair[i]:
        return (
            f"user {inst.users[i]} gets {format_exact(tasks[i] * inst.demand_share(i, r))} of resource "
            f"{inst.resources[r]}, every user's bottleneck; max-min fairness gives it "
            f"{format_exact(fair[i] * inst.demand_share(i, r))}"
        )
    return None


def confirm(mechanism, instance, witness, options):
    inst = resolve_instance(instance)
    r = read_index(witness.get("resource"), inst.m, "resource")
    i = read_index(witness.get("user"), inst.n, "user")
    if r not in common_bottlenecks(inst):
        return None
    return explain_short(inst, run(resolve_mechanism(mechanism), inst, options), r, i)


def z3_not_max_min_on(sym, tasks, r, i):
    """z3: user i is below its cap and either r is not saturated or another user's weighted share
    of r exceeds i's (negation of the single-resource bottleneck characterisation, Bertsekas &
    Gallager §6.5.2)."""
    share = [tasks[k] * sym.demands[k][r] / (sym.capacities[r] * sym.weights[k][r]) for k in range(sym.n)]
    below = z3.BoolVal(True) if sym.max_tasks[i] is None else tasks[i] < sym.max_tasks[i]
    return z3.And(below, z3.Or(sym.load(tasks, r) < sym.capacities[r], *[share[k] > share[i] for k in range(sym.n) if k != i]))


def z3_common_bottleneck(sym, r):
    return z3.And(*[
        sym.demands[i][r] * sym.capacities[s] >= sym.demands[i][s] * sym.capacities[r]
        for i in range(sym.n) for s in range(sym.m) if s != r
    ])


def encode(sym, spec, prefix: str = "bf") -> Encoding:
    """spec(sym, t), some resource r every user's bottleneck, and t not max-min fair on r."""
    tasks = fresh_tasks(prefix, sym.n)
    choices = [
        ({"resource": r, "user": i}, z3.And(z3_common_bottleneck(sym, r), z3_not_max_min_on(sym, tasks, r, i)))
        for r in range(sym.m) for i in range(sym.n)
    ]
    constraints = list(spec(sym, tasks)) + [Constraint(f"{prefix}.violated", z3.Or([g for _, g in choices]))]
    return Encoding(constraints, lambda model: model_index(model, choices), {"tasks": tasks})
