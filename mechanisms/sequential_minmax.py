"""SequentialMinMax (whole tasks, one pool, weights): Parkes, Procaccia & Shah, "Beyond Dominant Resource
Fairness: Extensions, Limitations, and Indivisibilities" (EC 2012; ACM TEAC 2015), as cited by the
lecture "Fair Division III" (the Procaccia & Psomas lecture, "Beyond DRF": indivisible tasks).

Lab's reading (the primary text was not available; the reading notes rate the definition medium/low):
repeatedly give one more task to the user whose weighted dominant share *after* receiving it,
``(x_i + 1) * sigma_i`` with ``sigma_i = max_r d_ir / (c_r w_ir)``, is smallest, among the users whose
next task still fits in what is left; stop when no user's next task fits. Ties: the lower user
index. (The DRF task loop, `drf-tasks`, ranks by the share *before* the task, x_i * sigma_i.)

Domain: one pool of divisible capacities, whole tasks, per-resource weights, task caps (rounded
down), zero demand entries allowed (sigma_i ignores them). A user whose single task exceeds a
capacity never runs (said in the notes). Because usage only grows, a user whose next task does not
fit never fits again: it leaves the competition for good, so the loop stops exactly when no task
of any user fits — the outcome is non-wasteful, hence Pareto optimal among whole-task allocations
(the impossibility of the lecture then costs it sharing incentive or strategyproofness; the audit
and the ledger say which, with the instance).

The symbolic specification (`spec`) states the outcome without simulating it. The key of user i's
j-th task (j >= 1) is (j sigma_i, i); tasks are tried in increasing key order, and user i's
(x_i + 1)-th key is where it stopped. At that moment user k had launched y_ik = min(x_k, number of
k's keys below i's) tasks, so: the allocation is feasible and integral, and every user that could
take another task (able, below its cap) has a resource r with sum_k d_kr y_ik + d_ir > c_r (with
y_ii = x_i). Conversely, by induction along the key order, an allocation with these properties is
the loop's outcome (every key j <= x_k fits, the load then being at most the final one; every key
x_k + 1 fails): the spec pins the allocation. Cost of the allocator: one step per task.
"""

from __future__ import annotations

import heapq
import math
from fractions import Fraction
from types import MappingProxyType

import z3

from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact
from fairlab.core.instance import Instance
from fairlab.mechanisms.base import Allocation, Constraint, Mechanism, SymbolicInstance, register, z3_max
from fairlab.mechanisms.drf_tasks import read_flag, task_notes

#: more task launches than this: refused (one step per task; the lab's instances are small)
MAX_STEPS = 1_000_000


def run(instance: Instance):
    """(tasks, trace, frozen): the loop task by task in Fractions; `frozen` lists (user, resource)
    in the order users were found unable to take their next task."""
    n, m = instance.n, instance.m
    caps = instance.capacities
    sigma = [instance.weighted_dominant_share_per_task(i) for i in range(n)]
    limit = [math.inf if t is None else math.floor(t) for t in instance.max_tasks]
    used = [Fraction(0)] * m
    tasks = [0] * n
    trace: list[int] = []
    frozen: list[tuple[int, int]] = []
    heap = [(sigma[i], i) for i in range(n)
            if limit[i] > 0 and all(instance.demands[i][r] <= caps[r] for r in range(m))]
    heapq.heapify(heap)
    while heap:
        _, i = heapq.heappop(heap)
        demand = instance.demands[i]
        over = next((r for r in range(m) if used[r] + demand[r] > caps[r]), None)
        if over is not None:
            frozen.append((i, over))
            continue
        used = [u + d for u, d in zip(used, demand)]
        tasks[i] += 1
        trace.append(i)
        if len(trace) > MAX_STEPS:
            raise InputError(f"sequential-minmax: more than {MAX_STEPS} tasks; instance too large for the "
                             "task-by-task loop")
        if tasks[i] < limit[i]:
            heapq.heappush(heap, ((tasks[i] + 1) * sigma[i], i))
    unused = [c - u for c, u in zip(caps, used)]
    return tasks, trace, frozen, unused


def allocate(instance: Instance, **options) -> Allocation:
    want_trace = read_flag(options, "trace")
    tasks, trace, frozen, unused = run(instance)
    notes = list(task_notes(instance))
    for i, r in frozen:
        notes.append(f"{instance.users[i]}'s next task does not fit ({instance.resources[r]}): it takes no more")
    if any(u > 0 for u in unused):
        notes.append("left unused: " + ", ".join(f"{format_exact(u)} {name}"
                                                 for u, name in zip(unused, instance.resources)))
    extra = {"frozen": [{"user": instance.users[i], "resource": instance.resources[r]} for i, r in frozen],
             "unused": list(unused)}
    if want_trace:
        extra["trace"] = [instance.users[i] for i in trace]
    return Allocation("sequential-minmax", instance, tuple(Fraction(t) for t in tasks),
                      options=MappingProxyType({}), notes=tuple(notes), extra=MappingProxyType(extra))


# --------------------------------------------------------------------------- symbolic side
def spec(sym: SymbolicInstance, tasks, trace=False) -> list:
    """The loop's outcome (module docstring): integral, feasible, and every user that could take
    another task was blocked when its next key came up."""
    n, m = sym.n, sym.m
    d, c = sym.demands, sym.capacities
    sig = [z3_max([d[i][r] / (c[r] * sym.weights[i][r]) for r in range(m)]) for i in range(n)]
    too_big = [z3.Or([d[i][r] > c[r] for r in range(m)]) for i in range(n)]
    out = [Constraint(f"sequential_minmax.integral[{i}]", z3.IsInt(tasks[i])) for i in range(n)]
    out += sym.feasibility(tasks, "sequential_minmax")
    out += [Constraint(f"sequential_minmax.too_big[{i}]", z3.Implies(too_big[i], tasks[i] == 0)) for i in range(n)]
    for i in range(n):
        room = [z3.Not(too_big[i])]
        if sym.max_tasks[i] is not None:
            room.append(tasks[i] + 1 <= sym.max_tasks[i])
        key = (tasks[i] + 1) * sig[i]
        launched = []
        for k in range(n):
            if k == i:
                launched.append(tasks[i])
                continue
            # k's keys j sig_k (j >= 1) before (key, i): j sig_k <= key if k < i, < key if k > i
            below = z3.ToInt(key / sig[k]) if k < i else -z3.ToInt(-key / sig[k]) - 1
            launched.append(z3.If(tasks[k] <= z3.ToReal(below), tasks[k], z3.ToReal(below)))
        blocked = z3.Or([z3.Sum([launched[k] * d[k][r] for k in range(n)]) + d[i][r] > c[r] for r in range(m)])
        out.append(Constraint(f"sequential_minmax.blocked[{i}]", z3.Implies(z3.And(room), blocked)))
    return out


MECHANISM = register(
    Mechanism(
        name="sequential-minmax",
        summary="SequentialMinMax (whole tasks): one task at a time to the user whose dominant share after it is "
                "smallest, among users whose next task fits (lab's reading)",
        source="Parkes, Procaccia & Shah, Beyond DRF (EC 2012), cited by the Procaccia-Psomas lecture; lab's reading",
        allocate=allocate,
        spec=spec,
        options={"trace": "true: also return who got each task, in order"},
        discrete=True,
        scale_invariant=False, anonymous=False,
        module=__name__,
    )
)
