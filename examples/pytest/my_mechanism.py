"""A researcher's mechanism: the static (weighted) partition.

Every user gets its weighted equal split of every resource — ``w_ir / sum_k w_kr * c_r`` of
resource r, i.e. ``c / n`` without weights — and runs as many tasks as fit in that slice (at most
its task cap). Nobody can do better by lying or envy another's slice, so the partition is sharing
incentive and strategy-proof; but a slice a user cannot use is wasted, so it is not Pareto
efficient (two users with disjoint needs each leave half the cluster idle).

A mechanism for fairlab is a plain function ``Instance -> tasks per user`` (exact numbers). Its
optional ``spec`` attribute (z3 constraints that hold exactly for the allocation it returns) lets
the lab *prove* properties for every demand profile of a size instead of only searching; the lab
checks the spec against the function (conformance) before it trusts a proof. Use it as

    fairlab allocate examples/pytest/my_mechanism.py:static_partition drf-paper
    fairlab check examples/pytest/my_mechanism.py:static_partition si drf-paper
    fairlab audit examples/pytest/my_mechanism.py:static_partition --users 2 --resources 2
"""

from __future__ import annotations

import z3

from fairlab.core.instance import Instance
from fairlab.mechanisms.base import Constraint, SymbolicInstance


def static_partition(instance: Instance) -> list:
    """Tasks per user: the most that fit in its weighted equal split (and under its cap)."""
    tasks = []
    for i, row in enumerate(instance.demands):
        slice_ = [instance.weights[i][r] / sum(w[r] for w in instance.weights) * c
                  for r, c in enumerate(instance.capacities)]
        fit = min(s / d for s, d in zip(slice_, row) if d > 0)
        cap = instance.max_tasks[i]
        tasks.append(fit if cap is None else min(fit, cap))
    return tasks


def _spec(sym: SymbolicInstance, tasks) -> list[Constraint]:
    """User i's tasks fit in its slice on every resource it uses, and fill it on one (or hit its cap)."""
    out = []
    for i in range(sym.n):
        fits, fills = [], []
        for r in range(sym.m):
            total = z3.Sum([sym.weights[k][r] for k in range(sym.n)])
            used, slice_ = tasks[i] * sym.demands[i][r] * total, sym.weights[i][r] * sym.capacities[r]
            fits.append(z3.Implies(sym.demands[i][r] > 0, used <= slice_))
            fills.append(z3.And(sym.demands[i][r] > 0, used == slice_))
        if sym.max_tasks[i] is not None:
            fits.append(tasks[i] <= sym.max_tasks[i])
            fills.append(tasks[i] == sym.max_tasks[i])
        out.append(Constraint(f"partition.fits[{i}]", z3.And(tasks[i] >= 0, *fits)))
        out.append(Constraint(f"partition.fills[{i}]", z3.Or(fills)))
    return out


static_partition.spec = _spec  # type: ignore[attr-defined]  # a function attribute: mypy does not model them


def dictator(instance: Instance) -> list:
    """Everything to the first user (as many tasks as the cluster allows): not sharing incentive."""
    first = min(c / d for c, d in zip(instance.capacities, instance.demands[0]) if d > 0)
    cap = instance.max_tasks[0]
    return [first if cap is None else min(first, cap)] + [0] * (instance.n - 1)
