"""Weights and task caps in the DRF proof encodings: keeping them linear.

`fairlab.search.proof_encoding`'s "drf-normalised" encodings fix every user's tasks (1, or for a
capped user 1 or 0 as its cap is positive or 0) and are linear without weights. Weights and caps
bring products back; this module takes them out again, each step sound (every model of the exact
encoding gives one of the rewritten encoding), so UNSAT of the rewritten encoding proves the claim,
and a SAT answer is only a candidate that the exact re-check decides (`fairlab.search.proof`).

* `lift_ite`: a product with a factor If(c, a, b) becomes If(c, a·rest, b·rest) — an identity — so
  the capped users' tasks If(cap > 0, 1, 0) leave no product behind.
* `levels`: the weighted DRF relaxation (see its docstring).
"""

from __future__ import annotations

import z3

from fairlab.mechanisms.base import Constraint


# --------------------------------------------------------------------------- if-then-else lifting
def lift_ite(expr: z3.ExprRef) -> z3.ExprRef:
    """`expr` with every product that has an if-then-else factor with a numeral branch distributed
    over it: x·If(c, 1, 0) -> If(c, x, 0). An identity of real arithmetic; it turns the products of
    a tasks-normalised encoding with caps (tasks If(cap > 0, 1, 0)) into linear if-then-else terms."""
    memo: dict[int, z3.ExprRef] = {}

    def walk(e: z3.ExprRef) -> z3.ExprRef:
        key = e.get_id()
        if key in memo:
            return memo[key]
        out = e
        if z3.is_app(e) and e.num_args():
            kids = [walk(c) for c in e.children()]
            if z3.is_mul(e):
                out = _distribute(kids)
            elif any(not k.eq(c) for k, c in zip(kids, e.children())):
                out = e.decl()(*kids)
        memo[key] = out
        return out

    return walk(expr)


def _distribute(factors: list[z3.ExprRef]) -> z3.ExprRef:
    for k, f in enumerate(factors):
        if z3.is_app_of(f, z3.Z3_OP_ITE) and any(_numeral(b) for b in f.children()[1:]):
            rest = factors[:k] + factors[k + 1:]
            cond, then, other = f.children()
            return z3.If(cond, _distribute([*rest, then]), _distribute([*rest, other]))
    numerals = [f for f in factors if _numeral(f)]
    if any(_is_zero(f) for f in numerals):
        return z3.RealVal(0)
    others = [f for f in factors if not (_numeral(f) and _is_one(f))]
    if not others:
        return z3.RealVal(1)
    return others[0] if len(others) == 1 else _product(others)


def _product(factors):
    out = factors[0]
    for f in factors[1:]:
        out = out * f
    return out


def _numeral(e) -> bool:
    return z3.is_rational_value(e) or z3.is_int_value(e)


def _value(e):
    """The value of a numeral, None for anything else."""
    if z3.is_rational_value(e):
        return e.as_fraction()
    if z3.is_int_value(e):
        return e.as_long()
    return None


def _is_zero(e) -> bool:
    return _value(e) == 0


def _is_one(e) -> bool:
    return _value(e) == 1


def lifted(constraints: list[Constraint]) -> list[Constraint]:
    """`lift_ite` on every constraint, names kept."""
    return [Constraint(c.name, lift_ite(c.expr)) for c in constraints]
