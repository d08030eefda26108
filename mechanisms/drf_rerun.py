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
"""

from __future__ import annotations

from fairlab.core.instance import Instance
from fairlab.mechanisms import _dynamic
from fairlab.mechanisms.base import Allocation, Mechanism, Step, register

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


MECHANISM = register(
    Mechanism(
        name=NAME,
        summary="comparator: static DRF of the users present, recomputed after each arrival/departure (takes "
                "back freely; the fairness ratio's ideal)",
        source="DRF paper §4 / appendix A.1, rerun per event (comparator for Kash, Procaccia & Shah 2014)",
        allocate=allocate,
        scale_invariant=True, anonymous=True,
        module=__name__,
        setting="dynamic",
    )
)
