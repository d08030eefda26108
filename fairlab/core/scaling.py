"""A z3 question made linear by a scaling symmetry that is checked, not assumed (lab's own lemma).

Strategyproofness asks z3 whether some misreport ``L`` (an unknown row) earns user i more: the
mechanism's spec on the derived instance multiplies i's unknown task count ``T`` by ``L``, so the
question is nonlinear real arithmetic, and z3 often gives up on it. Many mechanisms only see the
*direction* of a declared demand (DRF: declaring ``2L`` gives ``T/2`` tasks of it, the same
resources), and then ``T`` can be fixed. Whether the spec has that symmetry is decided here, term
by term, on the encoding actually asked, never taken from a mechanism's word:

**Lemma.** Give each unknown a degree: +1 to the entries of ``L``, -1 to ``T``, 0 to every other
unknown. If every atom (``=, <, <=, >, >=``, distinct) of the constraints compares terms that are
homogeneous of one degree (a numeral is of degree 0, the numeral 0 of any degree; a sum, difference
or ``If`` needs its parts of one degree, except the branch an ``If`` on a literal true or false
never takes; a product adds degrees; a division needs a denominator without unknowns, or one
built with ``+`` and ``*`` from positive numerals and unknowns the caller declares positive in
every use of the formula, so of degree 0 and never zero), then for
every ``k > 0`` the map ``L -> k L``, ``T -> T / k`` takes models to
models: each side of each atom is multiplied by the same ``k^d > 0``, so no atom changes its truth.

**Consequence.** A model with ``T > 0`` maps (``k = |T|``) to one with ``T = 1``, one with ``T < 0``
to one with ``T = -1``, and ``T = 0`` stays. So the question is satisfiable exactly when one of the
three questions with ``T`` replaced by 1, 0 or -1 is (`cases`), and those have no ``T L`` product
left; `Pinned` reads their models as models of the original question. Measured at drf 3 x 3
(uncapped users): z3 answered the three cases in about 10 ms where the original question used its
whole resource limit (2 million units) without an answer.

A task cap on the user (``T <= cap``) breaks the symmetry, as does anything else of mixed degree:
`obstruction` then names the first such term and the caller asks the original question.
"""

from __future__ import annotations

import itertools
import operator
from fractions import Fraction
from typing import Iterable, Sequence

import z3
from z3 import z3core as core

from fairlab.core.isolated import free_constants

#: a degree that any degree matches (the numeral 0, a product with a zero factor)
ANY = None

_ATOMS = {z3.Z3_OP_EQ, z3.Z3_OP_LE, z3.Z3_OP_LT, z3.Z3_OP_GE, z3.Z3_OP_GT, z3.Z3_OP_DISTINCT}
_CONNECTIVES = {z3.Z3_OP_AND, z3.Z3_OP_OR, z3.Z3_OP_NOT, z3.Z3_OP_IMPLIES, z3.Z3_OP_XOR, z3.Z3_OP_TRUE,
                z3.Z3_OP_FALSE}
_SAME_DEGREE = {z3.Z3_OP_ADD, z3.Z3_OP_SUB, z3.Z3_OP_UMINUS}


class _Mixed(Exception):
    """A term that is not homogeneous (its text says which)."""


class _Walk:
    """Degrees of terms and the check of formulas, read through z3's C API (`z3.z3core`, as
    `fairlab.mechanisms.spec_names.unknowns` does): no Python object per sub-term."""

    def __init__(self, ctx: z3.Context, degrees: dict[int, int], positive: frozenset[int] = frozenset()):
        self.ctx, self.ref = ctx, ctx.ref()
        self.fixed = degrees  # ast id of an unknown -> its degree (others: 0)
        self.positive_ids = positive  # ast ids of unknowns the caller declares > 0 (degree 0)
        self.memo: dict[int, int | None] = {}
        self.checked: set[int] = set()
        self.ground_memo: dict[int, bool] = {}

    def text(self, a) -> str:
        words = core.Z3_ast_to_string(self.ref, a)
        return words if len(words) <= 160 else words[:157] + "..."

    def _app(self, a):
        """(decl kind, arguments, number of arguments) of an application; None for anything else."""
        ref = self.ref
        if core.Z3_get_ast_kind(ref, a) != z3.Z3_APP_AST:
            return None
        app = core.Z3_to_app(ref, a)
        count = core.Z3_get_app_num_args(ref, app)
        kind = core.Z3_get_decl_kind(ref, core.Z3_get_app_decl(ref, app))
        return kind, [core.Z3_get_app_arg(ref, app, k) for k in range(count)]

    def _sort(self, a) -> int:
        return core.Z3_get_sort_kind(self.ref, core.Z3_get_sort(self.ref, a))

    def ground(self, a) -> bool:
        """No unknown (nor bound variable) occurs in `a`."""
        key = core.Z3_get_ast_id(self.ref, a)
        if key not in self.ground_memo:
            kind = core.Z3_get_ast_kind(self.ref, a)
            if kind == z3.Z3_NUMERAL_AST:
                self.ground_memo[key] = True
            else:
                parts = self._app(a)
                self.ground_memo[key] = parts is not None and (
                    parts[0] != z3.Z3_OP_UNINTERPRETED and all(self.ground(x) for x in parts[1]))
        return self.ground_memo[key]

    def positive(self, a) -> bool:
        """`a` is built with ``+`` and ``*`` from positive numerals and unknowns declared positive."""
        ref = self.ref
        if core.Z3_get_ast_kind(ref, a) == z3.Z3_NUMERAL_AST:
            return Fraction(core.Z3_get_numeral_string(ref, a)) > 0
        parts = self._app(a)
        if parts is None:
            return False
        kind, args = parts
        if kind == z3.Z3_OP_UNINTERPRETED:
            return not args and core.Z3_get_ast_id(ref, a) in self.positive_ids
        return kind in (z3.Z3_OP_ADD, z3.Z3_OP_MUL) and all(self.positive(x) for x in args)

    def term(self, a) -> int | None:
        key = core.Z3_get_ast_id(self.ref, a)
        if key not in self.memo:
            self.memo[key] = self._term(a, key)
        return self.memo[key]

    def _term(self, a, key: int) -> int | None:
        ref = self.ref
        if self._sort(a) not in (z3.Z3_REAL_SORT, z3.Z3_INT_SORT):
            raise _Mixed(f"a non-arithmetic term {self.text(a)}")
        if core.Z3_get_ast_kind(ref, a) == z3.Z3_NUMERAL_AST:
            return ANY if core.Z3_get_numeral_string(ref, a) == "0" else 0
        parts = self._app(a)
        if parts is None:
            raise _Mixed(f"a bound variable or quantifier {self.text(a)}")
        kind, args = parts
        if kind == z3.Z3_OP_UNINTERPRETED:
            if args:
                raise _Mixed(f"an uninterpreted function in {self.text(a)}")
            return self.fixed.get(key, 0)
        if kind in _SAME_DEGREE:
            return self._same([self.term(x) for x in args], a)
        if kind == z3.Z3_OP_MUL:
            degrees = [self.term(x) for x in args]
            return ANY if any(d is ANY for d in degrees) else sum(d for d in degrees if d is not ANY)
        if kind == z3.Z3_OP_DIV:
            top, bottom = args
            if not self.positive(bottom) and (
                    not self.ground(bottom) or _nonzero(z3.simplify(z3.ExprRef(bottom, self.ctx))) is not True):
                raise _Mixed(f"a division by a term with unknowns not declared positive, or by zero: {self.text(a)}")
            return self.term(top)
        if kind == z3.Z3_OP_ITE:
            condition, then, other = args
            taken = self._taken(condition, then, other)
            if taken is not None:  # If(True, a, b) is a: the branch never taken does not matter
                return self.term(taken)
            self.formula(condition)
            return self._same([self.term(then), self.term(other)], a)
        if kind == z3.Z3_OP_TO_REAL and self.ground(a):
            return 0
        raise _Mixed(f"an operation the lemma does not cover: {self.text(a)}")

    def _taken(self, condition, then, other):
        """The branch an ``If`` with the condition true or false takes; None for any other condition."""
        parts = self._app(condition)
        if parts is not None and not parts[1] and parts[0] in (z3.Z3_OP_TRUE, z3.Z3_OP_FALSE):
            return then if parts[0] == z3.Z3_OP_TRUE else other
        return None

    def _same(self, degrees: list[int | None], a) -> int | None:
        known = {d for d in degrees if d is not ANY}
        if len(known) > 1:
            raise _Mixed(f"parts of degrees {sorted(known)} in {self.text(a)}")
        return known.pop() if known else ANY

    def formula(self, a) -> None:
        key = core.Z3_get_ast_id(self.ref, a)
        if key in self.checked:
            return
        self.checked.add(key)
        parts = self._app(a) if self._sort(a) == z3.Z3_BOOL_SORT else None
        if parts is None:
            raise _Mixed(f"a quantified or non-Boolean constraint {self.text(a)}")
        kind, args = parts
        if kind == z3.Z3_OP_UNINTERPRETED and not args:
            return  # a Boolean unknown: the scaling leaves it alone
        if kind == z3.Z3_OP_ITE:
            taken = self._taken(*args)
            for x in (args if taken is None else [taken]):
                self.formula(x)
            return
        if kind in _CONNECTIVES:
            for x in args:
                self.formula(x)
            return
        if kind in _ATOMS:
            if all(self._sort(x) == z3.Z3_BOOL_SORT for x in args):  # an equivalence of formulas
                for x in args:
                    self.formula(x)
                return
            self._same([self.term(x) for x in args], a)
            return
        raise _Mixed(f"a connective or predicate z3 does not scale: {self.text(a)}")


def _nonzero(e: z3.ExprRef) -> bool | None:
    if z3.is_rational_value(e):
        return e.as_fraction() != 0
    if z3.is_int_value(e):
        return e.as_long() != 0
    return None


def obstruction(constraints: Iterable[z3.BoolRef], up: Sequence[z3.ArithRef], down: z3.ArithRef,
                positive: Sequence[z3.ArithRef] = ()) -> str | None:
    """None when `constraints` keep their truth under ``up -> k up``, ``down -> down / k`` (k > 0,
    every other unknown fixed), by the module's lemma; else the first term that breaks it.
    `positive`: unknowns the caller guarantees > 0 wherever the answer is used (the capacities and
    weights of `fairlab.properties._parametric`'s parameters): a denominator may be built of them."""
    variables = list(up) + [down]
    if not all(z3.is_const(v) and v.decl().kind() == z3.Z3_OP_UNINTERPRETED and v.is_real() for v in variables):
        return "the scaled unknowns must be real constants"
    degrees = {v.get_id(): 1 for v in up}
    if down.get_id() in degrees:
        return "the scaled-down unknown is also scaled up"
    degrees[down.get_id()] = -1
    if not all(z3.is_const(p) and p.decl().kind() == z3.Z3_OP_UNINTERPRETED for p in positive):
        return "the unknowns declared positive must be constants"
    if any(p.get_id() in degrees for p in positive):
        return "a scaled unknown is declared positive"
    walk = _Walk(down.ctx, degrees, frozenset(p.get_id() for p in positive))
    try:
        for c in constraints:
            walk.formula(c.as_ast())
    except _Mixed as why:
        return str(why)
    return None


def cases(constraints: Sequence[z3.BoolRef], downs: Sequence[z3.ArithRef]
          ) -> list[tuple[tuple[int, ...], z3.BoolRef]]:
    """The questions that together are equisatisfiable with `constraints` when `obstruction` found
    none for each of `downs` (each with its own scaled-up unknowns, the others' of degree 0): for
    every choice of 1, 0 or -1 per unknown of `downs` (3^len(downs) of them, 1 first), the
    conjunction of `constraints` with each replaced by its value. Several scalings compose: each
    moves only its own unknowns, so applying them one after the other fixes every one."""
    ctx = downs[0].ctx
    whole = z3.And(list(constraints)) if constraints else z3.BoolVal(True, ctx)
    return [(values, z3.substitute(whole, *[(d, z3.RealVal(v, ctx)) for d, v in zip(downs, values)]))
            for values in itertools.product((1, 0, -1), repeat=len(downs))]


def _regime(down: z3.ArithRef, threshold: z3.ArithRef, below: bool) -> list[tuple[z3.BoolRef, z3.BoolRef]]:
    """(atom, its truth) for every atom comparing `down` with `threshold`, when ``down < threshold``
    (`below`) or ``down > threshold``: z3 builds the same term for the same atom, so a
    substitution finds each one however the spec wrote it, in either orientation. Each truth is
    the relation's on two numbers in that order (0 and 1 below, 1 and 0 above)."""
    relations = (operator.le, operator.lt, operator.ge, operator.gt, operator.eq, operator.ne)
    t_value, c_value = (0, 1) if below else (1, 0)
    atoms = []
    for relation in relations:
        for (left, right), (a, b) in (((down, threshold), (t_value, c_value)), ((threshold, down), (c_value, t_value))):
            atom = z3.Distinct(left, right) if relation is operator.ne else relation(left, right)
            atoms.append((atom, z3.BoolVal(relation(a, b), down.ctx)))
    return atoms


def threshold_cases(constraints: Sequence[z3.BoolRef], up: Sequence[z3.ArithRef], down: z3.ArithRef,
                    threshold: z3.ArithRef, positive: Sequence[z3.ArithRef] = ()
                    ) -> list[tuple[str, z3.BoolRef, list]] | str:
    """The question split at ``down = threshold`` when comparisons of `down` with `threshold` (a
    term without the scaled unknowns: a task cap, ``T <= cap`` and ``T == cap``) are all that
    break the symmetry; else the first term that breaks it (str).

    The question is ``(φ ∧ T = c) ∨ (φ ∧ T < c) ∨ (φ ∧ T > c)``. The first is φ with ``T := c``.
    Below c every atom comparing T with c has a known truth; φ with those substituted (φ<) must
    pass `obstruction`, and then φ< ∧ T < c is satisfiable exactly when one of these is: φ<[T:=1]
    with c > 0 (scale the model down to T = c/2), φ<[T:=0] with c > 0, φ<[T:=-1] (scale to any
    T < min(c, 0)). Above c likewise (φ>[T:=1]; φ>[T:=0] with c < 0; φ>[T:=-1] with c < 0).
    Returns (label, formula, pins): `Pinned(model, pins)` reads a model of the formula as a model
    of the question (the scaled model the argument names)."""
    if any(term.get_id() in {v.get_id() for v in [*up, down]} for term in free_constants([threshold])):
        return "the threshold mentions a scaled unknown"
    whole = z3.And(list(constraints)) if constraints else z3.BoolVal(True, down.ctx)
    ctx, c = down.ctx, threshold
    one, zero, minus = (z3.RealVal(v, ctx) for v in (1, 0, -1))

    def scaled(t_value, k):  # T -> t_value, each L -> k L: the model of the ray the argument picks
        return [(down, t_value)] + [(x, k * x) for x in up]

    out: list[tuple[str, z3.BoolRef, list]] = [("=cap", z3.substitute(whole, (down, c)), [(down, c)])]
    for below in (True, False):
        regime = z3.substitute(whole, *_regime(down, c, below))
        if z3.is_false(z3.simplify(regime)):  # e.g. above a cap: T <= cap is false there
            continue
        why = obstruction([regime], up, down, positive)
        if why is not None:
            return f"{'below' if below else 'above'} the threshold: {why}"
        if below:
            low = z3.If(c > -1, minus, c - 1)  # a negative T below c
            rows = [("<cap,1", one, c > 0, scaled(c / 2, 2 / c)), ("<cap,0", zero, c > 0, [(down, zero)]),
                    ("<cap,-1", minus, z3.BoolVal(True, ctx), scaled(low, -1 / low))]
        else:
            high = z3.If(c < 1, one, c + 1)  # a positive T above c
            rows = [(">cap,1", one, z3.BoolVal(True, ctx), scaled(high, 1 / high)),
                    (">cap,0", zero, c < 0, [(down, zero)]), (">cap,-1", minus, c < 0, scaled(c / 2, -2 / c))]
        out += [(label, z3.And(z3.substitute(regime, (down, value)), side), pins) for label, value, side, pins in rows]
    return out


class Pinned:
    """A model of a question whose `pairs` (unknown, value) were substituted, read as a model of the
    question before: terms are evaluated with the same substitution (the question no longer
    mentions those unknowns)."""

    def __init__(self, model, pairs: Sequence[tuple[z3.ExprRef, z3.ExprRef]]):
        self.model, self.pairs = model, list(pairs)

    def eval(self, term: z3.ExprRef, model_completion: bool = False) -> z3.ExprRef:
        return self.model.eval(z3.substitute(term, *self.pairs) if self.pairs else term,
                               model_completion=model_completion)

    def __getitem__(self, term):
        return self.eval(term, model_completion=True)


class Substitution:
    """``z3.substitute(formula, *pairs)`` for many formulas with the same `pairs`: the pairs' sorts
    are checked once here, and each formula goes straight to z3's C function (`z3.z3core`), where
    ``z3.substitute`` checks every pair's sort again in Python on each call (measured: most of the
    cost of substituting an instance's 40 numbers into a template's questions)."""

    def __init__(self, pairs: Sequence[tuple[z3.ExprRef, z3.ExprRef]]):
        if not all(a.sort().eq(b.sort()) for a, b in pairs):
            raise ValueError("a substitution pairs terms of different sorts")
        self.count = len(pairs)
        self.sources = (z3.Ast * self.count)(*[a.as_ast() for a, _ in pairs])
        self.targets = (z3.Ast * self.count)(*[b.as_ast() for _, b in pairs])
        self.keep = list(pairs)  # the terms own the ASTs the arrays point to

    def formula(self, expr: z3.BoolRef) -> z3.BoolRef:
        ctx = expr.ctx
        return z3.BoolRef(core.Z3_substitute(ctx.ref(), expr.as_ast(), self.count, self.sources, self.targets), ctx)
