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
or ``If`` needs its parts of one degree; a product adds degrees; a division needs a denominator
without unknowns), then for every ``k > 0`` the map ``L -> k L``, ``T -> T / k`` takes models to
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

from fractions import Fraction
from typing import Iterable, Sequence

import z3

#: a degree that any degree matches (the numeral 0, a product with a zero factor)
ANY = None

_ATOMS = (z3.Z3_OP_EQ, z3.Z3_OP_LE, z3.Z3_OP_LT, z3.Z3_OP_GE, z3.Z3_OP_GT, z3.Z3_OP_DISTINCT)
_CONNECTIVES = (z3.Z3_OP_AND, z3.Z3_OP_OR, z3.Z3_OP_NOT, z3.Z3_OP_IMPLIES, z3.Z3_OP_XOR, z3.Z3_OP_TRUE,
                z3.Z3_OP_FALSE)
_SAME_DEGREE = (z3.Z3_OP_ADD, z3.Z3_OP_SUB, z3.Z3_OP_UMINUS)


class _Mixed(Exception):
    """A term that is not homogeneous (its text says which)."""


def _numeral(e: z3.ExprRef) -> Fraction | None:
    if z3.is_rational_value(e):
        return Fraction(e.as_fraction())
    if z3.is_int_value(e):
        return Fraction(e.as_long())
    return None


def _ground(e: z3.ExprRef) -> bool:
    """No unknown occurs in `e`."""
    stack, seen = [e], set()
    while stack:
        x = stack.pop()
        if x.get_id() in seen:
            continue
        seen.add(x.get_id())
        if z3.is_const(x) and x.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            return False
        if z3.is_quantifier(x) or z3.is_var(x):
            return False
        if z3.is_app(x):
            stack.extend(x.children())
    return True


class _Degrees:
    """The degree of each term under the scaling; `_Mixed` where a term has none."""

    def __init__(self, degrees: dict[int, int]):
        self.fixed = degrees  # ast id of an unknown -> its degree (others: 0)
        self.memo: dict[int, int | None] = {}
        self.checked: set[int] = set()

    def term(self, e: z3.ExprRef) -> int | None:
        key = e.get_id()
        if key in self.memo:
            return self.memo[key]
        value = self._term(e)
        self.memo[key] = value
        return value

    def _term(self, e: z3.ExprRef) -> int | None:
        if not z3.is_arith(e):
            raise _Mixed(f"a non-arithmetic term {e}")
        number = _numeral(e)
        if number is not None:
            return ANY if number == 0 else 0
        if not z3.is_app(e):
            raise _Mixed(f"a bound variable or quantifier {e}")
        kind = e.decl().kind()
        if kind == z3.Z3_OP_UNINTERPRETED:
            if e.num_args():
                raise _Mixed(f"an uninterpreted function {e.decl().name()}")
            return self.fixed.get(e.get_id(), 0)
        if kind in _SAME_DEGREE:
            return self._same([self.term(c) for c in e.children()], e)
        if kind == z3.Z3_OP_MUL:
            parts = [self.term(c) for c in e.children()]
            return ANY if any(p is ANY for p in parts) else sum(p for p in parts if p is not ANY)
        if kind == z3.Z3_OP_DIV:
            top, bottom = e.children()
            if not _ground(bottom) or _numeral(z3.simplify(bottom)) in (None, 0):
                raise _Mixed(f"a division by a term with unknowns or by zero: {e}")
            return self.term(top)
        if kind == z3.Z3_OP_ITE:
            cond, then, other = e.children()
            self.formula(cond)
            return self._same([self.term(then), self.term(other)], e)
        if kind in (z3.Z3_OP_TO_REAL,) and _ground(e):
            return 0
        raise _Mixed(f"an operation z3 calls {e.decl().name()} ({e})")

    @staticmethod
    def _same(parts: list[int | None], e: z3.ExprRef) -> int | None:
        known = {p for p in parts if p is not ANY}
        if len(known) > 1:
            raise _Mixed(f"parts of degrees {sorted(known)} in {e}")
        return known.pop() if known else ANY

    def formula(self, e: z3.ExprRef) -> None:
        key = e.get_id()
        if key in self.checked:
            return
        self.checked.add(key)
        if not z3.is_bool(e) or not z3.is_app(e):
            raise _Mixed(f"a quantified or non-Boolean constraint {e}")
        kind = e.decl().kind()
        if kind == z3.Z3_OP_UNINTERPRETED and e.num_args() == 0:
            return  # a Boolean unknown: the scaling leaves it alone
        if kind in _CONNECTIVES:
            for c in e.children():
                self.formula(c)
            return
        if kind == z3.Z3_OP_ITE:
            for c in e.children():
                self.formula(c)
            return
        if kind in _ATOMS:
            children = e.children()
            if all(z3.is_bool(c) for c in children):  # an equivalence of formulas
                for c in children:
                    self.formula(c)
                return
            self._same([self.term(c) for c in children], e)
            return
        raise _Mixed(f"a connective z3 calls {e.decl().name()} ({e})")


def obstruction(constraints: Iterable[z3.BoolRef], up: Sequence[z3.ArithRef], down: z3.ArithRef) -> str | None:
    """None when `constraints` keep their truth under ``up -> k up``, ``down -> down / k`` (k > 0,
    every other unknown fixed), by the module's lemma; else the first term that breaks it."""
    variables = list(up) + [down]
    if not all(z3.is_const(v) and v.decl().kind() == z3.Z3_OP_UNINTERPRETED and v.is_real() for v in variables):
        return "the scaled unknowns must be real constants"
    degrees = {v.get_id(): 1 for v in up}
    if down.get_id() in degrees:
        return "the scaled-down unknown is also scaled up"
    degrees[down.get_id()] = -1
    walker = _Degrees(degrees)
    try:
        for c in constraints:
            walker.formula(c)
    except _Mixed as why:
        return str(why)
    return None


def cases(constraints: Sequence[z3.BoolRef], down: z3.ArithRef) -> list[tuple[int, list[z3.BoolRef]]]:
    """The three questions that together are equisatisfiable with `constraints` when `obstruction`
    found none: (value, `constraints` with `down` replaced by it) for the values 1, 0 and -1."""
    return [(value, [z3.substitute(c, (down, z3.RealVal(value, down.ctx))) for c in constraints])
            for value in (1, 0, -1)]


class Pinned:
    """A model of one of `cases`' questions read as a model of the original constraints: terms are
    evaluated with `down` replaced by the case's value (the question no longer mentions it)."""

    def __init__(self, model, down: z3.ArithRef, value: int):
        self.model, self.pair = model, (down, z3.RealVal(value, down.ctx))

    def eval(self, term: z3.ExprRef, model_completion: bool = False) -> z3.ExprRef:
        return self.model.eval(z3.substitute(term, self.pair), model_completion=model_completion)

    def __getitem__(self, term):
        return self.eval(term, model_completion=True)
