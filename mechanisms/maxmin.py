"""Single-resource max-min fairness with demand caps (water-filling; notes on the DRF paper).

One resource of capacity c; user i takes d_i of it per task and wants at most max_tasks_i tasks.
Max-min fairness maximises the smallest allocation (amount of the resource, divided by the user's
weight), then the next smallest, and so on: water-filling with "residual" redistribution.

Example (notes): demands 2, 2.6, 4, 5 on capacity 10 -> 2, 2.6, 2.7, 2.7. Encode the demands as
task caps of unit tasks: {"capacities": [10], "demands": [[1],[1],[1],[1]],
"max_tasks": [2, 2.6, 4, 5]} (the shipped example `maxmin-notes`).
"""

from __future__ import annotations

from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.mechanisms import _filling
from fairlab.mechanisms.base import Allocation, Mechanism, SymbolicInstance, register


def sigma(instance: Instance):
    """Amount of the resource one task takes, as a share of capacity, divided by the weight."""
    if instance.m != 1:
        raise InputError(f"capacities: maxmin is a single-resource mechanism, the instance has {instance.m} resources")
    return [instance.demand_share(i, 0) / instance.weights[i][0] for i in range(instance.n)]


def allocate(instance: Instance) -> Allocation:
    tasks, rounds = _filling.fill(instance, sigma(instance))
    return Allocation("maxmin", instance, tasks, extra={"rounds": rounds})


def spec(sym: SymbolicInstance, tasks) -> list:
    """Bottleneck characterisation on one resource: every user below its cap has the largest
    (weighted) amount, and the resource is saturated."""
    if sym.m != 1:
        raise InputError(f"capacities: maxmin is a single-resource mechanism, the instance has {sym.m} resources")
    sig = [sym.demands[i][0] / (sym.capacities[0] * sym.weights[i][0]) for i in range(sym.n)]
    return _filling.bottleneck_spec(sym, tasks, sig, "maxmin")


MECHANISM = register(
    Mechanism(
        name="maxmin",
        summary="Single-resource max-min fairness (water-filling) with demand caps and weights",
        source="notes on the DRF paper (2, 2.6, 4, 5 on 10); DRF paper §1",
        allocate=allocate,
        spec=spec,
        scale_invariant=True, anonymous=True,
        module=__name__,
    )
)
