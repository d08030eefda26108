"""No justified complaints, Bonald & Roberts §2.4's simplified definition (after Dolev et al.), weighted.

A user has no justified complaint if it is at its task cap or receives at least its entitlement
share of some fully allocated (saturated) resource: ``tasks_i d_ir >= w_ir / sum_k w_kr * c_r``
for a resource r with ``sum_k tasks_k d_kr = c_r`` (``1/n`` of it without weights). Receiving a
positive share implies the user uses the resource. Users at their cap are exempt (they want
nothing more) — an extension of the source, which has no caps. Whole tasks play no role here:
the rule compares shares, not utilities.
"""

from __future__ import annotations

from fairlab.core.exact import format_exact
from fairlab.properties import leontief
from fairlab.properties.property import ALLOCATION, AllocationProperty, UserWitness, register


def complaint(view, tasks, i):
    """The rule: user i is below its cap and gets less than its entitlement share of every saturated resource."""
    share = view.entitlement(i)
    return view.all([
        view.below_cap(i, tasks[i]),
        view.not_(view.any([
            view.all([view.load(tasks, r) == view.capacities[r], tasks[i] * view.demands[i][r] >= share[r]])
            for r in range(view.m)
        ])),
    ])


def users(view):
    return [(i,) for i in range(view.n)]


def explain(inst, tasks, witness, integral):
    i = witness.user
    sat = [inst.resources[r] for r in leontief.saturated(inst, tasks)]
    return (
        f"user {inst.users[i]} ({format_exact(tasks[i])} tasks, below its cap) gets less than its entitlement"
        f" share of every saturated resource ({', '.join(sat) or 'none saturated'})"
    )


PROPERTY = register(AllocationProperty(
    name="njc",
    title="no justified complaints",
    definition=(
        "Every user (below its task cap) receives at least 1/n (weighted: w_ir / sum_k w_kr) of at "
        "least one fully allocated resource. Source: Bonald & Roberts §2.4, simplified definition of "
        "Dolev et al.'s 'no justified complaints'."
    ),
    source="Bonald & Roberts, Multi-resource fairness (2015), §2.4; after Dolev et al. (2012)",
    weighted=(
        "at least the entitlement share w_ir / sum_k w_kr of some saturated resource (1/n without "
        "weights); Bonald & Roberts §2.4 weigh each class, the per-resource form for weight vectors is "
        "the lab's reading; a user at its task cap is exempt (the lab's extension: the source has no caps)"
    ),
    witness=UserWitness,
    witness_help='{"user": i}  (0-based index of a user with a justified complaint)',
    compares=ALLOCATION,
    rule=complaint,
    choices=users,
    explain=explain,
))
