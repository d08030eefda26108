"""Exact LP helper (fairlab/lp.py): known optima, infeasible, unbounded, degenerate, random cross-checks."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from fairlab.core import lp
from fairlab.core.errors import InputError
from fairlab.core.lp import feasible, solve_lp


def test_textbook_maximum_is_exact_with_certificate():
    # max x + y s.t. x + 2y <= 4, 3x + y <= 6: vertex (8/5, 6/5), value 14/5.
    r = solve_lp([1, 1], A_ub=[[1, 2], [3, 1]], b_ub=[4, 6], maximize=True)
    assert r.status == "optimal"
    assert r.x == (F(8, 5), F(6, 5))
    assert r.value == F(14, 5)
    assert r.method == "highs+certificate"
    # Minimisation-form duals of max x+y (= min -x-y): y = (-2/5, -1/5); b·y = -14/5.
    assert r.duals_ub == (F(-2, 5), F(-1, 5))


def test_z3_path_agrees_on_textbook_lp():
    r = solve_lp([1, 1], A_ub=[[1, 2], [3, 1]], b_ub=[4, 6], maximize=True, use_float_guide=False)
    assert (r.status, r.x, r.value, r.method) == ("optimal", (F(8, 5), F(6, 5)), F(14, 5), "z3")


def test_thirds_and_sevenths_stay_exact():
    # min x/3 + y/7 s.t. x + y >= 1/3 (as -x - y <= -1/3), x <= 1/11: optimum puts all on y.
    r = solve_lp(["1/3", "1/7"], A_ub=[[-1, -1]], b_ub=["-1/3"], upper=["1/11", None])
    assert r.status == "optimal"
    assert r.x == (F(0), F(1, 3))
    assert r.value == F(1, 21)


def test_equality_and_free_variables():
    # min x + 2y s.t. x - y == 1/3, x + y >= 1, x, y free: x = 2/3, y = 1/3 -> 4/3.
    r = solve_lp([1, 2], A_ub=[[-1, -1]], b_ub=[-1], A_eq=[[1, -1]], b_eq=["1/3"], lower=[None, None])
    assert r.status == "optimal"
    assert r.x == (F(2, 3), F(1, 3))
    assert r.value == F(4, 3)


def test_infeasible():
    r = solve_lp([1, 1], A_ub=[[1, 1], [-1, -1]], b_ub=[1, -3])
    assert r.status == "infeasible"
    assert r.is_feasible is False
    assert r.x is None and r.value is None


def test_crossed_bounds_are_infeasible_not_an_error():
    r = solve_lp([1], lower=[2], upper=[1])
    assert r.status == "infeasible"


def test_unbounded():
    r = solve_lp([1, 1], A_ub=[[1, -1]], b_ub=[1], maximize=True)
    assert r.status == "unbounded"
    assert r.is_feasible is True
    assert r.value is None
    assert r.x is not None and r.x[0] - r.x[1] <= 1


def test_unbounded_free_variable_minimised():
    assert solve_lp([1], lower=[None]).status == "unbounded"


def test_degenerate_vertex():
    # Four constraints meet at (1, 1); max x + y = 2 there.
    r = solve_lp([1, 1], A_ub=[[1, 0], [0, 1], [1, 1], [2, 1], [1, 2]], b_ub=[1, 1, 2, 3, 3], maximize=True)
    assert r.status == "optimal"
    assert r.x == (F(1), F(1))
    assert r.value == F(2)


def test_alternative_optima_value_is_exact():
    r = solve_lp([1, 1], A_ub=[[1, 1]], b_ub=[1], maximize=True)
    assert r.status == "optimal"
    assert r.value == F(1)
    assert sum(r.x) == 1 and all(v >= 0 for v in r.x)


def test_zero_objective_and_feasible_point():
    r = feasible(A_ub=[[1, 1], [-1, 0]], b_ub=[1, "-1/2"])
    assert r.is_feasible is True
    x = r.x
    assert x[0] + x[1] <= 1 and x[0] >= F(1, 2) and min(x) >= 0
    assert feasible(A_eq=[[1, 1]], b_eq=[-1]).is_feasible is False
    assert feasible(n=2, upper=[3, 4]).is_feasible is True


EPS = F(1, 10**20)  # below double precision relative to 1: invisible to the float guide


@pytest.mark.parametrize("objective, x", [([1, 1 + EPS], (F(0), F(1))), ([1 + EPS, 1], (F(1), F(0)))])
def test_float_blind_objective_difference_is_decided_exactly(objective, x):
    r = solve_lp(objective, A_ub=[[1, 1]], b_ub=[1], maximize=True)
    assert r.status == "optimal"
    assert r.x == x
    assert r.value == 1 + EPS


def test_float_blind_infeasibility_is_decided_exactly():
    # x + y <= 1 and x + y >= 1 + 1e-20: infeasible, though 1 + 1e-20 == 1 in doubles
    assert solve_lp([1, 1], A_ub=[[1, 1], [-1, -1]], b_ub=[1, -(1 + EPS)]).status == "infeasible"
    r = solve_lp([1, 1], A_ub=[[1, 1], [-1, -1]], b_ub=[1, -(1 - EPS)])
    assert r.status == "optimal" and r.value == 1 - EPS


def test_certificate_rejects_a_suboptimal_point():
    prob = lp._build([1, 1], [[1, 2], [3, 1]], [4, 6], None, None, None, None, maximize=True)
    assert lp.certify_optimal(prob, [F(8, 5), F(6, 5)], [F(-2, 5), F(-1, 5)])
    assert not lp.certify_optimal(prob, [F(1), F(1)], [F(-2, 5), F(-1, 5)])  # feasible, not optimal
    assert not lp.certify_optimal(prob, [F(2), F(1)], [F(-2, 5), F(-1, 5)])  # infeasible point
    assert not lp.certify_optimal(prob, [F(8, 5), F(6, 5)], [F(2, 5), F(1, 5)])  # dual infeasible


def test_certificate_takes_integer_multipliers_as_exactly_as_fractions():
    prob = lp._build([F(-1), F(-1)], [[F(1), F(1)]], [F(2)], None, None, None, None, False)
    assert lp.certify_optimal(prob, [2, 0], [-1]) and lp.certify_optimal(prob, [F(2), F(0)], [F(-1)])
    assert not lp.certify_optimal(prob, [2, 0], [-2])  # a valid dual bound (-4), below c·x = -2: not tight


def test_certificate_failure_falls_back_to_z3(monkeypatch):
    monkeypatch.setattr(lp, "certify_optimal", lambda prob, x, y: False)
    r = solve_lp([1, 1], A_ub=[[1, 2], [3, 1]], b_ub=[4, 6], maximize=True)
    assert (r.status, r.value, r.method) == ("optimal", F(14, 5), "z3")


def test_z3_unknown_is_reported_as_unknown(monkeypatch):
    monkeypatch.setattr(z3.Optimize, "check", lambda self, *a: z3.unknown)
    r = solve_lp([1, 1], A_ub=[[1, 2], [3, 1]], b_ub=[4, 6], maximize=True, use_float_guide=False)
    assert r.status == "unknown"
    assert r.is_feasible is None and r.value is None


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(objective=[1, 1], A_ub=[[1]], b_ub=[1]), "A_ub[0]"),
        (dict(objective=[1], A_ub=[[1]]), "b_ub"),
        (dict(objective=[1], A_ub=[[1]], b_ub=[1, 2]), "b_ub"),
        (dict(objective=[float("nan")]), "objective[0]"),
        (dict(objective=[]), "objective"),
        (dict(objective=[1, 2], lower=[0]), "lower"),
        (dict(objective="x"), "objective"),
        (dict(objective=[1], A_eq=[["a"]], b_eq=[1]), "A_eq[0][0]"),
    ],
)
def test_bad_input_is_one_line_input_error(kwargs, fragment):
    with pytest.raises(InputError) as info:
        solve_lp(**kwargs)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


# --------------------------------------------------------------------------- random cross-checks
small = st.integers(-6, 6)


@st.composite
def random_lp(draw):
    n = draw(st.integers(1, 5))
    k = draw(st.integers(0, 5))
    keq = draw(st.integers(0, 2))
    den = draw(st.sampled_from([1, 2, 3, 7]))
    A = [[F(draw(small), den) for _ in range(n)] for _ in range(k)]
    b = [F(draw(st.integers(-3, 12)), den) for _ in range(k)]
    Aeq = [[F(draw(small), den) for _ in range(n)] for _ in range(keq)]
    beq = [F(draw(st.integers(-3, 6)), den) for _ in range(keq)]
    c = [F(draw(small), draw(st.sampled_from([1, 2, 5]))) for _ in range(n)]
    upper = [draw(st.sampled_from([None, 1, 4, F(5, 2)])) for _ in range(n)]
    lower = [draw(st.sampled_from([0, 0, None, -1, F(1, 3)])) for _ in range(n)]
    return c, A, b, Aeq, beq, lower, upper


def _exactly_feasible(x, A, b, Aeq, beq, lower, upper):
    return (
        all(lo is None or v >= lo for v, lo in zip(x, lower))
        and all(u is None or v <= u for v, u in zip(x, upper))
        and all(sum(a * v for a, v in zip(row, x)) <= bi for row, bi in zip(A, b))
        and all(sum(a * v for a, v in zip(row, x)) == bi for row, bi in zip(Aeq, beq))
    )


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_lp(), st.booleans())
def test_random_lps_agree_with_scipy_and_with_z3(problem, maximize):
    c, A, b, Aeq, beq, lower, upper = problem
    r = solve_lp(c, A or None, b or None, Aeq or None, beq or None, lower=lower, upper=upper, maximize=maximize)
    ref = linprog(
        [(-1 if maximize else 1) * float(v) for v in c],
        A_ub=np.array([[float(v) for v in row] for row in A]) if A else None,
        b_ub=[float(v) for v in b] if A else None,
        A_eq=np.array([[float(v) for v in row] for row in Aeq]) if Aeq else None,
        b_eq=[float(v) for v in beq] if Aeq else None,
        bounds=[(None if lo is None else float(lo), None if u is None else float(u)) for lo, u in zip(lower, upper)],
        method="highs",
    )
    expected_status = {0: "optimal", 2: "infeasible", 3: "unbounded", 4: "numerical"}[ref.status]
    exact_z3 = solve_lp(c, A or None, b or None, Aeq or None, beq or None, lower=lower, upper=upper,
                        maximize=maximize, use_float_guide=False)
    assert exact_z3.status == r.status  # two independent exact paths agree
    if expected_status == "infeasible" and r.status == "unbounded":
        # HiGHS's presolve reports some unbounded problems as "infeasible or unbounded" (status 2);
        # the exact answer is decided by z3: the problem must then have a feasible point.
        assert lp.feasible(A or None, b or None, Aeq or None, beq or None, lower=lower, upper=upper).is_feasible
    else:
        assert r.status == expected_status
    if r.status == "optimal":
        assert _exactly_feasible(r.x, A, b, Aeq, beq, lower, upper)
        assert r.value == sum(ci * xi for ci, xi in zip(c, r.x))
        assert r.value == exact_z3.value  # two independent exact paths, one answer
        assert abs(float(r.value) - (-1 if maximize else 1) * ref.fun) < 1e-6


small_fraction = st.builds(F, st.integers(-12, 12), st.sampled_from([1, 2, 3, 5]))


def _certificate_by_the_book(prob, x, y) -> bool:
    """`certify_optimal`'s test read off its docstring, Fraction by Fraction (no integer scaling):
    x within bounds and rows, d = c - Aᵀy, and c·x equal to the dual bound with every multiplier on
    a finite side."""
    if any(lo is not None and v < lo for v, lo in zip(x, prob.col_lo)):
        return False
    if any(hi is not None and v > hi for v, hi in zip(x, prob.col_hi)):
        return False
    for row, lo, hi in zip(prob.rows, prob.row_lo, prob.row_hi):
        act = sum((a * v for a, v in zip(row, x)), F(0))
        if (lo is not None and act < lo) or (hi is not None and act > hi):
            return False
    reduced = [cj - sum((yi * row[j] for yi, row in zip(y, prob.rows)), F(0)) for j, cj in enumerate(prob.c)]
    bound = F(0)
    for multipliers, lows, highs in ((y, prob.row_lo, prob.row_hi), (reduced, prob.col_lo, prob.col_hi)):
        for v, lo, hi in zip(multipliers, lows, highs):
            if v:
                side = lo if v > 0 else hi
                if side is None:
                    return False
                bound += v * side
    return sum((cj * xj for cj, xj in zip(prob.c, x)), F(0)) == bound


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_lp(), st.booleans(), st.data())
def test_certificate_agrees_with_the_book_on_optimal_and_perturbed_points(problem, maximize, data):
    """The integer-scaled certificate (reduced costs as one integer sum per column) accepts and
    rejects exactly what the textbook test does: on the point and multipliers HiGHS's basis gives
    (solved exactly, before any certificate), on those with one multiplier moved, and on arbitrary
    points."""
    c, A, b, Aeq, beq, lower, upper = problem
    prob = lp._build(c, A or None, b or None, Aeq or None, beq or None, lower, upper, maximize)
    rows = len(prob.rows)
    tried = []
    certify = lp.certify_optimal
    lp.certify_optimal = lambda prob, x, y: True  # HiGHS's basis solved exactly, its certificate not asked yet
    try:
        guided = lp._solve_guided(prob)
    finally:
        lp.certify_optimal = certify
    if guided is not None:
        x, y = guided
        tried.append((x, y))
        if rows:
            k = data.draw(st.integers(0, rows - 1))
            moved = list(y)
            moved[k] += data.draw(small_fraction.filter(bool))
            tried.append((x, moved))
    tried.append((data.draw(st.lists(small_fraction, min_size=prob.n, max_size=prob.n)),
                  data.draw(st.lists(small_fraction, min_size=rows, max_size=rows))))
    for x, y in tried:
        assert lp.certify_optimal(prob, x, y) == _certificate_by_the_book(prob, x, y)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6).flatmap(lambda k: st.tuples(
    st.lists(st.lists(small_fraction, min_size=k, max_size=k), min_size=k, max_size=k),
    st.lists(small_fraction, min_size=k, max_size=k))))
def test_solve_square_is_exact_or_reports_singular(system):
    matrix, x = system
    rhs = [sum((a * v for a, v in zip(row, x)), F(0)) for row in matrix]
    sol = lp.solve_square(matrix, rhs)
    if sol is None:  # singular: z3 finds a non-zero kernel vector
        ks = [z3.Real(f"k{j}") for j in range(len(x))]
        s = z3.Solver()
        s.add(*[z3.Sum([z3.RealVal(str(a)) * kv for a, kv in zip(row, ks)]) == 0 for row in matrix])
        s.add(z3.Or([kv != 0 for kv in ks]))
        assert s.check() == z3.sat
    else:
        assert all(sum((a * v for a, v in zip(row, sol)), F(0)) == b for row, b in zip(matrix, rhs))


def test_solve_square_singular_and_permuted():
    assert lp.solve_square([[F(1), F(2)], [F(2), F(4)]], [F(1), F(2)]) is None
    assert lp.solve_square([[F(0), F(1)], [F(1), F(0)]], [F(3), F(4)]) == [F(4), F(3)]


def test_lexicographic_max_is_the_greatest_point_not_a_vertex_of_choice():
    from fairlab.core.lp import OPTIMAL, lexicographic_max

    # x0 + x1 + x2 = 1, x0 <= 1/3, x1 <= x2: the greatest is (1/3, 1/3, 1/3); a solver may return (0, 0, 1)
    status, x = lexicographic_max(3, [[1, 0, 0], [0, 1, -1]], [F(1, 3), 0], [[1, 1, 1]], [1])
    assert status == OPTIMAL and x == [F(1, 3), F(1, 3), F(1, 3)]
    # `done`: the mass is spent after x0 = 1, so x1 and x2 are 0 without an LP
    status, x = lexicographic_max(3, None, None, [[1, 1, 1]], [1], done=lambda fixed: sum(fixed) == 1)
    assert status == OPTIMAL and x == [1, 0, 0]
    status, x = lexicographic_max(2, [[1, 1]], [-1])  # x >= 0 with x0 + x1 <= -1: no point
    assert status != OPTIMAL and x is None
