"""Two researchers' mechanisms that are right on unit weights and no task caps, and wrong elsewhere
(docs/concepts.md, "Domains"): an audit with no domain option catches both, because the search
draws weights and task caps wherever the domain allows them.

* `weighted_dominant_split`: weighted dominant split, then greedy fill. Every user gets the same
  weighted dominant share (DRF paper §4.3: one task of user i takes max_r d_ir / (c_r w_ir)), the
  largest that fits, each capped at its task cap; then, in index order, each user takes the most
  further tasks that fit in what is left. Sharing incentive holds without weights and with one weight
  per user, but not with weight vectors:

      fairlab audit examples/plugins/weighted_split.py:weighted_dominant_split -n 2 -m 2

* `drf_then_clip`: DRF computed as if nobody were capped, then each user clipped at its task cap
  (what a capped user leaves is never handed on). Pareto efficient without caps, not when a cap binds:

      fairlab search examples/plugins/weighted_split.py:drf_then_clip pe -n 2 -m 2

Both are plain functions ``Instance -> tasks per user`` with exact numbers (`fairlab.Instance`).
"""

from __future__ import annotations

from fractions import Fraction

import fairlab
from fairlab import Instance


def _fill(instance: Instance, tasks: list[Fraction]) -> list[Fraction]:
    """Greedy fill: in index order, each user takes the most further tasks that fit (under its cap)."""
    left = [c - sum(t * row[r] for t, row in zip(tasks, instance.demands)) for r, c in enumerate(instance.capacities)]
    out = list(tasks)
    for i, row in enumerate(instance.demands):
        more = min((left[r] / d for r, d in enumerate(row) if d > 0), default=Fraction(0))
        cap = instance.max_tasks[i]
        if cap is not None:
            more = min(more, cap - out[i])
        more = max(more, Fraction(0))
        out[i] += more
        left = [x - more * d for x, d in zip(left, row)]
    return out


def weighted_dominant_split(instance: Instance) -> list[Fraction]:
    """Equal weighted dominant shares, the largest that fit (each user under its cap), then greedy fill."""
    per_task = [instance.weighted_dominant_share_per_task(i) for i in range(instance.n)]
    loads = [sum((row[r] / p for row, p in zip(instance.demands, per_task)), Fraction(0))
             for r in range(instance.m)]
    share = min(c / load for c, load in zip(instance.capacities, loads) if load > 0)
    tasks = [share / p for p in per_task]
    tasks = [t if cap is None else min(t, cap) for t, cap in zip(tasks, instance.max_tasks)]
    return _fill(instance, tasks)


def drf_then_clip(instance: Instance) -> list:
    """DRF as if nobody were capped, then each user clipped at its cap; nothing handed on."""
    uncapped = fairlab.allocate("drf", instance.replace(max_tasks=None)).tasks
    return [t if cap is None else min(t, cap) for t, cap in zip(uncapped, instance.max_tasks)]


if __name__ == "__main__":
    print(fairlab.check(weighted_dominant_split, "si", {
        "capacities": [1, 1], "demands": [[1, "1/10"], ["1/10", 1]], "weights": [[10, 1], [10, 1]]}))
