"""Exact univariate root arithmetic for CEEI's exact path, in `Fraction`s (no z3 arithmetic on
algebraic numbers).

Why: with two saturated resources every price, task and cap price of the CEEI optimum is a
Möbius function (a + b t) / (c + d t) of one algebraic number t (a root of a polynomial g over Q;
see `fairlab.mechanisms._ceei_exact`). Letting z3 evaluate w / (alpha + beta t) at an algebraic t
of degree ~10 takes seconds per user (it computes a resultant inside its simplifier), so a
10-user optimum never finished. Here each value's own defining polynomial is written down
directly (the Möbius substitution of g, O(deg^2) rational operations) together with an isolating
interval (the image of t's), and z3 only *names* that root (one univariate solve with an interval:
milliseconds), so the result is still a `fairlab.core.exact.Algebraic` (or a `Fraction`).

Isolation is certified by Descartes' rule of signs on the interval (Collins & Akritas 1976; the
"Vincent–Collins–Akritas" test): after mapping (lo, hi) to (0, inf), exactly one sign variation
in the coefficients means exactly one root, and it is simple. Polynomials are coefficient lists
of `Fraction`s, constant term first.
"""

from __future__ import annotations

from fractions import Fraction

import z3

from fairlab.core.errors import ExactBudgetSpent, ExactTimeout
from fairlab.core.exact import Algebraic, Exact, remaining, z3_value
from fairlab.core.solving import SolverBudget, check, new_solver

#: z3 resource units to name a root isolated in a certified interval (one univariate question)
ROOT_RLIMIT = 10_000_000

Poly = list  # list[Fraction], constant term first


def trim(p: Poly) -> Poly:
    p = list(p)
    while len(p) > 1 and p[-1] == 0:
        p.pop()
    return p


def evaluate(p: Poly, x: Fraction) -> Fraction:
    out = Fraction(0)
    for c in reversed(p):
        out = out * x + c
    return out


def taylor_shift(p: Poly, a: Fraction) -> Poly:
    """Coefficients of p(x + a) (Horner's scheme on the coefficients, O(deg^2))."""
    q = list(p)
    n = len(q)
    for i in range(n - 1):
        for j in range(n - 2, i - 1, -1):
            q[j] += a * q[j + 1]
    return q


def sign_variations(p: Poly) -> int:
    signs = [c > 0 for c in p if c != 0]
    return sum(1 for a, b in zip(signs, signs[1:]) if a != b)


def roots_in(p: Poly, lo: Fraction, hi: Fraction) -> int:
    """Descartes' bound on the number of roots of p in the open interval (lo, hi): exact when it
    is 0 or 1 (then that root is simple)."""
    p = trim(p)
    # x = lo + (hi - lo) z maps (0, 1) to (lo, hi); z = 1 / (1 + y) maps (0, inf) to (0, 1)
    scaled = taylor_shift(p, lo)
    width = hi - lo
    factor = Fraction(1)
    for i in range(len(scaled)):
        scaled[i] *= factor
        factor *= width
    return sign_variations(taylor_shift(scaled[::-1], Fraction(1)))


def mobius(p: Poly, a: Fraction, b: Fraction, c: Fraction, d: Fraction) -> Poly:
    """A polynomial whose roots are v = (a + b t) / (c + d t) for the roots t of p (with
    a d - b c != 0): t = (c v - a) / (b - d v), so q(v) = sum_j p_j (c v - a)^j (b - d v)^(D - j)."""
    p = trim(p)
    deg = len(p) - 1
    num = [[Fraction(1)]]  # (c v - a)^j
    den = [[Fraction(1)]]  # (b - d v)^j
    for _ in range(deg):
        num.append(_mul(num[-1], [-a, c]))
        den.append(_mul(den[-1], [b, -d]))
    out = [Fraction(0)] * (deg + 1)
    for j, coefficient in enumerate(p):
        if coefficient:
            for k, e in enumerate(_mul(num[j], den[deg - j])):
                out[k] += coefficient * e
    return trim(out)


def _mul(p: Poly, q: Poly) -> Poly:
    out = [Fraction(0)] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        if a:
            for j, b in enumerate(q):
                out[i + j] += a * b
    return out


class Root:
    """A real root of g isolated in the open interval (lo, hi) (exactly one root there, simple)."""

    def __init__(self, g: Poly, lo: Fraction, hi: Fraction):
        self.g, self.lo, self.hi = trim(g), lo, hi

    @staticmethod
    def isolate(g: Poly, approx: Fraction, radius: Fraction, max_halvings: int = 400) -> Root | None:
        """The root of g within `radius` of `approx` (certified by Descartes' rule), shrinking
        the radius until it is isolated; None if it never is (g has no root there, or a multiple one)."""
        g = trim(g)
        for _ in range(max_halvings):
            _in_time()
            lo, hi = approx - radius, approx + radius
            if evaluate(g, lo) != 0 and evaluate(g, hi) != 0:
                count = roots_in(g, lo, hi)
                if count == 1:
                    return Root(g, lo, hi)
                if count == 0:
                    return None
            radius /= 2
        return None

    def refine(self) -> None:
        """Halve the interval (bisection on the sign change)."""
        mid = (self.lo + self.hi) / 2
        value = evaluate(self.g, mid)
        if value == 0:  # a rational root: shrink around it
            quarter = (self.hi - self.lo) / 4
            self.lo, self.hi = mid - quarter, mid + quarter
            while roots_in(self.g, self.lo, self.hi) != 1:  # pragma: no cover (cannot happen: simple root)
                quarter /= 2
                self.lo, self.hi = mid - quarter, mid + quarter
        elif (value > 0) == (evaluate(self.g, self.lo) > 0):
            self.lo = mid
        else:
            self.hi = mid

    def sign_of(self, h: Poly, max_refinements: int = 2000) -> int:
        """Exact sign of h at the root: -1, 0 or 1 (0 decided by gcd(g, h) vanishing there)."""
        h = trim(h)
        if all(c == 0 for c in h):
            return 0
        common = gcd(self.g, h)
        if len(common) > 1:  # h vanishes at the root iff the common factor does (a simple root of it)
            lo, hi = evaluate(common, self.lo), evaluate(common, self.hi)
            if lo == 0 or hi == 0 or (lo > 0) != (hi > 0):
                while evaluate(common, self.lo) == 0 or evaluate(common, self.hi) == 0:
                    self.refine()
                if (evaluate(common, self.lo) > 0) != (evaluate(common, self.hi) > 0):
                    return 0
        for _ in range(max_refinements):
            _in_time()
            if roots_in(h, self.lo, self.hi) == 0 and evaluate(h, self.lo) != 0:
                return 1 if evaluate(h, (self.lo + self.hi) / 2) > 0 else -1
            self.refine()
        raise RuntimeError("ceei: sign of a polynomial at an isolated root not decided")  # pragma: no cover

    def mobius_value(self, a: Fraction, b: Fraction, c: Fraction, d: Fraction) -> Exact:
        """The exact value (a + b t) / (c + d t) at the root (c + d t must be nonzero there)."""
        if a * d - b * c == 0:  # a constant
            return Fraction(b) / d if d != 0 else Fraction(a) / c
        while d != 0 and (roots_in([c, d], self.lo, self.hi) != 0 or evaluate([c, d], self.lo) == 0):
            self.refine()  # the pole -c/d lies outside the interval: the map is monotone on it
        ends = sorted(Fraction(a + b * e) / (c + d * e) for e in (self.lo, self.hi))
        return root_value(mobius(self.g, a, b, c, d), ends[0], ends[1])

    def as_exact(self) -> Exact:
        return root_value(self.g, self.lo, self.hi)


def _in_time() -> None:
    left = remaining()
    if left is not None and left <= 0:
        raise ExactTimeout("ceei: the exact solve's time limit was spent")


def root_value(g: Poly, lo: Fraction, hi: Fraction) -> Exact:
    """The exact number that is the only root of g in (lo, hi): a `Fraction` if rational, else an
    `Algebraic` (z3 names the root: one univariate solve)."""
    v = z3.Real("ceei.root")
    expr = z3_value(g[-1])
    for c in reversed(g[:-1]):
        expr = expr * v + z3_value(c)
    left = remaining()
    if left is not None and left <= 0:
        raise ExactTimeout("ceei: the exact solve's time limit was spent")
    # a univariate root in a certified interval: the counted resource limit decides, the time left
    # is only the wall-clock safety net
    solver = new_solver(SolverBudget(rlimit=ROOT_RLIMIT, seconds=left))
    solver.add(expr == 0, v > z3_value(lo), v < z3_value(hi))
    verdict, reason = check(solver)
    if verdict == "unknown" and reason == "rlimit":
        raise ExactBudgetSpent(f"ceei: naming an isolated root did not finish within {ROOT_RLIMIT:,} resource units")
    if verdict == "unknown":
        raise ExactTimeout("ceei: naming an isolated root did not finish within the time limit")
    if verdict != "sat":  # pragma: no cover (the interval was certified to hold a root)
        raise RuntimeError("ceei: an isolated root was not found by z3")
    return Algebraic.of(solver.model().eval(v, model_completion=True))


def gcd(p: Poly, q: Poly) -> Poly:
    """Monic greatest common divisor over Q (Euclid; fine for the degrees of the CEEI path)."""
    a, b = trim(p), trim(q)
    while not (len(b) == 1 and b[0] == 0):
        a, b = b, _rem(a, b)
    return [c / a[-1] for c in a] if a[-1] != 0 else a


def _rem(a: Poly, b: Poly) -> Poly:
    a = list(a)
    lead = b[-1]
    while len(a) >= len(b) and not (len(a) == 1 and a[0] == 0):
        f = a[-1] / lead
        shift = len(a) - len(b)
        for i, c in enumerate(b):
            a[shift + i] -= f * c
        a.pop()
        a = trim(a) if a else [Fraction(0)]
    return trim(a) if a else [Fraction(0)]
