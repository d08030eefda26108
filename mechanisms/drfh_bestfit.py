"""Best-Fit DRFH: the whole-task heuristic of Wang, Liang & Li ("Dominant Resource Fairness in Cloud
Computing Systems with Heterogeneous Servers", INFOCOM 2014) that implements DRFH (`drfh`) in practice.

Lab's reading (only the abstract was readable; the reading notes rate this definition low): capacities
are normalised by the pool's totals C (the sum of the servers). Repeatedly pick the user with the
lowest global dominant share (its placed tasks times sigma_i = max_r d_ir / C_r) among
the users that can still place a task, and place one task on the server whose normalised remaining
capacity (free_kr / C_r) is closest in l1 distance to the task's normalised demand (d_ir / C_r),
among the servers where the task fits. Ties: the lower user index, then the lower server index. A
user whose task fits no server (or that reached its cap) takes no more (free capacity only shrinks,
so it never fits again); the loop ends when no user can place a task.

Domain: the machines setting (`Instance.machines`), whole tasks, zero demand entries allowed,
task caps (rounded down), unit weights (the instance format has no weights with machines). A user
whose task fits no server gets nothing (noted). Cost: one step per task (n * k work each). No z3
spec: the server chosen at each step depends on the remaining capacities along the way (numeric only).
"""

from __future__ import annotations

import math
from fractions import Fraction
from types import MappingProxyType

from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact
from fairlab.core.instance import Instance
from fairlab.mechanisms.base import Allocation, Mechanism, register
from fairlab.mechanisms.drfh import global_sigma

#: more task placements than this: refused (one placement per step; the lab's instances are small)
MAX_STEPS = 200_000


def _fits(free, demand) -> bool:
    return all(d <= f for d, f in zip(demand, free))


def distance(demand, free, pool) -> Fraction:
    """l1 distance between the task's normalised demand and a server's normalised free capacity."""
    return sum((abs(d - f) / c for d, f, c in zip(demand, free, pool) if c > 0), Fraction(0))


def place(instance: Instance):
    """(placement, order): whole tasks per user per server, and the (user, server) of each step."""
    if instance.machines is None:
        raise InputError("drfh-bestfit: the instance lists no machines")
    n, k_count = instance.n, instance.k
    pool = instance.capacities
    sigma = [global_sigma(instance, i) for i in range(n)]
    limit = [math.inf if t is None else math.floor(t) for t in instance.max_tasks]
    free = [list(machine) for machine in instance.machines]
    placement = [[0] * k_count for _ in range(n)]
    counts = [0] * n
    active = [i for i in range(n) if limit[i] > 0]
    order = []
    while active:
        i = min(active, key=lambda u: (counts[u] * sigma[u], u))
        demand = instance.demands[i]
        servers = [k for k in range(k_count) if _fits(free[k], demand)]
        if not servers:
            active.remove(i)
            continue
        k = min(servers, key=lambda s: (distance(demand, free[s], pool), s))
        free[k] = [f - d for f, d in zip(free[k], demand)]
        placement[i][k] += 1
        counts[i] += 1
        order.append((i, k))
        if counts[i] >= limit[i]:
            active.remove(i)
        if len(order) > MAX_STEPS:
            raise InputError(f"drfh-bestfit: more than {MAX_STEPS} task placements; instance too large for the "
                             "task-by-task heuristic")
    return placement, order, free


def allocate(instance: Instance, **options) -> Allocation:
    placement, order, free = place(instance)
    rows = tuple(tuple(Fraction(x) for x in row) for row in placement)
    tasks = tuple(sum(row, Fraction(0)) for row in rows)
    notes = []
    names = instance.machine_names or ()
    for i in range(instance.n):
        if not any(_fits(machine, instance.demands[i]) for machine in instance.machines or ()):
            notes.append(f"{instance.users[i]}: one task fits no server; it gets no tasks")
    for k, left in enumerate(free):
        if any(f > 0 for f in left):
            notes.append(f"{names[k]}: left free <" + ", ".join(format_exact(f) for f in left) + ">")
    extra = {"order": [{"user": instance.users[i], "machine": names[k]} for i, k in order]}
    return Allocation("drfh-bestfit", instance, tasks, options=MappingProxyType({}), notes=tuple(notes),
                      extra=MappingProxyType(extra), placement=rows)


MECHANISM = register(
    Mechanism(
        name="drfh-bestfit",
        summary="Best-Fit DRFH (whole tasks): lowest global dominant share first, one task on the server whose "
                "normalised free capacity is l1-closest to its demand (lab's reading)",
        source="Wang, Liang & Li, INFOCOM 2014 (abstract; lab's reading of the heuristic)",
        allocate=allocate,
        spec=None,
        options={},
        discrete=True,
        scale_invariant=False, anonymous=False,
        module=__name__,
        setting="machines",
    )
)
