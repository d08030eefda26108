"""Single-resource fairness (DRF paper §3, nice-to-have property 1), weighted.

With a single resource the allocation must be max-min fair: weighted water-filling of the
resource (shares divided by weights), capped by task caps (the notes' example: demands 2, 2.6,
4, 5 on capacity 10 give 2, 2.6, 2.7, 2.7). Instances with more than one resource satisfy it
vacuously. It is bottleneck fairness (`fairlab.properties.bf`) restricted to m = 1.
"""

from __future__ import annotations

from fairlab.properties import bf
from fairlab.properties.property import ALLOCATION, AllocationProperty, UserWitness, register


def short_of_max_min(view, tasks, i):
    """The rule: (one resource) user i is short of its max-min fair share of it."""
    return view.short_of_max_min(tasks, 0, i)


def users(view):
    return [(i,) for i in range(view.n)] if view.m == 1 else []


def vacuous(inst):
    return f"vacuous: the instance has {inst.m} resources" if inst.m != 1 else None


PROPERTY = register(AllocationProperty(
    name="srf",
    title="single-resource fairness",
    definition=(
        "With a single resource, the allocation is max-min fair (weighted: on shares divided by the "
        "users' weights; users stop at their task caps). Source: §3 of the DRF paper "
        "('single resource fairness'); max-min water-filling as in the notes on the DRF paper."
    ),
    source="Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §3",
    weighted=(
        "water-filling of the single resource on shares divided by each user's weight for it (weighted "
        "max-min fairness, DRF paper §1), each user stopped at its task cap"
    ),
    witness=UserWitness,
    witness_help='{"user": i}  (0-based index of a user below its max-min fair share)',
    compares=ALLOCATION,
    rule=short_of_max_min,
    choices=users,
    explain=lambda inst, tasks, w, integral: bf.explain_short(inst, tasks, 0, w.user),
    vacuous=vacuous,
))
