"""Population monotonicity (DRF paper §3, nice-to-have property 3).

When a user leaves the system and releases its resources, no remaining user runs fewer tasks.
The check is exhaustive at an instance: every single departure is tried with a fresh exact run,
so a clean pass proves the property for this instance (departures of one user; a departure of
several users is a sequence of single departures from smaller instances, not checked here).
Theorem 5 of the DRF paper: CEEI violates it on <100, 100>, D = <4, 1>, <1, 16>, <16, 1> when
user 3 leaves (user 2 drops from about 5.4 to 4.8 tasks). Weights: users keep theirs.
"""

from __future__ import annotations

import z3

from fairlab.core.exact import format_exact
from fairlab.mechanisms.base import Constraint, SymbolicInstance
from fairlab.properties.base import (
    Encoding, Undecided, fresh_tasks, model_index, parse_budget, read_index, rebuild, resolve_instance, resolve_mechanism, run,
    verdict, violated,
)

NAME = "pm"
TITLE = "population monotonicity"
DEFINITION = (
    "When a user leaves the system and releases its resources, none of the remaining users runs "
    "fewer tasks. Source: §3 of the DRF paper ('population monotonicity'); Theorem 5 (CEEI "
    "violates it)."
)
WITNESS = '{"removed": k, "user": i}  (0-based indices in the original instance)'


def without(instance, k):
    return rebuild(instance, keep_users=[i for i in range(instance.n) if i != k])


def losers(instance, tasks, k, after):
    """Original indices of users who run fewer tasks once user k has left (`after` in new order)."""
    rest = [i for i in range(instance.n) if i != k]
    return [i for pos, i in enumerate(rest) if after[pos] < tasks[i]]


def check(mechanism, instance, **budget):
    b = parse_budget(budget)
    mech = resolve_mechanism(mechanism)
    inst = resolve_instance(instance)
    if inst.n == 1:
        return verdict(NAME, mech, "holds", b, "vacuous: a single user cannot leave anyone behind")
    tasks = run(mech, inst, b.options)
    b.used_evaluations = 1
    undecided = Undecided()
    for k in range(inst.n):
        if b.time_up():  # the outer stop: the departures are few and all needed, so no verdict
            return verdict(NAME, mech, "unknown", b, f"stopped by the time limit ({b.time_limit:g} s) after {k} "
                           f"of {inst.n} departures; no verdict", departures=k, stopped="time")
        b.used_evaluations += 1
        lost = undecided.guard(lambda k: losers(inst, tasks, k, run(mech, without(inst, k), b.options)))(k)
        if lost:
            return violated(NAME, mech, inst, {"removed": k, "user": lost[0]}, b, departures=k + 1)
    if undecided.count:  # a departure not decided exactly: no proof for this instance
        return verdict(NAME, mech, "unknown", b, f"not decided: {undecided.count} of {inst.n} departures could not"
                       f" be checked exactly, e.g.: {undecided.reason}", departures=inst.n, undecided=undecided.count)
    return verdict(NAME, mech, "holds", b, f"all {inst.n} single departures checked exactly", departures=inst.n)


def confirm(mechanism, instance, witness, options):
    inst = resolve_instance(instance)
    k = read_index(witness.get("removed"), inst.n, "removed")
    i = read_index(witness.get("user"), inst.n, "user")
    if i == k or inst.n == 1:
        return None
    mech = resolve_mechanism(mechanism)
    before = run(mech, inst, options)
    after = run(mech, without(inst, k), options)
    new_i = i - (1 if i > k else 0)
    if after[new_i] < before[i]:
        return (
            f"when user {inst.users[k]} leaves, user {inst.users[i]} drops from {format_exact(before[i])}"
            f" to {format_exact(after[new_i])} tasks"
        )
    return None


def removed(sym: SymbolicInstance, k: int) -> SymbolicInstance:
    keep = [i for i in range(sym.n) if i != k]
    return SymbolicInstance(
        capacities=list(sym.capacities),
        demands=[sym.demands[i] for i in keep],
        weights=[sym.weights[i] for i in keep],
        max_tasks=[sym.max_tasks[i] for i in keep],
    )


def encode(sym, spec, prefix: str = "pm") -> Encoding:
    """spec(sym, t), spec(sym without k, t^k) for every k, and some t^k_i < t_i."""
    tasks = fresh_tasks(prefix, sym.n)
    constraints = list(spec(sym, tasks))
    choices = []
    for k in range(sym.n if sym.n > 1 else 0):
        after = fresh_tasks(f"{prefix}.without{k}", sym.n - 1)
        constraints += [Constraint(f"{prefix}.without{k}:{c.name}", c.expr) for c in spec(removed(sym, k), after)]
        rest = [i for i in range(sym.n) if i != k]
        choices += [({"removed": k, "user": i}, after[pos] < tasks[i]) for pos, i in enumerate(rest)]
    constraints.append(Constraint(f"{prefix}.violated", z3.Or([g for _, g in choices]) if choices else z3.BoolVal(False)))
    return Encoding(constraints, lambda model: model_index(model, choices), {"tasks": tasks})
