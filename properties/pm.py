"""Population monotonicity (DRF paper §3, nice-to-have property 3).

When a user leaves the system and releases its resources, no remaining user runs fewer tasks.
The check is exhaustive at an instance: every single departure is tried with a fresh exact run,
so a clean pass proves the property for this instance (departures of one user; a departure of
several users is a sequence of single departures from smaller instances, not checked here).
Theorem 5 of the DRF paper: CEEI violates it on <100, 100>, D = <4, 1>, <1, 16>, <16, 1> when
user 3 leaves (user 2 drops from about 5.4 to 4.8 tasks). Weights: users keep theirs.
"""

from __future__ import annotations

from fairlab.core.exact import format_exact
from fairlab.mechanisms.base import SymbolicInstance
from fairlab.properties.base import read_index, rebuild
from fairlab.properties.property import DEPARTURE, DepartureWitness, DeviationProperty, register


def loses(view, i, before_i, after_i, removed):
    """The rule: user i runs fewer tasks once user `removed` has left."""
    return after_i < before_i


def without(instance, k):
    return rebuild(instance, keep_users=[i for i in range(instance.n) if i != k])


def removed(sym: SymbolicInstance, k: int) -> SymbolicInstance:
    keep = [i for i in range(sym.n) if i != k]
    return SymbolicInstance(
        capacities=list(sym.capacities),
        demands=[sym.demands[i] for i in keep],
        weights=[sym.weights[i] for i in keep],
        max_tasks=[sym.max_tasks[i] for i in keep],
    )


def derive_symbolic(sym, prefix, user):
    """Every single departure (a finite set: nothing unknown)."""
    for k in range(sym.n if sym.n > 1 else 0):
        yield f"without{k}", k, removed(sym, k), []


def remaining(n, k):
    """(original index, index once k has left) of every remaining user."""
    return [(i, i - (1 if i > k else 0)) for i in range(n) if i != k]


def read(witness, instance):
    k = read_index(witness.removed, instance.n, "removed")
    i = read_index(witness.user, instance.n, "user")
    return None if i == k or instance.n == 1 else (k, i)


def explain(inst, k, i, before_i, after_i, integral):
    return (
        f"when user {inst.users[k]} leaves, user {inst.users[i]} drops from {format_exact(before_i)}"
        f" to {format_exact(after_i)} tasks"
    )


PROPERTY = register(DeviationProperty(
    name="pm",
    title="population monotonicity",
    definition=(
        "When a user leaves the system and releases its resources, none of the remaining users runs "
        "fewer tasks. Source: §3 of the DRF paper ('population monotonicity'); Theorem 5 (CEEI "
        "violates it)."
    ),
    source="Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §3; Theorem 5",
    weighted=(
        "the remaining users keep their weights and task caps; the rule compares task counts only. Lab's "
        "reading of the DRF paper's population monotonicity (§3) with weights held fixed"
    ),
    witness=DepartureWitness,
    witness_help='{"removed": k, "user": i}  (0-based indices in the original instance)',
    compares=DEPARTURE,
    rule=loses,
    derive=without,
    derive_symbolic=derive_symbolic,
    compared=remaining,
    make_witness=lambda k, i: DepartureWitness(k, i),
    read=read,
    explain=explain,
    exhaustive=lambda inst: list(range(inst.n)) if inst.n > 1 else [],
    vacuous=lambda inst: "vacuous: a single user cannot leave anyone behind" if inst.n == 1 else None,
    what="departure",
))
