"""The exact worst fairness ratio of a mechanism over time, over EVERY event sequence up to a size.

The lecture's fairness ratio (the Procaccia & Psomas lecture, "Dynamic fair division": min over steps t of the smallest
share over the ideal at t; `fairlab.mechanisms._dynamic.fairness_ratio`, ideal = static DRF of the
agents present) of one run depends on the arrival order and the departures. `worst_ratio` runs the
mechanism on every instance of a finite family and returns the smallest ratio (exact, Fractions)
with an instance reaching it:

* agents: every count 1..n; every arrival order; with ``departures``, every choice of departures
  (each agent stays, or leaves after some arrival at or after its own; the instance format lets an
  agent arrive once and leave at most once);
* demands: every matrix with entries in ``entries`` on ``m`` resources (each row with a positive
  entry), capacities ``capacity`` on every resource. One resource with entries (1,) is the papers'
  setting (Friedman, Psomas & Vardi: one divisible resource; every agent's share is a fraction of it).

What the answer covers is stated in the result (``family``, ``evaluated``, ``declined``): an
instance the mechanism declines (e.g. `dynamic-drf` declines departures) is counted, not judged.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Iterator, Sequence

from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.mechanisms.registry import get


def departure_plans(order: Sequence[int]) -> Iterator[list[dict]]:
    """Every choice of departures for an arrival `order`: each agent stays or leaves after arrival k
    (its own position <= k <= len(order))."""
    n = len(order)
    choices = [[None] + list(range(pos + 1, n + 1)) for pos in range(n)]
    for pick in itertools.product(*choices):
        yield [{"user": f"u{order[pos] + 1}", "after": k} for pos, k in enumerate(pick) if k is not None]


def family(n: int, m: int = 1, entries: Sequence[int] = (1,), capacity: int = 1,
           departures: bool = True) -> Iterator[Instance]:
    """Every instance of the family (module docstring), agents 1..n, smallest first."""
    for count in range(1, n + 1):
        users = [f"u{i + 1}" for i in range(count)]
        rows = [row for row in itertools.product(entries, repeat=m) if any(x > 0 for x in row)]
        for demands in itertools.product(rows, repeat=count):
            for order in itertools.permutations(range(count)):
                plans = departure_plans(order) if departures else iter([[]])
                for plan in plans:
                    yield Instance.build(capacities=[capacity] * m, demands=[list(r) for r in demands], users=users,
                                         arrivals=[users[i] for i in order], departures=plan or None)


def worst_ratio(mechanism, n: int, m: int = 1, entries: Sequence[int] = (1,), capacity: int = 1,
                departures: bool = True, options: dict | None = None) -> dict:
    """The smallest fairness ratio of `mechanism` over `family(n, m, entries, capacity, departures)`:
    ``{"ratio", "instance", "fairness_ratio_steps", "evaluated", "declined", "family"}``."""
    mech = get(mechanism)
    if mech.setting != "dynamic":
        raise InputError(f"worst_ratio: {mech.name} is not a mechanism over time")
    worst: Fraction | None = None
    witness, steps, evaluated, declined = None, None, 0, 0
    for inst in family(n, m, entries, capacity, departures):
        try:
            allocation = mech(inst, **dict(options or {}))
        except InputError:
            declined += 1
            continue
        evaluated += 1
        ratio = allocation.extra["fairness_ratio"]
        if ratio is not None and (worst is None or ratio < worst):
            worst, witness, steps = ratio, inst.to_dict(), allocation.extra["fairness_ratio_steps"]
    return {"ratio": worst, "instance": witness, "fairness_ratio_steps": steps, "evaluated": evaluated,
            "declined": declined,
            "family": f"1..{n} agents, every arrival order{', every departure choice' if departures else ''}, "
                      f"{m} resource(s) of capacity {capacity}, demand entries in {list(entries)}"}
