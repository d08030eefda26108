"""Progressive filling on a per-user linear share, exactly, and its bottleneck characterisation.

DRF (DRF paper appendix A.1), asset fairness (§5.1), Kalai–Smorodinsky (lecture) and single-
resource max-min (notes) are all max-min fair on a share that is linear in the user's tasks:
``share_i = tasks_i * sigma_i``, with sigma_i the share one task takes (dominant share, aggregate
share, normalised utility, ... divided by the user's weight). They differ only in sigma, so they
share this engine:

* `fill` raises the share of all unfrozen users at the same rate until a resource saturates (users
  of it freeze) or a user reaches its task cap (it freezes), and repeats with the rest — the
  "several rounds" of progressive filling. All arithmetic is exact: GMP's rationals (gmpy2), results
  as `Fraction` (`fairlab.core.exact.arithmetic`).
* `bottleneck_spec` states the classic characterisation of that max-min fair allocation for z3:
  it is feasible and every user below its cap has a saturated resource it uses on which its share
  is maximal among the resource's users (Bertsekas & Gallager §6.5.2; this is the allocation's
  unique characterisation on such polytopes).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import z3

from fairlab.core.exact import arithmetic
from fairlab.core.instance import Instance
from fairlab.mechanisms.base import Constraint, SymbolicInstance


def fill(instance: Instance, sigma: Sequence[Fraction]) -> tuple[tuple[Fraction, ...], list[dict]]:
    """Exact progressive filling; returns tasks per user and the rounds (level, what froze).

    The arithmetic runs on the current back end (`fairlab.core.exact.arithmetic`: GMP's rationals
    by default); the tasks and levels come back as `Fraction`s, the same whichever back end."""
    ar = arithmetic()
    q = ar.rational
    n, m = instance.n, instance.m
    caps = [None if c is None else q(c) for c in instance.max_tasks]
    demands = [[q(d) for d in row] for row in instance.demands]
    capacities = [q(c) for c in instance.capacities]
    sig = [q(s) for s in sigma]
    zero = q(0)
    tasks = [zero] * n
    active = [i for i in range(n) if caps[i] != 0]
    rounds: list[dict] = []
    used = [zero] * m  # load of frozen users
    while active:
        rate = [sum((demands[i][r] / sig[i] for i in active), zero) for r in range(m)]
        limits = []
        for r in range(m):
            if rate[r] > 0:
                limits.append((capacities[r] - used[r]) / rate[r])
        for i in active:
            cap = caps[i]
            if cap is not None:
                limits.append(cap * sig[i])
        level = min(limits)
        saturated = [r for r in range(m) if rate[r] > 0 and used[r] + level * rate[r] == capacities[r]]
        frozen = {i for i in active if (cap := caps[i]) is not None and cap * sig[i] == level}
        frozen |= {i for i in active for r in saturated if demands[i][r] > 0}
        for i in sorted(frozen):
            tasks[i] = level / sig[i]
            for r in range(m):
                used[r] += tasks[i] * demands[i][r]
        rounds.append({"level": ar.fraction(level), "saturated": saturated, "frozen": sorted(frozen)})
        active = [i for i in active if i not in frozen]
    return tuple(ar.fraction(t) for t in tasks), rounds


def bottleneck_spec(
    sym: SymbolicInstance, tasks: Sequence[z3.ArithRef], sigma: Sequence[z3.ArithRef], prefix: str
) -> list[Constraint]:
    """Feasible, and every user below its cap is max-share on some saturated resource it uses."""
    out = sym.feasibility(tasks, prefix)
    share = [tasks[i] * sigma[i] for i in range(sym.n)]
    for i in range(sym.n):
        options = []
        for r in range(sym.m):
            users_of_r = [z3.Implies(sym.demands[k][r] > 0, share[k] <= share[i]) for k in range(sym.n) if k != i]
            options.append(
                z3.And(sym.demands[i][r] > 0, sym.load(tasks, r) == sym.capacities[r], *users_of_r)
            )
        if sym.max_tasks[i] is not None:
            options.append(tasks[i] == sym.max_tasks[i])
        out.append(Constraint(f"{prefix}.bottleneck[{i}]", z3.Or(options)))
    return out
