"""Asset fairness's fast exact fill (issue 18) equals the generic Fraction-by-Fraction path: the
same exact tasks and the same rounds, on random instances (weights, caps, zero demands, twins,
fractional capacities) and on larger ones with near-ties; and `fairlab.core.exact`'s sums."""

from __future__ import annotations

import random
from fractions import Fraction as F

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairlab import strategies
from fairlab.core.exact import fraction_sum, ratio_sum, scale_fraction
from fairlab.core.instance import Instance
from fairlab.mechanisms import asset


def same(instance: Instance) -> None:
    assert asset.sigma(instance) == asset.sigma_generic(instance)
    fast, reference = asset.allocate(instance), asset.allocate_reference(instance)
    assert fast.tasks == reference.tasks
    assert all(type(t) is F for t in fast.tasks)
    assert fast.extra == reference.extra
    assert fast.to_dict() == reference.to_dict()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.instances(users=(1, 6), resources=(1, 4), twins=True, fractional_capacities=True,
                            vector_weights=False))  # asset fairness takes one weight per user
def test_fast_fill_equals_generic_fill(instance):
    same(instance)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.instances(users=(5, 25), resources=(2, 5), largest_demand=3, capacities=(1, 4),
                            vector_weights=False))
def test_fast_fill_equals_generic_fill_with_many_ties(instance):
    """Small numbers: many exact ties between resources and cap levels in every round."""
    same(instance)


def test_fast_fill_equals_generic_fill_at_a_hundred_users():
    rng = random.Random(18)
    for m in (2, 3, 6):
        demands = [[rng.choice([0, 1, 2, rng.randint(1, 100)]) or 1 if r == 0 else rng.choice([0, rng.randint(1, 100)])
                    for r in range(m)] for _ in range(100)]
        caps = [None if rng.random() < 0.7 else F(rng.randint(1, 400), rng.randint(1, 3)) for _ in range(100)]
        weights = [rng.choice([1, 2, F(1, 3)]) for _ in range(100)]
        same(Instance.build([rng.randint(5_000, 9_000) for _ in range(m)], demands, weights=weights, max_tasks=caps))


def test_exact_tie_between_resources_is_found():
    """Two resources saturate at the same level (bounds alone cannot separate them)."""
    inst = Instance.build([10, 20, 7], [[1, 2, 0], [3, 6, 1], [2, 4, 5]])
    same(inst)
    assert asset.allocate(inst).extra["rounds"][0]["saturated"] == [0, 1]


@given(st.lists(st.fractions(), max_size=30))
def test_fraction_sum_is_the_sum(values):
    assert fraction_sum(values) == sum(values, F(0))
    n, d = ratio_sum((v.numerator, v.denominator) for v in values)
    assert d > 0 and F(n, d) == sum(values, F(0))


@given(st.fractions(), st.fractions(min_value=F(1, 10**6)))
def test_scale_fraction_is_the_reduced_product(big, small):
    cache: dict = {}
    for _ in range(2):  # the second call reads the cache
        got = scale_fraction(big, small.numerator, small.denominator, cache)
        assert got == big * small
        assert (got.numerator, got.denominator) == ((big * small).numerator, (big * small).denominator)
