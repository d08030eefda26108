"""CEEI = Nash bargaining = proportional fairness: maximise sum_i w_i log(tasks_i).

Sources: DRF paper §5.2 (CEEI is given by the Nash bargaining solution; with utility = dominant
share, maximising the product of dominant shares is maximising the product of tasks) and Bonald &
Roberts §2.3 (proportional fairness maximises sum_i log(phi_i) under the capacities, and is unique).
Scalar weights only (sum_i w_i log tasks_i); task caps are constraints; a user with cap 0 gets 0
and leaves the objective.

Example (DRF paper §5.2): <9, 18>, A <1, 4>, B <3, 1> -> x = 45/11, y = 18/11. The optimum can be
irrational (Theorem 5's instance: user 1 gets a root of 63x^2 - 6250x + 62500), so exact values
are `fairlab.core.exact.Algebraic`.

The objective is strictly concave in the tasks of the users that can get anything, so the KKT
conditions characterise the unique optimum (`spec`):

    w_i = tasks_i (sum_r d_ir nu_r + mu_i),  tasks_i > 0,
    nu_r >= 0 and (nu_r = 0 or resource r saturated),
    mu_i >= 0 and (mu_i = 0 or tasks_i = cap_i).

Methods (option ``method``):

* ``exact``: a floating-point interior-point solve guesses the active set (saturated resources,
  binding caps). With at most two saturated resources the prices are exact without z3's
  multivariate solver: one saturated resource gives rational prices in closed form; two reduce
  (via sum_r c'_r nu_r = sum of free weights) to one root t of a univariate polynomial, which z3
  isolates together with every KKT condition written as a polynomial condition on t. Otherwise
  (or if the guess fails) z3 solves the KKT system with the guess as hints, then the full KKT
  system (nonlinear real arithmetic; it can time out beyond a handful of distinct users).
  Rational results and those with <= 3 distinct users are re-checked by
  substituting into the KKT conditions. Identical users (same demands, weight and cap) are
  merged first: by symmetry and uniqueness they get equal tasks. Option ``timeout`` bounds the
  whole solve: every z3 check runs under a `fairlab.core.solving.SolverBudget` (the deterministic
  EXACT_RLIMIT, and the time left as the outer stop), and arithmetic on algebraic numbers
  (evaluating the tasks at an irrational root, the KKT re-check) under a
  `fairlab.core.exact.deadline`; if the solve does not finish, ``exact`` raises `ExactTimeout`.
* ``float``: the interior-point prices, polished by Newton's method in 60-digit decimals, give
  an approximate allocation (rationals, feasible by construction) with a rigorous bound on its
  distance to the optimum (`certify`): weak duality bounds the objective gap and strong
  concavity turns that into a per-user error bound. The result is "certified" if every user's
  relative error is provably within ``tolerance``, else "uncertified". Never called exact: the
  `Allocation` says ``exactness="approximate"`` with ``error_bound`` (the certified relative
  error bound), and no property check decides on it (`fairlab.properties.base.run` asks for ``exact``).
* ``auto`` (default): ``exact`` for up to AUTO_EXACT_CLASSES distinct users, else ``float``.
  With more than SLOW_ALGEBRAIC_CLASSES distinct users it keeps rational optima only (z3 can
  take minutes to add up that many distinct algebraic numbers, e.g. for `Allocation.utilisation`)
  and decides before building anything it would discard: an irrational root of the prices'
  polynomial, or a system that needs z3's multivariate solver, sends it to ``float`` at once
  (said in the notes). An exact solve that does not finish within
  ``timeout`` falls back to ``float`` too.

`Allocation.extra["status"]` is "exact", "certified" or "uncertified"; `Allocation.exactness` is
"rational", "algebraic" or "approximate" (the float path, certified or not).
"""

from __future__ import annotations

import itertools
import math
import time
from decimal import ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction
from typing import Sequence

import numpy as np
import z3
from scipy.optimize import nnls

from fairlab.core.errors import ExactTimeout, InputError, OptionError
from fairlab.core.exact import (
    Algebraic, Exact, deadline, decide, format_exact, remaining, short_text, to_fraction, z3_value,
)
from fairlab.core.solving import DEFAULT_RLIMIT, SolverBudget, check, new_solver
from fairlab.core.instance import Instance
from fairlab.mechanisms.base import Allocation, Constraint, Mechanism, SymbolicInstance, choice, register

METHODS = ("auto", "exact", "float")
_CALLER_LIMIT = " or the caller's time limit"
IRRATIONAL = object()  # _solve_small_active_set: the optimum is irrational and was not wanted
AUTO_EXACT_CLASSES = 6  # auto: try exact up to this many distinct users (z3 time grows fast beyond)
SLOW_ALGEBRAIC_CLASSES = 3  # beyond: z3 sums of the distinct algebraic tasks (utilisation) can take minutes
DEFAULT_TIMEOUT = 30  # seconds for the whole exact solve
MAX_TIMEOUT = 10**6  # longer timeouts are read as this many seconds
EXACT_RLIMIT = 20 * DEFAULT_RLIMIT  # z3 resource units per check in the exact path (deterministic)
DEFAULT_TOLERANCE = Fraction(1, 10**9)
DIGITS = 25  # significant digits of the float path's tasks
_fresh = itertools.count()


# --------------------------------------------------------------------------- symbolic side
def kkt_constraints(sym: SymbolicInstance, tasks, weights, prices, cap_prices, prefix: str) -> list[Constraint]:
    """The KKT conditions of max sum_i w_i log tasks_i, for given multipliers (z3 terms).

    `prices[r]` is nu_r; `cap_prices[i]` is mu_i (None for users without a cap). Shared by `spec`
    (fresh unknown multipliers) and the exact check of computed allocations (numerals).
    """
    out = sym.feasibility(tasks, prefix)
    for r in range(sym.m):
        saturated = sym.load(tasks, r) == sym.capacities[r]
        out.append(Constraint(f"{prefix}.price[{r}]>=0", prices[r] >= 0))
        out.append(Constraint(f"{prefix}.price[{r}].slackness", z3.Or(prices[r] == 0, saturated)))
    for i in range(sym.n):
        price = z3.Sum([sym.demands[i][r] * prices[r] for r in range(sym.m)])
        cap = sym.max_tasks[i]
        can_get_some = z3.BoolVal(True) if cap is None else cap > 0
        if cap is not None:
            mu = cap_prices[i]
            price = price + mu
            out.append(Constraint(f"{prefix}.cap_price[{i}]>=0", mu >= 0))
            out.append(Constraint(f"{prefix}.cap_price[{i}].slackness", z3.Or(mu == 0, tasks[i] == cap)))
        out.append(Constraint(f"{prefix}.positive[{i}]", z3.Implies(can_get_some, tasks[i] > 0)))
        out.append(
            Constraint(f"{prefix}.stationarity[{i}]", z3.Implies(can_get_some, weights[i] == tasks[i] * price))
        )
    return out


def _symbolic_weights(sym: SymbolicInstance) -> list[z3.ArithRef]:
    for i, row in enumerate(sym.weights):
        if any(z3.is_false(z3.simplify(w == row[0])) for w in row[1:]):
            raise InputError(f"weights[{i}]: CEEI takes one scalar weight per user, not weight vectors")
    return [row[0] for row in sym.weights]


def spec(sym: SymbolicInstance, tasks, **_options) -> list[Constraint]:
    """KKT conditions with existentially quantified multipliers (fresh z3 Reals per call).

    The allocator's options (method, timeout, tolerance) do not change the optimum: ignored.

    The objective is strictly concave in the tasks of users with a positive cap and the
    constraints are linear, so these conditions hold exactly at the unique optimum.
    """
    tag = f"ceei!{next(_fresh)}"
    prices = [z3.Real(f"{tag}.nu[{r}]") for r in range(sym.m)]
    cap_prices = [None if cap is None else z3.Real(f"{tag}.mu[{i}]") for i, cap in enumerate(sym.max_tasks)]
    return kkt_constraints(sym, tasks, _symbolic_weights(sym), prices, cap_prices, "ceei")


# --------------------------------------------------------------------------- numeric side
def scalar_weights(instance: Instance) -> tuple[Fraction, ...]:
    weights = instance.scalar_weights()
    if weights is None:
        raise InputError("weights: CEEI takes one scalar weight per user, not weight vectors")
    return weights


def _read_options(options: dict) -> tuple[str, Fraction, Fraction]:
    """method, timeout, tolerance; an invalid value is an `OptionError` (wrong on every instance)."""
    method = choice(options, "method", METHODS, "auto")
    try:
        timeout = to_fraction(options.get("timeout", DEFAULT_TIMEOUT), "option timeout")
        tolerance = to_fraction(options.get("tolerance", DEFAULT_TOLERANCE), "option tolerance")
    except InputError as exc:
        raise OptionError(str(exc)) from None
    if timeout <= 0:
        raise OptionError(f"option timeout: must be a positive number of seconds, got {short_text(options['timeout'])}")
    if not 0 < tolerance < 1:
        got = short_text(options["tolerance"])
        raise OptionError(f"option tolerance: must be a relative error in (0, 1), got {got}")
    return method, timeout, tolerance


def allocate(instance: Instance, **options) -> Allocation:
    method, timeout, tolerance = _read_options(options)
    weights = scalar_weights(instance)
    used = {"method": method, "timeout": timeout, "tolerance": tolerance}
    if all(cap == 0 for cap in instance.max_tasks):
        return Allocation(
            "ceei", instance, (Fraction(0),) * instance.n, used,
            notes=("every user has task cap 0",), extra={"status": "exact", "method": "exact"},
        )
    classes = _classes(instance, weights)
    notes: list[str] = []
    if method == "exact" or (method == "auto" and len(classes) <= AUTO_EXACT_CLASSES):
        # auto decides before building an irrational optimum it would not keep (see _exact)
        limit = None if method == "exact" else SLOW_ALGEBRAIC_CLASSES
        result = _exact(instance, weights, classes, timeout, algebraic_limit=limit)
        if isinstance(result, str):  # auto declined an irrational optimum: the reason
            notes.append(result)
        elif result is not None:
            return Allocation("ceei", instance, result[0], used, notes=tuple(result[1]), extra=result[2])
        elif method == "exact":
            raise ExactTimeout(
                f"the exact CEEI optimum did not finish within {format_exact(timeout)} s (option timeout)"
                f"{_CALLER_LIMIT if remaining() is not None else ''};"
                " raise timeout, or use method=float for a certified approximation"
            )
        else:
            notes.append(
                f"exact solve did not finish within {format_exact(timeout)} s"
                f"{_CALLER_LIMIT if remaining() is not None else ''}; fell back to the float path"
            )
    tasks, float_notes, extra = _numeric(instance, weights, tolerance)
    return Allocation(
        "ceei", instance, tasks, used, notes=tuple(notes + float_notes), extra=extra,
        exactness="approximate",
        error_bound=None if extra["relative_error_bound"] == "unbounded" else extra["relative_error_bound"],
    )


def exact_options(options, seconds: float) -> dict:
    """The options that ask for the exact optimum within `seconds` (`Mechanism.exact_options`)."""
    return {**options, "method": "exact", "timeout": Fraction(max(1, int(seconds * 1000)), 1000)}


def _classes(instance: Instance, weights) -> list[tuple[tuple, list[int]]]:
    """Users that can get something, grouped by (demands, weight, cap): equal tasks at the optimum."""
    groups: dict[tuple, list[int]] = {}
    for i in range(instance.n):
        if instance.max_tasks[i] != 0:
            groups.setdefault((instance.demands[i], weights[i], instance.max_tasks[i]), []).append(i)
    return list(groups.items())


# ----------------------------------------------------------------- floating-point guess
@np.errstate(divide="ignore", invalid="ignore")  # a weight below float range: 0, then NaN, handled
def _interior_point(instance: Instance, weights, users: Sequence[int], t_final: float = 1e-10):
    """Log-barrier Newton method (floats) for max sum w_i log x_i over `users`; a guess only.

    Works in normalised units: resource capacities 1, y_i = x_i / solo_i, weights summing to 1
    (normalised exactly, then rounded: any magnitudes the exact numbers allow fit in floats).
    The Newton system (diagonal plus rank m) is solved by the Woodbury identity, O(n m^2).
    Returns normalised tasks y, resource slacks (normalised) and cap slacks (relative).
    """
    b = _normalised_demands(instance, users, range(instance.m))
    w_total = sum(weights[i] for i in users)
    w = np.array([float(weights[i] / w_total) for i in users])
    caps = [instance.max_tasks[i] for i in users]
    capped = np.array([c is not None for c in caps])
    # y_i <= 1 anyway when cap_i >= solo_i: bigger caps never bind, and are clipped to stay finite
    upper = np.array([1.0 if c is None else float(min(c / instance.solo_tasks(i), 10**6)) for c, i in zip(caps, users)])
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


def _normalised_demands(instance: Instance, users, resources) -> np.ndarray:
    """Floats d_ir solo_i / c_r (in [0, 1]): the demands in the units of `_interior_point`."""
    solo = [instance.solo_tasks(i) for i in users]
    return np.array([[float(instance.demand_share(i, r) * s) for r in resources] for i, s in zip(users, solo)])


def _active_set(instance: Instance, weights, users: Sequence[int]):
    """Guess saturated resources and binding caps (indices into `users`) from the float solve;
    with the normalised tasks y_i = x_i / solo_i (floats) of `users`."""
    y, resource_slack, cap_slack = _interior_point(instance, weights, users)
    saturated = [r for r in range(instance.m) if resource_slack[r] < 1e-6]
    binding = [k for k in range(len(users)) if cap_slack[k] < 1e-6]
    return y, saturated, binding


# ----------------------------------------------------------------- exact path
def _exact(instance: Instance, weights, classes, timeout: Fraction, algebraic_limit: int | None = None):
    """Exact optimum (see module docstring): (tasks, notes, extra); None if it did not finish
    within `timeout` seconds (every z3 check under a `SolverBudget`, algebraic arithmetic under
    `fairlab.core.exact.deadline`); or, with `algebraic_limit` (auto), the reason text when the optimum
    is irrational with more distinct users than that: decided as soon as the prices' polynomial
    root is known (the multivariate z3 path is not tried at all then), before any task is built.
    A caller's `fairlab.core.exact.deadline` (e.g. a property check's time limit) bounds it too."""
    stop = time.monotonic() + float(min(timeout, MAX_TIMEOUT))
    outer = remaining()
    if outer is not None:
        stop = min(stop, time.monotonic() + outer)
    try:
        with deadline(stop):
            return _exact_within(instance, weights, classes, stop, algebraic_limit)
    except ExactTimeout:
        return None


def _exact_within(instance: Instance, weights, classes, stop: float, algebraic_limit: int | None):
    m = instance.m
    # One representative user per class: class k stands for n_k users; X_k = n_k x has demand d,
    # weight n_k w and cap n_k cap (the objective and loads are the same up to a constant).
    reduced = Instance.build(
        capacities=list(instance.capacities),
        demands=[list(key[0]) for key, _ in classes],
        weights=[key[1] * len(members) for key, members in classes],
        max_tasks=[None if key[2] is None else key[2] * len(members) for key, members in classes],
    )
    kk = reduced.n
    reduced_weights = reduced.scalar_weights()
    float_y, saturated, binding = _active_set(reduced, reduced_weights, range(kk))
    keep_irrational = algebraic_limit is None or kk <= algebraic_limit
    solved = _solve_small_active_set(reduced, reduced_weights, saturated, binding, float_y, stop, keep_irrational)
    if solved is IRRATIONAL:
        return (
            f"the exact optimum is irrational (the prices are roots of a polynomial) with {kk} distinct users;"
            f" sums of that many distinct algebraic numbers (bundles, utilisation) are slow in z3, so auto"
            f" uses the float path; pass method=exact for the algebraic values"
        )
    if solved is not None:
        class_tasks, nu, class_mu = solved
        how = (
            "active set guessed by a floating-point interior-point solve, prices from a univariate"
            " polynomial root (z3)" if len(saturated) == 2 else
            "active set guessed by a floating-point interior-point solve, prices in closed form"
        )
    elif not keep_irrational:  # z3's multivariate solve may well be irrational: not for auto
        return (
            f"the exact optimum needs z3's multivariate solver here (the active set is not one it solves"
            f" directly), and with {kk} distinct users that optimum, when irrational, makes sums of algebraic"
            f" numbers slow; so auto uses the float path; pass method=exact for the exact optimum"
        )
    else:
        solved = _solve_kkt_with_z3(reduced, reduced_weights, saturated, binding, stop)
        if solved is None:
            return None
        class_tasks, nu, class_mu, how = solved
    # Checked on the merged instance: with x_i = X_k / n_k and mu_i = mu_k its KKT conditions are
    # the original ones term by term (and z3 adds a few numerals far faster than n of them).
    values = [*class_tasks, *nu, *(mu for mu in class_mu if mu is not None)]
    if kk <= 3 or all(isinstance(v, Fraction) for v in values):
        if not _kkt_holds(reduced, reduced_weights, class_tasks, nu, class_mu):
            raise RuntimeError("ceei: the computed optimum fails an exact KKT check; this is a bug")
        checked = "every KKT condition re-checked exactly on the instance"
    else:  # sums of many distinct algebraic numbers are slow in z3; the solve itself is exact
        checked = "every KKT condition was part of the system z3 decided exactly"
    x: list[Exact] = [Fraction(0)] * instance.n
    for k, (_, members) in enumerate(classes):
        share = class_tasks[k] / len(members)
        for i in members:
            x[i] = share
    notes = [f"exact optimum ({how}); {checked}"]
    if kk > SLOW_ALGEBRAIC_CLASSES and not all(isinstance(v, Fraction) for v in class_tasks):
        notes.append("sums of this many distinct algebraic numbers (e.g. Allocation.utilisation) can be slow in z3")
    extra = {
        "status": "exact",
        "method": "exact",
        "prices": list(nu),
        # a positive price means saturated (complementary slackness); cheap, unlike summing loads
        "priced_resources": [instance.resources[r] for r in range(m) if nu[r] != 0],
        "distinct_users": kk,
    }
    return tuple(x), notes, extra


def _solve_kkt_with_z3(reduced: Instance, weights, saturated, binding, stop: float):
    """The KKT system solved by z3's nonlinear real arithmetic: first with the guessed active set
    as extra equalities, then (if that is unsat) the full system. None if z3 did not finish (its
    resource limit, or the time left before `stop`)."""
    m, kk = reduced.m, reduced.n
    sym = SymbolicInstance.from_instance(reduced)
    tasks = [z3.Real(f"ceei.X[{k}]") for k in range(kk)]
    prices = [z3.Real(f"ceei.nu[{r}]") for r in range(m)]
    cap_prices = [None if c is None else z3.Real(f"ceei.mu[{k}]") for k, c in enumerate(reduced.max_tasks)]
    weights_z3 = [z3_value(w) for w in weights]
    kkt = [c.expr for c in kkt_constraints(sym, tasks, weights_z3, prices, cap_prices, "ceei")]
    # Implied by the KKT conditions (sum_i w_i = sum_i x_i (p_i + mu_i), then complementary
    # slackness): redundant, but it speeds z3's nonlinear solver up by orders of magnitude.
    euler = z3.Sum(
        [c * p for c, p in zip(sym.capacities, prices)]
        + [cap * mu for cap, mu in zip(sym.max_tasks, cap_prices) if mu is not None]
    ) == z3.Sum(weights_z3)
    hints = [sym.load(tasks, r) == sym.capacities[r] if r in saturated else prices[r] == 0 for r in range(m)]
    for k, mu in enumerate(cap_prices):
        if mu is not None:
            hints.append(tasks[k] == sym.max_tasks[k] if k in binding else mu == 0)
    attempts = (
        ("active set guessed by a floating-point interior-point solve, KKT system solved by z3", hints),
        ("full KKT system solved by z3 (the floating-point active-set guess was wrong)", []),
    )
    for how, extra_constraints in attempts:
        solver = _solver(stop)  # a fresh solver each time: z3's incremental mode is far slower here
        solver.add(kkt + [euler] + extra_constraints)
        verdict, _ = check(solver)
        if verdict == "sat":
            break
    if verdict == "unknown":
        return None
    if verdict == "unsat":  # impossible: the optimum exists and satisfies the KKT conditions
        raise RuntimeError("ceei: z3 found the KKT system unsatisfiable; this is a bug")
    model = solver.model()

    def value(v) -> Exact:
        return Algebraic.of(model.eval(v, model_completion=True))

    nu = [value(p) for p in prices]
    class_tasks = [value(t) for t in tasks]
    class_mu = [None if mu is None else value(mu) for mu in cap_prices]
    return class_tasks, nu, class_mu, how


def _kkt_holds(instance: Instance, weights, tasks, prices, cap_prices) -> bool:
    """Substitute exact values into the KKT conditions: does every one simplify to true?"""
    sym = SymbolicInstance.from_instance(instance)
    constraints = kkt_constraints(
        sym,
        [z3_value(t) for t in tasks],
        [z3_value(w) for w in weights],
        [z3_value(p) for p in prices],
        [None if mu is None else z3_value(mu) for mu in cap_prices],
        "ceei",
    )
    if all(isinstance(v, Fraction) for v in [*tasks, *prices, *(mu for mu in cap_prices if mu is not None)]):
        # rational arithmetic: fast and bounded by the size of the numbers, no time limit needed
        return all(z3.is_true(z3.simplify(c.expr)) for c in constraints)
    return all(decide(c.expr, f"the KKT condition {c.name}") for c in constraints)


def _solver(stop: float) -> z3.Solver:
    """A z3 solver for the exact path: the deterministic resource limit, and the time left before
    `stop` as the outer stop (`ExactTimeout` if none is left)."""
    left = stop - time.monotonic()
    if left <= 0:
        raise ExactTimeout("ceei: the exact solve's time limit was spent")
    return new_solver(SolverBudget(rlimit=EXACT_RLIMIT, seconds=left))


def _solve_small_active_set(
    reduced: Instance, weights, saturated, binding, float_y, stop: float, keep_irrational: bool = True
):
    """Exact optimum for a guessed active set with at most two saturated resources, without z3's
    multivariate solver (which times out from about five users on two saturated resources).

    With the binding caps fixed, the free users share the residual capacities c'_r and
    sum_{r in R} c'_r nu_r = W (the free users' total weight; sum over free i of
    w_i = x_i p_i). One saturated resource: nu_r = W / c'_r, all rational. Two: eliminate nu_1
    with that identity; nu_0 = t is a root of the numerator of sum_i d_i0 w_i / p_i(t) - c'_0,
    found by z3 (univariate, fast) near the floating-point guess. None if the guess fails the
    exact KKT check; `IRRATIONAL` if that root is irrational and not `keep_irrational`.
    """
    m, kk = reduced.m, reduced.n
    caps = reduced.max_tasks
    d = reduced.demands
    free = [k for k in range(kk) if k not in binding]
    residual = [
        reduced.capacities[r] - sum((caps[k] * d[k][r] for k in binding), Fraction(0)) for r in range(m)
    ]
    total = sum((weights[k] for k in free), Fraction(0))
    nu: list[Exact] = [Fraction(0)] * m
    if len(saturated) > 2 or (free and not saturated):
        return None
    if len(saturated) == 1:
        r = saturated[0]
        if residual[r] <= 0 or any(d[k][r] == 0 for k in free):
            return None
        nu[r] = total / residual[r]
    elif len(saturated) == 2:
        r0, r1 = saturated if residual[saturated[1]] > 0 else saturated[::-1]
        if residual[r1] <= 0 or not free:
            return None
        # p_k(t) = alpha_k + beta_k t with nu_r1 = (W - c'_r0 t) / c'_r1
        alpha = [d[k][r1] * total / residual[r1] for k in free]
        beta = [d[k][r0] - d[k][r1] * residual[r0] / residual[r1] for k in free]
        linear = [[a, b] for a, b in zip(alpha, beta)]
        others = []  # prod_{j != k} p_j(t), for each free k (the time limit checked between them)
        for j in range(len(free)):
            _in_time(stop)
            others.append(_poly_product(linear[:j] + linear[j + 1:]))
        product = _poly_product(linear)

        def free_load(r):  # sum_k d_kr w_k prod_{j != k} p_j(t): the free users' load on r, times P(t)
            return _poly_add(*[_poly_scale(others[j], d[k][r] * weights[k]) for j, k in enumerate(free)])

        numerator = _poly_add(_poly_scale(product, -residual[r0]), free_load(r0))
        if all(c == 0 for c in numerator):
            return None  # degenerate (prices not unique): leave it to the general solver
        guess = Fraction(_fit_prices(reduced, weights, free, float_y[free], [r0, r1])[r0])
        t = z3.Real("ceei.t")
        window = abs(guess) / 10**4 + Fraction(1, 10**12)
        prices = [z3.RealVal(0)] * m
        prices[r0] = t
        prices[r1] = (z3_value(total) - z3_value(residual[r0]) * t) / z3_value(residual[r1])
        tasks_t, cap_prices_t = _kkt_values(reduced, weights, binding, prices)
        # Every KKT condition as a polynomial condition on t alone (so z3 stays univariate and
        # fast): with p_k(t) > 0 and P(t) = prod_k p_k(t) > 0, x_k = w_k / p_k(t) gives
        # stationarity by construction, x_k <= cap_k iff w_k <= cap_k p_k(t), and free load on r
        # <= c'_r iff sum_k d_kr w_k prod_{j != k} p_j(t) <= c'_r P(t).
        product_t = _poly_z3(product, t)
        conditions = [z3_value(a) + z3_value(b) * t > 0 for a, b in zip(alpha, beta)]
        for r in range(m):
            _in_time(stop)
            load_t = _poly_z3(free_load(r), t)
            bound = z3_value(residual[r]) * product_t
            conditions.append(load_t <= bound)
            conditions.append(z3.Or(prices[r] == 0, load_t == bound))
            conditions.append(prices[r] >= 0)
        for j, k in enumerate(free):
            if caps[k] is not None:
                price_k = z3_value(alpha[j]) + z3_value(beta[j]) * t
                conditions.append(z3_value(weights[k]) <= z3_value(caps[k]) * price_k)
        for k in binding:
            conditions.append(cap_prices_t[k] >= 0)
        solver = _solver(stop)
        solver.add(
            _poly_z3(numerator, t) == 0,
            t >= z3_value(guess - window),
            t <= z3_value(guess + window),
            *conditions,
        )
        status, reason = check(solver)
        if status == "unknown" and reason in ("rlimit", "time"):
            raise ExactTimeout(f"ceei: z3's root isolation did not finish ({reason})")
        if status != "sat":
            return None
        root = solver.model().eval(t, model_completion=True)
        if not keep_irrational and not z3.is_rational_value(root):
            return IRRATIONAL
        nu = [Algebraic.of(z3.substitute(p, (t, root))) for p in prices]
        return (
            [Algebraic.of(z3.substitute(x, (t, root))) for x in tasks_t],
            nu,
            [None if mu is None else Algebraic.of(z3.substitute(mu, (t, root))) for mu in cap_prices_t],
        )
    tasks, cap_prices = _kkt_values(reduced, weights, binding, [z3_value(v) for v in nu])
    tasks = [Algebraic.of(x) for x in tasks]
    cap_prices = [None if mu is None else Algebraic.of(mu) for mu in cap_prices]
    if not _kkt_holds(reduced, weights, tasks, nu, cap_prices):
        return None
    return tasks, nu, cap_prices


def _in_time(stop: float) -> None:
    if time.monotonic() > stop:
        raise ExactTimeout("ceei: the exact solve's time limit was spent")


def _kkt_values(reduced: Instance, weights, binding, prices: list[z3.ArithRef]):
    """Tasks and cap prices (z3 terms) implied by resource prices and the binding caps:
    x_k = cap_k with mu_k = w_k / cap_k - p_k if binding, else x_k = w_k / p_k and mu_k = 0."""
    tasks, cap_prices = [], []
    for k in range(reduced.n):
        price = z3.Sum([z3_value(reduced.demands[k][r]) * prices[r] for r in range(reduced.m)])
        cap = reduced.max_tasks[k]
        if k in binding:
            tasks.append(z3_value(cap))
            cap_prices.append(z3_value(weights[k] / cap) - price)
        else:
            tasks.append(z3_value(weights[k]) / price)
            cap_prices.append(None if cap is None else z3.RealVal(0))
    return tasks, cap_prices


def _poly_add(*polys: list) -> list:
    """Polynomials as coefficient lists, constant term first."""
    out = [Fraction(0)] * max(len(p) for p in polys)
    for p in polys:
        for i, c in enumerate(p):
            out[i] += c
    return out


def _poly_scale(a: list, factor) -> list:
    return [c * factor for c in a]


def _poly_product(factors: list) -> list:
    out = [Fraction(1)]
    for f in factors:
        prod = [Fraction(0)] * (len(out) + len(f) - 1)
        for i, c in enumerate(out):
            for j, e in enumerate(f):
                prod[i + j] += c * e
        out = prod
    return out


def _poly_z3(coefficients: list, t: z3.ArithRef) -> z3.ArithRef:
    """Horner form of the polynomial in z3."""
    expr = z3_value(coefficients[-1])
    for c in reversed(coefficients[:-1]):
        expr = expr * t + z3_value(c)
    return expr


# ----------------------------------------------------------------- float path
def _numeric(instance: Instance, weights, tolerance: Fraction):
    users = [i for i in range(instance.n) if instance.max_tasks[i] != 0]
    float_y, saturated, binding = _active_set(instance, weights, users)
    free = [k for k in range(len(users)) if k not in binding]
    best = None
    for support in _supports(saturated):
        start = _fit_prices(instance, weights, [users[k] for k in free], float_y[free], support)
        prices = _polish(instance, weights, users, start, support)
        prices = [max(Fraction(p), Fraction(0)) for p in prices]
        reference = _tasks_from_prices(instance, weights, users, prices, 2 * DIGITS)
        tasks = tuple(_floor_digits(t, DIGITS) for t in reference)  # still feasible: rounded down
        cert = certify(instance, weights, tasks, prices, tolerance, reference)
        if best is None or cert["worst"] < best[2]["worst"]:
            best = (tasks, prices, cert)
        if cert["certified"]:
            break
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


def _fit_prices(instance: Instance, weights, free_users, free_y, support) -> list[Decimal]:
    """Start for Newton: nonnegative least-squares prices on `support` from the stationarity of
    the users below their caps, w_i / x_i = sum_r d_ir nu_r, fitted in floats in the normalised
    units of `_interior_point` (`free_y`: y_i = x_i / solo_i) and scaled back in decimals."""
    prices = [Decimal(0)] * instance.m
    if support and free_users:
        total = sum(weights[i] for i in free_users)
        a = _normalised_demands(instance, free_users, support)
        target = np.array([float(weights[i] / total) for i in free_users]) / np.asarray(free_y, dtype=float)
        solution, _ = nnls(a, target)
        for r, v in zip(support, solution):
            prices[r] = Decimal(float(v)) * _dec(total / instance.capacities[r])
    return prices


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
                if p <= 0 and caps[k] is None:
                    return None, None
                x = caps[k] if p <= 0 or (caps[k] is not None and w[k] / p >= caps[k]) else w[k] / p
                if caps[k] is None or x < caps[k]:
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
        z = cap if price == 0 or (cap is not None and weights[i] / price >= cap) else weights[i] / price
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


MECHANISM = register(
    Mechanism(
        name="ceei",
        summary="CEEI / Nash bargaining / proportional fairness: maximise sum_i w_i log(tasks_i), exactly",
        source="DRF paper §5.2 (CEEI, Nash bargaining), Theorems 4-5; Bonald & Roberts §2.3 (PF); lecture",
        allocate=allocate,
        spec=spec,
        aliases=("nash", "pf"),
        options={
            "method": "auto | exact | float (auto: exact for <= 6 distinct users unless irrational"
            " with > 3; else certified float, labelled approximate)",
            "timeout": f"seconds for the whole exact solve, every z3 check included (default {DEFAULT_TIMEOUT})",
            "tolerance": "relative error the float path must certify (default 1/10^9)",
        },
        scale_invariant=True, anonymous=True,
        module=__name__,
        exact_options=exact_options,
    )
)
