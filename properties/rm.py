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
from fairlab.properties.base import model_value, number, read_index, read_vector, rebuild
from fairlab.properties.property import CAPACITY_CHANGE, CapacityWitness, DeviationProperty, register

FACTORS = (Fraction(2), Fraction(3, 2), Fraction(4), Fraction(5, 4), Fraction(3), Fraction(10), Fraction(11, 10))


def loses(view, i, before_i, after_i, deviation):
    """The rule: user i runs fewer tasks with the grown capacities."""
    return after_i < before_i


def derive(instance, capacities):
    return rebuild(instance, capacities=capacities)


def derive_symbolic(sym, prefix, user):
    """Unknown capacities c' >= c, one strictly larger."""
    grown = [z3.Real(f"{prefix}.c{r}") for r in range(sym.m)]
    constraints = [Constraint(f"{prefix}.grow[{r}]", grown[r] >= sym.capacities[r]) for r in range(sym.m)]
    constraints.append(Constraint(f"{prefix}.grows", z3.Or([g > c for g, c in zip(grown, sym.capacities)])))
    derived = SymbolicInstance(grown, list(sym.demands), list(sym.weights), list(sym.max_tasks))
    yield "grown", tuple(grown), derived, constraints


def read(witness, instance):
    i = read_index(witness.user, instance.n, "user")
    grown = read_vector(witness.capacities, instance.m, "capacities")
    if any(g < c for g, c in zip(grown, instance.capacities)) or grown == instance.capacities:
        return None
    return grown, i


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


def explain(inst, grown, i, before_i, after_i, integral):
    return (
        f"capacities <{', '.join(format_exact(c) for c in inst.capacities)}> grow to "
        f"<{', '.join(format_exact(c) for c in grown)}> and user {inst.users[i]} drops from "
        f"{format_exact(before_i)} to {format_exact(after_i)} tasks"
    )


PROPERTY = register(DeviationProperty(
    name="rm",
    title="resource monotonicity",
    definition=(
        "When the capacity of one or more resources grows, no user runs fewer tasks. Source: §3 of "
        "the DRF paper ('resource monotonicity'); Theorem 3 (asset fairness violates it) and "
        "Theorem 6 (incompatible with sharing incentive plus Pareto efficiency)."
    ),
    source="Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §3; Theorems 3 and 6",
    weighted=(
        "weights and task caps unchanged while capacities grow; the rule compares task counts only. Lab's "
        "reading of the DRF paper's resource monotonicity (§3) with weights held fixed"
    ),
    witness=CapacityWitness,
    witness_help='{"capacities": [new capacities], "user": i}  (0-based user who runs fewer tasks)',
    compares=CAPACITY_CHANGE,
    rule=loses,
    derive=derive,
    derive_symbolic=derive_symbolic,
    compared=lambda n, deviation: [(i, i) for i in range(n)],
    make_witness=lambda grown, i: CapacityWitness([number(c) for c in grown], i),
    model_witness=lambda model, grown, i: CapacityWitness([number(model_value(model, g)) for g in grown], i),
    read=read,
    explain=explain,
    candidates=lambda inst, seed: (structured_increases(inst), random_increases(inst, seed)),
    what="capacity increase",
))
