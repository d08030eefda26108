"""Envy-freeness on several machines (DRF paper §3 property 3, §6.2).

User i envies user j when j's per-machine bundles run more of i's tasks than i runs: with j's
placement x_jk, machine k holds x_jk d_j for j, which runs ``floor(min over r with d_ir > 0 of
x_jk d_jr / d_ir)`` whole tasks of i there (no floor for a divisible mechanism); i's utility for
j's bundles is their sum over machines, capped by i's task cap. Source of the property: the DRF
paper's envy-freeness (Ghodsi et al., NSDI 2011, §3 property 3); bundles stay on their machines.
"""

from __future__ import annotations

from fractions import Fraction

from fairlab.core.exact import format_exact
from fairlab.properties._machines import PlacementProperty, capped, pairs, runs, totals
from fairlab.properties.property import EnvyWitness, register


def envy_value(inst, placement, integral, i, j):
    """Tasks of user i that user j's per-machine bundles run (capped by i's cap)."""
    total = sum((runs(inst, i, [placement[j][k] * d for d in inst.demands[j]], integral) for k in range(inst.k)),
                Fraction(0))
    return capped(inst, i, total, integral)


def envies(inst, placement, integral, context, i, j):
    return envy_value(inst, placement, integral, i, j) > totals(placement)[i]


def explain(inst, placement, integral, context, witness):
    i, j = witness.user, witness.envied
    return (f"user {inst.users[i]} runs {format_exact(totals(placement)[i])} tasks but {inst.users[j]}'s bundles "
            f"(machine by machine) would run {format_exact(envy_value(inst, placement, integral, i, j))} of its tasks")


PROPERTY = register(PlacementProperty(
    name="machines-ef",
    title="envy-freeness (machines)",
    definition=("No user i prefers user j's per-machine bundles: sum over machines k of floor(min_r x_jk d_jr / d_ir) "
                "(no floor for a divisible mechanism), capped by i's task cap, never exceeds i's tasks. Source: DRF "
                "paper §3 property 3 (envy-freeness), bundles kept on their machines (§6.2)."),
    source="Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §3 property 3, §6.2",
    witness=EnvyWitness,
    witness_help='{"user": i, "envied": j}  (0-based: user i prefers j\'s per-machine bundles)',
    rule=envies,
    choices=pairs,
    explain=explain,
))
