"""controlled-drf: dynamic fair division with at most d disruptions per arrival — the lab's reading of
Friedman, Psomas & Vardi ("Dynamic fair division with minimal disruptions", EC 2015; "Controlled
dynamic fair division", EC 2017), cited by the Procaccia & Psomas lecture ("when an agent arrives we can take
resources from a fixed number of agents").

Only the abstracts were readable (reading notes: the papers' optimal "harmonic" mechanisms and their
ratios could not be read, [L]); this is the natural mechanism, NOT the papers' optimal one. Agents
arrive and depart (`Instance.events`); demands are Leontief (one divisible resource first, several
allowed); x_i is agent i's dominant share (tasks times the dominant share of one task).

* Arrival of agent a: the ``d`` present agents with the LARGEST dominant shares (ties: the lower
  index) are disrupted; the others keep their bundles. The newcomer and the disrupted agents share
  what the others leave (capacities minus their use) by progressive filling on dominant shares (DRF,
  DRF paper appendix A.1), each disrupted agent capped at what it had: it can only lose, the
  newcomer gets the max-min fair share of that pool.
* Departure of agent a: its bundle is freed; the ``d`` present agents with the SMALLEST dominant
  shares (ties: the lower index) are disrupted and raised by progressive filling from where they are
  (nobody loses on a departure).
* ``d``: a whole number >= 0 (default 1) or ``all`` (every present agent may change). With d = 0 a
  newcomer gets only what is free (nothing is reserved, unlike `dynamic-drf`, which reserves by
  knowing n); with ``all`` an arrival gives the static DRF of the present agents whenever DRF's
  shares only fall on an arrival (always for one resource), so it matches `drf-rerun`.

Domain: agents over time (arrivals, departures), divisible tasks, Leontief demands with zero entries
allowed, task caps; unit weights (the instance format has no weights over time). ``extra["disrupted"]``
lists, per event, the present agents other than the newcomer/leaver whose tasks changed (at most d:
a test checks it), and ``extra["fairness_ratio"]`` the lecture's ratio (`fairlab.mechanisms._dynamic`;
ideal: static DRF of the agents present). The exact worst ratio over every event sequence up to a
size: `fairlab.search.fairness_ratio`. No z3 spec (numeric only; `drf-rerun` has one).
"""

from __future__ import annotations

from fractions import Fraction
from types import MappingProxyType
from typing import Sequence

from fairlab.core.errors import OptionError
from fairlab.core.instance import Instance
from fairlab.mechanisms import _dynamic
from fairlab.mechanisms.base import Allocation, Mechanism, Step, register

NAME = "controlled-drf"


def read_d(options) -> int | None:
    """The option d: a whole number >= 0, or None for "all"."""
    value = options.get("d", 1)
    if value == "all":
        return None
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise OptionError(f"option d: expected a whole number >= 0 or 'all', got {value!r}")
    return value


def fill_from(capacities: Sequence[Fraction], demands, sigma, start, caps) -> list[Fraction]:
    """Progressive filling of dominant shares from the levels `start` (tasks), exact: the lowest active
    shares rise together until a resource they use saturates, they reach the next share, or a cap
    (tasks) is hit. `capacities`: what these users may use in all (their current use included)."""
    n, m = len(demands), len(capacities)
    share = [start[i] * sigma[i] for i in range(n)]
    used = [sum((start[i] * demands[i][r] for i in range(n)), Fraction(0)) for r in range(m)]
    active = {i for i in range(n) if caps[i] is None or start[i] < caps[i]}
    while active:
        full = {r for r in range(m) if used[r] >= capacities[r]}
        active -= {i for i in active if any(demands[i][r] > 0 for r in full)}
        if not active:
            break
        low = min(share[i] for i in active)
        rising = [i for i in active if share[i] == low]
        rate = [sum((demands[i][r] / sigma[i] for i in rising), Fraction(0)) for r in range(m)]
        limits = [share[i] for i in active if share[i] > low]
        limits += [low + (capacities[r] - used[r]) / rate[r] for r in range(m) if rate[r] > 0]
        limits += [caps[i] * sigma[i] for i in rising if caps[i] is not None]
        top = min(limits)
        for i in rising:
            share[i] = top
        used = [used[r] + (top - low) * rate[r] for r in range(m)]
        active -= {i for i in rising if caps[i] is not None and top == caps[i] * sigma[i]}
    return [share[i] / sigma[i] for i in range(n)]


def _refill(instance: Instance, tasks: list[Fraction], group: list[int], start, caps) -> None:
    """Re-divide among `group` what the other present agents leave (in place)."""
    others = [i for i in range(instance.n) if i not in group]
    left = [instance.capacities[r] - sum((tasks[i] * instance.demands[i][r] for i in others), Fraction(0))
            for r in range(instance.m)]
    new = fill_from(left, [instance.demands[i] for i in group],
                    [instance.dominant_share_per_task(i) for i in group], start, caps)
    for i, x in zip(group, new):
        tasks[i] = x


def allocate(instance: Instance, **options) -> Allocation:
    d = read_d(options)
    events = _dynamic.dynamic_events(instance, NAME)
    sigma = [instance.dominant_share_per_task(i) for i in range(instance.n)]
    tasks = [Fraction(0)] * instance.n
    present: list[int] = []
    steps, disrupted = [], []
    for kind, a in events:
        before = list(tasks)
        if kind == "arrive":
            limit = len(present) if d is None else d
            chosen = sorted(present, key=lambda i: (-tasks[i] * sigma[i], i))[:limit]
            present.append(a)
            group = sorted(chosen + [a])
            caps = [instance.max_tasks[i] if i == a else tasks[i] for i in group]
            _refill(instance, tasks, group, [Fraction(0)] * len(group), caps)
        else:
            present.remove(a)
            tasks[a] = Fraction(0)
            limit = len(present) if d is None else d
            group = sorted(sorted(present, key=lambda i: (tasks[i] * sigma[i], i))[:limit])
            _refill(instance, tasks, group, [tasks[i] for i in group], [instance.max_tasks[i] for i in group])
        changed = [instance.users[i] for i in sorted(present) if i != a and tasks[i] != before[i]]
        disrupted.append(changed)
        steps.append(Step((kind, a), tuple(sorted(present)), tuple(tasks)))
    extra = dict(_dynamic.with_ratio(instance, steps))
    extra["disrupted"] = disrupted
    return Allocation(NAME, instance, steps[-1].tasks, options=MappingProxyType({"d": "all" if d is None else d}),
                      extra=MappingProxyType(extra), steps=tuple(steps))


MECHANISM = register(
    Mechanism(
        name=NAME,
        summary="agents over time, at most d disruptions per arrival: the newcomer shares with the d largest "
                "(departures refill the d smallest); lab's reading of Friedman, Psomas & Vardi",
        source="Friedman, Psomas & Vardi, EC 2015 / EC 2017 (abstracts; lab's reading), via the lecture",
        allocate=allocate,
        spec=None,
        options={"d": "agents whose allocation may change per event: a whole number >= 0 (default 1) | all"},
        scale_invariant=True, anonymous=False,
        module=__name__,
        setting="dynamic",
    )
)
