"""Best-Fit DRFH by amounts: the LAB'S VARIANT of Wang, Li & Liang's Best-Fit heuristic (INFOCOM 2014),
not the paper's rule.

Until the reading notes were corrected the lab placed each task on the server whose normalised remaining
capacity (free_lr / C_r, C the pool's totals) is closest in l1 distance to the task's normalised demand
(d_ir / C_r): the AMOUNTS, not the shapes. The paper's rule compares shapes (each vector divided by its
first component) and is `drfh-bestfit`; this variant is kept under a name that says what it is. On the
paper's two-server example (servers <2 CPU, 12 GB> and <12 CPU, 2 GB>; users <0.2, 1> and <1, 0.2>) it
gives 6 tasks each, placed (5, 1) and (1, 5), where the shape rule gives 10 each.

Otherwise the same loop as `drfh-bestfit` (`fairlab.mechanisms.drfh_bestfit.place`): the user with the
lowest global dominant share first (ties: the lower index), one whole task on the feasible server of least
distance (ties: the lower server index), until no user can place a task. Domain: the machines setting,
whole tasks, zero demands allowed, task caps, unit weights. Valuation model: pooled (DRFH's). Exact
(Fractions). No z3 spec: the server chosen at each step depends on the remaining capacities along the way
(numeric only).
"""

from __future__ import annotations

from fractions import Fraction

from fairlab.core.instance import Instance
from fairlab.mechanisms.base import Allocation, Mechanism, register
from fairlab.mechanisms.drfh_bestfit import allocation


def distance(demand, free, pool) -> Fraction:
    """l1 distance between the task's normalised demand and a server's normalised free capacity."""
    return sum((abs(d - f) / c for d, f, c in zip(demand, free, pool) if c > 0), Fraction(0))


def closest_amounts(instance: Instance, i: int, free, servers) -> int:
    """The feasible server whose normalised free capacity is l1-closest to the task (ties: the lower index)."""
    demand, pool = instance.demands[i], instance.capacities
    return min(servers, key=lambda k: (distance(demand, free[k], pool), k))


def allocate(instance: Instance, **options) -> Allocation:
    return allocation("drfh-bestfit-amounts", instance, closest_amounts,
                      ("the lab's variant: the server of the closest normalised AMOUNTS, not the paper's shape rule "
                       "(drfh-bestfit)",))


MECHANISM = register(
    Mechanism(
        name="drfh-bestfit-amounts",
        summary="lab's variant of Best-Fit DRFH (whole tasks): one task on the server whose normalised free capacity "
                "is l1-closest to the task's normalised demand (amounts, not the paper's shapes)",
        source="the lab's variant of Wang, Li & Liang's Best-Fit (INFOCOM 2014); the paper's rule is drfh-bestfit",
        allocate=allocate,
        spec=None,
        options={},
        discrete=True,
        scale_invariant=False, anonymous=False,
        module=__name__,
        setting="machines",
    )
)
