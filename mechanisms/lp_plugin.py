"""Mechanisms written as linear programs in pulp: solved exactly, with a derived z3 spec.

A plug-in mechanism (``file.py:function``, an entry point, a callable) may return, instead of task
counts, a ``pulp.LpProblem`` built from the instance, a list of them, or a generator of them:

* one LP — its optimal vertex gives the allocation;
* a list ``[P1, P2, ...]`` — lexicographic optimisation: P1 is solved, then P2 with P1's objective
  held at its optimum (``obj1 >= opt1`` for a maximisation, ``<=`` for a minimisation), and so on;
* a generator — progressive filling and other sequences whose next LP depends on the last
  solution: the lab sends each stage's exact solution (a dict ``{variable name: Fraction}``) into
  the generator (``solution = yield problem``) and stops at the end of it.

The variables named ``tasks_0 ... tasks_{n-1}`` are the users' tasks (the last stage that has
one gives its value). pulp's own solver is never called: the lab reads the model through pulp's
public API (`read_problem`: variables and their bounds, the objective, each constraint's
coefficients, constant and sense) and solves it with `fairlab.core.lp.solve_lp` — HiGHS guesses a
basis, the vertex and the duals are recomputed in rationals and certified optimal by LP duality (or
z3 decides).

Exactness: the builder is given the instance's numbers as
`fairlab.mechanisms.plugin_numbers.ExactNumber` s, which stay exact through pulp's arithmetic
(pulp keeps a sum's constant as the float ``0.0``). A coefficient, constant or bound that is still
a float (other than an integer below 2^53, which pulp makes of ints) is listed in `LP.inexact`: the
allocation is then labelled approximate and decides nothing.

Ties: among the optimal solutions of each stage the lab picks the lexicographically greatest
(`tie_order`: ``tasks_0`` first, then ``tasks_1``, ..., then the other variables by name;
`fairlab.core.lp.lexicographic_max` over the optimal face, skipped when the certificate shows the
optimum is unique), so the allocation does not depend on the solver's vertex; the derived spec
encodes the same rule. An LP that is infeasible or unbounded on an instance is a wrong answer there
(`NoOptimum`: a finding like a raise); one the exact solver cannot decide is a one-line
`PluginError`; an allocation from it is checked feasible like any plug-in's.

The spec (``fn.spec = "lp"``, or `lp_mechanism`) is derived from the same builder
(`fairlab.mechanisms.lp_spec`): the LP's optimality conditions — primal feasibility, dual
feasibility, complementary slackness — for every stage, and those of the tie-break, over a
symbolic instance.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Generator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Generic, TypeVar, overload

from fairlab.core.errors import InputError, PluginError
from fairlab.mechanisms.plugin_numbers import ExactNumber, read_number

#: the variable name of user i's tasks
TASKS = "tasks_{}"

#: the numbers of an `LP`: Fractions (numeric path) or z3 terms (symbolic path, `lp_spec`)
N = TypeVar("N")


@dataclass(frozen=True)
class LP(Generic[N]):
    """An LP read from a pulp model: ``maximize`` (or minimise) ``objective·x + constant`` subject to
    ``rows`` (coefficients, constant, sense: the row is ``coeffs·x + constant  (<= | == | >=)  0``)
    and per-variable bounds (None: unbounded on that side). Numbers are whatever the builder
    used (Fractions on the numeric path, z3 terms on the symbolic one)."""

    names: tuple[str, ...]
    maximize: bool
    objective: dict[str, N]
    objective_constant: N | int  # 0 when the model has no objective
    rows: tuple[tuple[str, dict[str, N], N, str], ...]
    lower: tuple[N | None, ...]
    upper: tuple[N | None, ...]
    #: the coefficients that were floats (not integers) in pulp's model: the LP is then not the exact one
    inexact: tuple[str, ...] = ()


def is_lp(value: object) -> bool:
    """A pulp model, a list or tuple of them, or a generator (pulp not imported unless installed).
    A generator may still yield task counts instead: `peek` tells the two apart."""
    if inspect.isgenerator(value):
        return True
    if isinstance(value, (list, tuple)) and value and all(_is_problem(v) for v in value):
        return True
    return _is_problem(value)


_NOTHING = object()


def peek(generator: Generator[object, dict[str, Fraction], object]) -> tuple[bool, _Resumed | list[object]]:
    """(True, staged LPs) if `generator` yields pulp models, else (False, the task counts it
    yields as a list): a plug-in returning a generator of numbers keeps working."""
    first = next(generator, _NOTHING)
    if first is _NOTHING:
        return False, []
    if _is_problem(first):
        return True, _Resumed(first, generator)
    return False, [first, *generator]


class _Resumed:
    """A generator whose first item was already taken: `next` gives it again, then `send` goes on."""

    def __init__(self, first: object, generator: Generator[object, dict[str, Fraction], object]) -> None:
        self.first: object = first
        self.generator = generator

    def __next__(self) -> object:
        first, self.first = self.first, None
        return first

    def send(self, value: dict[str, Fraction]) -> object:
        return self.generator.send(value)


def _is_problem(value: object) -> bool:
    return type(value).__name__ == "LpProblem" and type(value).__module__.startswith("pulp")


def constraints(problem: Any) -> list[tuple[str, Any]]:
    """The (name, constraint) pairs of a pulp model in the order they were added, read without a
    deprecation warning in every supported pulp: pulp 3.3 lists them as ``problem.constraints()``
    (its dict mapping is deprecated for pulp 4, and an unnamed constraint's own ``name`` stays None:
    it gets the key pulp gives it, ``_C1``, ``_C2``, ... after the names taken); pulp 2.7-3.2 have
    the dict ``problem.constraints``."""
    rows = problem.constraints
    if not callable(rows):
        return list(rows.items())
    listed = list(rows())
    taken = {row.name for row in listed if row.name}
    out, count = [], 0
    for row in listed:
        name = row.name
        if not name:
            count += 1
            while f"_C{count}" in taken:
                count += 1
            name = f"_C{count}"
            taken.add(name)
        out.append((name, row))
    return out


@overload
def read_problem(problem: Any, number: None = None, where: str = "LP") -> LP[Fraction]: ...
@overload
def read_problem(problem: Any, number: Callable[[Any, str], N], where: str = "LP") -> LP[N]: ...


def read_problem(problem: Any, number: Callable[[Any, str], Any] | None = None, where: str = "LP") -> LP[Any]:
    """The `LP` of a ``pulp.LpProblem`` through pulp's public API; `number` converts each
    coefficient (default: `fairlab.mechanisms.plugin_numbers.read_number`: ints, Fractions and the
    integer-valued floats pulp makes of integers exactly; any other float through its shortest
    decimal text, listed in `LP.inexact`: the model read is then not the exact one)."""
    import pulp

    floats: list[str] = []
    if number is None:
        number = lambda value, what: read_number(value, what, floats, integer_floats=True)  # noqa: E731
    variables = problem.variables()
    names = tuple(v.name for v in variables)
    if len(set(names)) != len(names):
        raise InputError(f"{where}: two variables share a name")
    objective = problem.objective
    coeffs = {} if objective is None else {v.name: number(c, f"{where}: objective[{v.name}]")
                                           for v, c in objective.items()}
    constant = 0 if objective is None else number(objective.constant, f"{where}: objective constant")
    rows = []
    senses = {pulp.LpConstraintLE: "<=", pulp.LpConstraintEQ: "==", pulp.LpConstraintGE: ">="}
    for name, row in constraints(problem):
        if row.sense not in senses:
            raise InputError(f"{where}: constraint {name!r} has sense {row.sense!r}")
        rows.append((name, {v.name: number(c, f"{where}: {name}[{v.name}]") for v, c in row.items()},
                     number(row.constant, f"{where}: {name} constant"), senses[row.sense]))
    lower = tuple(None if v.lowBound is None else number(v.lowBound, f"{where}: {v.name} lower bound")
                  for v in variables)
    upper = tuple(None if v.upBound is None else number(v.upBound, f"{where}: {v.name} upper bound")
                  for v in variables)
    if any(getattr(v, "cat", "Continuous") != "Continuous" for v in variables):
        raise InputError(f"{where}: integer variables are not linear programming (use continuous variables)")
    return LP(names, problem.sense == pulp.LpMaximize, coeffs, constant, tuple(rows), lower, upper, tuple(floats))


def _matrices(lp: LP[Fraction]):
    """(A_ub, b_ub, A_eq, b_eq, objective) of `lp` over its variables in `lp.names` order."""
    index = {name: j for j, name in enumerate(lp.names)}
    a_ub: list[list[Fraction]] = []
    b_ub: list[Fraction] = []
    a_eq: list[list[Fraction]] = []
    b_eq: list[Fraction] = []
    for _name, coeffs, constant, sense in lp.rows:
        row = [Fraction(0)] * len(lp.names)
        for name, c in coeffs.items():
            row[index[name]] += c
        if sense == "<=":
            a_ub.append(row)
            b_ub.append(-constant)
        elif sense == ">=":
            a_ub.append([-v for v in row])
            b_ub.append(constant)
        else:
            a_eq.append(row)
            b_eq.append(-constant)
    objective = [lp.objective.get(name, Fraction(0)) for name in lp.names]
    return a_ub, b_ub, a_eq, b_eq, objective


def tie_order(names: tuple[str, ...]) -> list[int]:
    """The order of the lab's tie-break among an LP's optimal solutions: the users' tasks
    ``tasks_0, tasks_1, ...`` first, then the other variables in the order pulp lists them (by name)."""
    tasks = sorted((int(name[6:]), j) for j, name in enumerate(names)
                   if name.startswith("tasks_") and name[6:].isdigit() and str(int(name[6:])) == name[6:])
    first = [j for _, j in tasks]
    return first + [j for j in range(len(names)) if j not in set(first)]


class NoOptimum(PluginError):
    """The plug-in's LP on this instance is infeasible or unbounded: a wrong answer on that instance."""


#: what a result says about ties among an LP's optimal solutions (`solve_exact`)
TIE_BREAK = ("ties among the LP's optimal solutions are broken by the lab: the lexicographically greatest "
             "optimal solution (tasks_0 first, then tasks_1, ..., then the other variables by name), the same "
             "on every solver version")


def _unique(result: Any, a_ub: list[list[Fraction]], a_eq: list[list[Fraction]], objective: list[Fraction],
            maximize: bool) -> bool:
    """Whether the certified optimum `result` (`solve_lp`) is the LP's only optimal solution, by a
    sufficient exact test: every optimal solution satisfies complementary slackness with the
    certificate's multipliers (row i tight where y_i != 0, x_j at its bound where its reduced cost
    d_j != 0, every equality row); if those equations have rank n they admit one point. False when
    there is no certificate (z3's optimum) or the test does not settle it."""
    if result.x is None or result.duals_ub is None or result.duals_eq is None:
        return False
    size = len(objective)
    rows = a_ub + a_eq
    y = list(result.duals_ub) + list(result.duals_eq)
    reduced = [-c if maximize else c for c in objective]  # the minimisation form's c - Aᵀy
    for yi, row in zip(y, rows):
        if yi:
            reduced = [d - yi * a for d, a in zip(reduced, row)]
    active = [list(row) for yi, row in zip(result.duals_ub, a_ub) if yi] + [list(row) for row in a_eq]
    active += [[Fraction(int(k == j)) for k in range(size)] for j, d in enumerate(reduced) if d]
    return _rank(active, size) == size


def _rank(matrix: list[list[Fraction]], size: int) -> int:
    """The rank of `matrix` (rows of `size` Fractions), by exact Gaussian elimination."""
    rows = [row[:] for row in matrix if any(row)]
    rank = 0
    for col in range(size):
        pivot = next((k for k in range(rank, len(rows)) if rows[k][col]), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        top = rows[rank]
        for k in range(rank + 1, len(rows)):
            if rows[k][col]:
                factor = rows[k][col] / top[col]
                rows[k] = [a - factor * b for a, b in zip(rows[k], top)]
        rank += 1
        if rank == len(rows):
            break
    return rank


def solve_exact(lp: LP[Fraction], where: str) -> dict[str, Fraction]:
    """The exact optimal solution of `lp` the lab picks, as ``{variable name: Fraction}``: the optimum
    (`fairlab.core.lp.solve_lp`: certified from HiGHS's optimal basis, or z3), then, among the optimal
    solutions, the lexicographically greatest in `tie_order` (`fairlab.core.lp.lexicographic_max` over
    the optimal face): a function of the LP alone, not of the solver's vertex. A one-line
    `PluginError` if there is none."""
    from fairlab.core.lp import OPTIMAL, lexicographic_max, solve_lp

    a_ub, b_ub, a_eq, b_eq, objective = _matrices(lp)
    result = solve_lp(objective, a_ub or None, b_ub or None, a_eq or None, b_eq or None,
                      lower=list(lp.lower), upper=list(lp.upper), maximize=lp.maximize)
    if result.status in ("infeasible", "unbounded"):
        raise NoOptimum(f"{where}: the LP is {result.status}")
    if result.status != OPTIMAL or result.value is None:
        raise PluginError(f"{where}: the LP is {result.status}" + (" (the exact solver gave up)"
                                                                   if result.status == "unknown" else ""))
    if _unique(result, a_ub, a_eq, objective, lp.maximize):  # the only optimal solution: nothing to break
        return dict(zip(lp.names, result.x or ()))
    order = tie_order(lp.names)
    permute = lambda row: [row[j] for j in order]  # noqa: E731
    face_eq = [permute(row) for row in a_eq] + [permute(objective)]  # the optimal face: objective = optimum
    status, point = lexicographic_max(len(order), [permute(row) for row in a_ub] or None, b_ub or None, face_eq,
                                      b_eq + [result.value], lower=permute(list(lp.lower)),
                                      upper=permute(list(lp.upper)))
    if status != OPTIMAL or point is None:
        raise PluginError(f"{where}: the lab's tie-break among the LP's optimal solutions failed ({status}: some "
                          "variable has no greatest optimal value; bound it)")
    x = [Fraction(0)] * len(order)
    for k, j in enumerate(order):
        x[j] = point[k]
    return dict(zip(lp.names, x))


def _held(lp: LP[Fraction], value: Fraction) -> tuple[str, dict[str, Fraction], Fraction, str]:
    """The row holding `lp`'s objective at its optimum `value` (for the next lexicographic stage)."""
    return ("lexicographic", dict(lp.objective), lp.objective_constant - value, ">=" if lp.maximize else "<=")


def _objective_value(lp: LP[Fraction], x: dict[str, Fraction]) -> Fraction:
    return sum((c * x[name] for name, c in lp.objective.items()), Fraction(0)) + lp.objective_constant


def run(result: object, n: int, where: str) -> tuple[tuple[Fraction, ...], tuple[str, ...]]:
    """The tasks of an LP mechanism's result (one LP, a lexicographic list, or a generator), and the
    coefficients of its LPs that were floats (`LP.inexact`: then the tasks are not the exact ones).
    A generator is sent each stage's solution as `ExactNumber` s, which stay exact in its arithmetic."""
    tasks: dict[int, Fraction] = {}
    floats: list[str] = []

    def take(x: dict[str, Fraction]) -> None:
        for i in range(n):
            if TASKS.format(i) in x:
                tasks[i] = x[TASKS.format(i)]

    if isinstance(result, (types.GeneratorType, _Resumed)):  # types.GeneratorType: what inspect.isgenerator tests
        try:
            problem = next(result)
            stage = 0
            while True:
                stage += 1
                if not _is_problem(problem):
                    raise PluginError(f"{where}: stage {stage} yielded {type(problem).__name__}, "
                                      "expected a pulp.LpProblem")
                lp = read_problem(problem, where=f"{where}, stage {stage}")
                floats.extend(lp.inexact)
                x = solve_exact(lp, f"{where}, stage {stage}")
                take(x)
                problem = result.send({name: ExactNumber(v) for name, v in x.items()})
        except StopIteration:
            pass
    else:
        held: list[tuple[str, dict[str, Fraction], Fraction, str]] = []
        for stage, problem in enumerate(result if isinstance(result, (list, tuple)) else [result], start=1):
            lp = read_problem(problem, where=f"{where}, stage {stage}")
            floats.extend(lp.inexact)
            known = set(lp.names)
            for row in held:
                missing = set(row[1]) - known
                if missing:
                    raise InputError(f"{where}, stage {stage}: lacks the variables {sorted(missing)} of an earlier "
                                     "stage's objective (a lexicographic sequence shares its variables)")
            lp = LP(lp.names, lp.maximize, lp.objective, lp.objective_constant, lp.rows + tuple(held), lp.lower,
                    lp.upper)
            x = solve_exact(lp, f"{where}, stage {stage}")
            take(x)
            held.append(_held(lp, _objective_value(lp, x)))
    unset = [i for i in range(n) if i not in tasks]
    if unset:
        raise PluginError(f"{where}: no LP variable named {TASKS.format(unset[0])} (the tasks of user {unset[0]})")
    return tuple(tasks[i] for i in range(n)), tuple(floats)


F = TypeVar("F", bound=Callable[..., Any])


def lp_mechanism(fn: F) -> F:
    """Declare `fn` (``Instance -> pulp model(s)``) an LP mechanism whose spec the lab derives
    (sets ``fn.spec = "lp"``); returns `fn`."""
    fn.spec = "lp"  # type: ignore[attr-defined]  # a function attribute: how a plug-in declares its spec
    return fn
