"""Agents over time (Kash, Procaccia & Shah's dynamic model): shared hand-computed instances and
deliberately broken dynamic mechanisms the properties must catch."""

from __future__ import annotations

from fractions import Fraction

from fairlab.core.instance import Instance
from fairlab.mechanisms import _dynamic
from fairlab.mechanisms.base import Allocation, Mechanism, Step

F = Fraction

#: capacities <1, 1>, A <1, 1/2>, B <1/2, 1>, arrivals A, B (dynamic_drf's docstring example)
TWO = {"capacities": [1, 1], "demands": [[1, "1/2"], ["1/2", 1]], "users": ["A", "B"], "arrivals": ["A", "B"]}
#: caps <2, 2>, u1 <0,1>, u2 <0,1>, u3 <1,0>: zero demands, outside KPS's model: dynamic-drf declines it
#: (its single water level would leave u3 short of DPO, a fact about an extension, not about KPS's mechanism)
ZERO = {"capacities": [2, 2], "demands": [[0, 1], [0, 1], [1, 0]], "arrivals": [0, 1, 2]}
#: caps <1, 1>, A <1, 1/10>, B <1/10, 1>, C <1, 1/10>: C envies A, excused by KPS (A earlier, unchanged since)
EXCUSED = {"capacities": [1, 1], "demands": [[1, "1/10"], ["1/10", 1], [1, "1/10"]], "users": ["A", "B", "C"],
           "arrivals": ["A", "B", "C"]}


def broken(name: str, rule) -> Mechanism:
    """A dynamic mechanism whose tasks after each event are rule(instance, present, k) (k arrivals)."""

    def allocate(instance: Instance) -> Allocation:
        present: list[int] = []
        steps = []
        arrived = 0
        for kind, i in instance.events:
            if kind == "arrive":
                present.append(i)
                arrived += 1
            else:
                present.remove(i)
            tasks = rule(instance, sorted(present), arrived)
            steps.append(Step((kind, i), tuple(sorted(present)), tuple(tasks)))
        return Allocation(name, instance, steps[-1].tasks, steps=tuple(steps),
                          extra=_dynamic.with_ratio(instance, steps))

    return Mechanism(name=name, summary="test", source="test", allocate=allocate, setting="dynamic")


def fair_share(instance, i):
    return min(c / instance.n / d for c, d in zip(instance.capacities, instance.demands[i]) if d > 0)


def latest_first(instance, present, arrived):
    """Gives the last arrival its fair share, everyone else half of theirs: SI and DEF fail."""
    last = instance.arrivals[arrived - 1]
    return [fair_share(instance, i) if i == last else (fair_share(instance, i) / 2 if i in present else F(0))
            for i in range(instance.n)]


def rewards_second_resource(instance, present, arrived):
    """Half the fair share, doubled for a user declaring r2 >= 2 r1: declaring more r2 pays."""
    out = []
    for i in range(instance.n):
        d = instance.demands[i]
        t = fair_share(instance, i) / 2 * (2 if d[1] >= 2 * d[0] else 1) if i in present else F(0)
        out.append(t)
    return out
