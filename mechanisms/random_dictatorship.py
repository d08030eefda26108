"""Uniform random dictatorship on several machines, whole tasks: the comparator of `ks-lottery`.

Source: the reading notes on Friedman, Ghodsi & Psomas (EC 2014) ("uniform random dictatorship
already gives t >= 1/n, hence ex-ante proportionality"; low confidence). **Lab's reading**: each of
the n! orders of the users has probability 1/n!; along the order, each dictator in turn takes the
most whole tasks it can while every earlier dictator keeps its count (earlier dictators' tasks may
be re-placed across machines to make room — the serial dictatorship over task-total vectors, so
each outcome is Pareto efficient ex post). Identical placements are merged, probabilities exact
(Fractions). The first dictator runs u_i*, so E[u_i] >= u_i* / n (ex-ante proportionality).

Computed from `fairlab.mechanisms._placements.frontier` (the Pareto-maximal task-total vectors, one
placement each): the lexicographic maximum in the dictators' order. Domain: as `ks-lottery` (preset
``fgp-2014``); valuation model: FGP's containers, as `ks-lottery` (declared; ``model=pooled`` asks the
lab's pooled reading). No z3 spec (a lexicographic maximum over exponentially many placements).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from types import MappingProxyType

from fairlab.core.domain import PRESETS
from fairlab.core.instance import Instance
from fairlab.mechanisms._placements import as_fractions, frontier
from fairlab.mechanisms.base import Allocation, Mechanism, register

#: more users than this: refused (n! orders)
MAX_USERS = 6


def lottery(instance: Instance):
    """[(probability, placement)] over the n! dictator orders, identical placements merged (first-seen order)."""
    from fairlab.core.errors import InputError

    if instance.n > MAX_USERS:
        raise InputError(f"random-dictatorship: {instance.n} users ({instance.n}! orders); at most {MAX_USERS}")
    points = frontier(instance)
    share = Fraction(1, math.factorial(instance.n))
    merged: dict[tuple, Fraction] = {}
    for order in itertools.permutations(range(instance.n)):
        best = max(points, key=lambda v: tuple(v[i] for i in order))
        placement = points[best]
        merged[placement] = merged.get(placement, Fraction(0)) + share
    return [(p, as_fractions(placement)) for placement, p in merged.items()]


def allocate(instance: Instance, **options) -> Allocation:
    outcomes = tuple(lottery(instance))
    expected = tuple(sum((p * sum(pl[i], Fraction(0)) for p, pl in outcomes), Fraction(0)) for i in range(instance.n))
    notes = (f"uniform over the {math.factorial(instance.n)} dictator orders, {len(outcomes)} distinct placements",
             "each dictator takes the most tasks it can, earlier dictators keeping their counts (lab's reading)")
    return Allocation("random-dictatorship", instance, expected, options=MappingProxyType({}), notes=notes,
                      lottery=outcomes)


MECHANISM = register(
    Mechanism(
        name="random-dictatorship",
        summary="uniform random dictatorship on several machines (whole tasks): a uniformly random order, each "
                "dictator takes the most tasks it can (lab's reading); exact probabilities",
        source="reading notes on Friedman, Ghodsi & Psomas (EC 2014), the comparator of ks-lottery; lab's reading",
        allocate=allocate,
        spec=None,
        options={},
        discrete=True,
        scale_invariant=False, anonymous=False,
        module=__name__,
        setting="machines",
        domain=PRESETS["fgp-2014"],
        valuation="containers",
    )
)
