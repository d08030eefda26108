"""Envy-freeness (DRF paper §3, property 3), weighted.

Weighted version: user i does not prefer user j's bundle rescaled to i's entitlement, i.e.
``u_i(A_j * w_i / w_j) <= u_i(A_i)`` (per resource ``w_ir / w_jr`` with weight vectors; plain
``u_i(A_j) <= u_i(A_i)`` without weights). Utilities are Leontief (`fairlab.properties.leontief`).
"""

from __future__ import annotations

import z3

from fairlab.core.exact import format_exact
from fairlab.mechanisms.base import Constraint
from fairlab.properties import leontief
from fairlab.properties.base import (
    Encoding, fresh_tasks, model_index, read_index, resolve_instance, resolve_mechanism, run, static_check,
)

NAME = "ef"
TITLE = "envy-freeness"
DEFINITION = (
    "No user prefers another user's bundle to its own (weighted: the other's bundle scaled by "
    "w_i / w_j per resource). Source: §3 of the DRF paper (property 3, 'envy-freeness'); the "
    "lecture's 'DRF is envy-free' lemma."
)
WITNESS = '{"user": i, "envied": j}  (0-based indices: i prefers j\'s scaled bundle)'


def envied_bundle(instance, i, j, tasks_j):
    """j's bundle as i would see it: tasks_j d_jr * w_ir / w_jr."""
    return tuple(
        tasks_j * instance.demands[j][r] * instance.weights[i][r] / instance.weights[j][r] for r in range(instance.m)
    )


def find(instance, tasks, integral=False):
    for i in range(instance.n):
        for j in range(instance.n):
            if i != j and leontief.utility(instance, i, envied_bundle(instance, i, j, tasks[j]), integral) > tasks[i]:
                return {"user": i, "envied": j}
    return None


def check(mechanism, instance, **budget):
    return static_check(NAME, mechanism, instance, budget, find)


def confirm(mechanism, instance, witness, options):
    inst = resolve_instance(instance)
    i = read_index(witness.get("user"), inst.n, "user")
    j = read_index(witness.get("envied"), inst.n, "envied")
    if i == j:
        return None
    mech = resolve_mechanism(mechanism)
    tasks = run(mech, inst, options)
    theirs = leontief.utility(inst, i, envied_bundle(inst, i, j, tasks[j]), mech.discrete)
    if theirs > tasks[i]:
        return (
            f"user {inst.users[i]} runs {format_exact(tasks[i])} tasks but would run {format_exact(theirs)}"
            f" with user {inst.users[j]}'s bundle"
        )
    return None


def encode(sym, spec, prefix: str = "ef") -> Encoding:
    """spec(sym, t) and some i, j != i with u_i(t_j d_j w_i / w_j) > t_i."""
    tasks = fresh_tasks(prefix, sym.n)
    pairs = []
    for i in range(sym.n):
        for j in range(sym.n):
            if i != j:
                other = [tasks[j] * sym.demands[j][r] * sym.weights[i][r] / sym.weights[j][r] for r in range(sym.m)]
                pairs.append(({"user": i, "envied": j}, leontief.z3_prefers(sym, i, other, tasks[i])))
    constraints = list(spec(sym, tasks)) + [Constraint(f"{prefix}.violated", z3.Or([g for _, g in pairs]))]
    return Encoding(constraints, lambda model: model_index(model, pairs), {"tasks": tasks})
