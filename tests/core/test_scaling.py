"""`fairlab.core.scaling`: the symmetry is found where it holds, refused where it does not, and the
three linear cases answer exactly as the original question does."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlab.core import scaling

L = [z3.Real("L0"), z3.Real("L1")]
T = z3.Real("T")
X = z3.Real("x")  # an unknown of degree 0 (another user's tasks)


def _sat(constraints) -> bool:
    solver = z3.SolverFor("QF_NRA")  # complete for these small questions
    solver.add(constraints)
    answer = solver.check()
    assert answer != z3.unknown
    return answer == z3.sat


def _cases_sat(constraints) -> bool:
    return any(_sat([case]) for _, case in scaling.cases(constraints, [T]))


def test_homogeneous_constraints_have_no_obstruction():
    share = z3.If(L[0] / 2 > L[1] / 3, L[0] / 2, L[1] / 3)
    constraints = [T >= 0, L[0] >= 0, z3.Or(L[0] > 0, L[1] > 0), T * L[0] + 3 * X <= 5, T * share == X,
                   z3.Implies(L[1] > 0, T * L[1] * 0 == 0), z3.Not(T * L[0] < 2 * T * L[1])]
    assert scaling.obstruction(constraints, L, T) is None


def test_mixed_degrees_are_named():
    assert "degrees" in scaling.obstruction([T <= 3], L, T)  # a task cap: T against a numeral
    assert "degrees" in scaling.obstruction([L[0] + 1 >= T * L[1]], L, T)
    assert "division" in scaling.obstruction([L[0] / X >= 1], L, T)
    f = z3.Function("f", z3.RealSort(), z3.RealSort())
    assert "uninterpreted function" in scaling.obstruction([f(L[0]) >= 0], L, T)
    assert "real constants" in scaling.obstruction([T >= 0], [z3.Int("k")], T)


def test_without_the_check_fixing_t_would_lose_a_model():
    """The negative twin: a cap makes the cases unsat while the question is sat, so the check matters."""
    capped = [T * L[0] == 1, L[0] <= 1, T >= 2]
    assert _sat(capped) and not _cases_sat(capped)
    assert scaling.obstruction(capped, L, T) is not None


def test_a_model_of_a_case_reads_as_a_model_of_the_question():
    question = [T * L[0] == 3, T * L[1] == 1, L[0] + L[1] >= 1]
    (value,), case = scaling.cases(question, [T])[0]
    solver = z3.Solver()
    solver.add(case)
    assert value == 1 and solver.check() == z3.sat
    model = scaling.Pinned(solver.model(), [(T, z3.RealVal(value))])
    assert all(z3.is_true(model.eval(c, model_completion=True)) for c in question)
    assert model[T * L[0]].as_fraction() == 3


_coefficient = st.integers(-3, 3)


@st.composite
def homogeneous_questions(draw):
    """Random constraints of degree 0 (tasks times demand, x) and of degree 1 (demand alone)."""
    constraints = []
    for _ in range(draw(st.integers(1, 4))):
        a, b, c, d = (draw(_coefficient) for _ in range(4))
        op = draw(st.sampled_from(["<=", "<", "=="]))
        if draw(st.booleans()):
            left, right = a * T * L[0] + b * T * L[1], c * X + d  # a numeral is of degree 0
        else:
            left, right = a * L[0] + b * L[1], c * L[1]
        constraints.append({"<=": left <= right, "<": left < right, "==": left == right}[op])
    constraints += [X >= 0, X <= 2]
    return constraints


@settings(max_examples=60, deadline=None)
@given(homogeneous_questions())
def test_the_cases_answer_as_the_question_does(question):
    assert scaling.obstruction(question, L, T) is None
    assert _sat(question) == _cases_sat(question)


def test_each_case_is_needed():
    """A question only T = 0 satisfies, one only T < 0 does, one only T > 0 does."""
    for question, value in (([T * L[0] == 0, L[0] > 0], 0), ([T * L[0] <= -1, L[0] >= 0], -1),
                            ([T * L[0] >= 1, L[0] >= 0], 1)):
        assert scaling.obstruction(question, L, T) is None and _sat(question)
        assert [v for (v,), case in scaling.cases(question, [T]) if _sat([case])] == [value]


def test_two_scalings_compose():
    """Each scaling checked on its own (the other's unknowns of degree 0); the cases fix both."""
    M, U = [z3.Real("M0")], z3.Real("U")
    question = [T * L[0] >= 1, U * M[0] == 0, M[0] > 0, L[0] >= 0, T * L[0] + U * M[0] <= 5 * X, X <= 1]
    assert scaling.obstruction(question, L, T) is None and scaling.obstruction(question, M, U) is None
    answers = [values for values, case in scaling.cases(question, [T, U]) if _sat([case])]
    assert len(scaling.cases(question, [T, U])) == 9 and answers == [(1, 0)]


def test_a_branch_never_taken_does_not_count():
    """If(true, a, b) is a (gsp fixes the coalition's flags first); a branch on an unknown counts."""
    assert scaling.obstruction([z3.If(z3.BoolVal(True), L[0] >= 0, L[0] == 1)], L, T) is None
    assert scaling.obstruction([z3.If(z3.BoolVal(False), L[0] == 1, L[0] >= 0)], L, T) is None
    assert scaling.obstruction([z3.If(X > 0, L[0] >= 0, L[0] == 1)], L, T) is not None
    assert scaling.obstruction([z3.If(z3.BoolVal(True), T * L[0], L[0]) >= 1], L, T) is None


def test_a_denominator_of_unknowns_declared_positive_is_accepted():
    """`positive` (capacities and weights of `fairlab.properties._parametric`): a denominator built
    of them with + and * and positive numerals is of degree 0 and never zero; anything else is not."""
    c, w, d = z3.Reals("c w d")
    down, (up,) = z3.Real("T"), [z3.Real("L")]
    good = [down * up / (c * w) <= 1, down * up / (c + 2 * w) >= 0]
    assert scaling.obstruction(good, [up], down, positive=[c, w]) is None
    assert "not declared positive" in scaling.obstruction(good, [up], down)
    assert "not declared positive" in scaling.obstruction([down * up / d <= 1], [up], down, positive=[c, w])
    assert "not declared positive" in scaling.obstruction([down * up / (c - 1) <= 1], [up], down, positive=[c])
    assert "not declared positive" in scaling.obstruction([down * up / (-2 * c) <= 1], [up], down, positive=[c])
    assert "declared positive" in scaling.obstruction(good, [up], down, positive=[c, down])


def test_a_substitution_answers_as_z3_substitute():
    x, y, p = z3.Reals("x y p")
    formula = z3.And(p * x + y <= 3, z3.Or(x == p, y > 2 * p))
    pairs = [(p, z3.RealVal(F(1, 3))), (y, z3.RealVal(2))]
    assert scaling.Substitution(pairs).formula(formula).eq(z3.substitute(formula, *pairs))
    with pytest.raises(ValueError):
        scaling.Substitution([(p, z3.BoolVal(True))])


CAP = z3.Real("cap")  # a task cap: of degree 0, compared with T


def _split_sat(constraints, cap=CAP) -> bool:
    split = scaling.threshold_cases(constraints, L, T, cap)
    assert not isinstance(split, str), split
    return any(_sat([case]) for _, case, _ in split)


@st.composite
def capped_questions(draw):
    """`homogeneous_questions` with a task cap (T <= cap, perhaps T == cap among options), the cap
    drawn as an unknown >= 0 or a numeral (0 included)."""
    question = draw(homogeneous_questions())
    cap = draw(st.sampled_from([CAP, z3.RealVal(0), z3.RealVal(F(1, 3)), z3.RealVal(2)]))
    question.append(T <= cap)  # noqa: SIM300
    if draw(st.booleans()):
        question.append(z3.Or(T == cap, T * L[0] >= draw(_coefficient) * X))  # noqa: SIM300
    if cap is CAP:
        question.append(CAP >= 0)
    return question, cap


@settings(max_examples=60, deadline=None)
@given(capped_questions())
def test_the_split_at_a_cap_answers_as_the_question_does(drawn):
    question, cap = drawn
    assert _sat(question) == _split_sat(question, cap)


def test_a_model_of_a_split_case_reads_as_a_model_of_the_question():
    """Below the cap the case T = 1 is scaled down to T = cap / 2 with L scaled up: the pins give
    a model of the question itself (T = 1 would break T <= cap)."""
    question = [T * L[0] == 3, L[0] >= 0, T <= CAP, CAP == F(1, 2)]  # noqa: SIM300
    split = scaling.threshold_cases(question, L, T, CAP)
    found = [(label, case, pins) for label, case, pins in split if _sat([case])]
    assert [label for label, _, _ in found] == ["=cap", "<cap,1"]
    for _, case, pins in found:
        solver = z3.Solver()
        solver.add(case)
        assert solver.check() == z3.sat
        model = scaling.Pinned(solver.model(), pins)
        assert all(z3.is_true(model.eval(c, model_completion=True)) for c in question)


def test_each_side_of_the_cap_is_needed():
    """A question only T = cap satisfies, one only T < cap does (T > 0 and T = 0), one only
    T > cap does (its cap negative)."""
    for question, label in (([T * L[0] == 1, L[0] >= 0, T <= CAP, z3.Or(T == CAP, T * L[0] >= 2), CAP == F(1, 2)],  # noqa: SIM300
                             "=cap"),
                            ([T * L[0] == 1, L[0] >= 0, T < CAP, CAP == 1], "<cap,1"),
                            ([T * L[0] == 0, L[0] > 0, T != CAP, T <= CAP, CAP == 1], "<cap,0"),
                            ([T * L[0] == -1, L[0] > 0, T > CAP, CAP == -3], ">cap,-1")):
        assert _sat(question)
        split = scaling.threshold_cases(question, L, T, CAP)
        assert [lab for lab, case, _ in split if _sat([case])] == [label], question


def test_a_split_at_a_cap_refuses_what_else_breaks_the_symmetry():
    assert "below" in scaling.threshold_cases([T - CAP <= 0, T * L[0] == 1], L, T, CAP)  # not an atom T ~ cap
    assert "degrees" in scaling.threshold_cases([T <= CAP, T <= 3], L, T, CAP)  # another threshold
    assert "scaled unknown" in scaling.threshold_cases([T <= L[0]], L, T, L[0])  # noqa: SIM300
