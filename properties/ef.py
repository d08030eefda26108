"""Envy-freeness (DRF paper §3, property 3), weighted.

Weighted version: user i does not prefer user j's bundle rescaled to i's entitlement, i.e.
``u_i(A_j * w_i / w_j) <= u_i(A_i)`` (per resource ``w_ir / w_jr`` with weight vectors; plain
``u_i(A_j) <= u_i(A_i)`` without weights; lab's reading, `PROPERTY.weighted`). Utilities are
Leontief (`fairlab.properties.leontief`).
"""

from __future__ import annotations

from fairlab.core.exact import format_exact
from fairlab.properties import leontief
from fairlab.properties.property import ALLOCATION, AllocationProperty, EnvyWitness, register


def envied_bundle(view, i, j, tasks_j):
    """j's bundle as i would see it: tasks_j d_jr * w_ir / w_jr (exact numbers or z3 terms)."""
    return [tasks_j * view.demands[j][r] * view.weights[i][r] / view.weights[j][r] for r in range(view.m)]


def envies(view, tasks, i, j):
    """The rule: user i prefers user j's weight-scaled bundle to its own."""
    return view.prefers(i, envied_bundle(view, i, j, tasks[j]), tasks[i])


def pairs(view):
    return [(i, j) for i in range(view.n) for j in range(view.n) if i != j]


def explain(inst, tasks, witness, integral):
    i, j = witness.user, witness.envied
    theirs = leontief.utility(inst, i, envied_bundle(inst, i, j, tasks[j]), integral)
    return (
        f"user {inst.users[i]} runs {format_exact(tasks[i])} tasks but would run {format_exact(theirs)}"
        f" with user {inst.users[j]}'s bundle"
    )


PROPERTY = register(AllocationProperty(
    name="ef",
    title="envy-freeness",
    definition=(
        "No user prefers another user's bundle to its own (weighted: the other's bundle scaled by "
        "w_i / w_j per resource). Source: §3 of the DRF paper (property 3, 'envy-freeness'); the "
        "lecture's 'DRF is envy-free' lemma."
    ),
    source="Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §3 property 3; appendix A",
    weighted=(
        "user i compares its tasks with what user j's bundle scaled by w_ir / w_jr on each resource r runs "
        "for i (w_i / w_j with one weight per user; j's bundle as is without weights), capped by i's task "
        "cap. Lab's reading: the DRF paper (§4.3) defines weighted DRF but no weighted envy-freeness; "
        "this is envy-freeness after scaling the other's bundle to one's own weights"
    ),
    witness=EnvyWitness,
    witness_help='{"user": i, "envied": j}  (0-based indices: i prefers j\'s scaled bundle)',
    compares=ALLOCATION,
    rule=envies,
    choices=pairs,
    explain=explain,
    vacuous=lambda inst: "vacuous: a single user envies no one" if inst.n == 1 else None,
))
