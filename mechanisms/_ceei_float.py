"""CEEI's float path: a certified approximation of the proportionally fair optimum.

Numerics behind `fairlab.mechanisms.ceei` (method ``float``, and the active-set guess of the exact
path, `fairlab.mechanisms._ceei_exact`):

* `active_set`: a log-barrier interior-point solve in floats guesses the saturated resources and
  binding caps (a guess only: nothing is decided on it);
* `approximate`: the guessed prices, polished by Newton's method in 60-digit decimals, give
  feasible rational tasks, and `certify` bounds their distance to the optimum rigorously (weak
  duality bounds the objective gap, strong concavity turns it into a per-user error bound; Boyd &
  Vandenberghe §5.2 and §9.1.2).
"""

from __future__ import annotations

import itertools
import math
from decimal import ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction
from typing import Sequence

import numpy as np

from fairlab.core.exact import format_exact
from fairlab.core.instance import Instance

DIGITS = 25  # significant digits of the float path's tasks


@np.errstate(divide="ignore", invalid="ignore")  # a weight below float range: 0, then NaN, handled
def _interior_point(instance: Instance, weights, users: Sequence[int], t_final: float = 1e-10):
    """Log-barrier Newton method (floats) for max sum w_i log x_i over `users`; a guess only.

    Works in normalised units: resource capacities 1, y_i = x_i / solo_i, weights summing to 1
    (normalised exactly, then rounded: any magnitudes the exact numbers allow fit in floats).
    The Newton system (diagonal plus rank m) is solved by the Woodbury identity, O(n m^2).
    Returns normalised tasks y, resource slacks (normalised) and cap slacks (relative).
    """
    b = normalised_demands(instance, users, range(instance.m))
    w_total = sum(weights[i] for i in users)
    w = np.array([float(weights[i] / w_total) for i in users])
    caps = [instance.max_tasks[i] for i in users]
    capped = np.array([c is not None for c in caps])
    # y_i <= 1 anyway when cap_i >= solo_i: bigger caps never bind, and are clipped to stay finite
    upper = np.array([1.0 if c is None else float(min(c / instance.solo_tasks(i), Fraction(10**6)))  # clip, then float
                      for c, i in zip(caps, users)])
    n = len(users)
    y = np.full(n, 0.5 / n)  # sum_i b_ir y_i <= 1/2 since b_ir <= 1

    def barrier(y, t):
        s = 1 - y @ b
        cs = upper - y
        if np.any(y <= 0) or np.any(s <= 0) or np.any(cs[capped] <= 0):
            return math.inf
        return -(w * np.log(y)).sum() - t * (np.log(s).sum() + np.log(cs[capped]).sum())

    t = 1.0
    while True:
        for _ in range(200):
            s = 1 - y @ b
            cs = np.where(capped, upper - y, 1.0)
            g = -w / y + t * (b @ (1 / s)) + t * np.where(capped, 1 / cs, 0.0)
            diag = w / y**2 + t * np.where(capped, 1 / cs**2, 0.0)
            dg = g / diag
            k = np.diag(s**2 / t) + b.T @ (b / diag[:, None])
            try:
                dy = -(dg - (b @ np.linalg.solve(k, b.T @ dg)) / diag)
            except np.linalg.LinAlgError:  # weights far apart (say 1e20 : 1): keep the guess so far
                break
            decrement = -g @ dy
            if not decrement >= 1e-15:  # converged, or NaN (a weight below float range)
                break
            step = 1.0
            for values, change in ((y, dy), (s, -(dy @ b)), (cs[capped], -dy[capped])):
                shrinking = change < 0
                if np.any(shrinking):
                    step = min(step, 0.99 * float(np.min(values[shrinking] / -change[shrinking])))
            f0 = barrier(y, t)
            while barrier(y + step * dy, t) > f0 - 0.25 * step * decrement and step > 1e-14:
                step /= 2
            if step <= 1e-14:
                break
            y = y + step * dy
        if t <= t_final:
            break
        t = max(t / 10, t_final)
    s = 1 - y @ b
    return y, s, np.where(capped, upper - y, np.inf) / upper


#: True: the float guesses as they were (numpy's interior point at every size, scipy's nnls): the
#: baseline `benchmarks/bench_exact_backends.py` and the tests compare the faster guesses with
BASELINE = False
#: `_interior_point` runs on Python floats up to this many users times resources (numpy's per-call
#: overhead dominates on small arrays: a 2 x 2 solve took ~20 ms); the same method, step by step
SMALL_PROBLEM = 32


def _interior_point_small(instance: Instance, weights, users: Sequence[int], t_final: float = 1e-10):
    """`_interior_point` on Python floats for small problems: the same barrier, Newton steps,
    Woodbury solve, step rule, line search and stopping rules, operation by operation (a guess
    only, as there). None if a float exception stops it (numpy would carry an inf or NaN on):
    the caller then runs the numpy version."""
    n, m = len(users), instance.m
    b = [[float(instance.demand_share(i, r) * instance.solo_tasks(i)) for r in range(m)] for i in users]
    w_total = sum(weights[i] for i in users)
    w = [float(weights[i] / w_total) for i in users]
    caps = [instance.max_tasks[i] for i in users]
    capped = [c is not None for c in caps]
    upper = [1.0 if c is None else float(min(c / instance.solo_tasks(i), Fraction(10**6))) for c, i in zip(caps, users)]
    rn, rm = range(n), range(m)
    y = [0.5 / n] * n

    def slack(y):
        return [1 - sum(y[i] * b[i][r] for i in rn) for r in rm]

    def barrier(y, t):
        s = slack(y)
        cs = [upper[i] - y[i] for i in rn]
        if any(v <= 0 for v in y) or any(v <= 0 for v in s) or any(capped[i] and cs[i] <= 0 for i in rn):
            return math.inf
        return -sum(w[i] * math.log(y[i]) for i in rn) - t * (
            sum(math.log(v) for v in s) + sum(math.log(cs[i]) for i in rn if capped[i]))

    try:
        t = 1.0
        while True:
            for _ in range(200):
                s = slack(y)
                cs = [upper[i] - y[i] if capped[i] else 1.0 for i in rn]
                inv_s = [1 / v for v in s]
                g = [-w[i] / y[i] + t * sum(b[i][r] * inv_s[r] for r in rm) + t * (1 / cs[i] if capped[i] else 0.0)
                     for i in rn]
                diag = [w[i] / y[i] ** 2 + t * (1 / cs[i] ** 2 if capped[i] else 0.0) for i in rn]
                dg = [g[i] / diag[i] for i in rn]
                k = [[(s[r] ** 2 / t if r == c else 0.0) + sum(b[i][r] * (b[i][c] / diag[i]) for i in rn) for c in rm]
                     for r in rm]
                solution = _solve_floats(k, [sum(b[i][r] * dg[i] for i in rn) for r in rm])
                if solution is None:  # singular (numpy's LinAlgError)
                    break
                dy = [-(dg[i] - sum(b[i][r] * solution[r] for r in rm) / diag[i]) for i in rn]
                decrement = -sum(g[i] * dy[i] for i in rn)
                if not decrement >= 1e-15:
                    break
                step = 1.0
                ds = [-sum(dy[i] * b[i][r] for i in rn) for r in rm]
                pairs = [(y[i], dy[i]) for i in rn] + [(s[r], ds[r]) for r in rm] + [
                    (cs[i], -dy[i]) for i in rn if capped[i]]
                for group in (pairs[:n], pairs[n:n + m], pairs[n + m:]):
                    shrinking = [v / -c for v, c in group if c < 0]
                    if shrinking:
                        step = min(step, 0.99 * min(shrinking))
                f0 = barrier(y, t)
                while barrier([y[i] + step * dy[i] for i in rn], t) > f0 - 0.25 * step * decrement and step > 1e-14:
                    step /= 2
                if step <= 1e-14:
                    break
                y = [y[i] + step * dy[i] for i in rn]
            if t <= t_final:
                break
            t = max(t / 10, t_final)
    except (ArithmeticError, ValueError):  # a division by 0 or log of 0 where numpy carries inf / NaN
        return None
    s = slack(y)
    cap_slack = [(upper[i] - y[i] if capped[i] else math.inf) / upper[i] for i in rn]
    return np.array(y), np.array(s), np.array(cap_slack)


def _solve_floats(a: list[list[float]], rhs: list[float]) -> list[float] | None:
    """Gaussian elimination with partial pivoting in floats (LAPACK's gesv, as numpy.linalg.solve
    calls it); None if a pivot is exactly 0 (singular)."""
    size = len(rhs)
    a = [row[:] + [v] for row, v in zip(a, rhs)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(a[r][col]))
        if a[pivot][col] == 0 or a[pivot][col] != a[pivot][col]:
            return None
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, size):
            f = a[r][col] / a[col][col]
            a[r] = [x - f * z for x, z in zip(a[r], a[col])]
    out = [0.0] * size
    for r in reversed(range(size)):
        out[r] = (a[r][-1] - sum(a[r][c] * out[c] for c in range(r + 1, size))) / a[r][r]
    return out


def normalised_demands(instance: Instance, users, resources) -> np.ndarray:
    """Floats d_ir solo_i / c_r (in [0, 1]): the demands in the units of `_interior_point`."""
    solo = [instance.solo_tasks(i) for i in users]
    return np.array([[float(instance.demand_share(i, r) * s) for r in resources] for i, s in zip(users, solo)])


def active_set(instance: Instance, weights, users: Sequence[int]):
    """Guess saturated resources and binding caps (indices into `users`) from the float solve;
    with the normalised tasks y_i = x_i / solo_i (floats) of `users`. Small problems run on Python
    floats (`_interior_point_small`), unless `BASELINE`."""
    solved = None
    if not BASELINE and len(users) * instance.m <= SMALL_PROBLEM:
        solved = _interior_point_small(instance, weights, users)
    y, resource_slack, cap_slack = solved if solved is not None else _interior_point(instance, weights, users)
    saturated = [r for r in range(instance.m) if resource_slack[r] < 1e-6]
    binding = [k for k in range(len(users)) if cap_slack[k] < 1e-6]
    return y, saturated, binding


def approximate(instance: Instance, weights, tolerance: Fraction):
    users = [i for i in range(instance.n) if instance.max_tasks[i] != 0]
    float_y, saturated, binding = active_set(instance, weights, users)
    free = [k for k in range(len(users)) if k not in binding]
    best = None
    for support in _supports(saturated):
        start = fit_prices(instance, weights, [users[k] for k in free], float_y[free], support)
        polished = _polish(instance, weights, users, start, support)
        prices = [max(Fraction(p), Fraction(0)) for p in polished]
        reference = _tasks_from_prices(instance, weights, users, prices, 2 * DIGITS)
        tasks = tuple(_floor_digits(t, DIGITS) for t in reference)  # still feasible: rounded down
        cert = certify(instance, weights, tasks, prices, tolerance, reference)
        if best is None or cert["worst"] < best[2]["worst"]:
            best = (tasks, prices, cert)
        if cert["certified"]:
            break
    assert best is not None, "no support to try"  # _supports yields the saturated set itself first
    tasks, prices, cert = best
    status = "certified" if cert["certified"] else "uncertified"
    bound = cert["relative_error_bound"]
    if cert["certified"]:
        note = (
            f"approximate (float path), certified: every user's tasks are within relative error"
            f" {bound} <= tolerance {format_exact(tolerance)} of the exact optimum (duality-gap bound)"
        )
    else:
        note = (
            f"approximate (float path), UNCERTIFIED: the provable relative error bound {bound}"
            f" exceeds tolerance {format_exact(tolerance)}; use method=exact for the exact optimum"
        )
    extra = {
        "status": status,
        "method": "float",
        "prices": prices,
        "relative_error_bound": bound,
        "duality_gap_bound": cert["duality_gap_bound"],
    }
    return tasks, [note], extra


MAX_SUPPORTS = 32


def fit_prices(instance: Instance, weights, free_users, free_y, support) -> list[Decimal]:
    """Start for Newton: nonnegative least-squares prices on `support` from the stationarity of
    the users below their caps, w_i / x_i = sum_r d_ir nu_r, fitted in floats in the normalised
    units of `_interior_point` (`free_y`: y_i = x_i / solo_i) and scaled back in decimals."""
    prices = [Decimal(0)] * instance.m
    if support and free_users:
        total = sum(weights[i] for i in free_users)
        a = normalised_demands(instance, free_users, support)
        target = np.array([float(weights[i] / total) for i in free_users]) / np.asarray(free_y, dtype=float)
        solution = _nnls(a, target)
        for r, v in zip(support, solution):
            prices[r] = Decimal(float(v)) * _dec(total / instance.capacities[r])
    return prices


SMALL_NNLS = 4  # columns up to which `_nnls` enumerates supports instead of importing scipy


def _nnls(a: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Nonnegative least squares, min ||a x - target|| over x >= 0 (a guess's start only).

    Up to `SMALL_NNLS` columns: Lawson and Hanson's active-set method (the algorithm of scipy's
    nnls: the column of greatest gradient joins, least squares on the joined columns by numpy's
    lstsq, a step back to stay nonnegative), here without importing scipy.optimize, which takes
    seconds (CLI start-up). Beyond, or with `BASELINE`: scipy's nnls."""
    k = a.shape[1]
    if BASELINE or k > SMALL_NNLS:
        from scipy.optimize import nnls

        return nnls(a, target)[0]
    x = np.zeros(k)
    passive: list[int] = []
    for _ in range(3 * k):  # scipy's iteration limit
        if len(passive) >= a.shape[0]:  # as many columns as rows: the fit is exact
            break
        gradient = a.T @ (target - a @ x)
        free = [j for j in range(k) if j not in passive and gradient[j] > 0]
        # the column of greatest gradient (the first of equals) that is independent of the joined ones
        free = [j for j in sorted(free, key=lambda j: -gradient[j])
                if np.linalg.matrix_rank(a[:, passive + [j]]) == len(passive) + 1]
        if not free:
            break
        passive.append(free[0])
        while True:
            trial = np.zeros(k)
            trial[passive] = np.linalg.lstsq(a[:, passive], target, rcond=None)[0]
            if all(trial[j] > 0 for j in passive):
                x = trial
                break
            blocking = [j for j in passive if trial[j] <= 0]
            alpha = min(x[j] / (x[j] - trial[j]) for j in blocking)
            x = x + alpha * (trial - x)
            passive = [j for j in passive if x[j] > 1e-15 * max(1.0, float(np.max(np.abs(x))))]
            if not passive:
                break
    return np.maximum(x, 0.0)


def _supports(saturated: list[int]):
    """Saturated resources whose prices Newton's method solves for: all of them first; then, for
    degenerate optima (redundant saturated resources make the Jacobian singular and the prices
    non-unique), smaller subsets, whose prices can still be optimal (a basic dual solution)."""
    count = 0
    for size in range(len(saturated), -1, -1):
        for subset in itertools.combinations(saturated, size):
            yield list(subset)
            count += 1
            if count >= MAX_SUPPORTS:
                return


def _polish(instance: Instance, weights, users, prices: list[Decimal], saturated: list[int]) -> list[Decimal]:
    """Newton's method in 60-digit decimals on the loads of the saturated resources as functions
    of their prices (x_i = min(cap_i, w_i / sum_r d_ir nu_r)); stops early if the system is singular."""
    with localcontext() as ctx:
        ctx.prec = 60
        d = [[_dec(instance.demands[i][r]) for r in range(instance.m)] for i in users]
        w = [_dec(weights[i]) for i in users]
        caps = [None if instance.max_tasks[i] is None else _dec(instance.max_tasks[i]) for i in users]
        cap_dec = [_dec(c) for c in instance.capacities]
        nu = [p if r in saturated else Decimal(0) for r, p in enumerate(prices)]

        def residual(nu):
            """Loads minus capacities on saturated resources, and the users below their caps."""
            loads = [Decimal(0)] * instance.m
            free = []
            for k in range(len(users)):
                p = sum((d[k][r] * nu[r] for r in saturated), Decimal(0))
                cap = caps[k]
                if p <= 0 and cap is None:
                    return None, None
                x = cap if cap is not None and (p <= 0 or w[k] / p >= cap) else w[k] / p
                if cap is None or x < cap:
                    free.append((k, p))
                for r in saturated:
                    loads[r] += d[k][r] * x
            return [loads[r] - cap_dec[r] for r in saturated], free

        res, free = residual(nu)
        for _ in range(40):
            if res is None or max((abs(e) / cap_dec[r] for e, r in zip(res, saturated)), default=0) < Decimal("1e-50"):
                break
            jac = [
                [-sum((d[k][r] * d[k][s] * w[k] / (p * p) for k, p in free), Decimal(0)) for s in saturated]
                for r in saturated
            ]
            step = _solve(jac, [-e for e in res])
            if step is None:
                break
            size = Decimal(1)
            while True:
                trial = list(nu)
                for r, delta in zip(saturated, step):
                    trial[r] = max(nu[r] + size * delta, Decimal(0))
                trial_res, trial_free = residual(trial)
                if trial_res is not None or size < Decimal("1e-20"):
                    break
                size /= 2
            if trial_res is None:
                break
            nu, res, free = trial, trial_res, trial_free
        return nu


def _dec(q: Fraction) -> Decimal:
    return Decimal(q.numerator) / Decimal(q.denominator)


def _solve(a: list[list[Decimal]], rhs: list[Decimal]) -> list[Decimal] | None:
    """Gaussian elimination with partial pivoting; None if (numerically) singular."""
    size = len(rhs)
    a = [row[:] + [v] for row, v in zip(a, rhs)]
    scale = max((abs(v) for row in a for v in row[:-1]), default=Decimal(0))
    if scale == 0:
        return None
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) <= scale * Decimal("1e-40"):
            return None
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, size):
            f = a[r][col] / a[col][col]
            a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    out = [Decimal(0)] * size
    for r in reversed(range(size)):
        out[r] = (a[r][-1] - sum((a[r][c] * out[c] for c in range(r + 1, size)), Decimal(0))) / a[r][r]
    return out


def _floor_digits(q: Fraction, digits: int) -> Fraction:
    """q >= 0 rounded down to `digits` significant decimal digits."""
    if q == 0:
        return q
    with localcontext() as ctx:
        ctx.prec = digits
        ctx.rounding = ROUND_FLOOR
        return Fraction(Decimal(q.numerator) / Decimal(q.denominator))


def _tasks_from_prices(instance: Instance, weights, users, prices: list[Fraction], digits: int) -> tuple[Fraction, ...]:
    """Each user's best response to the prices, rounded down and scaled down into feasibility."""
    tasks = [Fraction(0)] * instance.n
    for i in users:
        price = sum((instance.demands[i][r] * prices[r] for r in range(instance.m)), Fraction(0))
        cap = instance.max_tasks[i]
        if price == 0:
            best = cap if cap is not None else instance.solo_tasks(i)
        else:
            best = weights[i] / price if cap is None else min(cap, weights[i] / price)
        tasks[i] = _floor_digits(best, digits)
    loads = [sum((t * instance.demands[i][r] for i, t in enumerate(tasks)), Fraction(0)) for r in range(instance.m)]
    shrink = min([instance.capacities[r] / loads[r] for r in range(instance.m) if loads[r] > 0] + [Fraction(1)])
    if shrink < 1:
        tasks = [_floor_digits(t * shrink, digits) for t in tasks]
    return tuple(tasks)


def certify(
    instance: Instance, weights, tasks: Sequence[Fraction], prices: Sequence[Fraction], tolerance: Fraction,
    reference: Sequence[Fraction] | None = None,
):
    """Rigorous bound on how far feasible rational `tasks` are from the CEEI optimum x*.

    Weak duality: for prices nu >= 0, P* <= D(nu) = c.nu + sum_i max_{0<z<=cap_i} (w_i log z - p_i z)
    with p_i = sum_r d_ir nu_r, maximised at z_i = min(cap_i, w_i / p_i). With log t <= t - 1,
    G = c.nu + sum_i [w_i (z_i / y_i - 1) - p_i z_i] >= P* - P(y) for feasible y (rational,
    rounded up). Strong concavity of P on [0, M]^n (M_i = solo tasks of i >= y_i, x*_i) gives
    P* - P(y) >= sum_i w_i (y_i - x*_i)^2 / (2 M_i^2), so |y_i - x*_i| <= M_i sqrt(2 G / w_i).
    The gap is first order in y's rounding, so `reference` y (more digits, feasible) carries the
    certificate and |x_i - x*_i| <= |x_i - y_i| + M_i sqrt(2 G / w_i) (y = `tasks` if not given).
    "certified" iff that is <= tolerance * x_i for every user (decided in exact arithmetic).
    """
    y = tasks if reference is None else reference
    unit_bits = 512  # each term is rounded up to a multiple of 2^-512 (keeps the sum's size small)
    users = [i for i in range(instance.n) if instance.max_tasks[i] != 0]
    unbounded = {
        "certified": False, "relative_error_bound": "unbounded", "duality_gap_bound": "unbounded", "worst": math.inf
    }
    if any(tasks[i] <= 0 or y[i] <= 0 for i in users):
        return unbounded
    gap_units = 0
    for i in users:
        price = sum((instance.demands[i][r] * prices[r] for r in range(instance.m)), Fraction(0))
        cap = instance.max_tasks[i]
        if price == 0 and cap is None:
            return unbounded  # D(nu) is infinite
        z = cap if cap is not None and (price == 0 or weights[i] / price >= cap) else weights[i] / price
        term = weights[i] * (z / y[i] - 1) - price * z
        gap_units += -((-term.numerator << unit_bits) // term.denominator)  # ceiling
    gap = Fraction(gap_units, 1 << unit_bits) + sum(
        (c * p for c, p in zip(instance.capacities, prices)), Fraction(0)
    )
    if gap < 0:
        raise RuntimeError("ceei: negative duality-gap bound; this is a bug")
    certified = True
    worst = Decimal(0)  # decimals: the exact numbers' magnitudes can exceed floats
    for i in users:
        solo = instance.solo_tasks(i)
        room = tolerance * tasks[i] - abs(tasks[i] - y[i])  # what is left for |y_i - x*_i|
        certified = certified and room >= 0 and solo**2 * 2 * gap <= room**2 * weights[i]
        rounding = _dec(abs(tasks[i] - y[i]) / tasks[i])
        worst = max(worst, rounding + _dec(solo / tasks[i]) * (2 * _dec(gap / weights[i])).sqrt())
    return {
        "certified": certified,
        "relative_error_bound": _three_digits(worst),
        "duality_gap_bound": _three_digits(_dec(gap)),
        "worst": float(worst),
    }


def _three_digits(x: Decimal) -> str:
    """Like f"{float(x):.3g}", also beyond the range of floats."""
    return f"{float(x):.3g}" if x == 0 or Decimal("1e-300") < abs(x) < Decimal("1e300") else f"{x:.3g}"
