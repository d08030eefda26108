"""Best-Fit DRFH: the whole-task heuristic of Wang, Li & Liang ("Dominant Resource Fairness in Cloud
Computing Systems with Heterogeneous Servers", INFOCOM 2014) that implements DRFH (`drfh`) in practice,
by the paper's fitness rule.

Reading (the reading notes rate the rule medium, corrected to the paper's shape rule; only the abstract
was read, so this is the **lab's reading**): capacities and demands are normalised by the pool's totals
C (the sum of the servers), D_ir = d_ir / C_r, and c̄_lr = free_lr / C_r is what is still free on
server l. Repeat:

1. pick the user with the lowest global dominant share (its placed tasks times
   sigma_i = max_r D_ir; unit weights: the instance format has none with machines) among the users that
   can still place a task;
2. place one of its tasks on the feasible server l (the task fits in what is free) minimising the
   fitness H(i, l) = || D_i / D_i1 - c̄_l / c̄_l1 ||_1 — each vector divided by its first component,
   so H compares the SHAPE of the task with the shape of what is left, not their amounts.

Ties: the lower user index, then the lower server index (a fixed, documented order). A user whose task
fits no server (or that reached its cap) takes no more (free capacity only shrinks, so it never fits
again); the loop ends when no user can place a task.

Zero first component (the lab's decision; the paper's users need every resource): when D_i1 = 0 the
division by D_i1 is undefined, so both vectors are divided by their component at the task's first
resource with d_ir > 0 instead (the first resource itself whenever D_i1 > 0, i.e. the paper's rule).
On a feasible server that component of c̄_l is at least the task's, hence positive, so H is always
defined. Resources no server has (C_r = 0) are left out (a user needing one fits nowhere).

On the paper's example (servers <2 CPU, 12 GB> and <12 CPU, 2 GB>; users <0.2, 1> and <1, 0.2>) each
user goes to the server of its shape: 10 tasks each, as DRFH. The amounts rule the lab used before
(`drfh-bestfit-amounts`, the lab's variant) gives 6 each there. `drfh-firstfit` is First-Fit beside it.

Domain: the machines setting (`Instance.machines`), whole tasks, zero demand entries allowed, task caps
(rounded down), unit weights. Valuation model: pooled (DRFH's: a user's utility is the sum over servers
of its Leontief utility there; `fairlab.properties._machines`). Exact (Fractions). Cost: one step per
task (n * k work each). No z3 spec: the server chosen at each step depends on the remaining capacities
along the way (numeric only).
"""

from __future__ import annotations

import math
from fractions import Fraction
from types import MappingProxyType
from typing import Callable, Sequence

from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact
from fairlab.core.instance import Instance
from fairlab.mechanisms.base import Allocation, Mechanism, register
from fairlab.mechanisms.drfh import global_sigma

#: more task placements than this: refused (one placement per step; the lab's instances are small)
MAX_STEPS = 200_000

#: a server rule: (instance, user, free capacities per server, feasible servers) -> the chosen server
Rule = Callable[[Instance, int, Sequence[Sequence[Fraction]], Sequence[int]], int]


def fits(free, demand) -> bool:
    return all(d <= f for d, f in zip(demand, free))


def reference(instance: Instance, i: int) -> int:
    """The resource both vectors of H are divided by: the first one (the paper's), or the task's first
    resource with a positive demand when the first is zero (the lab's decision; see the module docstring)."""
    pool = instance.capacities
    return next(r for r in range(instance.m) if instance.demands[i][r] > 0 and pool[r] > 0)


def fitness(instance: Instance, i: int, free) -> Fraction:
    """H(i, l) = || D_i / D_iρ - c̄_l / c̄_lρ ||_1 on normalised vectors (ρ = `reference`), exact."""
    pool, demand = instance.capacities, instance.demands[i]
    rho = reference(instance, i)
    task = [demand[r] / pool[r] / (demand[rho] / pool[rho]) if pool[r] > 0 else Fraction(0) for r in range(instance.m)]
    left = [free[r] / pool[r] / (free[rho] / pool[rho]) if pool[r] > 0 else Fraction(0) for r in range(instance.m)]
    return sum((abs(a - b) for a, b in zip(task, left)), Fraction(0))


def best_fit(instance: Instance, i: int, free, servers) -> int:
    """The feasible server of least fitness H (ties: the lower index)."""
    return min(servers, key=lambda k: (fitness(instance, i, free[k]), k))


def place(instance: Instance, rule: Rule, who: str):
    """(placement, order, free): the DRFH task loop with the server `rule` — lowest global dominant share
    first (ties: lower index), one whole task per step on the server the rule picks among the feasible ones."""
    if instance.machines is None:
        raise InputError(f"{who}: the instance lists no machines")
    n, k_count = instance.n, instance.k
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
        servers = [k for k in range(k_count) if fits(free[k], demand)]
        if not servers:
            active.remove(i)
            continue
        k = rule(instance, i, free, servers)
        free[k] = [f - d for f, d in zip(free[k], demand)]
        placement[i][k] += 1
        counts[i] += 1
        order.append((i, k))
        if counts[i] >= limit[i]:
            active.remove(i)
        if len(order) > MAX_STEPS:
            raise InputError(f"{who}: more than {MAX_STEPS} task placements; instance too large for the "
                             "task-by-task heuristic")
    return placement, order, free


def allocation(name: str, instance: Instance, rule: Rule, notes_first: Sequence[str] = ()) -> Allocation:
    """The `Allocation` of the task loop with `rule`: the placement, the order of the steps, what is left."""
    placement, order, free = place(instance, rule, name)
    rows = tuple(tuple(Fraction(x) for x in row) for row in placement)
    tasks = tuple(sum(row, Fraction(0)) for row in rows)
    notes = list(notes_first)
    names = instance.machine_names or ()
    for i in range(instance.n):
        if not any(fits(machine, instance.demands[i]) for machine in instance.machines or ()):
            notes.append(f"{instance.users[i]}: one task fits no server; it gets no tasks")
    for k, left in enumerate(free):
        if any(f > 0 for f in left):
            notes.append(f"{names[k]}: left free <" + ", ".join(format_exact(f) for f in left) + ">")
    extra = {"order": [{"user": instance.users[i], "machine": names[k]} for i, k in order]}
    return Allocation(name, instance, tasks, options=MappingProxyType({}), notes=tuple(notes),
                      extra=MappingProxyType(extra), placement=rows)


def allocate(instance: Instance, **options) -> Allocation:
    return allocation("drfh-bestfit", instance, best_fit)


MECHANISM = register(
    Mechanism(
        name="drfh-bestfit",
        summary="Best-Fit DRFH (whole tasks): lowest global dominant share first, one task on the feasible server "
                "whose free capacity has the shape closest to the task's, H = ||D_i/D_i1 - c_l/c_l1||_1 (lab's "
                "reading of the paper's rule)",
        source="Wang, Li & Liang, INFOCOM 2014 (abstract; lab's reading of the Best-Fit heuristic's fitness rule)",
        allocate=allocate,
        spec=None,
        options={},
        discrete=True,
        scale_invariant=False, anonymous=False,
        module=__name__,
        setting="machines",
    )
)
