"""drf-rerun: static DRF of the users present, recomputed after every event (a COMPARATOR, not a
dynamic mechanism in Kash, Procaccia & Shah's sense).

After each arrival or departure, the allocation is the static DRF allocation (Ghodsi et al., NSDI
2011, §4, progressive filling of appendix A.1; `fairlab.mechanisms.drf`) of the users then
present, on the whole capacities. It takes resources back freely (an arrival lowers the others'
shares), so it is *not* irrevocable: it violates ``no-takeback`` whenever a newcomer shares a
resource with earlier users. It is the "ideal" of the lecture's fairness ratio (its own ratio is
always 1) and the benchmark researchers compare dynamic mechanisms against. It handles departures.

Example: capacities <1, 1>, demands A <1, 1/2>, B <1/2, 1>, arrivals A, B: step 1 A alone gets
1 task (its first resource full); step 2 DRF gives both 2/3 — A lost 1/3 task.

The spec (`spec`) states the same run for z3, step by step in the representation of
`fairlab.mechanisms.dynamic_drf.spec` (fresh unknowns per step named after `tasks`; the symbolic
instance's ``events``, else its ``arrivals`` in order, else the users in index order, all arriving):
after event t, the unknowns y^t_i of the users absent then are 0 and those of the users present
satisfy static DRF's own spec (`fairlab.mechanisms.drf.spec`: the bottleneck characterisation of
progressive filling) on the sub-instance of the present users; `tasks` are the last step's y.
"""

from __future__ import annotations

import z3

from fairlab.core.instance import Instance
from fairlab.mechanisms import _dynamic, drf
from fairlab.mechanisms.base import Allocation, Constraint, Mechanism, Step, SymbolicInstance, register

NAME = "drf-rerun"


def allocate(instance: Instance) -> Allocation:
    events = _dynamic.dynamic_events(instance, NAME)
    present: list[int] = []
    steps = []
    for kind, i in events:
        if kind == "arrive":
            present.append(i)
        else:
            present.remove(i)
        steps.append(Step((kind, i), tuple(sorted(present)), _dynamic.static_drf(instance, present)))
    return Allocation(NAME, instance, steps[-1].tasks, extra=_dynamic.with_ratio(instance, steps), steps=tuple(steps))


def step_unknowns(tasks, t: int) -> list:
    """The spec's unknowns of step t (1-based): user i's tasks after the t-th event."""
    tag = str(tasks[0]) if len(tasks) else "t"
    return [z3.Real(f"{tag}.rerun.y{t}_{i}") for i in range(len(tasks))]


def spec(sym: SymbolicInstance, tasks) -> list:
    """Static DRF of the users present after every event, absent users 0 (module docstring)."""
    n = sym.n
    events = sym.events if sym.events is not None else [("arrive", i) for i in (sym.arrivals or range(n))]
    out: list[Constraint] = []
    present: set[int] = set()
    last = [z3.RealVal(0)] * n
    for t, (kind, user) in enumerate(events, start=1):
        present = present | {user} if kind == "arrive" else present - {user}
        y = step_unknowns(tasks, t)
        out += [Constraint(f"{NAME}.absent[{t}][{i}]", y[i] == 0) for i in range(n) if i not in present]
        keep = sorted(present)
        if keep:
            sub = SymbolicInstance(capacities=sym.capacities, demands=[sym.demands[i] for i in keep],
                                   weights=[sym.weights[i] for i in keep], max_tasks=[sym.max_tasks[i] for i in keep])
            out += [Constraint(f"{NAME}.step[{t}].{c.name}", c.expr) for c in drf.spec(sub, [y[i] for i in keep])]
        last = y
    out += [Constraint(f"{NAME}.tasks[{i}]", tasks[i] == last[i]) for i in range(n)]
    return out


MECHANISM = register(
    Mechanism(
        name=NAME,
        summary="comparator: static DRF of the users present, recomputed after each arrival/departure (takes "
                "back freely; the fairness ratio's ideal)",
        source="DRF paper §4 / appendix A.1, rerun per event (comparator for Kash, Procaccia & Shah 2014)",
        allocate=allocate,
        spec=spec,
        scale_invariant=True, anonymous=True,
        module=__name__,
        setting="dynamic",
    )
)
