"""The exact arithmetic back ends (`fairlab.core.exact.backend`): GMP's rationals (the default) and
Python's `Fraction` give the same `Fraction`s, the same rounds and the same JSON on every fill that
runs on them (drf, asset, ks, single-resource max-min, asset's generic path), on seeded instances
with thirds and sevenths, huge coprime numbers and numbers of order 10^-12; `coprime_fraction`
(no gcd) equals ``Fraction(num, den)``."""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction as F

import gmpy2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairlab import strategies
from fairlab.core import exact
from fairlab.core.instance import Instance
from fairlab.mechanisms import asset, drf, ks, maxmin

BIG_PRIME = 2**521 - 1  # a Mersenne prime: coprime to every smaller positive integer
FILLS = {
    "drf": drf.allocate,
    "asset": asset.allocate,
    "asset-generic": asset.allocate_reference,
    "ks": ks.allocate,
}


def per_backend(allocate, instance: Instance) -> dict:
    out = {}
    for name in exact.BACKENDS:
        with exact.backend(name):
            out[name] = allocate(instance)
    return out


def assert_same(allocations: dict) -> None:
    gmp, reference = allocations["gmp"], allocations["fraction"]
    assert gmp.tasks == reference.tasks
    for alloc in (gmp, reference):  # Fraction-valued, ints inside: nothing of GMP leaks out
        assert all(type(t) is F and type(t.numerator) is int and type(t.denominator) is int for t in alloc.tasks)
        for rnd in alloc.extra.get("rounds", []):
            assert type(rnd["level"]) is F and type(rnd["level"].numerator) is int
    assert [(t.numerator, t.denominator) for t in gmp.tasks] == [(t.numerator, t.denominator) for t in reference.tasks]
    assert gmp.extra == reference.extra
    assert json.dumps(gmp.to_dict(), sort_keys=True) == json.dumps(reference.to_dict(), sort_keys=True)


def seeded(seed: int, n: int, m: int, style: str) -> Instance:
    rng = random.Random(f"{seed}-{n}-{m}-{style}")

    def number():
        if style == "thirds":
            return F(rng.randint(1, 30), rng.choice([3, 7, 21]))
        if style == "huge":
            return F(rng.randint(1, 10**40) * BIG_PRIME + rng.randint(1, 10**6), rng.choice([1, BIG_PRIME, 10**30 + 7]))
        if style == "tiny":
            return F(rng.randint(1, 999), 10**12 * rng.randint(1, 9))
        return F(rng.randint(1, 100))

    demands = [[number() if rng.random() < 0.85 else F(0) for _ in range(m)] for _ in range(n)]
    for row in demands:
        if not any(row):
            row[0] = number()
    capacities = [number() * rng.randint(5, 50) for _ in range(m)]
    weights = [rng.choice([1, F(1, 3), F(1, 7), 2]) for _ in range(n)]
    caps = [None if rng.random() < 0.7 else number() * rng.randint(1, 5) for _ in range(n)]
    return Instance.build(capacities, demands, weights=weights, max_tasks=caps)


@pytest.mark.parametrize("style", ["integers", "thirds", "huge", "tiny"])
@pytest.mark.parametrize("fill", sorted(FILLS))
def test_backends_agree_on_seeded_instances(fill, style):
    for seed in range(4):
        instance = seeded(seed, 12, 3, style)
        assert_same(per_backend(FILLS[fill], instance))


def test_backends_agree_on_single_resource_maxmin():
    for seed in range(4):
        instance = seeded(seed, 10, 1, "thirds")
        assert_same(per_backend(maxmin.allocate, instance))


def test_backends_agree_at_a_few_hundred_users():
    """Large common denominators (asset's level has thousands of digits)."""
    rng = random.Random(39)
    instance = Instance.build([rng.randint(50_000, 100_000) for _ in range(4)],
                              [[rng.randint(1, 100) for _ in range(4)] for _ in range(300)])
    for allocate in (drf.allocate, asset.allocate):
        allocations = per_backend(allocate, instance)
        assert_same(allocations)
    assert max(t.denominator.bit_length() for t in allocations["gmp"].tasks) > 2000


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.instances(users=(1, 6), resources=(1, 4), twins=True, fractional_capacities=True,
                            vector_weights=False))  # asset fairness takes scalar weights only
def test_backends_agree_on_drawn_instances(instance):
    for allocate in (drf.allocate, asset.allocate, ks.allocate):
        assert_same(per_backend(allocate, instance))


def test_the_comparison_can_fail():
    """Negative twin: the comparison sees a difference of one unit in one user's demand, and the
    GMP back end really computes with GMP numbers."""
    one, other = seeded(0, 12, 3, "thirds"), seeded(0, 12, 3, "thirds")
    demands = [list(row) for row in other.demands]
    demands[0][0] += 1
    changed = Instance.build(list(other.capacities), demands, weights=[w[0] for w in other.weights],
                             max_tasks=list(other.max_tasks))
    with pytest.raises(AssertionError):
        assert_same({"gmp": drf.allocate(one), "fraction": drf.allocate(changed)})
    with exact.backend("gmp"):
        assert type(exact.arithmetic().rational(F(1, 3))) is type(gmpy2.mpq(1, 3))
    with exact.backend("fraction"):
        assert type(exact.arithmetic().rational(F(1, 3))) is F
    with pytest.raises(ValueError, match="unknown exact arithmetic back end"), exact.backend("double"):
        pass


def test_the_default_backend_is_gmp_and_blocks_nest():
    assert exact.arithmetic().name == "gmp"
    with exact.backend("fraction"):
        assert exact.arithmetic().name == "fraction"
        with exact.backend("gmp"):
            assert exact.arithmetic().name == "gmp"
        assert exact.arithmetic().name == "fraction"
    assert exact.arithmetic().name == "gmp"


@pytest.mark.parametrize("num, den", [
    (1, 3), (-1, 7), (0, 1), (5, 1), (10**12 + 1, 10**12), (BIG_PRIME, 2**4000), (-(3**5000), 2**7000 + 1),
    (BIG_PRIME * 10**300 + 1, BIG_PRIME ** 3),
])
def test_coprime_fraction_equals_the_reduced_fraction(num, den):
    assert math.gcd(num, den) == 1  # the function's precondition
    got = exact.coprime_fraction(num, den)
    want = F(num, den)
    assert type(got) is F and got == want and hash(got) == hash(want)
    assert (got.numerator, got.denominator) == (want.numerator, want.denominator)
    assert type(got.numerator) is int and type(got.denominator) is int


def test_coprime_fraction_trusts_its_precondition():
    """Negative twin: it computes no gcd, so a pair not in lowest terms stays unreduced (and
    compares unequal to the reduced value): callers must pass coprime pairs."""
    assert exact.coprime_fraction(2, 4).denominator == 4
    assert F(2, 4).denominator == 2


@given(st.fractions(), st.fractions(min_value=F(1, 10**6)))
def test_both_backends_scale_to_the_reduced_product(big, small):
    want = big * small
    for name in exact.BACKENDS:
        with exact.backend(name):
            ar = exact.arithmetic()
            got = ar.fraction(ar.scale(ar.rational(big), small.numerator, small.denominator, {}))
        assert type(got) is F and (got.numerator, got.denominator) == (want.numerator, want.denominator)


@given(st.fractions())
def test_values_cross_the_boundary_exactly(value):
    for name in exact.BACKENDS:
        with exact.backend(name):
            ar = exact.arithmetic()
            back = ar.fraction(ar.rational(value))
        assert type(back) is F and back == value and (back.numerator, back.denominator) == (
            value.numerator, value.denominator)


def test_a_fraction_subclass_crosses_into_gmp():
    """A plug-in sees the instance's numbers as `ExactNumber`s (a `Fraction` subclass) and may hand
    them to a built-in fill; gmpy2 reads `Fraction`s by exact type, so the subclass must go in
    through its numerator and denominator (it raised TypeError before)."""
    from fairlab.mechanisms.plugin_numbers import ExactNumber

    with exact.backend("gmp"):
        ar = exact.arithmetic()
        got = ar.fraction(ar.rational(ExactNumber(2, 7)))
    assert got == F(2, 7) and type(got) is F
    with pytest.raises(TypeError):
        gmpy2.mpq(ExactNumber(2, 7))  # the reason for the conversion: gmpy2 itself refuses it
