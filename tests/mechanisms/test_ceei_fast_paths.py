"""CEEI's faster exact path equals the baseline (`_ceei_float.BASELINE`): the float guesses on Python
floats for small problems (`_interior_point_small`) and Lawson–Hanson without scipy (`_nnls`), the
rational KKT re-check and rational tasks in exact arithmetic (`_kkt_holds_rational`,
`_rational_kkt_values`) instead of z3 substitutions. The whole allocation (tasks, prices, notes)
is the same; each piece is compared with the one it replaces, and fails where that one fails."""

from __future__ import annotations

import json
import random
from fractions import Fraction as F

import numpy as np
import pytest
from scipy.optimize import nnls

from fairlab.core.instance import Instance
from fairlab.mechanisms import _ceei_exact, _ceei_float, ceei


def drawn(seed: int) -> Instance:
    rng = random.Random(seed)
    n, m = rng.randint(1, 4), rng.randint(1, 3)
    demands = [[rng.choice([0, rng.randint(1, 9)]) for _ in range(m)] for _ in range(n)]
    for row in demands:
        if not any(row):
            row[0] = 1
    caps = [None if rng.random() < 0.7 else F(rng.randint(1, 20), rng.randint(1, 3)) for _ in range(n)]
    weights = [F(rng.randint(1, 3), rng.choice([1, 3, 7])) for _ in range(n)]
    return Instance.build([rng.randint(5, 30) for _ in range(m)], demands, weights=weights, max_tasks=caps)


def allocation(instance: Instance, baseline: bool, monkeypatch) -> str:
    monkeypatch.setattr(_ceei_float, "BASELINE", baseline)
    return json.dumps(ceei.allocate(instance, method="exact").to_dict(), sort_keys=True, default=str)


@pytest.mark.parametrize("seed", range(12))
def test_the_exact_allocation_equals_the_baselines(seed, monkeypatch):
    instance = drawn(seed)
    assert allocation(instance, False, monkeypatch) == allocation(instance, True, monkeypatch)


def test_the_comparison_sees_a_different_instance(monkeypatch):
    """Negative twin: the same comparison on two different instances fails."""
    assert allocation(drawn(0), False, monkeypatch) != allocation(drawn(1), True, monkeypatch)


def test_small_interior_point_guesses_the_same_active_set():
    for seed in range(40):
        instance = drawn(seed)
        weights = [w[0] for w in instance.weights]
        users = list(range(instance.n))
        small = _ceei_float._interior_point_small(instance, weights, users)
        reference = _ceei_float._interior_point(instance, weights, users)
        assert small is not None
        for got, want in zip(small, reference):
            assert np.allclose(got, want, rtol=1e-9, atol=1e-12)


def test_small_nnls_equals_scipys_also_without_full_rank():
    rng = np.random.default_rng(39)
    for _ in range(400):
        rows, columns = int(rng.integers(1, 6)), int(rng.integers(1, 5))
        a = rng.random((rows, columns)) * (rng.random((rows, columns)) < 0.8)
        b = rng.random(rows) * 3
        assert np.allclose(_ceei_float._nnls(a, b), nnls(a, b)[0], rtol=1e-9, atol=1e-9)
    # negative twin: the unconstrained least squares would differ (a negative coefficient)
    a, b = np.array([[1.0, 1.0], [1.0, 2.0], [1.0, 3.0]]), np.array([3.0, 2.0, 1.0])
    assert np.linalg.lstsq(a, b, rcond=None)[0][1] < 0 <= _ceei_float._nnls(a, b)[1]


def test_rational_kkt_check_agrees_with_z3_at_the_optimum_and_off_it(monkeypatch):
    checked = 0
    for seed in range(20):
        instance = drawn(seed)
        alloc = ceei.allocate(instance, method="exact")
        tasks, prices = list(alloc.tasks), list(alloc.extra["prices"])
        if not all(isinstance(v, F) for v in tasks + prices):
            continue
        weights = [w[0] for w in instance.weights]
        # cap prices at the optimum: w_i / x_i - p_i for a user at its cap, else 0
        cap_prices = []
        for i, cap in enumerate(instance.max_tasks):
            price = sum((instance.demands[i][r] * prices[r] for r in range(instance.m)), F(0))
            cap_prices.append(None if cap is None else (weights[i] / tasks[i] - price if tasks[i] == cap else F(0)))
        wrong = [t * F(101, 100) for t in tasks]
        for point, holds in ((tasks, True), (wrong, False)):
            monkeypatch.setattr(_ceei_float, "BASELINE", True)
            by_z3 = _ceei_exact._kkt_holds(instance, weights, point, prices, cap_prices)
            monkeypatch.setattr(_ceei_float, "BASELINE", False)
            assert _ceei_exact._kkt_holds_rational(instance, weights, point, prices, cap_prices) == by_z3 == holds
        checked += 1
    assert checked >= 10
