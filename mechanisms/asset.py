"""Asset fairness (DRF paper §5.1): max-min fairness on aggregate shares sum_r s_ir.

"1% of CPU is worth as much as 1% of memory": progressive filling on each user's total share,
with the same rounds as DRF (users of a saturated resource freeze, the others keep growing).
Scalar weights divide the aggregate share; vector weights are not defined for asset fairness.

Example (§5.1): <9, 18>, A <1, 4>, B <3, 1> -> x = 2.52 = 63/25, y = 2.16 = 54/25 (6x = 7y).
"""

from __future__ import annotations

from fractions import Fraction

import z3

from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.mechanisms import _filling
from fairlab.mechanisms.base import Allocation, Mechanism, SymbolicInstance, register


def sigma(instance: Instance):
    """Aggregate share of one task, divided by the user's scalar weight."""
    weights = instance.scalar_weights()
    if weights is None:
        raise InputError("weights: asset fairness takes one scalar weight per user, not weight vectors")
    return [
        sum((instance.demand_share(i, r) for r in range(instance.m)), Fraction(0)) / weights[i]
        for i in range(instance.n)
    ]


def allocate(instance: Instance) -> Allocation:
    tasks, rounds = _filling.fill(instance, sigma(instance))
    return Allocation("asset", instance, tasks, extra={"rounds": rounds})


def spec(sym: SymbolicInstance, tasks) -> list:
    """Bottleneck characterisation on aggregate shares (weights: first entry of each row)."""
    sig = [
        z3.Sum([sym.demands[i][r] / sym.capacities[r] for r in range(sym.m)]) / sym.weights[i][0]
        for i in range(sym.n)
    ]
    return _filling.bottleneck_spec(sym, tasks, sig, "asset")


MECHANISM = register(
    Mechanism(
        name="asset",
        summary="Asset fairness: progressive filling on aggregate (summed) shares",
        source="DRF paper §5.1; lecture 'Candidate #1'",
        allocate=allocate,
        spec=spec,
        scale_invariant=True, anonymous=True,
        module=__name__,
    )
)
