"""The z3 spec of an LP mechanism, derived from its LPs' optimality conditions.

An LP mechanism (`fairlab.mechanisms.lp_plugin`) builds its LPs from the instance's numbers with
ordinary Python code, which may branch on them (``max`` of shares, "is this resource saturated").
Its spec is obtained by running that same code on a *symbolic* instance (`SymbolicNumber`: z3
terms behind Python arithmetic) once per branch — a bounded symbolic execution:

* every comparison of symbolic numbers the builder makes is a branch point: the run takes one
  side and records the condition; the other side is explored by another run (depth first), each
  side only if z3 finds it possible given the path so far (a deterministic rlimit per question;
  an undecided question explores both sides);
* every LP the builder returns or yields gets fresh unknowns for its variables, and its exact
  optimality conditions are added to the path: primal feasibility (each row and bound), dual
  feasibility (a multiplier per row and bound, of the sign its sense asks, and stationarity
  ``c = Σ_k y_k a_k + μ⁺ - μ⁻`` for every variable) and complementary slackness (each multiplier
  zero or its row / bound tight). These hold exactly at the LP's optimal solutions (LP duality). A
  generator is sent the stage's unknowns as its "solution"; a lexicographic list holds each earlier
  objective at its optimum in the later stages;
* the lab's tie-break among a stage's optimal solutions (`lp_plugin.solve_exact`: the
  lexicographically greatest) is encoded the same way (`_tie_break`): for each variable in
  `lp_plugin.tie_order`, the optimality conditions of "maximise it over the optimal face, the
  earlier ones held" — all of a generator's variables (its solution is sent back), the tasks of a
  sequence's stage — so the spec admits exactly the allocation the lab computes;
* a float coefficient other than an integer (a float is not the number it stands for) gives no
  derived spec;
* the user's tasks are the ``tasks_i`` unknowns of the last stage that has them;
* a path on which the builder raises (an `InputError`: it declines; any other exception: it
  fails) has no allocation, as the allocator has none on those instances (or the path is
  impossible); a ``TypeError`` / ``AttributeError`` means the builder does something a symbolic
  number cannot (e.g. ``float(d)``): no derived spec at all.

The spec is the disjunction over the paths of (the path's conditions ∧ its stages' conditions ∧
tasks = its tasks unknowns), one named constraint ``<name>.lp-optimal``. Comparisons made inside
pulp itself (its ``coefficient != 0`` checks, its finiteness checks) are answered structurally:
a symbolic coefficient is kept as a term, which is exact whatever its value. A builder that
converts an instance number to a float, or has more than `MAX_PATHS` paths, has no derived spec
(a one-line error; the numeric engines still serve it).

As for any spec, `fairlab prove` checks it against the allocator on samples (conformance) before
it proves anything with it.
"""

from __future__ import annotations

import inspect
import types
from fractions import Fraction
from typing import Any

import z3

from fairlab.core.errors import InputError, PluginError, describe_exception
from fairlab.core.exact import z3_value
from fairlab.mechanisms import lp_plugin
from fairlab.mechanisms.base import Constraint
from fairlab.mechanisms.plugin_numbers import FLOAT_INTEGERS

#: paths of one builder beyond which no spec is derived
MAX_PATHS = 256
#: z3 resource units for each "is this branch possible" question (deterministic)
BRANCH_RLIMIT = 2_000_000


class _Path:
    """The branch decisions of one symbolic run: forced ones first, then the first possible side."""

    def __init__(self, forced: list[bool], base: list):
        self.forced = forced
        self.taken: list[bool] = []
        self.open: list[bool] = []  # was the other side possible at each decision?
        self.facts: list = list(base)

    def add(self, facts) -> None:
        self.facts.extend(facts)

    def _possible(self, condition) -> bool:
        solver = z3.Solver()
        solver.set("rlimit", BRANCH_RLIMIT)
        solver.add(*self.facts, condition)
        return solver.check() != z3.unsat  # unknown: treated as possible (both sides explored)

    def decide(self, condition) -> bool:
        condition = z3.simplify(condition)
        if z3.is_true(condition) or z3.is_false(condition):
            return z3.is_true(condition)
        k = len(self.taken)
        if k < len(self.forced):
            choice, other = self.forced[k], False
        else:
            yes, no = self._possible(condition), self._possible(z3.Not(condition))
            choice, other = (True, no) if yes else (False, False)
        self.taken.append(choice)
        self.open.append(other)
        self.facts.append(condition if choice else z3.Not(condition))
        return choice


_PATH: list[_Path] = []


def _from_pulp(depth: int) -> bool:
    """Is the code `depth` frames above the caller of this function pulp's own?"""
    frame = inspect.currentframe()
    for _ in range(depth + 1):
        frame = frame.f_back if frame is not None else None
    return frame is not None and str(frame.f_globals.get("__name__", "")).startswith("pulp")


def _term(value):
    if isinstance(value, SymbolicNumber):
        return value.term
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, Fraction)):
        return z3_value(Fraction(value))
    if isinstance(value, float) and value == value and abs(value) != float("inf"):  # pulp's own 0.0, -1.0
        return z3_value(Fraction(value))
    return None


class SymbolicNumber:
    """A z3 term behaving as a number for an LP builder (see the module docstring)."""

    __slots__ = ("term",)

    def __init__(self, term):
        self.term = term

    def _op(self, other, fn):
        t = _term(other)
        return NotImplemented if t is None else SymbolicNumber(fn(self.term, t))

    def __add__(self, o): return self._op(o, lambda a, b: a + b)  # noqa: E704
    def __radd__(self, o): return self._op(o, lambda a, b: b + a)  # noqa: E704
    def __sub__(self, o): return self._op(o, lambda a, b: a - b)  # noqa: E704
    def __rsub__(self, o): return self._op(o, lambda a, b: b - a)  # noqa: E704
    def __mul__(self, o): return self._op(o, lambda a, b: a * b)  # noqa: E704
    def __rmul__(self, o): return self._op(o, lambda a, b: b * a)  # noqa: E704
    def __truediv__(self, o): return self._op(o, lambda a, b: a / b)  # noqa: E704
    def __rtruediv__(self, o): return self._op(o, lambda a, b: b / a)  # noqa: E704
    def __neg__(self): return SymbolicNumber(-self.term)  # noqa: E704
    def __pos__(self): return self  # noqa: E704

    def __abs__(self):
        return SymbolicNumber(z3.If(self.term >= 0, self.term, -self.term))

    def _compare(self, other, fn):
        t = _term(other)
        if t is None:
            return NotImplemented
        condition = fn(self.term, t)
        if _from_pulp(2):  # pulp's own bookkeeping (`coefficient != 0`): answered structurally
            simple = z3.simplify(condition)
            if z3.is_true(simple) or z3.is_false(simple):
                return z3.is_true(simple)
            return fn is _NE
        return _PATH[-1].decide(condition)

    def __lt__(self, o): return self._compare(o, lambda a, b: a < b)  # noqa: E704
    def __le__(self, o): return self._compare(o, lambda a, b: a <= b)  # noqa: E704
    def __gt__(self, o): return self._compare(o, lambda a, b: a > b)  # noqa: E704
    def __ge__(self, o): return self._compare(o, lambda a, b: a >= b)  # noqa: E704
    def __eq__(self, o): return self._compare(o, _EQ)  # noqa: E704
    def __ne__(self, o): return self._compare(o, _NE)  # noqa: E704

    def __bool__(self):
        return _PATH[-1].decide(self.term != 0)

    def __float__(self):
        if _from_pulp(1):  # pulp's finiteness checks: a symbolic number is finite
            return 1.0
        raise TypeError("an LP mechanism's spec is derived symbolically: do not convert instance numbers to float")

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"SymbolicNumber({self.term})"


def _EQ(a, b):
    return a == b


def _NE(a, b):
    return a != b


class SymbolicInstanceView:
    """The instance an LP builder sees on the symbolic run: its numbers are `SymbolicNumber` s."""

    setting = "pool"

    def __init__(self, sym):
        wrap = SymbolicNumber
        self.n, self.m = sym.n, sym.m
        self.capacities = tuple(wrap(c) for c in sym.capacities)
        self.demands = tuple(tuple(wrap(d) for d in row) for row in sym.demands)
        self.weights = tuple(tuple(wrap(w) for w in row) for row in sym.weights)
        self.max_tasks = tuple(None if t is None else wrap(t) for t in sym.max_tasks)
        self.users = tuple(f"u{i + 1}" for i in range(self.n))
        self.resources = tuple(f"r{r + 1}" for r in range(self.m))

    def scalar_weights(self):
        return tuple(row[0] for row in self.weights)

    def demand_share(self, i: int, r: int):
        return self.demands[i][r] / self.capacities[r]

    def dominant_share_per_task(self, i: int):
        return max(self.demand_share(i, r) / self.weights[i][r] for r in range(self.m))


def _number(value, what):
    if isinstance(value, float) and not (value.is_integer() and abs(value) <= FLOAT_INTEGERS):
        # a float is not the number it stands for: no spec is derived from it (the numeric path labels
        # such an LP's allocation approximate)
        raise PluginError(f"{what} is the float {value!r}, not an exact number: no derived spec (use the "
                          "instance's numbers, ints or fairlab.mechanisms.plugin_numbers.ExactNumber)")
    t = _term(value)
    if t is None:
        raise InputError(f"{what}: {type(value).__name__} is not a number")
    return t


def _optimality(lp: lp_plugin.LP, x: dict, tag: str) -> list:
    """The conditions under which the values `x` (z3 terms) are an optimal solution of `lp`."""
    out = []
    sign = 1 if lp.maximize else -1  # as a maximisation
    grad = {name: z3.RealVal(0) for name in lp.names}
    for k, (_row, coeffs, constant, sense) in enumerate(lp.rows):
        g = z3.Sum([c * x[name] for name, c in coeffs.items()]) + constant if coeffs else constant
        y = z3.Real(f"{tag}.y{k}")
        if sense == "<=":
            out += [g <= 0, y >= 0, z3.Or(y == 0, g == 0)]
        elif sense == ">=":
            out += [g >= 0, y <= 0, z3.Or(y == 0, g == 0)]
        else:
            out.append(g == 0)
        for name, c in coeffs.items():
            grad[name] = grad[name] + y * c
    for j, name in enumerate(lp.names):
        lo, hi = lp.lower[j], lp.upper[j]
        if lo is not None:
            mu = z3.Real(f"{tag}.lo{j}")
            out += [x[name] >= lo, mu >= 0, z3.Or(mu == 0, x[name] == lo)]
            grad[name] = grad[name] - mu
        if hi is not None:
            mu = z3.Real(f"{tag}.hi{j}")
            out += [x[name] <= hi, mu >= 0, z3.Or(mu == 0, x[name] == hi)]
            grad[name] = grad[name] + mu
        out.append(grad[name] == sign * lp.objective.get(name, z3.RealVal(0)))
    return out


def _tie_break(lp: lp_plugin.LP, x: dict, tag: str, chain: int | None = None) -> list:
    """The conditions under which the optimal solution `x` of `lp` is the one the lab picks among its
    optimal solutions (`lp_plugin.solve_exact`): for each variable k in `lp_plugin.tie_order` (the first
    `chain` of them; None: all), x_k is the greatest value of variable k over the optimal face with the
    variables before it held at their values — an LP each, whose optimality conditions are written as
    for the author's LPs (`_optimality`). The held rows' constants are terms of `x` itself: they hold
    the face where `x` is, as the numeric path holds it at the optimum it found."""
    out: list = []
    value = z3.Sum([c * x[name] for name, c in lp.objective.items()]) if lp.objective else z3.RealVal(0)
    face = ("optimal face", dict(lp.objective), -value, "==")
    order = [lp.names[j] for j in lp_plugin.tie_order(lp.names)]
    for k, name in enumerate(order[:chain] if chain is not None else order):
        held = tuple((f"held {other}", {other: z3.RealVal(1)}, -x[other], "==") for other in order[:k])
        step = lp_plugin.LP(lp.names, True, {name: z3.RealVal(1)}, 0, lp.rows + (face,) + held, lp.lower, lp.upper)
        out += _optimality(step, x, f"{tag}.tie{k}")
    return out


def _stage(problem, p: int, k: int, where: str) -> tuple[lp_plugin.LP, dict]:
    lp = lp_plugin.read_problem(problem, number=_number, where=f"{where}, stage {k}")
    x = {name: z3.Real(f"lp{p}.s{k}.{name}") for name in lp.names}
    return lp, x


def _run_path(fn, view, path: _Path, p: int, n: int, where: str) -> dict:
    """One symbolic run along `path`: its stages' conditions added to the path; the tasks unknowns."""
    result = fn(view)
    if not lp_plugin.is_lp(result):
        raise InputError(f"{where}: returned {type(result).__name__}, not pulp LPs (an LP mechanism's spec is derived "
                         "from the LPs it returns)")
    tasks: dict[int, object] = {}

    def take(x):
        for i in range(n):
            if lp_plugin.TASKS.format(i) in x:
                tasks[i] = x[lp_plugin.TASKS.format(i)]

    if isinstance(result, types.GeneratorType):  # what inspect.isgenerator tests (and typed for `send`)
        k = 0
        try:
            problem = next(result)
            while True:
                k += 1
                lp, x = _stage(problem, p, k, where)
                path.add(_optimality(lp, x, f"lp{p}.s{k}"))
                path.add(_tie_break(lp, x, f"lp{p}.s{k}"))  # every value is sent back: all of them pinned
                take(x)
                problem = result.send({name: SymbolicNumber(v) for name, v in x.items()})
        except StopIteration:
            pass
    else:
        held: list[tuple[dict[str, Any], Any, Any, str]] = []  # z3 terms (z3 has no type information)
        for k, problem in enumerate(result if isinstance(result, (list, tuple)) else [result], start=1):
            lp, x = _stage(problem, p, k, where)
            lp = lp_plugin.LP(lp.names, lp.maximize, lp.objective, lp.objective_constant,
                              lp.rows + tuple((f"held{j}", coeffs, constant - value, sense)
                                              for j, (coeffs, constant, value, sense) in enumerate(held)),
                              lp.lower, lp.upper)
            path.add(_optimality(lp, x, f"lp{p}.s{k}"))
            # only the tasks are read from a stage of a sequence (its objective's optimum is the same at every
            # optimal solution): the tie-break of the tasks it names decides them
            path.add(_tie_break(lp, x, f"lp{p}.s{k}", chain=sum(1 for i in range(n) if lp_plugin.TASKS.format(i)
                                                                in x)))
            take(x)
            value = z3.Sum([c * x[name] for name, c in lp.objective.items()]) + lp.objective_constant
            held.append((dict(lp.objective), lp.objective_constant, value, ">=" if lp.maximize else "<="))
    if len(tasks) != n:
        raise InputError(f"{where}: the LPs name no variable tasks_{min(set(range(n)) - set(tasks))}")
    return tasks


def paths(fn, sym, where: str) -> list[tuple[list, dict]]:
    """Every feasible path of the builder on `sym`: (its facts, the tasks unknowns)."""
    out: list[tuple[list, dict]] = []
    stack: list[list[bool]] = [[]]
    count = 0
    while stack:
        forced = stack.pop()
        count += 1
        if count > MAX_PATHS:
            raise InputError(f"{where}: more than {MAX_PATHS} branches of its LP builder; no derived spec")
        path = _Path(forced, [c.expr for c in sym.domain])
        _PATH.append(path)
        try:
            tasks = _run_path(fn, SymbolicInstanceView(sym), path, count, sym.n, where)
        except PluginError:
            raise
        except (TypeError, AttributeError) as exc:  # what the symbolic instance cannot do: no spec
            raise PluginError(f"{where}: its LP builder cannot run on a symbolic instance: "
                              f"{describe_exception(exc)}") from None
        except Exception:  # noqa: BLE001 - the builder refuses (or fails on) the instances of this path
            tasks = None  # the mechanism allocates nothing there: the spec has no allocation on this path
        finally:
            _PATH.pop()
        for k in range(len(forced), len(path.taken)):
            if path.open[k]:
                stack.append(path.taken[:k] + [not path.taken[k]])
        if tasks is not None:
            out.append((path.facts[len(sym.domain):], tasks))
    return out


def derived_spec(fn, name: str):
    """The spec ``spec(sym, tasks)`` of the LP mechanism `fn` (see the module docstring)."""

    def spec(sym, tasks):
        if sym.machines is not None or sym.events is not None:
            raise InputError(f"mechanism {name!r}: a derived LP spec is for the pool setting")
        found = paths(fn, sym, f"mechanism {name!r}")
        cases = [z3.And(*facts, *[tasks[i] == t for i, t in lp_tasks.items()]) for facts, lp_tasks in found]
        return [Constraint(f"{name}.lp-optimal", z3.Or(cases) if cases else z3.BoolVal(False))]

    spec.__doc__ = (f"LP optimality conditions of {name} and of the lab's tie-break among the optimal solutions "
                    "(derived: fairlab.mechanisms.lp_spec)")
    return spec
