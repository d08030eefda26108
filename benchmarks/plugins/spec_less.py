"""Spec-less plug-ins that `bench_audit.py` audits (a researcher's first drafts): equal split and a
greedy rule. Serial dictatorship is examples/plugins/serial_dictatorship.py."""

from __future__ import annotations

from fractions import Fraction


def _fits(left, row) -> Fraction:
    """The most tasks of demand `row` that fit in `left` (0 for a user demanding nothing)."""
    return min((left[r] / row[r] for r in range(len(row)) if row[r] > 0), default=Fraction(0))


def equal_split(instance) -> list[Fraction]:
    """Each user runs the tasks that fit in a 1/n share of every resource (and its cap)."""
    share = [Fraction(c) / instance.n for c in instance.capacities]
    tasks = []
    for i, row in enumerate(instance.demands):
        take = _fits(share, row)
        cap = instance.max_tasks[i]
        tasks.append(take if cap is None else min(take, cap))
    return tasks


def greedy(instance) -> list[Fraction]:
    """Users by their dominant demand share, smallest first (ties by index), each taking what fits."""
    caps = instance.capacities
    def dominant(i: int) -> Fraction:
        return max(Fraction(d) / c for d, c in zip(instance.demands[i], caps))

    order = sorted(range(instance.n), key=lambda i: (dominant(i), i))
    left = [Fraction(c) for c in caps]
    tasks = [Fraction(0)] * instance.n
    for i in order:
        row = instance.demands[i]
        take = _fits(left, row)
        cap = instance.max_tasks[i]
        if cap is not None:
            take = min(take, cap)
        tasks[i] = take
        left = [c - take * d for c, d in zip(left, row)]
    return tasks
