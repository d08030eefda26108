"""DRF on several machines, whole tasks: the discrete placement of the DRF paper (§6.2, Theorem 7).

Source: Ghodsi et al., "Dominant Resource Fairness: Fair Allocation of Multiple Resource Types",
NSDI 2011, §6.2 ("Discrete resource allocation") and the proof of Theorem 7. A *max-task* is the
componentwise maximum of all users' demand vectors. The proof allocates on one machine at a time,
always to the user with the lowest dominant share — computed against the POOLED capacities (the sum of
all machines, `Instance.capacities`) — for as long as the current machine still has at least one
max-task free; when less than a max-task is left, it moves on to the next machine. Theorem 7: the
resulting dominant shares of any two users differ by at most the dominant share of one max-task
(`fairlab.properties.thm7_pairwise`), which the paper phrases as "within one max-task of the
continuous DRF allocation" (`fairlab.properties.thm7_continuous`).

Valuation model: pooled (`Mechanism.valuation`'s default): the DRF paper's resources on a machine
are divisible amounts, valued Leontief per machine (§6.2), so another user's bundle on a machine is
valued by pooling it there (`fairlab.properties._machines`).

Readings (the paper describes the procedure in one sentence; these are our choices, in the notes):

* machines are filled in the instance's order; ties of dominant share go to the lower user index;
* users at their task cap (``max_tasks``, rounded down) take no more tasks;
* a user whose single task fits NO machine can never run: it gets no tasks and is left out of the
  max-task (otherwise no machine could hold a max-task and nobody would run); said in the notes;
* ``fill``: ``literal`` (default) stops on a machine as soon as less than a max-task is free, as in
  the proof; ``greedy`` then keeps placing, on the same machine, tasks of the lowest-dominant-share
  user among those whose task still fits there, until no task of any user fits (then the next
  machine). ``greedy`` uses what ``literal`` wastes, at the price of Theorem 7's bound.

The symbolic specification (`spec`, ``fill=literal`` only; ``greedy`` raises InputError there) states
the literal placement without simulating it. The keys (j sigma_i, i) of the tasks (user i's j-th,
0-based; sigma_i its dominant share per task against the pooled capacities; ties to the lower
index) give ONE global launch order — the merged key order of `fairlab.mechanisms.drf_tasks.spec`
(tie "index") — and machine k receives a consecutive segment of it. With ``x[i][k]`` the z3 Int
placement unknowns (`SymbolicInstance.placement`) and ``C^k = sum_{l <= k} x[.][l]`` the cumulative
counts (C^0 = 0):

* x >= 0, integers; a user whose task fits no machine has none (``able``); caps C^K_i <= max_tasks_i;
  `tasks[i]` = C^K_i; machine k's load within its capacity;
* each C^k is a prefix of the key order over the tasks still allowed (able, below the cap):
  drf_tasks' prefix constraints on C^k;
* machine k's segment is as long as the loop makes it: either it is empty or, before its last
  (largest-key) task, a max-task (of the able users) was free on machine k; and after it either
  less than a max-task is free on machine k, or no user may take another task (all capped or
  unable). Loads only grow along a segment, so a max-task was free before each of its tasks, and
  every task fits (its demand is at most the max-task).

Given the instance's numbers this pins the placement (the prefix of a strict total order is fixed
by its length, and the segment's length is the first point where the loop stops);
`fairlab.mechanisms.conformance` checks it against this allocator, placement included.

Example (``fairlab/examples/machines-two-servers.json``): machines <4 CPU, 8 GB> and <6, 4>, A <1, 2>,
B <2, 1>; pooled capacities <10, 12>, so one task of A is a dominant share 1/6, one of B 1/5; the
max-task is <2, 2>. Machine 1: A (tie at 0, lower index), B (0 < 1/6); <1, 5> is left, less than a
max-task: next machine. Machine 2: A (1/6 < 1/5), B (1/5 < 1/3); <3, 1> is left: the end. A and B
run 2 tasks each, one on each machine; ``fill=greedy`` runs 3 each.
"""

from __future__ import annotations

import math
from fractions import Fraction
from types import MappingProxyType

import z3

from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact
from fairlab.core.instance import Instance
from fairlab.mechanisms.base import Allocation, Constraint, Mechanism, SymbolicInstance, choice, register, z3_max

FILLS = ("literal", "greedy")

#: more task placements than this: refused (one placement per step; the lab's instances are small)
MAX_STEPS = 200_000


def fits(free, demand) -> bool:
    return all(d <= f for d, f in zip(demand, free))


def runnable(instance: Instance, i: int) -> bool:
    """User i's single task fits on at least one machine."""
    return any(fits(machine, instance.demands[i]) for machine in instance.machines or ())


def share_per_task(instance: Instance, i: int) -> Fraction:
    """max_r d_ir / C_r against the pooled capacities C (a resource no machine has counts only if
    the user needs none of it; a user needing it is not runnable anyway)."""
    caps = instance.capacities
    return max((instance.demands[i][r] / caps[r] for r in range(instance.m) if caps[r] > 0), default=Fraction(0))


def max_task(instance: Instance, users) -> tuple[Fraction, ...]:
    """Componentwise maximum of the demand vectors of `users` (all zeros if none)."""
    return tuple(max((instance.demands[i][r] for i in users), default=Fraction(0)) for r in range(instance.m))


def whole_cap(instance: Instance, i: int):
    cap = instance.max_tasks[i]
    return None if cap is None else math.floor(cap)


def place(instance: Instance, fill: str = "literal"):
    """The placement (placement[i][k] tasks of user i on machine k), the max-task, the users left out."""
    if instance.machines is None:
        raise InputError("drf-machines: the instance lists no machines")
    n, k_count = instance.n, instance.k
    able = [i for i in range(n) if runnable(instance, i)]
    left_out = [i for i in range(n) if i not in able]
    big = max_task(instance, able)
    sigma = [share_per_task(instance, i) for i in range(n)]
    caps = [whole_cap(instance, i) for i in range(n)]
    counts = [0] * n
    placement = [[0] * k_count for _ in range(n)]
    steps = 0

    def active(i):
        return i in able and (caps[i] is None or counts[i] < caps[i])

    for k, machine in enumerate(instance.machines):
        free = list(machine)
        while True:
            if fits(free, big):
                candidates = [i for i in range(n) if active(i)]
            elif fill == "greedy":
                candidates = [i for i in range(n) if active(i) and fits(free, instance.demands[i])]
            else:
                break
            if not candidates:
                break
            i = min(candidates, key=lambda u: (counts[u] * sigma[u], u))
            counts[i] += 1
            placement[i][k] += 1
            free = [f - d for f, d in zip(free, instance.demands[i])]
            steps += 1
            if steps > MAX_STEPS:
                raise InputError(f"drf-machines: more than {MAX_STEPS} task placements; instance too large for the "
                                 "task-by-task placement")
    return placement, big, left_out


def allocate(instance: Instance, **options) -> Allocation:
    fill = choice(options, "fill", FILLS, "literal")
    placement, big, left_out = place(instance, fill)
    rows = tuple(tuple(Fraction(x) for x in row) for row in placement)
    tasks = tuple(sum(row, Fraction(0)) for row in rows)
    notes = []
    for i in left_out:
        notes.append(f"{instance.users[i]}: one task fits no machine; it gets no tasks and is left out of the max-task")
    notes.append("max-task <" + ", ".join(format_exact(x) for x in big) + ">")
    names = instance.machine_names or ()
    for k, machine in enumerate(instance.machines or ()):
        used = [sum((rows[i][k] * instance.demands[i][r] for i in range(instance.n)), Fraction(0))
                for r in range(instance.m)]
        free = [c - u for c, u in zip(machine, used)]
        if any(f > 0 for f in free):
            notes.append(f"{names[k]}: left free <" + ", ".join(format_exact(f) for f in free) + ">")
    return Allocation(
        "drf-machines",
        instance,
        tasks,
        options=MappingProxyType({"fill": fill}),
        notes=tuple(notes),
        extra=MappingProxyType({"max_task": list(big), "left_out": [instance.users[i] for i in left_out]}),
        placement=rows,
    )


# --------------------------------------------------------------------------- symbolic side
def spec(sym: SymbolicInstance, tasks, fill="literal") -> list:
    """The literal placement (module docstring): prefixes of one key order, segments ended by the max-task."""
    if choice({"fill": fill}, "fill", FILLS, "literal") != "literal":
        raise InputError("option fill: the symbolic spec of drf-machines covers 'literal' only")
    if sym.machines is None:
        raise InputError("drf-machines: the symbolic instance lists no machines")
    n, m, count = sym.n, sym.m, sym.k
    d, machines = sym.demands, sym.machines
    x = sym.placement(tasks)
    sigma = [z3_max([d[i][r] / sym.capacities[r] for r in range(m)]) for i in range(n)]
    able = [z3.Or([z3.And([d[i][r] <= machines[k][r] for r in range(m)]) for k in range(count)]) for i in range(n)]
    big = [z3_max([z3.If(able[i], d[i][r], 0) for i in range(n)]) for r in range(m)]
    cum = []  # cum[k][i] = C^{k+1}_i
    for k in range(count):
        cum.append([z3.Sum([x[i][q] for q in range(k + 1)]) for i in range(n)])

    def can_more(i, c):
        room = [able[i]]
        if sym.max_tasks[i] is not None:
            room.append(c + 1 <= sym.max_tasks[i])
        return z3.And(room)

    def before(i, j_i, o, j_o):
        """key (j_i sigma_i, i) < key (j_o sigma_o, o)"""
        share_i, share_o = j_i * sigma[i], j_o * sigma[o]
        return z3.Or(share_i < share_o, z3.And(share_i == share_o, z3.BoolVal(i < o)))

    out: list[Constraint] = []
    for i in range(n):
        out += [Constraint(f"drf_machines.nonneg[{i}][{k}]", x[i][k] >= 0) for k in range(count)]
        out.append(Constraint(f"drf_machines.unable[{i}]",
                              z3.Implies(z3.Not(able[i]), z3.And([x[i][k] == 0 for k in range(count)]))))
        if sym.max_tasks[i] is not None:
            out.append(Constraint(f"drf_machines.cap[{i}]", cum[-1][i] <= sym.max_tasks[i]))
        out.append(Constraint(f"drf_machines.tasks[{i}]", tasks[i] == z3.ToReal(cum[-1][i])))
    for k in range(count):
        c = cum[k]
        load = [z3.Sum([x[i][k] * d[i][r] for i in range(n)]) for r in range(m)]
        out += [Constraint(f"drf_machines.capacity[{k}][{r}]", load[r] <= machines[k][r]) for r in range(m)]
        for i in range(n):
            for o in range(n):
                if i != o:
                    out.append(Constraint(f"drf_machines.prefix[{k}][{i},{o}]", z3.Implies(
                        z3.And(c[i] >= 1, can_more(o, c[o])), before(i, c[i] - 1, o, c[o]))))
        # the segment's last task: the placed task of the largest key; a max-task was free before it
        last = [z3.And(x[i][k] >= 1,
                       *[z3.Implies(x[o][k] >= 1, before(o, c[o] - 1, i, c[i] - 1)) for o in range(n) if o != i],
                       *[load[r] - d[i][r] + big[r] <= machines[k][r] for r in range(m)])
                for i in range(n)]
        empty = z3.And([x[i][k] == 0 for i in range(n)])
        out.append(Constraint(f"drf_machines.segment_valid[{k}]", z3.Or(empty, *last)))
        no_max_task = z3.Or([load[r] + big[r] > machines[k][r] for r in range(m)])
        exhausted = z3.Not(z3.Or([can_more(i, c[i]) for i in range(n)]))
        out.append(Constraint(f"drf_machines.segment_ends[{k}]", z3.Or(no_max_task, exhausted)))
    return out


MECHANISM = register(
    Mechanism(
        name="drf-machines",
        summary="DRF on several machines (whole tasks): fill machine by machine, lowest pooled dominant share first, "
                "while a max-task fits",
        source="DRF paper (Ghodsi et al., NSDI 2011) §6.2 and the proof of Theorem 7",
        allocate=allocate,
        spec=spec,
        options={"fill": "literal (stop when less than a max-task is free, the proof of Theorem 7) | greedy "
                         "(then keep placing whatever still fits)"},
        discrete=True,
        scale_invariant=False, anonymous=False,
        module=__name__,
        setting="machines",
    )
)
