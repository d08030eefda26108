"""Exact linear programming for small LPs: a float solver guesses, exact arithmetic decides.

    >>> from fairlab.core.lp import solve_lp
    >>> r = solve_lp([1, 1], A_ub=[[1, 2], [3, 1]], b_ub=[4, 6], maximize=True)
    >>> r.status, r.x, r.value
    ('optimal', (Fraction(8, 5), Fraction(6, 5)), Fraction(14, 5))

The problem is ``min`` (or ``max``) ``c·x`` subject to ``A_ub x <= b_ub``, ``A_eq x == b_eq`` and
bounds ``lower <= x <= upper`` (default ``0 <= x``; ``None`` in a bound means unbounded on that
side). All data are read exactly with `fairlab.core.exact.to_fraction`.

How a verdict is reached (floats may guide, never decide):

1. HiGHS (through ``highspy``) solves the LP in floating point and reports its optimal *basis*.
2. The basis is re-solved in `Fraction` arithmetic: nonbasic variables and nonbasic constraints sit
   exactly at their bounds, the square basic system gives the exact vertex ``x`` and the exact row
   duals ``y``.
3. `certify_optimal` checks, exactly, that ``x`` is primal feasible, that ``y`` is dual feasible
   and that the primal and dual objectives are equal (LP duality, weak-duality bound
   ``c·x >= Σ_i y_i·bound_i + Σ_j d_j·bound_j`` with reduced costs ``d = c - Aᵀy``). Only a passed
   certificate makes the answer "optimal" on this path.
4. Whenever HiGHS does not report an optimum, or its basis fails the exact check (degeneracy,
   round-off, a singular basis), z3's ``Optimize`` over linear real arithmetic decides exactly.
   A z3 timeout gives status "unknown", never an answer.

`feasible` is the convenience for "is this polytope non-empty, and give me an exact point".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Optional, Sequence

import highspy
import numpy as np
import z3

from fairlab.core.errors import InputError
from fairlab.core.exact import to_fraction
from fairlab.core.stdio import c_stdout_silenced

OPTIMAL = "optimal"
INFEASIBLE = "infeasible"
UNBOUNDED = "unbounded"
UNKNOWN = "unknown"

#: the exact fallback's wall-clock safety net (milliseconds); its counted budget is Z3_LP_RLIMIT
DEFAULT_TIMEOUT_MS = 600_000
#: z3 resource units of the exact fallback (`_solve_z3`, linear real arithmetic): counted
Z3_LP_RLIMIT = 50_000_000


@dataclass(frozen=True)
class LPResult:
    """An exact LP answer.

    `status` is "optimal", "infeasible", "unbounded" or "unknown" (z3 gave up; nothing is
    claimed). For "optimal": `x` is an exact optimal point, `value` the exact optimum of the
    objective in the sense asked (max or min) and, when the float-guided path certified it,
    `duals_ub` / `duals_eq` are exact multipliers of the constraint rows that prove optimality
    (sign convention of the minimisation form, see `certify_optimal`). For "unbounded", `x` is an
    exact feasible point when z3 gave one. `method` says which path decided: "highs+certificate"
    or "z3".
    """

    status: str
    x: Optional[tuple[Fraction, ...]] = None
    value: Optional[Fraction] = None
    method: str = ""
    duals_ub: Optional[tuple[Fraction, ...]] = None
    duals_eq: Optional[tuple[Fraction, ...]] = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def is_feasible(self) -> Optional[bool]:
        """True if the constraints have a solution, False if not, None if undecided."""
        if self.status in (OPTIMAL, UNBOUNDED):
            return True
        if self.status == INFEASIBLE:
            return False
        return None


# --------------------------------------------------------------------------- input
def _vector(values, length: Optional[int], field_name: str) -> list[Fraction]:
    if values is None or isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise InputError(f"{field_name}: expected a list of numbers, got {values!r}")
    out = [v if type(v) is Fraction else to_fraction(v, f"{field_name}[{k}]") for k, v in enumerate(values)]
    if length is not None and len(out) != length:
        raise InputError(f"{field_name}: expected {length} entries, got {len(out)}")
    return out


def _matrix(rows, n: int, field_name: str) -> list[list[Fraction]]:
    if rows is None:
        return []
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__len__"):
        raise InputError(f"{field_name}: expected a list of rows, got {rows!r}")
    out = []
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
            raise InputError(f"{field_name}[{i}]: expected a list of {n} numbers, got {row!r}")
        if len(row) != n:
            raise InputError(f"{field_name}[{i}]: has {len(row)} entries but there are {n} variables")
        out.append([v if type(v) is Fraction else to_fraction(v, f"{field_name}[{i}][{j}]") for j, v in enumerate(row)])
    return out


def _rhs(values, rows: int, field_name: str, matrix_name: str) -> list[Fraction]:
    """Right-hand side of `rows` constraint rows; may be omitted only when there are no rows."""
    if values is None:
        if rows:
            raise InputError(f"{field_name}: missing, but {matrix_name} has {rows} rows")
        return []
    return _vector(values, rows, field_name)


def _bounds(values, n: int, default, field_name: str) -> list[Optional[Fraction]]:
    """A bound vector: a scalar (same for all), a list with None for 'no bound', or None = default."""
    if values is None:
        return [default] * n
    if isinstance(values, (list, tuple)):
        if len(values) != n:
            raise InputError(f"{field_name}: expected {n} entries (one per variable), got {len(values)}")
        return [None if v is None else to_fraction(v, f"{field_name}[{j}]") for j, v in enumerate(values)]
    value = to_fraction(values, field_name)
    return [value] * n


@dataclass
class _Problem:
    """min c·x s.t. rows (A_ub then A_eq) within [row_lo, row_hi], col_lo <= x <= col_hi (None = infinite)."""

    c: list[Fraction]
    rows: list[list[Fraction]]
    row_lo: Sequence[Optional[Fraction]]
    row_hi: Sequence[Optional[Fraction]]
    col_lo: Sequence[Optional[Fraction]]
    col_hi: Sequence[Optional[Fraction]]
    n_ub: int

    @property
    def n(self) -> int:
        return len(self.c)

    def sparse_rows(self) -> list[list[tuple[int, Fraction]]]:
        """Rows as (column, nonzero coefficient) pairs (the certificate loops over these)."""
        if not hasattr(self, "_sparse"):
            self._sparse = [[(j, a) for j, a in enumerate(row) if a] for row in self.rows]
        return self._sparse

    def integer_rows(self) -> list[tuple[int, list[tuple[int, int]]]]:
        """Each row as (scale, [(column, integer coefficient)]) with scale · row integral."""
        if not hasattr(self, "_integer"):
            out = []
            for row in self.sparse_rows():
                scale = 1
                for _, a in row:
                    scale = scale * a.denominator // math.gcd(scale, a.denominator)
                out.append((scale, [(j, a.numerator * (scale // a.denominator)) for j, a in row]))
            self._integer = out
        return self._integer


def _build(objective, A_ub, b_ub, A_eq, b_eq, lower, upper, maximize) -> _Problem:
    c = _vector(objective, None, "objective")
    n = len(c)
    if n == 0:
        raise InputError("objective: needs at least one variable, got []")
    a_ub = _matrix(A_ub, n, "A_ub")
    a_eq = _matrix(A_eq, n, "A_eq")
    bu = _rhs(b_ub, len(a_ub), "b_ub", "A_ub")
    be = _rhs(b_eq, len(a_eq), "b_eq", "A_eq")
    col_lo = _bounds(lower, n, Fraction(0), "lower")
    col_hi = _bounds(upper, n, None, "upper")
    if maximize:
        c = [-v for v in c]
    return _Problem(
        c=c,
        rows=a_ub + a_eq,
        row_lo=[None] * len(a_ub) + list(be),
        row_hi=list(bu) + list(be),
        col_lo=col_lo,
        col_hi=col_hi,
        n_ub=len(a_ub),
    )


# --------------------------------------------------------------------------- public API
def solve_lp(
    objective: Sequence,
    A_ub: Optional[Sequence[Sequence]] = None,
    b_ub: Optional[Sequence] = None,
    A_eq: Optional[Sequence[Sequence]] = None,
    b_eq: Optional[Sequence] = None,
    *,
    lower=None,
    upper=None,
    maximize: bool = False,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    use_float_guide: bool = True,
) -> LPResult:
    """Solve ``min/max objective·x`` s.t. ``A_ub x <= b_ub``, ``A_eq x == b_eq``, ``lower <= x <= upper`` exactly.

    `lower` defaults to 0 for every variable and `upper` to +infinity; either may be a scalar or a
    per-variable list in which ``None`` means "no bound". Numbers may be int, Fraction, decimal text
    or "p/q" (`to_fraction`). Bad shapes or values raise `InputError`. `use_float_guide=False`
    skips HiGHS and asks z3 directly (used by the tests to cross-check the two exact paths).
    """
    prob = _build(objective, A_ub, b_ub, A_eq, b_eq, lower, upper, maximize)
    sign = -1 if maximize else 1
    trivially_infeasible = any(
        lo is not None and hi is not None and lo > hi
        for lo, hi in list(zip(prob.col_lo, prob.col_hi)) + list(zip(prob.row_lo, prob.row_hi))
    )
    if trivially_infeasible:
        return LPResult(INFEASIBLE, method="bounds")
    if use_float_guide:
        certified = _solve_guided(prob)
        if certified is not None:
            x, y = certified
            value = sum((cj * xj for cj, xj in zip(prob.c, x)), Fraction(0))
            return LPResult(
                OPTIMAL,
                tuple(x),
                sign * value,
                "highs+certificate",
                duals_ub=tuple(y[: prob.n_ub]),
                duals_eq=tuple(y[prob.n_ub :]),
            )
    result = _solve_z3(prob, timeout_ms)
    if result.status == OPTIMAL and result.value is not None:  # z3's optimum always has its value
        return LPResult(OPTIMAL, result.x, sign * result.value, "z3")
    return result


def floor_rows(shares, floors) -> tuple[list[list[Fraction]], list[Fraction]]:
    """(A_ub, b_ub) rows of a progressive leximin step (`drfh`, `ks-lottery`): share_i(x) >= floor_i for each
    coefficient row `shares[i]` (written -share_i <= -floor_i); a floor of None means share_i >= t, the last
    column being t (a row must then end with t's zero coefficient)."""
    a: list[list[Fraction]] = []
    b: list[Fraction] = []
    for share, floor in zip(shares, floors):
        row = [-v for v in share]
        if floor is None:
            row[-1] = Fraction(1)
        a.append(row)
        b.append(Fraction(0) if floor is None else -floor)
    return a, b


def lexicographic_max(size: int, A_ub=None, b_ub=None, A_eq=None, b_eq=None, *,
                      done: Callable[[list[Fraction]], bool] | None = None, lower=0,
                      upper=None) -> tuple[str, list[Fraction] | None]:
    """The lexicographically greatest point x of {A_ub x <= b_ub, A_eq x = b_eq, lower <= x <= upper}
    (default x >= 0; bounds as in `solve_lp`, None unbounded on that side): maximise x_0, fix it, then x_1,
    ... (one exact `solve_lp` each). Unlike a solver's optimal vertex, it is a function of the polytope
    alone, so a mechanism that must pick one point among equally good ones (a placement, a lottery, an
    optimum of a plug-in's LP) picks the same on every solver version. `done(fixed)`: the remaining
    coordinates are 0 (e.g. a probability mass spent) and need no LP. Returns (OPTIMAL, x) or (the
    failing LP's status, None): UNBOUNDED when some x_k has no greatest value there."""
    fixed: list[Fraction] = []
    rows, rhs = [list(row) for row in A_eq or ()], list(b_eq or ())
    for k in range(size):
        if done is not None and done(fixed):
            break
        unit = [Fraction(1) if j == k else Fraction(0) for j in range(size)]
        result = solve_lp(unit, A_ub=A_ub or None, b_ub=b_ub or None, A_eq=rows or None, b_eq=rhs or None,
                          lower=lower, upper=upper, maximize=True)
        if result.status != OPTIMAL or result.value is None:
            return result.status, None
        fixed.append(Fraction(result.value))
        rows.append(unit)
        rhs.append(fixed[-1])
    return OPTIMAL, fixed + [Fraction(0)] * (size - len(fixed))


def feasible(
    A_ub: Optional[Sequence[Sequence]] = None,
    b_ub: Optional[Sequence] = None,
    A_eq: Optional[Sequence[Sequence]] = None,
    b_eq: Optional[Sequence] = None,
    *,
    n: Optional[int] = None,
    lower=None,
    upper=None,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> LPResult:
    """Is ``{x : A_ub x <= b_ub, A_eq x == b_eq, lower <= x <= upper}`` non-empty? (exact)

    Returns the `LPResult` of minimising 0: `.is_feasible` is True (with `.x` an exact point),
    False, or None if z3 timed out. `n` (number of variables) is needed only when no matrix row
    tells it.
    """
    if n is None:
        for rows in (A_ub, A_eq):
            if rows is not None and len(rows) > 0:
                n = len(rows[0])
                break
    if n is None:
        for bound in (lower, upper):
            if isinstance(bound, (list, tuple)):
                n = len(bound)
                break
    if n is None or n <= 0:
        raise InputError(f"n: number of variables unknown or not positive, got {n!r}; pass n=")
    return solve_lp([0] * n, A_ub, b_ub, A_eq, b_eq, lower=lower, upper=upper, timeout_ms=timeout_ms)


# --------------------------------------------------------------------------- exact certificate
def certify_optimal(prob: _Problem, x: Sequence[Fraction], y: Sequence[Fraction]) -> bool:
    """Exact LP-duality certificate for ``min c·x`` over `prob`.

    `x` must satisfy every row and bound. With row multipliers `y` and reduced costs
    ``d = c - Aᵀy``, every feasible x' has ``c·x' = y·(Ax') + d·x' >= Σ_i (y_i⁺ lo_i - y_i⁻ hi_i)
    + Σ_j (d_j⁺ l_j - d_j⁻ u_j)`` provided each bound used is finite (dual feasibility). If that
    lower bound equals ``c·x``, x is optimal.
    """
    n = prob.n
    for j in range(n):
        lo, hi = prob.col_lo[j], prob.col_hi[j]
        if lo is not None and x[j] < lo:
            return False
        if hi is not None and x[j] > hi:
            return False
    # Row activities in integers: with D the common denominator of x, scale_i · D · (A_i x) is an integer.
    common = math.lcm(*(v.denominator for v in x))
    xs = [v.numerator * (common // v.denominator) for v in x]
    for i, (scale, row) in enumerate(prob.integer_rows()):
        act = sum(a * xs[j] for j, a in row)
        factor = scale * common
        lo, hi = prob.row_lo[i], prob.row_hi[i]
        if lo is not None and act * lo.denominator < lo.numerator * factor:
            return False
        if hi is not None and act * hi.denominator > hi.numerator * factor:
            return False
    # d = c - Aᵀy in integers: row i is (integer row) / scale_i, so y_i · a_ij = (y_i / scale_i) · int_ij;
    # over the common denominator W of the y_i / scale_i, Aᵀy = S / W with S an integer vector
    integer = prob.integer_rows()
    weighted = [(i, Fraction(yi, integer[i][0])) for i, yi in enumerate(y) if yi]  # int multipliers too
    w_common = math.lcm(*(w.denominator for _, w in weighted))
    sums = [0] * n
    for i, w in weighted:
        k = w.numerator * (w_common // w.denominator)
        for j, a in integer[i][1]:
            sums[j] += k * a
    reduced = [cj - Fraction(s, w_common) if s else cj for cj, s in zip(prob.c, sums)]
    # The dual bound: each multiplier times the bound its sign selects (rows by y, columns by d);
    # a multiplier pointing at a missing bound means the certificate proves nothing.
    bound = Fraction(0)
    for multipliers, lows, highs in ((y, prob.row_lo, prob.row_hi), (reduced, prob.col_lo, prob.col_hi)):
        for k, v in enumerate(multipliers):
            if v == 0:
                continue
            side = lows[k] if v > 0 else highs[k]
            if side is None:
                return False
            bound += v * side
    primal = sum((cj * xj for cj, xj in zip(prob.c, x)), Fraction(0))
    return primal == bound


def solve_square(matrix: Sequence[Sequence[Fraction]], rhs: Sequence[Fraction]) -> Optional[list[Fraction]]:
    """Exact solution of a square system, or None if it is singular.

    Rows are scaled to integers and eliminated fraction-free (Bareiss: every division is exact),
    then back-substituted in `Fraction`s; much faster than Gaussian elimination on `Fraction`s.
    """
    k = len(matrix)
    aug: list[list[int]] = []
    for given, b in zip(matrix, rhs):
        entries = [v if type(v) is Fraction else Fraction(v) for v in (*given, b)]
        scale = 1
        for v in entries:
            scale = scale * v.denominator // math.gcd(scale, v.denominator)
        aug.append([v.numerator * (scale // v.denominator) for v in entries])
    prev = 1
    for col in range(k):
        pivot = next((r for r in range(col, k) if aug[r][col] != 0), None)
        if pivot is None:
            return None
        aug[col], aug[pivot] = aug[pivot], aug[col]
        prow = aug[col]
        p = prow[col]
        for r in range(col + 1, k):
            row = aug[r]
            f = row[col]
            for cc in range(col + 1, k + 1):
                row[cc] = (row[cc] * p - f * prow[cc]) // prev
            row[col] = 0
        prev = p
    x: list[Fraction] = [Fraction(0)] * k
    for r in range(k - 1, -1, -1):
        row = aug[r]
        acc = Fraction(row[k])
        for cc in range(r + 1, k):
            if row[cc]:
                acc -= row[cc] * x[cc]
        x[r] = acc / row[r]
    return x


# --------------------------------------------------------------------------- float guide
def new_highs():
    """A silent ``highspy.Highs()``: no banner on stdout (`fairlab.core.stdio.c_stdout_silenced`: HiGHS
    prints it at construction, before an option can be set), no log output."""
    with c_stdout_silenced():
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("log_to_console", False)
    return h


def _float(v: Fraction) -> float:
    """The float nearest `v` (int / int true division is correctly rounded; `float(Fraction)` goes
    through `numbers.Rational.__float__`, several times slower). The float guide only."""
    return v.numerator / v.denominator


def _highs_basis(prob: _Problem):
    """Run HiGHS in floats; return (column statuses, row statuses) of an optimal basis, or None."""
    inf = highspy.kHighsInf
    h = new_highs()
    lp = highspy.HighsLp()
    n, mr = prob.n, len(prob.rows)
    lp.num_col_ = n
    lp.num_row_ = mr
    lp.col_cost_ = np.array([_float(v) for v in prob.c], dtype=float)
    lp.col_lower_ = np.array([-inf if v is None else _float(v) for v in prob.col_lo], dtype=float)
    lp.col_upper_ = np.array([inf if v is None else _float(v) for v in prob.col_hi], dtype=float)
    lp.row_lower_ = np.array([-inf if v is None else _float(v) for v in prob.row_lo], dtype=float)
    lp.row_upper_ = np.array([inf if v is None else _float(v) for v in prob.row_hi], dtype=float)
    starts, index, values = [0], [], []
    for row in prob.sparse_rows():  # the nonzero entries, computed once for the certificate too
        for j, v in row:
            index.append(j)
            values.append(_float(v))
        starts.append(len(index))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.num_col_ = n
    lp.a_matrix_.num_row_ = mr
    lp.a_matrix_.start_ = np.array(starts, dtype=np.int32)
    lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
    lp.a_matrix_.value_ = np.array(values, dtype=float)
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    basis = h.getBasis()
    if not basis.valid:
        return None
    s = highspy.HighsBasisStatus
    code = {s.kBasic: "B", s.kLower: "L", s.kUpper: "U", s.kZero: "Z"}
    cols = [code.get(v, "?") for v in basis.col_status]
    rows = [code.get(v, "?") for v in basis.row_status]
    if "?" in cols or "?" in rows:
        return None
    return cols, rows


def _at(status: str, lo: Optional[Fraction], hi: Optional[Fraction]) -> Optional[Fraction]:
    """The exact value a nonbasic variable/row sits at (None if that bound is infinite)."""
    if status == "L":
        return lo if lo is not None else hi  # an equality row may be reported at either side
    if status == "U":
        return hi if hi is not None else lo
    return Fraction(0)  # "Z": nonbasic free


def _solve_guided(prob: _Problem) -> Optional[tuple[list[Fraction], list[Fraction]]]:
    """Exact vertex and duals from HiGHS's optimal basis, returned only if `certify_optimal` passes."""
    try:
        guess = _highs_basis(prob)
    except Exception:  # a float solver failing is never a verdict; z3 decides instead
        return None
    if guess is None:
        return None
    col_status, row_status = guess
    n, mr = prob.n, len(prob.rows)
    x: list[Fraction] = [Fraction(0)] * n  # the basic columns are set below
    for j, st in enumerate(col_status):
        if st != "B":
            at = _at(st, prob.col_lo[j], prob.col_hi[j])
            if at is None:
                return None
            x[j] = at
    basic_cols = [j for j in range(n) if col_status[j] == "B"]
    tight_rows = [i for i in range(mr) if row_status[i] != "B"]
    if len(basic_cols) != len(tight_rows):
        return None
    row_values = []
    for i in tight_rows:
        v = _at(row_status[i], prob.row_lo[i], prob.row_hi[i])
        if v is None:
            return None
        row_values.append(v)
    # Primal: tight rows hold with equality, nonbasic columns at their bounds.
    basis_matrix = [[prob.rows[i][j] for j in basic_cols] for i in tight_rows]
    at_bound = {j for j in range(n) if col_status[j] != "B" and x[j]}  # nonbasic columns away from 0
    rhs = row_values
    if at_bound:
        sparse = prob.sparse_rows()
        rhs = [row_values[k] - sum((a * x[j] for j, a in sparse[i] if j in at_bound), Fraction(0))
               for k, i in enumerate(tight_rows)]
    xb = solve_square(basis_matrix, rhs)
    if xb is None:
        return None
    for j, v in zip(basic_cols, xb):
        x[j] = v
    # Dual: basic rows have y = 0, basic columns have reduced cost 0.
    transposed = [[prob.rows[i][j] for i in tight_rows] for j in basic_cols]
    yt = solve_square(transposed, [prob.c[j] for j in basic_cols])
    if yt is None:
        return None
    y = [Fraction(0)] * mr
    for i, v in zip(tight_rows, yt):
        y[i] = v
    if not certify_optimal(prob, x, y):
        return None
    return x, y


# --------------------------------------------------------------------------- exact fallback
def _solve_z3(prob: _Problem, timeout_ms: int) -> LPResult:
    """Exact optimum by z3 Optimize (linear real arithmetic); "unknown" on timeout."""
    xs = [z3.Real(f"x{j}") for j in range(prob.n)]
    opt = z3.Optimize()
    opt.set("rlimit", Z3_LP_RLIMIT)  # counted: decides; the timeout is only the safety net
    opt.set("timeout", min(2**31 - 1, max(1, int(timeout_ms))))  # z3 takes an unsigned 32-bit count

    def num(v: Fraction):
        return z3.RealVal(f"{v.numerator}/{v.denominator}")

    for j, x in enumerate(xs):
        lo, hi = prob.col_lo[j], prob.col_hi[j]
        if lo is not None:
            opt.add(x >= num(lo))
        if hi is not None:
            opt.add(x <= num(hi))
    for i, row in enumerate(prob.rows):
        act = z3.Sum([num(a) * x for a, x in zip(row, xs) if a]) if any(row) else z3.RealVal(0)
        lo, hi = prob.row_lo[i], prob.row_hi[i]
        if lo is not None and hi is not None and lo == hi:
            opt.add(act == num(lo))
            continue
        if lo is not None:
            opt.add(act >= num(lo))
        if hi is not None:
            opt.add(act <= num(hi))
    terms = [num(cj) * x for cj, x in zip(prob.c, xs) if cj]
    objective = z3.Sum(terms) if terms else z3.RealVal(0)
    handle = opt.minimize(objective)
    verdict = opt.check()
    if verdict == z3.unsat:
        return LPResult(INFEASIBLE, method="z3")
    if verdict != z3.sat:
        return LPResult(UNKNOWN, method="z3", notes=(f"z3: {opt.reason_unknown()}",))
    model = opt.model()
    x = tuple(_model_value(model, v) for v in xs)
    bound = handle.value()
    if z3.is_int_value(bound):  # a constant objective comes back as an integer numeral
        value = Fraction(bound.as_long())
    elif z3.is_rational_value(bound):
        value = Fraction(bound.numerator_as_long(), bound.denominator_as_long())
    else:  # -oo (or an infinity/epsilon term): no finite optimum
        return LPResult(UNBOUNDED, x=x, method="z3")
    exact = sum((cj * xj for cj, xj in zip(prob.c, x)), Fraction(0))
    if exact != value:  # the model must attain the reported optimum; otherwise claim nothing
        return LPResult(UNKNOWN, method="z3", notes=("z3 model does not attain its reported optimum",))
    return LPResult(OPTIMAL, x=x, value=value, method="z3")


def _model_value(model: z3.ModelRef, var: z3.ArithRef) -> Fraction:
    v = model.eval(var, model_completion=True)
    return Fraction(v.numerator_as_long(), v.denominator_as_long())
