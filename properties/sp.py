"""Strategyproofness (DRF paper §3, property 2; lecture "truthful").

No user gains, measured with its TRUE demand, by declaring another demand vector: with the
misreport d'_i the mechanism gives user i t'_i tasks of d'_i, whose Leontief utility for i is
``min over r with d_ir > 0 of t'_i d'_ir / d_ir`` (capped), and that must not exceed its truthful
tasks t_i. Weights and caps are kept as declared. Theorem 4 of the DRF paper (lecture numbers):
CEEI on <100, 100>, D1 = <16, 1>, D2 = <1, 2>; user 1 gains by declaring <16, 8>.

The misreports form a continuum, so the check searches (`fairlab.properties._search`): structured
misreports first (one entry scaled up or down, zero entries made positive, other users'
demands, swapped entries), then z3 on the mechanism's symbolic spec with the misreported row
unknown (unsat proves the property at this instance), then seeded random misreports. Every
candidate is evaluated by a fresh exact run.
"""

from __future__ import annotations

import random
from fractions import Fraction

import z3

from fairlab.core.exact import format_exact
from fairlab.mechanisms.base import Constraint, SymbolicInstance
from fairlab.properties import _search, leontief
from fairlab.properties.base import (
    Encoding, Undecided, fresh_tasks, model_index, model_value, number, parse_budget, read_index, read_vector, rebuild,
    resolve_instance, resolve_mechanism, run,
)

NAME = "sp"
TITLE = "strategyproofness"
DEFINITION = (
    "No user can run more tasks, measured with its true demand vector, by declaring a different "
    "demand vector. Source: §3 of the DRF paper (property 2, 'strategy-proofness'); Theorem 4 "
    "(CEEI is not strategyproof); the lecture's truthfulness proof for DRF."
)
WITNESS = '{"user": i, "misreport": [demand vector]}  (0-based user; the declared demand it gains with)'

SCALES = (Fraction(2), Fraction(8), Fraction(4), Fraction(1, 2), Fraction(16), Fraction(1, 4), Fraction(3, 2), Fraction(3))


def true_utility(instance, i, declared, tasks_i, integral=False):
    """Tasks user i really runs with t'_i tasks' worth of its declared demand (whole ones if `integral`)."""
    return leontief.utility(instance, i, tuple(tasks_i * d for d in declared), integral)


def structured_misreports(instance):
    """(user, misreport) pairs worth trying first, deduplicated, the truth excluded."""
    seen = set()
    for i in range(instance.n):
        d = instance.demands[i]
        top = max(d)
        options = []
        for k in SCALES:
            for r in range(instance.m):
                options.append(tuple((d[r] * k if d[r] > 0 else top * k / 16) if s == r else d[s] for s in range(instance.m)))
        for j in range(instance.n):
            if j != i:
                other = instance.demands[j]
                options.append(other)
                options.append(tuple(max(a, b * top / max(other)) for a, b in zip(d, other)))
        options.append(tuple(reversed(d)))
        options += [tuple(x * 2 for x in d), tuple(x / 2 for x in d)]
        for option in options:
            if option != d and any(x > 0 for x in option) and (i, option) not in seen:
                seen.add((i, option))
                yield i, option


def random_misreports(instance, seed):
    rng = random.Random(seed)
    while True:
        i = rng.randrange(instance.n)
        d = instance.demands[i]
        top = max(d)
        option = tuple(
            (x * Fraction(rng.randint(1, 32), rng.randint(1, 16)) if x > 0 and rng.random() < 0.8
             else top * Fraction(rng.randint(0, 16), 16))
            for x in d
        )
        if any(x > 0 for x in option) and option != d:
            yield i, option


def check(mechanism, instance, **budget):
    b = parse_budget(budget)
    mech = resolve_mechanism(mechanism)
    inst = resolve_instance(instance)
    tasks = run(mech, inst, b.options)
    b.used_evaluations = 1

    def evaluate(candidate):
        i, declared = candidate
        rows = [declared if k == i else row for k, row in enumerate(inst.demands)]
        after = run(mech, rebuild(inst, demands=rows), b.options)
        if true_utility(inst, i, declared, after[i], mech.discrete) > tasks[i]:
            return {"user": i, "misreport": [number(x) for x in declared]}
        return None

    undecided = Undecided()
    symbolic = _search.symbolic_at(mech, inst, b, encode)
    return undecided.amend(_search.search(
        NAME, mech, inst, b,
        structured_misreports(inst), random_misreports(inst, b.seed), undecided.guard(evaluate), symbolic,
        "misreport",
    ))


def confirm(mechanism, instance, witness, options):
    inst = resolve_instance(instance)
    i = read_index(witness.get("user"), inst.n, "user")
    declared = read_vector(witness.get("misreport"), inst.m, "misreport")
    rows = [declared if k == i else row for k, row in enumerate(inst.demands)]
    mech = resolve_mechanism(mechanism)
    truthful = run(mech, inst, options)
    lied = rebuild(inst, demands=rows)  # validates the misreport like any instance
    after = run(mech, lied, options)
    gain = true_utility(inst, i, declared, after[i], mech.discrete)
    if gain > truthful[i]:
        return (
            f"user {inst.users[i]} runs {format_exact(truthful[i])} tasks when truthful but "
            f"{format_exact(gain)} of its real tasks by declaring <{', '.join(format_exact(x) for x in declared)}>"
        )
    return None


def encode(sym, spec, prefix: str = "sp", user: int | None = None) -> Encoding:
    """spec(sym, t); for each user i (or just `user`), a misreported row d'_i (unknown, >= 0, not
    all zero), spec(sym with row i := d'_i, t^i), and u_i(t^i_i d'_i) > t_i with i's true demand."""
    tasks = fresh_tasks(prefix, sym.n)
    constraints = list(spec(sym, tasks))
    choices = []
    lies = {}
    for i in range(sym.n) if user is None else [user]:
        lie = [z3.Real(f"{prefix}.lie{i}_{r}") for r in range(sym.m)]
        lies[i] = lie
        constraints += [Constraint(f"{prefix}.lie{i}[{r}]>=0", lie[r] >= 0) for r in range(sym.m)]
        constraints.append(Constraint(f"{prefix}.lie{i}!=0", z3.Or([x > 0 for x in lie])))
        derived = SymbolicInstance(
            capacities=list(sym.capacities),
            demands=[lie if k == i else row for k, row in enumerate(sym.demands)],
            weights=list(sym.weights),
            max_tasks=list(sym.max_tasks),
        )
        after = fresh_tasks(f"{prefix}.lie{i}", sym.n)
        constraints += [Constraint(f"{prefix}.lie{i}:{c.name}", c.expr) for c in spec(derived, after)]
        gain = leontief.z3_prefers(sym, i, [after[i] * lie[r] for r in range(sym.m)], tasks[i])
        choices.append((i, gain))
    constraints.append(Constraint(f"{prefix}.violated", z3.Or([g for _, g in choices])))

    def witness(model):
        i = model_index(model, choices)
        return {"user": i, "misreport": [number(model_value(model, x)) for x in lies[i]]}

    return Encoding(constraints, witness, {"tasks": tasks, "misreports": lies})
