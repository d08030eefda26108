"""Sharing incentive (DRF paper §3, property 1; lecture "proportional"), weighted.

Weighted version: user i runs at least as many tasks as its bundle in the weighted equal split,
``w_ir / sum_k w_kr * c_r`` of each resource r (``c / n`` without weights; ``w_i / sum w * c`` with
scalar weights), capped by its task cap (`PROPERTY.weighted`: the source of each form; the
per-resource form for weight vectors is the lab's reading). Theorem 1 of the DRF paper: asset fairness violates it
on <30, 30>, D1 = <1, 3>, D2 = <1, 1> (user 2 gets 12 tasks, the equal split gives 15).
"""

from __future__ import annotations

from fairlab.core.exact import format_exact
from fairlab.properties import leontief
from fairlab.properties.property import ALLOCATION, AllocationProperty, UserWitness, register


def equal_split_utility(instance, i, integral=False):
    """Utility of user i for its weighted equal-split bundle (whole tasks if `integral`)."""
    return leontief.utility(instance, i, leontief.entitlement(instance, i), integral)


def below_equal_split(view, tasks, i):
    """The rule: user i prefers its weighted equal-split bundle to its allocation."""
    return view.prefers(i, view.entitlement(i), tasks[i])


def users(view):
    return [(i,) for i in range(view.n)]


def explain(inst, tasks, witness, integral):
    i = witness.user
    split = equal_split_utility(inst, i, integral)
    return (
        f"user {inst.users[i]} runs {format_exact(tasks[i])} tasks but its equal-split bundle "
        f"<{', '.join(format_exact(b) for b in leontief.entitlement(inst, i))}> runs {format_exact(split)}"
    )


PROPERTY = register(AllocationProperty(
    name="si",
    title="sharing incentive",
    definition=(
        "Every user runs at least as many tasks as it would with its own slice of the cluster: the "
        "equal split c/n (weighted: the share w_ir / sum_k w_kr of each resource r). Source: §3 of the "
        "DRF paper (property 1, 'sharing incentive'); the lecture calls it proportionality."
    ),
    source="Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §3 property 1; Theorem 1",
    weighted=(
        "the bundle of weight share w_ir / sum_k w_kr of each resource r (w_i / sum_k w_k with one weight per "
        "user, 1/n without weights), its utility capped by the user's task cap. Source: weighted max-min "
        "fairness gives each user a share proportional to its weight (DRF paper §1), and weighted DRF "
        "(§4.3) weighs each resource; the paper states no weighted sharing incentive, so this per-resource "
        "form is the lab's reading"
    ),
    witness=UserWitness,
    witness_help='{"user": i}  (0-based index of a user below its equal-split utility)',
    compares=ALLOCATION,
    rule=below_equal_split,
    choices=users,
    explain=explain,
))
