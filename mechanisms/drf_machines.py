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

Readings (the paper describes the procedure in one sentence; these are our choices, in the notes):

* machines are filled in the instance's order; ties of dominant share go to the lower user index;
* users at their task cap (``max_tasks``, rounded down) take no more tasks;
* a user whose single task fits NO machine can never run: it gets no tasks and is left out of the
  max-task (otherwise no machine could hold a max-task and nobody would run); said in the notes;
* ``fill``: ``literal`` (default) stops on a machine as soon as less than a max-task is free, as in
  the proof; ``greedy`` then keeps placing, on the same machine, tasks of the lowest-dominant-share
  user among those whose task still fits there, until no task of any user fits (then the next
  machine). ``greedy`` uses what ``literal`` wastes, at the price of Theorem 7's bound.

No symbolic specification: the machine switches depend on the order of intermediate states (a
data-dependent number of steps per machine), which has no closed form to write as z3 constraints;
every verdict about it is computed exactly from this allocator (Fractions).

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

from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact
from fairlab.core.instance import Instance
from fairlab.mechanisms.base import Allocation, Mechanism, choice, register

FILLS = ("literal", "greedy")

#: more task placements than this: refused (one placement per step; the lab's instances are small)
MAX_STEPS = 200_000


def fits(free, demand) -> bool:
    return all(d <= f for d, f in zip(demand, free))


def runnable(instance: Instance, i: int) -> bool:
    """User i's single task fits on at least one machine."""
    return any(fits(machine, instance.demands[i]) for machine in instance.machines)


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
    for k, machine in enumerate(instance.machines):
        used = [sum((rows[i][k] * instance.demands[i][r] for i in range(instance.n)), Fraction(0))
                for r in range(instance.m)]
        free = [c - u for c, u in zip(machine, used)]
        if any(f > 0 for f in free):
            notes.append(f"{instance.machine_names[k]}: left free <" + ", ".join(format_exact(f) for f in free) + ">")
    return Allocation(
        "drf-machines",
        instance,
        tasks,
        options=MappingProxyType({"fill": fill}),
        notes=tuple(notes),
        extra=MappingProxyType({"max_task": list(big), "left_out": [instance.users[i] for i in left_out]}),
        placement=rows,
    )


MECHANISM = register(
    Mechanism(
        name="drf-machines",
        summary="DRF on several machines (whole tasks): fill machine by machine, lowest pooled dominant share first, "
                "while a max-task fits",
        source="DRF paper (Ghodsi et al., NSDI 2011) §6.2 and the proof of Theorem 7",
        allocate=allocate,
        spec=None,
        options={"fill": "literal (stop when less than a max-task is free, the proof of Theorem 7) | greedy "
                         "(then keep placing whatever still fits)"},
        discrete=True,
        scale_invariant=False, anonymous=False,
        module=__name__,
        setting="machines",
    )
)
