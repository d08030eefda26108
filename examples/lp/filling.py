"""DRF and asset fairness written as linear programs in pulp: ``examples/lp/filling.py:drf``
and ``examples/lp/filling.py:asset``.

Both are progressive filling (DRF paper §4 and appendix A.1; asset fairness §5.1): every user not
yet blocked grows its share at the same rate until a resource saturates (or its task cap binds);
the users of a saturated resource (and capped users) are then frozen, and the others go on. Each
round is one LP,

    maximise  level
    s.t.      sum_i tasks_i d_ir <= c_r                 (each resource r)
              tasks_i share_i = level                   (each user still filling)
              tasks_i = frozen_i                        (each frozen user)
              0 <= tasks_i <= cap_i,

with share_i the share user i gains per task: DRF its weighted dominant share max_r d_ir/(c_r w_ir),
asset fairness its aggregate share sum_r d_ir/c_r (unit weights). The function is a generator:
it yields each round's LP and the lab sends back the exact solution (`fairlab.mechanisms.lp_plugin`).
The lab solves every round exactly (HiGHS's basis, re-solved and certified in rationals) and
derives the z3 spec from the LPs' optimality conditions (``.spec = "lp"``), so `fairlab prove`
needs no hand-written spec:

    fairlab allocate examples/lp/filling.py:drf thm1-asset-si
    fairlab prove examples/lp/filling.py:asset si -n 2 -m 2
"""

from collections.abc import Generator
from fractions import Fraction

import pulp

from fairlab.core.errors import InputError


def variable(problem: pulp.LpProblem, name: str, low=None, up=None) -> pulp.LpVariable:
    """A continuous variable of `problem`: pulp 3.3 creates it with ``problem.add_variable`` (there,
    ``pulp.LpVariable(...)`` is deprecated for pulp 4); older pulp with ``pulp.LpVariable``."""
    if hasattr(problem, "add_variable"):
        return problem.add_variable(name, low, up)
    return pulp.LpVariable(name, low, up)


def _filling(instance, share, name: str) -> Generator[pulp.LpProblem, dict[str, Fraction], None]:
    """Yields each round's LP; the lab sends back its exact solution ``{variable name: Fraction}``."""
    n, m = instance.n, instance.m
    demands, capacities = instance.demands, instance.capacities
    frozen: dict[int, Fraction] = {}  # user -> its tasks, fixed in the round it was blocked
    while len(frozen) < n:
        problem = pulp.LpProblem(name, pulp.LpMaximize)
        level = variable(problem, "level", 0)
        tasks = [variable(problem, f"tasks_{i}", 0, instance.max_tasks[i]) for i in range(n)]
        problem += level
        for r in range(m):
            problem += pulp.lpSum(tasks[i] * demands[i][r] for i in range(n)) <= capacities[r], f"capacity_{r}"
        for i in range(n):
            if i in frozen:
                problem += tasks[i] == frozen[i], f"frozen_{i}"
            else:
                problem += tasks[i] * share[i] == level, f"filling_{i}"
        solution = yield problem
        saturated = [r for r in range(m)
                     if sum(solution[f"tasks_{i}"] * demands[i][r] for i in range(n)) == capacities[r]]
        blocked = [i for i in range(n) if i not in frozen and (
            any(demands[i][r] > 0 for r in saturated)
            or (instance.max_tasks[i] is not None and solution[f"tasks_{i}"] == instance.max_tasks[i]))]
        if not blocked:  # cannot happen for a bounded LP; a guard against an endless loop
            raise RuntimeError("progressive filling: no user blocked after a round")
        for i in blocked:
            frozen[i] = solution[f"tasks_{i}"]


def drf(instance):
    """DRF as progressive filling, one LP per round (pulp)."""
    share = [max(instance.demands[i][r] / (instance.capacities[r] * instance.weights[i][r])
                 for r in range(instance.m)) for i in range(instance.n)]
    return _filling(instance, share, "drf")


def asset(instance):
    """Asset fairness as progressive filling on aggregate shares, one LP per round (pulp)."""
    weights = instance.scalar_weights()  # asset fairness divides by a scalar weight (DRF paper §5.1)
    if weights is None:
        raise InputError("weights: asset fairness takes one scalar weight per user, not weight vectors")
    share = [sum(instance.demands[i][r] / instance.capacities[r] for r in range(instance.m)) / weights[i]
             for i in range(instance.n)]
    return _filling(instance, share, "asset")


for _fn in (drf, asset):
    # function attributes (mypy does not model them); the lab derives the spec from the LPs' optimality conditions
    _fn.spec = "lp"  # type: ignore[attr-defined]
    _fn.scale_invariant = True  # type: ignore[attr-defined]
    _fn.anonymous = True  # type: ignore[attr-defined]
asset.domain = "weights=scalar"  # type: ignore[attr-defined]  # it declines weight vectors (above)
