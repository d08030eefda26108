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
  isolates together with every KKT condition written as a polynomial condition on t; each price,
  task and cap price is then a Möbius function of t, named from its own polynomial with an
  isolating interval certified by Descartes' rule (`fairlab.mechanisms._ceei_algebraic`; z3 only
  names the root, so ten distinct users take under a second where z3 evaluating w_i / p_i(t)
  took seconds per user). Otherwise
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

This file holds the mechanism: the spec (KKT conditions), the allocator choosing a method, and
the registration. The numerics live in `fairlab.mechanisms._ceei_exact` (exact path) and
`fairlab.mechanisms._ceei_float` (float path, certificate).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import z3

from fairlab.core.domain import Domain
from fairlab.core.errors import ExactBudgetSpent, ExactTimeout, InputError, OptionError
from fairlab.core.exact import format_exact, remaining, short_text, to_fraction
from fairlab.core.instance import Instance
from fairlab.mechanisms._ceei_exact import SLOW_ALGEBRAIC_CLASSES, kkt_constraints
from fairlab.mechanisms._ceei_exact import optimum as _exact  # module name: tests replace it to disable the exact path
from fairlab.mechanisms._ceei_float import approximate
from fairlab.mechanisms.base import Allocation, Constraint, Mechanism, SymbolicInstance, choice, register

METHODS = ("auto", "exact", "float")
_CALLER_LIMIT = " or the caller's time limit"
AUTO_EXACT_CLASSES = 6  # auto: try exact up to this many distinct users (z3 time grows fast beyond)
DEFAULT_TIMEOUT = 30  # seconds for the whole exact solve
DEFAULT_TOLERANCE = Fraction(1, 10**9)
_fresh = itertools.count()


# --------------------------------------------------------------------------- symbolic side
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
        try:
            result = _exact(instance, weights, classes, timeout, algebraic_limit=limit)
        except ExactBudgetSpent as exc:  # counted: auto falls back to float, exact says so
            if method == "exact":
                raise
            result = f"{exc}; fell back to the float path"
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
    tasks, float_notes, extra = approximate(instance, weights, tolerance)
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
        # one weight per user (the allocator declines weight vectors)
        domain=Domain(weights="scalar"),
        module=__name__,
        exact_options=exact_options,
    )
)
