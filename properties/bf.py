"""Bottleneck fairness (DRF paper §3, nice-to-have property 2), weighted.

If some resource r is, share-wise, the most demanded resource of every user
(``d_ir / c_r >= d_ir' / c_r'`` for all users i and resources r'), the allocation must be max-min
fair on r: weighted water-filling of the shares of r, ``tasks_i d_ir / (c_r w_ir)`` equalised
and capped by task caps. Other resources cannot bind before r then, so this is the max-min fair
allocation of the whole instance. Instances without such a common bottleneck satisfy the
property vacuously. Theorem 2 of the DRF paper: asset fairness violates it on <21, 21>,
D1 = <3, 2>, D2 = <4, 1> (user 1 gets 3/7 of resource 1, the max-min fair share is 1/2).

Exactly, "short of max-min" compares with the water-filling (`leontief.max_min_on`); for z3 it is
the bottleneck characterisation (`leontief.z3_not_max_min_on`): some user is short in one sense
iff some user is in the other (both say the allocation is not the water-filling).
"""

from __future__ import annotations

from fairlab.core.exact import format_exact
from fairlab.properties import leontief
from fairlab.properties.property import ALLOCATION, AllocationProperty, BottleneckWitness, register

common_bottlenecks = leontief.common_bottlenecks
max_min_on = leontief.max_min_on


def short_on_bottleneck(view, tasks, r, i):
    """The rule: r is every user's bottleneck and user i is short of its max-min fair share of r."""
    return view.all([view.common_bottleneck(r), lambda: view.short_of_max_min(tasks, r, i)])


def resources_and_users(view):
    return [(r, i) for r in range(view.m) for i in range(view.n)]


def explain_short(inst, tasks, r, i):
    """Words for user i short of its max-min fair share of resource r (used by bf and srf)."""
    fair = max_min_on(inst, r)
    return (
        f"user {inst.users[i]} gets {format_exact(tasks[i] * inst.demand_share(i, r))} of resource "
        f"{inst.resources[r]}, every user's bottleneck; max-min fairness gives it "
        f"{format_exact(fair[i] * inst.demand_share(i, r))}"
    )


def vacuous(inst):
    """Why bf holds without looking at the allocation: no resource is every user's bottleneck."""
    return None if common_bottlenecks(inst) else "vacuous: no resource is every user's bottleneck"


PROPERTY = register(AllocationProperty(
    name="bf",
    title="bottleneck fairness",
    definition=(
        "If one resource is, share-wise, the most demanded resource of every user, the allocation is "
        "max-min fair on that resource (weighted: on shares divided by the users' weights for it). "
        "Source: §3 of the DRF paper ('bottleneck fairness')."
    ),
    source="Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §3; Theorem 2",
    weighted=(
        "max-min fair on the common bottleneck resource r: shares t_i d_ir / (c_r w_ir) equalised "
        "(weighted max-min fairness, DRF paper §1), each user stopped at its task cap; lab's reading for "
        "weights (the DRF paper states bottleneck fairness without them)"
    ),
    witness=BottleneckWitness,
    witness_help=('{"resource": r, "user": i}  (0-based: user i gets less of the common bottleneck r than max-min '
                  'fairness gives)'),
    compares=ALLOCATION,
    rule=short_on_bottleneck,
    choices=resources_and_users,
    explain=lambda inst, tasks, w, integral: explain_short(inst, tasks, w.resource, w.user),
    vacuous=vacuous,
))
