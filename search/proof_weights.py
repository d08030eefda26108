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

from fairlab.mechanisms.base import Constraint, SymbolicInstance


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
            elif z3.is_app_of(e, z3.Z3_OP_DIV) and len(kids) == 2:
                out = _divide(*kids)
            elif any(not k.eq(c) for k, c in zip(kids, e.children())):
                out = e.decl()(*kids)
        memo[key] = out
        return out

    return walk(expr)


def _lifts(e) -> bool:
    """An if-then-else with a numeral branch (a capped user's normalised tasks)."""
    return z3.is_app_of(e, z3.Z3_OP_ITE) and any(_numeral(b) for b in e.children()[1:])


def _divide(numerator: z3.ExprRef, denominator: z3.ExprRef) -> z3.ExprRef:
    if _lifts(numerator):
        cond, then, other = numerator.children()
        return z3.If(cond, _divide(then, denominator), _divide(other, denominator))
    if _is_zero(numerator):
        return z3.RealVal(0)
    return numerator / denominator


def _distribute(factors: list[z3.ExprRef]) -> z3.ExprRef:
    """The product of `factors`, an if-then-else factor distributed over (the factors' order kept)."""
    for k, f in enumerate(factors):
        if _lifts(f):
            cond, then, other = f.children()
            return z3.If(cond, _distribute([*factors[:k], then, *factors[k + 1:]]),
                         _distribute([*factors[:k], other, *factors[k + 1:]]))
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


# --------------------------------------------------------------------------- weighted DRF: levels
def nonlinear(exprs) -> list[z3.ExprRef]:
    """The products of two non-numeral terms and the divisions by a non-numeral term in `exprs`."""
    seen: set[int] = set()
    found: list[z3.ExprRef] = []
    todo = list(exprs)
    while todo:
        e = todo.pop()
        if e.get_id() in seen or not z3.is_app(e):
            continue
        seen.add(e.get_id())
        if (z3.is_mul(e) and sum(not _numeral(c) for c in e.children()) > 1) or \
                (z3.is_app_of(e, z3.Z3_OP_DIV) and not _numeral(e.children()[1])):
            found.append(e)
        todo.extend(e.children())
    return found


def levels(constraints: list[Constraint], runs: list[tuple[str, SymbolicInstance]], sigma, ratios=(), ones=()
           ) -> tuple[list[Constraint], list[Constraint], list[z3.ExprRef]]:
    """The LEVELS relaxation of a tasks-normalised encoding of weighted DRF (capacities 1):
    (the constraints rewritten, the axioms added, the level unknowns).

    With weights, DRF's spec compares users' levels — the weighted dominant share of a row x_i,
    λ_i = max_r x_ir / w_ir (`sigma(sym)`: the spec's own terms, `fairlab.mechanisms.drf.sigma_terms`)
    — and the properties compare amounts weighted by another user's weights: products of unknowns.
    Every level term of every run of the spec (`runs`: (tag, symbolic instance) pairs, e.g. sp's
    truthful and misreported runs) becomes an unknown λ, and every product λ·w of a level and a
    weight an unknown P[λ, w]; what the products imply is kept as linear axioms ("relax.level.*"):

    * definition: x_ir <= P[λ_i, w_ir] for every r, with equality for some r (λ_i = max_r x_ir / w_ir);
    * order: λ <= λ' implies P[λ, w] <= P[λ', w], and λ < λ' implies P[λ, w] < P[λ', w] (w > 0),
      also with λ' the number 1 (P[1, w] = w); and P > 0 (every row is non-zero, every weight positive);
    * `ones`: weight sums normalised to 1 (`Σ_k w_k`: a term the caller asserts equal to 1),
      substituted by 1, with Σ_k P[λ, w_k] = λ for each level (λ·Σ_k w_k = λ);
    * `ratios`: terms q = x·w'/w of the property's rule (ef's bundle of user j as user i sees it,
      x = x_jr, w = w_jr, w' = w_ir) become unknowns with x <= P[λ, w] iff q <= P[λ, w'] and
      x < P[λ, w] iff q < P[λ, w'] for every level λ (x / w and q / w' are the same number), and
      q = 0 iff x = 0.

    Every model of the exact encoding gives a model of the relaxation (λ, P, q their values), so
    UNSAT proves what the exact encoding would; a SAT model need not be an instance (the caller
    re-checks it exactly). Raises ValueError when a product is left (a spec or rule not written as
    expected): the relaxation must then not be used."""
    subs: list[tuple[z3.ExprRef, z3.ExprRef]] = []
    defined: list[tuple[z3.ExprRef, list, list]] = []  # (λ, row, weights)
    for tag, sym in runs:
        if any(not (_numeral(c) and _value(c) == 1) for c in sym.capacities):
            raise ValueError("levels: the relaxation needs capacities normalised to 1")
        for i, term in enumerate(sigma(sym)):
            level = z3.Real(f"relax.level.{tag}{i}")
            subs += [(term, level), (lift_ite(term), level)]
            defined.append((level, list(sym.demands[i]), list(sym.weights[i])))
    weights: dict[int, z3.ExprRef] = {}
    for _, _row, ws in defined:
        for w in ws:
            if not _numeral(w):
                weights.setdefault(w.get_id(), w)
    products: dict[tuple[int, int], z3.ExprRef] = {}

    def product(level, w):
        if _numeral(w) or _numeral(level):
            return level * w
        key = (level.get_id(), w.get_id())
        if key not in products:
            products[key] = z3.Real(f"relax.P[{level}*{w}]")
        return products[key]

    quotients = []
    for k, (term, x, w, w2) in enumerate(ratios):
        q = z3.Real(f"relax.q{k}")
        subs += [(term, q), (lift_ite(term), q)]
        quotients.append((q, x, w, w2))
    subs += [(term, z3.RealVal(1)) for term in ones]
    unique = list({a.get_id(): (a, b) for a, b in subs}.values())
    rewritten = [Constraint(c.name, z3.substitute(lift_ite(c.expr), *unique) if unique else lift_ite(c.expr))
                 for c in constraints]
    left = nonlinear(c.expr for c in rewritten)
    if left:
        raise ValueError(f"levels: products left after the relaxation, e.g. {left[0]}")
    axioms: list[Constraint] = []
    lv = [level for level, _, _ in defined]
    for level, row, ws in defined:
        axioms.append(Constraint(f"relax.level.def[{level}]",
                                 z3.And(*[x <= product(level, w) for x, w in zip(row, ws)],
                                        z3.Or([x == product(level, w) for x, w in zip(row, ws)]))))
    for a in lv:
        axioms.append(Constraint(f"relax.level.positive[{a}]",
                                 z3.And(a > 0, *[product(a, w) > 0 for w in weights.values()])))
        for b in lv:
            if not a.eq(b):
                axioms.append(Constraint(f"relax.level.order[{a},{b}]", _order(a, b, product, weights.values())))
        one = z3.RealVal(1)  # the level 1 too, both ways: P[1, w] = w (si's entitlement reads w_i)
        axioms.append(Constraint(f"relax.level.order[{a},1]", z3.And(_order(a, one, product, weights.values()),
                                                                     _order(one, a, product, weights.values()))))
        for term in ones:
            axioms.append(Constraint(f"relax.level.sum[{a}]", z3.Sum([product(a, w) for w in term.children()]) == a))
    for q, x, w, w2 in quotients:
        same = [z3.And((x <= product(a, w)) == (q <= product(a, w2)), (x < product(a, w)) == (q < product(a, w2)))
                for a in lv]
        axioms.append(Constraint(f"relax.ratio[{q}]", z3.And(q >= 0, (q == 0) == (x == 0), *same)))
    return rewritten, axioms, lv


def _order(a, b, product, weights) -> z3.BoolRef:
    """a <= b implies P[a, w] <= P[b, w] and a < b implies P[a, w] < P[b, w], for every weight w > 0."""
    return z3.And(*[z3.Implies(a <= b, product(a, w) <= product(b, w)) for w in weights],
                  *[z3.Implies(a < b, product(a, w) < product(b, w)) for w in weights])
