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
candidate is evaluated by a fresh exact run. The z3 step asks user by user: where the encoding
only sees the direction of the misreport (checked term by term, `fairlab.core.scaling`; a task cap
breaks it), the user's tasks under the misreport are fixed to 1, 0 and -1, which leaves z3 a
question without the tasks x demand product (drf 3 x 3: ~10 ms, where the whole question used its
2 million rlimit units without an answer).
"""

from __future__ import annotations

import random
from fractions import Fraction

import z3

from fairlab.core.exact import format_exact
from fairlab.mechanisms.base import Constraint, SymbolicInstance
from fairlab.properties import leontief
from fairlab.properties.base import model_value, number, read_index, read_vector, rebuild
from fairlab.properties.property import MISREPORT, MisreportWitness, PerUserDeviationProperty, register

SCALES = (
    Fraction(2), Fraction(8), Fraction(4), Fraction(1, 2), Fraction(16), Fraction(1, 4), Fraction(3, 2), Fraction(3)
)


def gains(view, i, before_i, after_i, deviation):
    """The rule: user i, declaring `deviation`'s demand, gets t'_i tasks of it, which its TRUE demand
    values more than its truthful t_i."""
    _, declared = deviation
    return view.prefers(i, [after_i * d for d in declared], before_i)


def true_utility(instance, i, declared, tasks_i, integral=False):
    """Tasks user i really runs with t'_i tasks' worth of its declared demand (whole ones if `integral`)."""
    return leontief.utility(instance, i, tuple(tasks_i * d for d in declared), integral)


def derive(instance, deviation):
    i, declared = deviation
    return rebuild(instance, demands=[declared if k == i else row for k, row in enumerate(instance.demands)])


def derive_symbolic(sym, prefix, user):
    """For each user i (or just `user`, or each of a tuple of users): a misreported row d'_i
    (unknown, >= 0, not all zero)."""
    for i in range(sym.n) if user is None else [user] if isinstance(user, int) else user:
        lie = [z3.Real(f"{prefix}.lie{i}_{r}") for r in range(sym.m)]
        constraints = [Constraint(f"{prefix}.lie{i}[{r}]>=0", lie[r] >= 0) for r in range(sym.m)]
        constraints.append(Constraint(f"{prefix}.lie{i}!=0", z3.Or([x > 0 for x in lie])))
        derived = SymbolicInstance(
            capacities=list(sym.capacities),
            demands=[lie if k == i else row for k, row in enumerate(sym.demands)],
            weights=list(sym.weights),
            max_tasks=list(sym.max_tasks),
        )
        yield f"lie{i}", (i, lie), derived, constraints


def read(witness, instance):
    i = read_index(witness.user, instance.n, "user")
    return (i, read_vector(witness.misreport, instance.m, "misreport")), i


def structured_misreports(instance):
    """(user, misreport) pairs worth trying first, deduplicated, the truth excluded."""
    seen = set()
    for i in range(instance.n):
        d = instance.demands[i]
        top = max(d)
        options = []
        for k in SCALES:
            for r in range(instance.m):
                options.append(tuple((d[r] * k if d[r] > 0 else top * k / 16) if s == r else d[s]
                                     for s in range(instance.m)))
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


def explain(inst, deviation, i, before_i, after_i, integral):
    _, declared = deviation
    gain = true_utility(inst, i, declared, after_i, integral)
    return (
        f"user {inst.users[i]} runs {format_exact(before_i)} tasks when truthful but "
        f"{format_exact(gain)} of its real tasks by declaring <{', '.join(format_exact(x) for x in declared)}>"
    )


PROPERTY = register(PerUserDeviationProperty(
    name="sp",
    title="strategyproofness",
    definition=(
        "No user can run more tasks, measured with its true demand vector, by declaring a different "
        "demand vector. Source: §3 of the DRF paper (property 2, 'strategy-proofness'); Theorem 4 "
        "(CEEI is not strategyproof); the lecture's truthfulness proof for DRF."
    ),
    source="Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §3 property 2; Theorem 4",
    weighted=(
        "a user declares only its demand vector: its weight (or weight vector) and its task cap stay as "
        "given, and its gain is measured with its true demand, capped by its cap. Lab's reading of the "
        "DRF paper's strategyproofness (§3) with weights and caps held fixed"
    ),
    witness=MisreportWitness,
    witness_help='{"user": i, "misreport": [demand vector]}  (0-based user; the declared demand it gains with)',
    compares=MISREPORT,
    rule=gains,
    derive=derive,
    derive_symbolic=derive_symbolic,
    compared=lambda n, deviation: [(deviation[0], deviation[0])],
    make_witness=lambda deviation, i: MisreportWitness(i, [number(x) for x in deviation[1]]),
    model_witness=lambda model, deviation, i: MisreportWitness(
        i, [number(model_value(model, x)) for x in deviation[1]]),
    read=read,
    explain=explain,
    candidates=lambda inst, seed: (structured_misreports(inst), random_misreports(inst, seed)),
    # declaring k d'_i for d'_i changes nothing when the mechanism sees only the direction of a
    # declared demand; whether its encoding does is checked per instance (`fairlab.core.scaling`)
    scaling=lambda deviation, after: (deviation[1], after[deviation[0]]),
    what="misreport",
))
