"""CEEI's exact path: the proportionally fair optimum as rationals or algebraic numbers.

Numerics behind `fairlab.mechanisms.ceei` (method ``exact``; see that module's docstring for the
method): the KKT conditions of max sum_i w_i log tasks_i (`kkt_constraints`, also the mechanism's
spec), solved for the active set guessed in floats (`fairlab.mechanisms._ceei_float.active_set`):
in closed form or by one univariate polynomial root for at most two saturated resources
(`_solve_small_active_set`), else by z3's nonlinear real arithmetic (`_solve_kkt_with_z3`); every
z3 check under a deterministic resource limit, the caller's timeout only an outer stop.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

import z3

from fairlab.core.errors import ExactBudgetSpent, ExactTimeout
from fairlab.core.exact import Algebraic, Exact, arithmetic, deadline, decide, remaining, z3_value
from fairlab.core.instance import Instance
from fairlab.core.solving import DEFAULT_RLIMIT, SolverBudget, check, new_solver
from fairlab.mechanisms import _ceei_float
from fairlab.mechanisms._ceei_algebraic import Root, evaluate
from fairlab.mechanisms._ceei_float import active_set, fit_prices
from fairlab.mechanisms.base import Constraint, SymbolicInstance

IRRATIONAL = object()  # _solve_small_active_set: the optimum is irrational and was not wanted
SLOW_ALGEBRAIC_CLASSES = 3  # beyond: z3 sums of the distinct algebraic tasks (utilisation) can take minutes
MAX_TIMEOUT = 10**6  # longer timeouts are read as this many seconds
EXACT_RLIMIT = 20 * DEFAULT_RLIMIT  # z3 resource units per check in the exact path (deterministic)


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



def optimum(
    instance: Instance, weights, classes, timeout: Fraction, algebraic_limit: int | None = None, legacy: bool = False
):
    """Exact optimum (see module docstring): (tasks, notes, extra); None if it did not finish
    within `timeout` seconds (every z3 check under a `SolverBudget`, algebraic arithmetic under
    `fairlab.core.exact.deadline`); or, with `algebraic_limit` (auto), the reason text when the optimum
    is irrational with more distinct users than that: decided as soon as the prices' polynomial
    root is known (the multivariate z3 path is not tried at all then), before any task is built.
    A caller's `fairlab.core.exact.deadline` (e.g. a property check's time limit) bounds it too.
    `legacy`: evaluate the values at an algebraic price root with z3 (the original method,
    kept as the benchmark's baseline and the tests' reference) instead of `_values_at_root`."""
    stop = time.monotonic() + float(timeout if timeout < MAX_TIMEOUT else MAX_TIMEOUT)  # clipped before float
    outer = remaining()
    if outer is not None:
        stop = min(stop, time.monotonic() + outer)
    try:
        with deadline(stop):
            return _exact_within(instance, weights, classes, stop, algebraic_limit, legacy)
    except ExactBudgetSpent:
        raise  # counted: the same on every machine, said as such
    except ExactTimeout:
        return None


def _exact_within(instance: Instance, weights, classes, stop: float, algebraic_limit: int | None, legacy: bool):
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
    float_y, saturated, binding = active_set(reduced, reduced_weights, range(kk))
    keep_irrational = algebraic_limit is None or kk <= algebraic_limit
    solved = _solve_small_active_set(
        reduced, reduced_weights, saturated, binding, float_y, stop, keep_irrational, legacy
    )
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
    attempts: tuple[tuple[str, list[Any]], ...] = (
        ("active set guessed by a floating-point interior-point solve, KKT system solved by z3", hints),
        ("full KKT system solved by z3 (the floating-point active-set guess was wrong)", []),
    )
    for how, extra_constraints in attempts:  # noqa: B007 (`how` is returned after the loop)
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
    """Substitute exact values into the KKT conditions: does every one simplify to true? Rational
    values are checked by `_kkt_holds_rational` (the same conditions in GMP arithmetic; z3's
    substitution with `_ceei_float.BASELINE`, and the tests compare the two)."""
    values = [*tasks, *prices, *(mu for mu in cap_prices if mu is not None)]
    if not _ceei_float.BASELINE and all(isinstance(v, Fraction) for v in values):
        return _kkt_holds_rational(instance, weights, tasks, prices, cap_prices)
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


def _kkt_holds_rational(instance: Instance, weights, tasks, prices, cap_prices) -> bool:
    """`kkt_constraints` at rational values, condition by condition, in exact arithmetic (GMP by
    default): feasibility (tasks >= 0, within caps and capacities), prices >= 0 with complementary
    slackness, cap prices likewise, and for each user that can get some: tasks > 0 and stationarity
    w_i = tasks_i (sum_r d_ir nu_r + mu_i)."""
    ar = arithmetic()
    q = ar.rational
    x = [q(v) for v in tasks]
    nu = [q(v) for v in prices]
    d = [[q(v) for v in row] for row in instance.demands]
    caps = [None if c is None else q(c) for c in instance.max_tasks]
    if any(v < 0 for v in x) or any(c is not None and x[i] > c for i, c in enumerate(caps)):
        return False
    for r in range(instance.m):
        load = sum((x[i] * d[i][r] for i in range(instance.n)), q(0))
        capacity = q(instance.capacities[r])
        if load > capacity or nu[r] < 0 or (nu[r] != 0 and load != capacity):
            return False
    for i in range(instance.n):
        price = sum((d[i][r] * nu[r] for r in range(instance.m)), q(0))
        cap = caps[i]
        if cap is not None:
            mu = cap_prices[i]
            if mu is None:
                return False
            mu = q(mu)
            price += mu
            if mu < 0 or (mu != 0 and x[i] != cap):
                return False
        if (cap is None or cap > 0) and not (x[i] > 0 and q(weights[i]) == x[i] * price):
            return False
    return True


def _rational_kkt_values(reduced: Instance, weights, binding, prices: list):
    """`_kkt_values` at rational prices, in exact arithmetic: (tasks, cap prices) as `Fraction`s, or
    None if some free user's price is 0 (w / 0: left to z3, as before)."""
    ar = arithmetic()
    q = ar.rational
    nu = [q(p) for p in prices]
    tasks: list[Exact] = []
    cap_prices: list[Exact | None] = []
    for k in range(reduced.n):
        price = sum((q(reduced.demands[k][r]) * nu[r] for r in range(reduced.m)), q(0))
        cap = reduced.max_tasks[k]
        if k in binding:
            assert cap is not None  # a binding cap is a cap
            tasks.append(cap)
            cap_prices.append(ar.fraction(q(weights[k]) / q(cap) - price))
        else:
            if price == 0:
                return None
            tasks.append(ar.fraction(q(weights[k]) / price))
            cap_prices.append(None if cap is None else Fraction(0))
    return tasks, cap_prices


def _solver(stop: float) -> z3.Solver:
    """A z3 solver for the exact path: the deterministic resource limit, and the time left before
    `stop` as the outer stop (`ExactTimeout` if none is left)."""
    left = stop - time.monotonic()
    if left <= 0:
        raise ExactTimeout("ceei: the exact solve's time limit was spent")
    return new_solver(SolverBudget(rlimit=EXACT_RLIMIT, seconds=left))


def _solve_small_active_set(
    reduced: Instance, weights, saturated, binding, float_y, stop: float, keep_irrational: bool = True,
    legacy: bool = False,
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
        guess = Fraction(fit_prices(reduced, weights, free, float_y[free], [r0, r1])[r0])
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
            cap = caps[k]
            if cap is not None:
                price_k = z3_value(alpha[j]) + z3_value(beta[j]) * t
                conditions.append(z3_value(weights[k]) <= z3_value(cap) * price_k)
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
        if status == "unknown" and reason == "rlimit":
            raise ExactBudgetSpent(f"ceei: z3's root isolation did not finish within {EXACT_RLIMIT:,} resource units")
        if status == "unknown" and reason == "time":
            raise ExactTimeout(f"ceei: z3's root isolation did not finish ({reason})")
        if status != "sat":
            return None
        root = solver.model().eval(t, model_completion=True)
        if not keep_irrational and not z3.is_rational_value(root):
            return IRRATIONAL
        fast = None if legacy else _values_at_root(
            numerator, root, total, residual, alpha, beta, free, binding, reduced, weights, r0, r1
        )
        if fast is not None:
            return fast
        nu = [Algebraic.of(z3.substitute(p, (t, root))) for p in prices]
        return (
            [Algebraic.of(z3.substitute(x, (t, root))) for x in tasks_t],
            nu,
            [None if mu is None else Algebraic.of(z3.substitute(mu, (t, root))) for mu in cap_prices_t],
        )
    rational = None if _ceei_float.BASELINE else _rational_kkt_values(reduced, weights, binding, nu)
    if rational is not None:  # the prices here are rational (closed form): so are the tasks
        tasks, cap_prices = rational
    else:
        tasks, cap_prices = _kkt_values(reduced, weights, binding, [z3_value(v) for v in nu])
        tasks = [Algebraic.of(x) for x in tasks]
        cap_prices = [None if mu is None else Algebraic.of(mu) for mu in cap_prices]
    if not _kkt_holds(reduced, weights, tasks, nu, cap_prices):
        return None
    return tasks, nu, cap_prices


def _values_at_root(numerator, root, total, residual, alpha, beta, free, binding, reduced, weights, r0, r1):
    """Tasks, prices and cap prices at the price root t (z3 numeral, a root of `numerator`), each
    named from its own polynomial (`fairlab.mechanisms._ceei_algebraic`: Möbius substitutions of
    the numerator, isolating intervals certified by Descartes' rule) instead of z3 evaluating
    w_k / p_k(t) at an algebraic t (seconds per user at ten users). None if t's isolation fails
    (a multiple root of the numerator): the caller then lets z3 evaluate."""
    if z3.is_rational_value(root):
        approx = Fraction(root.numerator_as_long(), root.denominator_as_long())
    else:
        near = root.approx(60)
        approx = Fraction(near.numerator_as_long(), near.denominator_as_long())
    t = _root_near(numerator, approx)
    if t is None:
        return None
    m, d, caps = reduced.m, reduced.demands, reduced.max_tasks
    zero = Fraction(0)
    nu: list[Exact] = [zero] * m
    nu[r0] = t.mobius_value(zero, Fraction(1), Fraction(1), zero)
    nu[r1] = t.mobius_value(total / residual[r1], -residual[r0] / residual[r1], Fraction(1), zero)
    tasks: list[Exact] = [zero] * reduced.n
    cap_prices: list[Exact | None] = [None] * reduced.n
    for j, k in enumerate(free):
        tasks[k] = t.mobius_value(weights[k], zero, alpha[j], beta[j])
        cap_prices[k] = None if caps[k] is None else zero
    for k in binding:
        a = d[k][r1] * total / residual[r1]
        b = d[k][r0] - d[k][r1] * residual[r0] / residual[r1]
        tasks[k] = caps[k]
        cap_prices[k] = t.mobius_value(weights[k] / caps[k] - a, -b, Fraction(1), zero)
    return tasks, nu, cap_prices


def _root_near(g, approx: Fraction):
    if evaluate(g, approx) == 0:  # a rational root: any small interval around it
        return Root.isolate(g, approx, Fraction(1, 10**20))
    return Root.isolate(g, approx, Fraction(1, 10**50))


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
            assert cap is not None  # a binding cap is a cap
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
