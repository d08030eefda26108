"""CEEI = Nash bargaining = proportional fairness (mechanisms/ceei.py): exact values from the
sources, the exact/float paths, and the numeric optimum against the symbolic KKT specification."""

import json
import random
from fractions import Fraction as F

import pytest
import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairlab.core.errors import InputError
from fairlab.core.exact import Algebraic, z3_value
from fairlab.core.instance import Instance
from fairlab.mechanisms import allocate, conformance, get
from fairlab.mechanisms._ceei_float import certify
from fairlab.mechanisms.base import SymbolicInstance, check_feasible


def tasks(data, **options):
    return allocate("ceei", data, **options).tasks


def is_root(value, coefficients):
    """Exact: sum_k coefficients[k] * value^k == 0 (constant term first)."""
    total = F(0)
    for k, c in enumerate(coefficients):
        term = F(c)
        for _ in range(k):
            term = term * value
        total = total + term
    return total == 0


# --------------------------------------------------------------------------- sources
def test_drf_paper_5_2_example_and_aliases():
    """DRF paper §5.2: <9, 18>, A <1, 4>, B <3, 1>: max xy s.t. x + 3y <= 9, 4x + y <= 18."""
    data = {"capacities": [9, 18], "demands": [[1, 4], [3, 1]]}
    a = allocate("ceei", data)
    assert a.tasks == (F(45, 11), F(18, 11))
    assert a.extra["status"] == "exact" and a.to_dict()["exact"] == "rational"
    # A gets <4.1 CPU, 16.4 GB>, B <4.9 CPU, 1.6 GB> (printed rounded): both resources used up
    assert a.bundles == ((F(45, 11), F(180, 11)), (F(54, 11), F(18, 11)))
    assert a.utilisation == (1, 1)
    assert tasks(data) == allocate("nash", data).tasks == allocate("pf", data).tasks


def test_theorem_4_capacities_typo():
    """Theorem 4 (DRF paper), demands <16,1>, <1,2>. The translation prints capacities <100, 200>,
    the lecture <100, 100>; both print 100/31 and 1500/31. Only <100, 100> gives those (both
    resources saturate: 16x + y = 100, x + 2y = 100); with <100, 200> memory never binds and
    x = 100/32. So <100, 200> in the translation is a typo (recorded by the paper-check issue)."""
    demands = [[16, 1], [1, 2]]
    assert tasks({"capacities": [100, 100], "demands": demands}) == (F(100, 31), F(1500, 31))
    assert tasks({"capacities": [100, 200], "demands": demands}) == (F(25, 8), 50)
    # the shipped example uses the consistent capacities
    assert tasks(Instance.load("thm4-ceei-sp")) == (F(100, 31), F(1500, 31))


def test_theorem_4_misreport():
    """User 1 claims <16, 8>: printed 25/6 and 100/3, true for <100, 100> (CPU and memory both
    saturate: 16x + y = 100, 8x + 2y = 100). With <100, 200> the lie changes nothing."""
    lie = [[16, 8], [1, 2]]
    assert tasks({"capacities": [100, 100], "demands": lie}) == (F(25, 6), F(100, 3))
    assert tasks({"capacities": [100, 200], "demands": lie}) == (F(25, 8), 50)
    # the lie pays at <100, 100>: 25/6 > 100/31 true tasks for user 1 (CEEI is not strategyproof)
    assert F(25, 6) > F(100, 31)


def test_lecture_ceei_example():
    """Lecture 'Candidate #2': 100 CPUs, 100 GB, d1 = (16, 1), d2 = (1, 2): ~(51, 3) to agent 1 and
    ~(49, 97) to agent 2, 100/31 and 1500/31 tasks, product ~156; half-half gives ~78; the lie
    d1' = (16, 8) gives agent 1 2/3 of the CPUs and agent 2 2/3 of the RAM."""
    a = allocate("ceei", {"capacities": [100, 100], "demands": [[16, 1], [1, 2]]})
    assert a.tasks == (F(100, 31), F(1500, 31))
    assert a.bundles == ((F(1600, 31), F(100, 31)), (F(1500, 31), F(3000, 31)))
    assert a.tasks[0] * a.tasks[1] == F(150000, 961)  # 156.09
    assert F(50, 16) * F(50, 2) == F(625, 8)  # half-half: 78.1 < 156
    lie = allocate("ceei", {"capacities": [100, 100], "demands": [[16, 8], [1, 2]]})
    assert lie.shares[0][0] == F(2, 3) and lie.shares[1][1] == F(2, 3)


def test_theorem_5_irrational_optimum_and_population_monotonicity():
    """Theorem 5 (DRF paper): <100, 100>, D1 <4,1>, D2 <1,16>, D3 <16,1> -> printed <11.3, 5.4, 3.1>;
    the exact optimum is irrational. After user 3 leaves: printed <23.8, 4.8> = <500/21, 100/21>,
    and user 2 is worse off (population monotonicity fails)."""
    a = allocate("ceei", Instance.load("thm5-ceei-pm"))
    x1, x2, x3 = a.tasks
    assert all(isinstance(x, Algebraic) for x in a.tasks)
    assert a.extra["status"] == "exact" and a.to_dict()["exact"] == "algebraic"
    # minimal polynomials (from z3) and bracketing rationals pin each value down exactly
    assert is_root(x1, [62500, -6250, 63]) and F(112833, 10**4) < x1 < F(112834, 10**4)
    assert is_root(x2, [10000, -7600, 1071]) and F(53513, 10**4) < x2 < F(53514, 10**4)
    assert is_root(x3, [-2500, 650, 51]) and F(30947, 10**4) < x3 < F(30948, 10**4)
    assert a.to_dict()["tasks"][0] == "11.283317627325464605"
    assert a.utilisation == (1, 1)  # both resources saturated
    after = allocate("ceei", {"capacities": [100, 100], "demands": [[4, 1], [1, 16]]})
    assert after.tasks == (F(500, 21), F(100, 21))
    assert after.tasks[1] < x2


def test_bonald_roberts_pf_manipulation():
    """Bonald & Roberts §2.3 and §4: normalised capacities, a1 = (1/2, 1), a2 = (1, 1/2)."""
    caps = [1, 1]
    assert tasks({"capacities": caps, "demands": [["1/2", 1], [1, "1/2"]]}) == (F(2, 3), F(2, 3))
    assert tasks({"capacities": caps, "demands": [["2/3", 1], [1, "1/2"]]}) == (F(3, 4), F(1, 2))
    assert tasks({"capacities": caps, "demands": [[1, 1], [1, "1/2"]]}) == (F(1, 2), F(1, 2))
    # two transactions like the second: the same lie now gives transaction 1 only 1/2 < 2/3
    three = tasks({"capacities": caps, "demands": [["2/3", 1], [1, "1/2"], [1, "1/2"]]})
    assert three == (F(1, 2), F(1, 3), F(1, 3))
    assert tasks(Instance.load("pf-manipulation")) == (F(2, 3), F(2, 3))


# --------------------------------------------------------------------------- weights, caps, zeros
def test_weights_single_resource_proportional():
    """One resource: PF gives tasks in proportion to the weights (single-resource fairness)."""
    assert tasks({"capacities": [6], "demands": [[1], [1]], "weights": [1, 2]}) == (2, 4)
    # DRF §5.2's example with weights 1, 2: max x y^2 s.t. x + 3y <= 9, 4x + y <= 18. Only the
    # CPU binds (price 3/9 = sum of weights / capacity): x = 3, y = 2, memory 14 of 18.
    assert tasks({"capacities": [9, 18], "demands": [[1, 4], [3, 1]], "weights": [1, 2]}) == (3, 2)


def test_weight_vectors_rejected_but_constant_vectors_accepted():
    with pytest.raises(InputError, match="weights"):
        allocate("ceei", {"capacities": [9, 18], "demands": [[1, 4], [3, 1]], "weights": [[1, 2], [1, 1]]})
    same = tasks({"capacities": [9, 18], "demands": [[1, 4], [3, 1]], "weights": [[1, 1], [2, 2]]})
    assert same == (3, 2)


def test_caps_and_zero_caps():
    """A binding cap frees capacity for the others; a user with cap 0 gets 0 and leaves the objective."""
    one_capped = {"capacities": [10], "demands": [[1], [1], [1]], "max_tasks": [1, None, None]}
    assert tasks(one_capped) == (1, F(9, 2), F(9, 2))
    assert tasks({"capacities": [10], "demands": [[1], [1], [1]], "max_tasks": [0, None, 20]}) == (0, 5, 5)
    assert tasks({"capacities": [10], "demands": [[1], [1]], "max_tasks": [0, 0]}) == (0, 0)
    # a non-binding cap changes nothing
    assert tasks({"capacities": [9, 18], "demands": [[1, 4], [3, 1]], "max_tasks": [5, 5]}) == (F(45, 11), F(18, 11))


def test_zero_demands():
    """Users with zero demand for a resource; an unsaturated resource has price 0."""
    assert tasks({"capacities": [1, 1], "demands": [[1, 0], [0, 1]]}) == (1, 1)
    a = allocate("ceei", {"capacities": [1, 1], "demands": [[1, 0], [1, 1]]})
    assert a.tasks == (F(1, 2), F(1, 2))
    assert a.extra["prices"][1] == 0 and a.utilisation == (1, F(1, 2))


def test_bad_options():
    data = {"capacities": [9, 18], "demands": [[1, 4], [3, 1]]}
    for options, field in (
        ({"method": "fast"}, "method"),
        ({"timeout": -1}, "timeout"),
        ({"timeout": "soon"}, "timeout"),
        ({"tolerance": 2}, "tolerance"),
        ({"speed": 1}, "speed"),
    ):
        with pytest.raises(InputError, match=field):
            allocate("ceei", data, **options)


# --------------------------------------------------------------------------- symbolic spec
def assert_conforms(inst: Instance, alloc=None):
    """Numeric optimum satisfies the KKT spec, and the spec admits no other allocation."""
    alloc = alloc or allocate("ceei", inst, method="exact")
    result = conformance.check(get("ceei"), inst, timeout_ms=20000, method="exact")
    assert result.details["satisfies"] == "yes", inst
    assert result.details["unique"] == "yes", inst


def test_spec_theorem_5():
    assert_conforms(Instance.load("thm5-ceei-pm"))


def test_spec_rejects_the_drf_allocation():
    """DRF's <3, 2> on §4.1's example is not the CEEI optimum: spec with those tasks is unsat."""
    inst = Instance.build([9, 18], [[1, 4], [3, 1]])
    sym = SymbolicInstance.from_instance(inst)
    t = [z3.Real("a"), z3.Real("b")]
    s = z3.Solver()
    s.add(*[c.expr for c in get("ceei").spec(sym, t)])
    s.add(t[0] == 3, t[1] == 2)
    assert s.check() == z3.unsat


def test_spec_multipliers_are_fresh_and_named():
    inst = Instance.build([9, 18], [[1, 4], [3, 1]], max_tasks=[None, 1])
    sym = SymbolicInstance.from_instance(inst)
    t = [z3.Real("a"), z3.Real("b")]
    first, second = get("ceei").spec(sym, t), get("ceei").spec(sym, t)
    names = {c.name for c in first}
    assert {"ceei.stationarity[0]", "ceei.price[1].slackness", "ceei.cap_price[1].slackness"} <= names
    s = z3.Solver()  # two copies with separate multipliers are jointly satisfiable at the optimum
    s.add(*[c.expr for c in first + second], t[0] == z3_value(F(17, 4)), t[1] == 1)
    assert s.check() == z3.sat
    assert allocate("ceei", inst).tasks == (F(17, 4), 1)


small = st.integers(min_value=0, max_value=4)


@st.composite
def small_instances(draw):
    n = draw(st.integers(1, 3))
    m = draw(st.integers(1, 3))
    demands = []
    for _ in range(n):
        row = draw(st.lists(small, min_size=m, max_size=m).filter(any))
        demands.append(row)
    capacities = draw(st.lists(st.integers(1, 6), min_size=m, max_size=m))
    weights = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    caps = draw(st.lists(st.one_of(st.none(), st.integers(0, 4)), min_size=n, max_size=n))
    return Instance.build(capacities, demands, weights=weights, max_tasks=caps)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_instances())
def test_numeric_matches_spec(inst):
    """Hypothesis: the exact optimum satisfies the KKT spec and is its only solution."""
    a = allocate("ceei", inst, method="exact")
    check_feasible(inst, a.tasks, "ceei")
    assert a.extra["status"] == "exact"
    assert_conforms(inst, a)


# --------------------------------------------------------------------------- float path
def test_float_path_matches_exact_on_theorem_5():
    inst = Instance.load("thm5-ceei-pm")
    exact = allocate("ceei", inst, method="exact").tasks
    approx = allocate("ceei", inst, method="float")
    assert approx.extra["status"] == "certified" and approx.to_dict()["exact"] == "approximate"
    assert "certified" in approx.notes[0] and "approximate" in approx.notes[0]
    for a, e in zip(approx.tasks, exact):
        assert abs((a - e) / e) < F(1, 10**20)


def random_instance(n, m, seed, types=None):
    rng = random.Random(seed)
    pool = [[rng.randint(0, 9) or 1 for _ in range(m)] for _ in range(types or n)]
    demands = [pool[k % len(pool)] if types else pool[k] for k in range(n)]
    weights = [1 if types else rng.randint(1, 3) for _ in range(n)]
    caps = [None if types or rng.random() < 0.8 else rng.randint(1, 5) for _ in range(n)]
    return Instance.build([rng.randint(50, 500) for _ in range(m)], demands, weights=weights, max_tasks=caps)


def test_float_path_on_200_users_agrees_with_exact():
    """200 users of 4 kinds: the exact path merges identical users (equal tasks by symmetry and
    uniqueness), the float path does not; they agree far below 1e-9 relative."""
    inst = random_instance(200, 3, seed=1, types=4)
    exact = allocate("ceei", inst, method="exact")
    approx = allocate("ceei", inst, method="float")
    assert exact.extra["status"] == "exact" and exact.extra["distinct_users"] == 4
    assert approx.extra["status"] == "certified"
    check_feasible(inst, approx.tasks, "ceei")
    for k in range(4):  # one representative per kind (equal within a kind)
        e, a = exact.tasks[k], approx.tasks[k]
        assert abs((a - e) / e) < F(1, 10**9)
        assert approx.tasks[k + 4] == a
    assert allocate("ceei", inst).extra["status"] == "exact"  # auto: few kinds -> exact


def test_float_path_on_200_distinct_users_is_certified_honestly():
    inst = random_instance(200, 3, seed=7)
    approx = allocate("ceei", inst)  # auto: 200 distinct users -> float path
    assert approx.extra["method"] == "float" and approx.extra["status"] == "certified"
    assert any(c is not None for c in inst.max_tasks)
    check_feasible(inst, approx.tasks, "ceei")
    assert float(approx.extra["relative_error_bound"]) <= 1e-9
    # the same approximation cannot be certified to 1e-40: 25-digit tasks; flagged, not passed off
    strict = allocate("ceei", inst, method="float", tolerance="1e-40")
    assert strict.extra["status"] == "uncertified" and "UNCERTIFIED" in strict.notes[0]
    assert strict.to_dict()["exact"] == "approximate"


def test_certificate_rejects_a_wrong_allocation():
    """Control for the certificate: a feasible but wrong allocation (DRF's <3, 2> on §4.1's
    example) with the optimum's prices is not certified even to 1%."""
    inst = Instance.build([9, 18], [[1, 4], [3, 1]])
    prices = allocate("ceei", inst).extra["prices"]
    weights = inst.scalar_weights()
    assert certify(inst, weights, (F(45, 11), F(18, 11)), prices, F(1, 10**9))["certified"]
    assert not certify(inst, weights, (F(3), F(2)), prices, F(1, 100))["certified"]


def test_cli_allocate_ceei_json():
    from typer.testing import CliRunner

    from fairlab.cli import app

    result = CliRunner().invoke(app, ["allocate", "pf", "thm5-ceei-pm", "--format", "json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["exact"] == "algebraic" and out["status"] == "exact"
    assert out["tasks"][2] == "3.0947097626607675679"
    bad = CliRunner().invoke(app, ["allocate", "ceei", "thm5-ceei-pm", "-o", "method=guess"])
    assert bad.exit_code == 2


def test_exact_five_users_on_two_saturated_resources():
    """Beyond what z3's multivariate solver does in time (it gives up from about five users on
    two saturated resources): the prices reduce to one root of a univariate polynomial. The
    algebraic optimum agrees with the independent float path and satisfies the KKT spec."""
    inst = Instance.build([176, 411], [[3, 4], [5, 1], [4, 5], [1, 6], [1, 2]], weights=[1, 1, 1, 2, 2])
    exact = allocate("ceei", inst, method="exact")
    assert exact.extra["status"] == "exact" and "univariate" in exact.notes[0]
    assert all(isinstance(x, Algebraic) for x in exact.tasks)
    assert exact.extra["priced_resources"] == ["r1", "r2"]
    approx = allocate("ceei", inst, method="float")
    assert approx.extra["status"] == "certified"
    for a, e in zip(approx.tasks, exact.tasks):
        assert a - a / 10**20 < e < a + a / 10**20
    sym = SymbolicInstance.from_instance(inst)
    t = [z3.Real(f"t{i}") for i in range(inst.n)]
    s = z3.Solver()
    s.set(timeout=20000)
    s.add(*[c.expr for c in get("ceei").spec(sym, t)], *[ti == z3_value(x) for ti, x in zip(t, exact.tasks)])
    assert s.check() == z3.sat
    # auto does not hand out 5 distinct algebraic numbers (z3 sums of them can take minutes)
    auto = allocate("ceei", inst)
    assert auto.extra["status"] == "certified" and "irrational" in auto.notes[0]
    assert auto.tasks == approx.tasks
