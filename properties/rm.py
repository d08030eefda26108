"""Resource monotonicity (DRF paper §3, nice-to-have property 4).

When capacities grow (every c'_r >= c_r, one strictly), no user runs fewer tasks. Theorem 3 of
the DRF paper: asset fairness violates it on <77, 77>, D = <4, 2>, <1, 1> when the second
resource doubles (A drops from 11 to 21/2 tasks). Theorem 6: no mechanism with sharing
incentive and Pareto efficiency has it, so DRF and CEEI violate it too on some instances.

Capacity increases form a continuum: the check searches like sp (`fairlab.properties._search`):
structured increases (one or two resources scaled by 2, 3/2, 4, 5/4, 3, 10, 11/10), then z3
with unknown capacities c' >= c (unsat proves the property at this instance), then seeded random
increases. Every candidate is evaluated by a fresh exact run.
"""

from __future__ import annotations

import random
from fractions import Fraction

import z3

from fairlab.core.exact import format_exact
from fairlab.mechanisms.base import Constraint, SymbolicInstance
from fairlab.properties import _search
from fairlab.properties.base import (
    Encoding, Undecided, fresh_tasks, model_index, model_value, number, parse_budget, read_index, read_vector, rebuild,
    resolve_instance, resolve_mechanism, run,
)

NAME = "rm"
TITLE = "resource monotonicity"
DEFINITION = (
    "When the capacity of one or more resources grows, no user runs fewer tasks. Source: §3 of "
    "the DRF paper ('resource monotonicity'); Theorem 3 (asset fairness violates it) and "
    "Theorem 6 (incompatible with sharing incentive plus Pareto efficiency)."
)
WITNESS = '{"capacities": [new capacities], "user": i}  (0-based user who runs fewer tasks)'

FACTORS = (Fraction(2), Fraction(3, 2), Fraction(4), Fraction(5, 4), Fraction(3), Fraction(10), Fraction(11, 10))


def structured_increases(instance):
    c = instance.capacities
    seen = set()
    options = []
    for k in FACTORS:
        options += [tuple(x * k if s == r else x for s, x in enumerate(c)) for r in range(instance.m)]
    for r in range(instance.m):
        for s in range(instance.m):
            if r != s:
                options.append(tuple(x * 2 if q == r else x * Fraction(3, 2) if q == s else x for q, x in enumerate(c)))
    for option in options:
        if option not in seen:
            seen.add(option)
            yield option


def random_increases(instance, seed):
    rng = random.Random(seed)
    while True:
        option = tuple(
            x * (1 + Fraction(rng.randint(0, 24), rng.randint(1, 8))) if rng.random() < 0.7 else x
            for x in instance.capacities
        )
        if option != instance.capacities:
            yield option


def check(mechanism, instance, **budget):
    b = parse_budget(budget)
    mech = resolve_mechanism(mechanism)
    inst = resolve_instance(instance)
    tasks = run(mech, inst, b.options)
    b.used_evaluations = 1

    def evaluate(capacities):
        after = run(mech, rebuild(inst, capacities=capacities), b.options)
        for i in range(inst.n):
            if after[i] < tasks[i]:
                return {"capacities": [number(c) for c in capacities], "user": i}
        return None

    undecided = Undecided()
    symbolic = _search.symbolic_at(mech, inst, b, encode)
    return undecided.amend(_search.search(
        NAME, mech, inst, b,
        structured_increases(inst), random_increases(inst, b.seed), undecided.guard(evaluate), symbolic,
        "capacity increase",
    ))


def confirm(mechanism, instance, witness, options):
    inst = resolve_instance(instance)
    i = read_index(witness.get("user"), inst.n, "user")
    grown = read_vector(witness.get("capacities"), inst.m, "capacities")
    if any(g < c for g, c in zip(grown, inst.capacities)) or grown == inst.capacities:
        return None
    mech = resolve_mechanism(mechanism)
    before = run(mech, inst, options)
    after = run(mech, rebuild(inst, capacities=grown), options)
    if after[i] < before[i]:
        return (
            f"capacities <{', '.join(format_exact(c) for c in inst.capacities)}> grow to "
            f"<{', '.join(format_exact(c) for c in grown)}> and user {inst.users[i]} drops from "
            f"{format_exact(before[i])} to {format_exact(after[i])} tasks"
        )
    return None


def encode(sym, spec, prefix: str = "rm") -> Encoding:
    """spec(sym, t), capacities c' >= c with one strictly larger, spec(sym with c', t'), some t'_i < t_i."""
    tasks = fresh_tasks(prefix, sym.n)
    grown = [z3.Real(f"{prefix}.c{r}") for r in range(sym.m)]
    constraints = list(spec(sym, tasks))
    constraints += [Constraint(f"{prefix}.grow[{r}]", grown[r] >= sym.capacities[r]) for r in range(sym.m)]
    constraints.append(Constraint(f"{prefix}.grows", z3.Or([g > c for g, c in zip(grown, sym.capacities)])))
    derived = SymbolicInstance(grown, list(sym.demands), list(sym.weights), list(sym.max_tasks))
    after = fresh_tasks(f"{prefix}.grown", sym.n)
    constraints += [Constraint(f"{prefix}.grown:{c.name}", c.expr) for c in spec(derived, after)]
    choices = [(i, after[i] < tasks[i]) for i in range(sym.n)]
    constraints.append(Constraint(f"{prefix}.violated", z3.Or([g for _, g in choices])))

    def witness(model):
        return {"capacities": [number(model_value(model, g)) for g in grown], "user": model_index(model, choices)}

    return Encoding(constraints, witness, {"tasks": tasks, "capacities": grown})
