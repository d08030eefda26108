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
coefficients, constant and sense; exact numbers stay exact: use ints and Fractions, a float is
read through its shortest decimal text) and solves it with `fairlab.core.lp.solve_lp` — HiGHS
guesses a basis, the vertex and the duals are recomputed in rationals and certified optimal by LP
duality (or z3 decides). An LP that is infeasible, unbounded or undecided is a one-line
`PluginError`; an allocation from it is checked feasible like any plug-in's.

The spec (``fn.spec = "lp"``, or `lp_mechanism`) is derived from the same builder
(`fairlab.mechanisms.lp_spec`): the LP's optimality conditions — primal feasibility, dual
feasibility, complementary slackness — for every stage, over a symbolic instance.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Generator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Generic, TypeVar, overload

from fairlab.core.errors import InputError, PluginError
from fairlab.core.exact import to_fraction

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
    coefficient (default: an exact `Fraction`, a float through its shortest decimal text)."""
    import pulp

    if number is None:
        number = to_fraction
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
    return LP(names, problem.sense == pulp.LpMaximize, coeffs, constant, tuple(rows), lower, upper)


def solve_exact(lp: LP[Fraction], where: str) -> dict[str, Fraction]:
    """The exact optimal vertex of `lp` (`fairlab.core.lp.solve_lp`: certified from the optimal
    basis), as ``{variable name: Fraction}``; a one-line `PluginError` if there is none."""
    from fairlab.core.lp import OPTIMAL, solve_lp

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
    result = solve_lp(objective, a_ub or None, b_ub or None, a_eq or None, b_eq or None,
                      lower=list(lp.lower), upper=list(lp.upper), maximize=lp.maximize)
    if result.status != OPTIMAL:
        raise PluginError(f"{where}: the LP is {result.status}" + (" (the exact solver gave up)"
                                                                   if result.status == "unknown" else ""))
    assert result.x is not None, "solve_lp gives the vertex of an optimal LP"
    return dict(zip(lp.names, result.x))


def _held(lp: LP[Fraction], value: Fraction) -> tuple[str, dict[str, Fraction], Fraction, str]:
    """The row holding `lp`'s objective at its optimum `value` (for the next lexicographic stage)."""
    return ("lexicographic", dict(lp.objective), lp.objective_constant - value, ">=" if lp.maximize else "<=")


def _objective_value(lp: LP[Fraction], x: dict[str, Fraction]) -> Fraction:
    return sum((c * x[name] for name, c in lp.objective.items()), Fraction(0)) + lp.objective_constant


def run(result: object, n: int, where: str) -> tuple[Fraction, ...]:
    """The tasks of an LP mechanism's result (one LP, a lexicographic list, or a generator)."""
    tasks: dict[int, Fraction] = {}

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
                x = solve_exact(read_problem(problem, where=f"{where}, stage {stage}"), f"{where}, stage {stage}")
                take(x)
                problem = result.send(x)
        except StopIteration:
            pass
    else:
        held: list[tuple[str, dict[str, Fraction], Fraction, str]] = []
        for stage, problem in enumerate(result if isinstance(result, (list, tuple)) else [result], start=1):
            lp = read_problem(problem, where=f"{where}, stage {stage}")
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
    return tuple(tasks[i] for i in range(n))


F = TypeVar("F", bound=Callable[..., Any])


def lp_mechanism(fn: F) -> F:
    """Declare `fn` (``Instance -> pulp model(s)``) an LP mechanism whose spec the lab derives
    (sets ``fn.spec = "lp"``); returns `fn`."""
    fn.spec = "lp"  # type: ignore[attr-defined]  # a function attribute: how a plug-in declares its spec
    return fn
