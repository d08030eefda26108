"""First-Fit DRFH: the DRFH task loop with the First-Fit server rule, beside Best-Fit DRFH (Wang, Li &
Liang, INFOCOM 2014, which compares its Best-Fit heuristic with First-Fit; lab's reading, abstract only).

Repeatedly pick the user with the lowest global dominant share (placed tasks times sigma_i = max_r
d_ir / C_r, C the pool's totals; unit weights) among the users that can still place a task, and place
one whole task on the FIRST server, in the instance's order, where it fits. Ties between users: the
lower index. A user whose task fits no server (or that reached its cap) takes no more; the loop ends
when no user can place a task. The loop is `fairlab.mechanisms.drfh_bestfit.place`, with another rule.

On the paper's two-server example (servers <2 CPU, 12 GB> and <12 CPU, 2 GB>; users <0.2, 1> and
<1, 0.2>) First-Fit puts both users' first tasks on the first server, whatever their shape.

Domain: the machines setting, whole tasks, zero demands allowed, task caps, unit weights. Valuation
model: pooled (DRFH's). Exact (Fractions). No z3 spec: the server chosen at each step depends on the
remaining capacities along the way (numeric only).
"""

from __future__ import annotations

from fairlab.core.instance import Instance
from fairlab.mechanisms.base import Allocation, Mechanism, register
from fairlab.mechanisms.drfh_bestfit import allocation


def first_fit(instance: Instance, i: int, free, servers) -> int:
    """The first feasible server in the instance's order."""
    return min(servers)


def allocate(instance: Instance, **options) -> Allocation:
    return allocation("drfh-firstfit", instance, first_fit)


MECHANISM = register(
    Mechanism(
        name="drfh-firstfit",
        summary="First-Fit DRFH (whole tasks): lowest global dominant share first, one task on the first server "
                "where it fits (lab's reading)",
        source="Wang, Li & Liang, INFOCOM 2014 (First-Fit beside their Best-Fit heuristic; lab's reading)",
        allocate=allocate,
        spec=None,
        options={},
        discrete=True,
        scale_invariant=False, anonymous=False,
        module=__name__,
        setting="machines",
    )
)
