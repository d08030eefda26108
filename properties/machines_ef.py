"""Envy-freeness on several machines (DRF paper §3 property 3, §6.2).

User i envies user j when j's per-machine bundles run more of i's tasks than i runs: with j's
placement x_jk, machine k holds x_jk d_j for j, which runs ``floor(min over r with d_ir > 0 of
x_jk d_jr / d_ir)`` whole tasks of i there (no floor for a divisible mechanism); i's utility for
j's bundles is their sum over machines, capped by i's task cap. Source of the property: the DRF
paper's envy-freeness (Ghodsi et al., NSDI 2011, §3 property 3); bundles stay on their machines.

A lottery is judged ex ante: E[i's utility for j's bundles] against E[i's tasks], both
over the same lottery (lab's reading of ex-ante envy-freeness); a placement of its support with envy
is reported apart, as an ex-post finding (`fairlab.properties._machines`).
"""

from __future__ import annotations

from fractions import Fraction

from fairlab.core.exact import format_exact
from fairlab.properties._machines import PlacementProperty, capped, expected, expected_totals, pairs, runs
from fairlab.properties.property import EnvyWitness, register


def envy_value(inst, placement, integral, i, j):
    """Tasks of user i that user j's per-machine bundles run (capped by i's cap)."""
    total = sum((runs(inst, i, [placement[j][k] * d for d in inst.demands[j]], integral) for k in range(inst.k)),
                Fraction(0))
    return capped(inst, i, total, integral)


def expected_envy(inst, outcomes, integral, i, j):
    return expected(outcomes, lambda placement: envy_value(inst, placement, integral, i, j))


def envies(inst, outcomes, integral, context, i, j):
    return expected_envy(inst, outcomes, integral, i, j) > expected_totals(outcomes)[i]


def explain(inst, outcomes, integral, context, witness):
    i, j = witness.user, witness.envied
    ante = "" if len(outcomes) == 1 else " in expectation"
    return (f"user {inst.users[i]} runs {format_exact(expected_totals(outcomes)[i])} tasks{ante} but {inst.users[j]}'s "
            f"bundles (machine by machine) would run {format_exact(expected_envy(inst, outcomes, integral, i, j))} of "
            f"its tasks{ante}")


PROPERTY = register(PlacementProperty(
    name="machines-ef",
    title="envy-freeness (machines)",
    definition=("No user i prefers user j's per-machine bundles: sum over machines k of floor(min_r x_jk d_jr / d_ir) "
                "(no floor for a divisible mechanism), capped by i's task cap, never exceeds i's tasks; a lottery ex "
                "ante (expectations). Source: DRF paper §3 property 3 (envy-freeness), bundles kept on their machines "
                "(§6.2)."),
    source="Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §3 property 3, §6.2",
    witness=EnvyWitness,
    witness_help='{"user": i, "envied": j}  (0-based: user i prefers j\'s per-machine bundles)',
    rule=envies,
    choices=pairs,
    explain=explain,
    ex_ante=True,
))
