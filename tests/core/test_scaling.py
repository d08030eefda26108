"""`fairlab.core.scaling`: the symmetry is found where it holds, refused where it does not, and the
three linear cases answer exactly as the original question does."""

from __future__ import annotations

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
