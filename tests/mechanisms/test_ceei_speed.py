"""CEEI's exact path at ten users (issue 18): the optimum's values are named from their own
polynomials (`fairlab.mechanisms._ceei_algebraic`) instead of z3 evaluating them at an algebraic
price; they must equal the previous method's (`legacy=True`) wherever that one finishes."""

import random
from fractions import Fraction as F

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fairlab.core.exact import Algebraic
from fairlab.core.instance import Instance
from fairlab.mechanisms import _ceei_exact, allocate, ceei
from fairlab.mechanisms._ceei_algebraic import Root, mobius, roots_in
from fairlab.mechanisms.base import check_feasible


def both(inst):
    weights = ceei.scalar_weights(inst)
    classes = ceei._classes(inst, weights)
    new = _ceei_exact.optimum(inst, weights, classes, F(60))
    old = _ceei_exact.optimum(inst, weights, classes, F(60), legacy=True)
    return new, old


@st.composite
def two_resource_instances(draw):
    """Small instances where two saturated resources (an algebraic optimum) are common."""
    n = draw(st.integers(2, 4))
    demands = [draw(st.lists(st.integers(0, 9), min_size=2, max_size=2).filter(any)) for _ in range(n)]
    capacities = draw(st.lists(st.integers(5, 60), min_size=2, max_size=2))
    weights = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    caps = draw(st.lists(st.one_of(st.none(), st.none(), st.integers(0, 6)), min_size=n, max_size=n))
    return Instance.build(capacities, demands, weights=weights, max_tasks=caps)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(two_resource_instances())
def test_new_values_equal_the_legacy_method(inst):
    assume(any(cap != 0 for cap in inst.max_tasks))  # all caps 0: answered before the exact path
    new, old = both(inst)
    assert new is not None and old is not None
    assert new[0] == old[0]  # tasks, exactly (Fractions, or algebraic numbers compared by z3)
    assert new[2]["prices"] == old[2]["prices"]


def test_shipped_irrational_examples_equal_the_legacy_method():
    for inst in (
        Instance.load("thm5-ceei-pm"),
        Instance.build([176, 411], [[3, 4], [5, 1], [4, 5], [1, 6], [1, 2]], weights=[1, 1, 1, 2, 2]),
        Instance.build([100, 100], [[4, 1], [1, 16], [16, 1]], max_tasks=[None, 4, None]),
    ):
        new, old = both(inst)
        assert new[0] == old[0] and new[2]["prices"] == old[2]["prices"]
        assert any(isinstance(x, Algebraic) for x in new[0]) or inst.max_tasks[1] == 4


def test_ten_distinct_users_exact_and_agrees_with_the_certified_float_path():
    """Ten distinct users on two saturated resources: exact (algebraic), feasible, and within
    1e-20 of the independent float path (the legacy method needed more than 20 s here)."""
    rng = random.Random(0)
    inst = Instance.build(
        [rng.randint(50, 500) for _ in range(2)],
        [[rng.randint(1, 9) for _ in range(2)] for _ in range(10)],
        weights=[rng.randint(1, 3) for _ in range(10)],
    )
    exact = allocate("ceei", inst, method="exact", timeout=60)
    assert exact.extra["status"] == "exact" and exact.extra["distinct_users"] == 10
    assert all(isinstance(x, Algebraic) for x in exact.tasks)
    assert exact.extra["priced_resources"] == ["r1", "r2"]
    approx = allocate("ceei", inst, method="float")
    assert approx.extra["status"] == "certified"
    for a, e in zip(approx.tasks, exact.tasks):
        assert a - a / 10**20 < e < a + a / 10**20
    check_feasible(inst, approx.tasks, "ceei")


def test_root_isolation_and_mobius_images():
    """x^2 - 2: one root in (1, 2), none in (2, 3); (1 + t) / t at sqrt 2 is 1 + 1/sqrt 2."""
    g = [F(-2), F(0), F(1)]
    assert roots_in(g, F(1), F(2)) == 1 and roots_in(g, F(2), F(3)) == 0 and roots_in(g, F(-2), F(2)) == 2
    root = Root.isolate(g, F(141421, 100000), F(1, 1000))
    assert root is not None and root.lo < F(141422, 100000)
    assert Root.isolate(g, F(3), F(1, 10)) is None
    value = root.mobius_value(F(1), F(1), F(0), F(1))
    assert isinstance(value, Algebraic) and F(17071, 10000) < value < F(17072, 10000)
    q = mobius(g, F(1), F(1), F(0), F(1))  # (v - 1)^2 * 2 = 1 -> 2 v^2 - 4 v + 1
    assert [c / q[-1] for c in q] == [F(1, 2), F(-2), F(1)]
    assert root.sign_of([F(-2), F(0), F(1)]) == 0 and root.sign_of([F(-1), F(1)]) == 1
    assert root.sign_of([F(4, 3), F(-1)]) == -1 and root.sign_of([F(3, 2), F(-1)]) == 1
    assert root.mobius_value(F(2), F(0), F(1), F(0)) == 2  # a constant
