"""The DRF task loop: Algorithm 1 of the DRF paper (Ghodsi et al., NSDI 2011, §4.2), whole tasks.

Repeatedly launch one task of the user with the lowest (weighted, §4.3) dominant share, if it
fits. Example (§4.1, the paper's Table 1 trace): <9 CPU, 18 GB>, A <1, 4>, B <3, 1> -> launches
B, A, A, B, A and ends with A 3 tasks, B 2 tasks.

Options
* ``tie``: ``paper`` (default) breaks equal shares in favour of the larger per-task dominant share,
  then the lower index — the rule that reproduces Table 1 (PDRF paper §3.1 spells it out);
  ``index``: lowest user index.
* ``on_blocked``: ``stop`` (default) ends the loop when the chosen user's next task does not fit,
  as printed in Algorithm 1 and as in the PDRF experiments; ``skip`` freezes that user and lets the
  others continue — the Pareto fix of PDRF §6.2 (<59, 19>, A <1, 4>, B <3, 1>: ``stop`` leaves
  <33, 3> unused, ``skip`` gives B three more tasks).
* ``method``: ``fast`` (default) computes the loop's final allocation without simulating it (see
  `fairlab.mechanisms._drf_loop`: binary search of the share level, ties resolved exactly; cost logarithmic in
  the capacities); ``loop`` runs Algorithm 1 task by task in Fractions. Both give the identical
  allocation for every option (tests/mechanisms/test_drf_tasks.py checks it on random instances).
* ``trace``: also return who got each task, in launch order (``extra["trace"]``).

Task caps (``max_tasks``) are honoured, rounded down to whole tasks. A user whose single task
exceeds a capacity can never run and gets no tasks (said in the notes); it does not stop the loop.
"""

from __future__ import annotations

from fractions import Fraction
from types import MappingProxyType

import z3

from fairlab.core.errors import InputError, OptionError
from fairlab.core.exact import format_exact
from fairlab.core.instance import Instance
from fairlab.mechanisms._drf_loop import fast_loop, reference_loop
from fairlab.mechanisms._task_problem import from_instance
from fairlab.mechanisms.base import Allocation, Constraint, Mechanism, SymbolicInstance, choice, register, z3_max

TIES = ("paper", "index")
ON_BLOCKED = ("stop", "skip")
METHODS = ("fast", "loop")


def read_flag(options, key: str) -> bool:
    value = options.get(key, False)
    if not isinstance(value, bool):
        raise OptionError(f"option {key}: expected true or false, got {value!r}")
    return value


def allocate(instance: Instance, **options) -> Allocation:
    tie = choice(options, "tie", TIES, "paper")
    on_blocked = choice(options, "on_blocked", ON_BLOCKED, "stop")
    method = choice(options, "method", METHODS, "fast")
    want_trace = read_flag(options, "trace")
    if method == "loop":
        outcome = reference_loop(instance, tie, on_blocked, want_trace)
        too_big = None
    else:
        problem = from_instance(instance)
        outcome = fast_loop(problem, tie, on_blocked, want_trace)
        too_big = problem.too_big
    tasks = tuple(Fraction(t) for t in outcome.counts)
    unused = tuple(outcome.unused)
    notes = list(task_notes(instance, too_big))
    for i, r in outcome.blocked:
        what = "the loop stops" if on_blocked == "stop" else f"{instance.users[i]} is frozen"
        notes.append(
            f"{instance.users[i]}'s next task does not fit ({instance.resources[r]}): {what}"
        )
    if any(u > 0 for u in unused):
        left = ", ".join(f"{format_exact(u)} {name}" for u, name in zip(unused, instance.resources))
        notes.append(f"left unused: {left}")
    extra = {
        "blocked": [{"user": instance.users[i], "resource": instance.resources[r]} for i, r in outcome.blocked],
        "unused": list(unused),
    }
    if want_trace:
        extra["trace"] = [instance.users[i] for i in outcome.trace or ()]
    return Allocation(
        "drf-tasks",
        instance,
        tasks,
        options=MappingProxyType({"tie": tie, "on_blocked": on_blocked, "method": method}),
        notes=tuple(notes),
        extra=MappingProxyType(extra),
    )


def task_notes(instance: Instance, too_big=None):
    """Notes shared by the discrete schedulers: users that can never run, fractional caps.
    `too_big`: the users known to have a task exceeding a capacity (found here if None)."""
    candidates = range(instance.n) if too_big is None else too_big
    for i in candidates:
        for r in range(instance.m):
            if instance.demands[i][r] > instance.capacities[r]:
                yield (
                    f"{instance.users[i]}: one task needs {format_exact(instance.demands[i][r])} "
                    f"{instance.resources[r]} but the capacity is {format_exact(instance.capacities[r])};"
                    " it gets no tasks"
                )
                break
    for i, cap in enumerate(instance.max_tasks):
        if cap is not None and cap.denominator != 1:
            yield (f"{instance.users[i]}: task cap {format_exact(cap)}"
                   f" counts as {cap.numerator // cap.denominator} whole tasks")


# --------------------------------------------------------------------------- symbolic side
def spec(sym: SymbolicInstance, tasks, tie="paper", on_blocked="stop", method="fast", trace=False) -> list:
    """The outcome of the loop with ``on_blocked=stop`` (any instance, numerals or unknowns).

    Integral and feasible; users whose task exceeds a capacity get nothing; the launched tasks are
    a prefix of the merged key order (every launched key precedes every next key: key of user i's
    task j is (j sigma_i, tie-break)); and either every user is capped/excluded or the user with the
    smallest next key does not fit. The longest feasible prefix is unique, so this pins the
    allocation. ``skip`` has no spec here: its freezes depend on the order of intermediate states,
    which this prefix form does not capture (use it numerically)."""
    choice({"tie": tie}, "tie", TIES, "paper")
    if choice({"on_blocked": on_blocked}, "on_blocked", ON_BLOCKED, "stop") != "stop":
        raise InputError("option on_blocked: the symbolic spec of drf-tasks covers 'stop' only")
    n, m = sym.n, sym.m
    sig = [z3_max([sym.demands[i][r] / (sym.capacities[r] * sym.weights[i][r]) for r in range(m)]) for i in range(n)]
    too_big = [z3.Or([sym.demands[i][r] > sym.capacities[r] for r in range(m)]) for i in range(n)]
    can_more = []
    for i in range(n):
        room = [z3.Not(too_big[i])]
        if sym.max_tasks[i] is not None:
            room.append(tasks[i] + 1 <= sym.max_tasks[i])
        can_more.append(z3.And(room))

    def before(i, j_i, k, j_k):
        share_i, share_k = j_i * sig[i], j_k * sig[k]
        tie_i_first = z3.BoolVal(i < k)
        if tie == "paper":
            tie_i_first = z3.Or(sig[i] > sig[k], z3.And(sig[i] == sig[k], tie_i_first))
        return z3.Or(share_i < share_k, z3.And(share_i == share_k, tie_i_first))

    out = [Constraint(f"drf_tasks.integral[{i}]", z3.IsInt(tasks[i])) for i in range(n)]
    out += sym.feasibility(tasks, "drf_tasks")
    out += [Constraint(f"drf_tasks.too_big[{i}]", z3.Implies(too_big[i], tasks[i] == 0)) for i in range(n)]
    for i in range(n):
        for k in range(n):
            if i != k:
                out.append(
                    Constraint(
                        f"drf_tasks.prefix[{i},{k}]",
                        z3.Implies(z3.And(tasks[i] >= 1, can_more[k]), before(i, tasks[i] - 1, k, tasks[k])),
                    )
                )
    stops = [z3.Not(z3.Or(can_more))]
    for k in range(n):
        first = [z3.Implies(can_more[o], before(k, tasks[k], o, tasks[o])) for o in range(n) if o != k]
        no_fit = z3.Or([sym.load(tasks, r) + sym.demands[k][r] > sym.capacities[r] for r in range(m)])
        stops.append(z3.And(can_more[k], *first, no_fit))
    out.append(Constraint("drf_tasks.stopped", z3.Or(stops)))
    return out


MECHANISM = register(
    Mechanism(
        name="drf-tasks",
        summary="DRF task loop (whole tasks): launch a task of the lowest dominant share user until blocked",
        source="DRF paper §4.2 Algorithm 1, Table 1; PDRF paper §3.1 (tie rule), §6.2 (skip)",
        allocate=allocate,
        spec=spec,
        aliases=("drf-loop",),
        options={
            "tie": "paper (larger per-task dominant share first, Table 1) | index",
            "on_blocked": "stop (Algorithm 1 as printed) | skip (freeze the user, PDRF §6.2)",
            "method": "fast (exact closed form, default) | loop (task by task)",
            "trace": "true: also return the launch order",
        },
        discrete=True,
        # not declared (the safe default): whole tasks against absolute capacities, ties broken by user index
        scale_invariant=False, anonymous=False,
        module=__name__,
    )
)
