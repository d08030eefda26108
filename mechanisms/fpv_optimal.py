"""fpv-optimal: an online mechanism with at most d disruptions per event that guarantees the best
fairness ratio any such mechanism can (one divisible resource, at most k agents present at once) —
the lab's reading of Friedman, Psomas & Vardi's optimal mechanisms ("Dynamic fair division with
minimal disruptions", EC 2015), read off the lab's exact game (`fairlab.mechanisms._disruptions`).

Only the papers' abstracts were readable (reading notes: the optimal "harmonic" mechanisms and their
ratios could not be read, [L]); this mechanism is NOT transcribed from the paper. It is the optimal
strategy of the finite game the lab solves exactly: with the best ratio r for (k, d), every present
agent holds r / c of the resource for a whole number c <= (agents present), its *class*; on each event
the mechanism looks up the answer for the multiset of classes present — the newcomer's class and at
most d present agents moved to new classes, the fewest agents changed, then the least resource used —
and keeps the state inside the game's winning set, so every step has ratio >= r (the adversary may
choose any sequence). With arrivals only and d = 0 this is the harmonic allocation: the t-th arrival
gets r / t, r = 1 / (1 + 1/2 + ... + 1/k). Resource left over is left unallocated (the game never needs
it; FPV's abstract mentions Pareto-efficient variants, which this reading does not attempt).

Options: ``d`` (disruptions per event, a whole number >= 0, default 1); ``k`` (the most agents present
at once, known to the mechanism; default: the instance's number of users; at most
`fairlab.mechanisms._disruptions.MAX_AGENTS`); ``departures`` (``yes``, default: the game with
departures; ``no``: the arrivals-only game, whose answers are not defined after a departure, so an
instance with one is declined).

Domain: agents over time, ONE resource (FPV's model), every demand positive, no task caps, unit
weights; an instance with more than k agents present at once is declined. ``extra`` records the
guaranteed ratio (``optimal_ratio``), each agent's class per step (``classes``), per event the present
agents whose share changed (``disrupted``, at most d: a test checks it) and the lecture's fairness
ratio of the run (`fairlab.mechanisms._dynamic`). No z3 spec (numeric only).
"""

from __future__ import annotations

from fractions import Fraction
from types import MappingProxyType

from fairlab.core.domain import Domain
from fairlab.core.errors import InputError, OptionError
from fairlab.core.instance import Instance
from fairlab.mechanisms import _disruptions, _dynamic
from fairlab.mechanisms.base import Allocation, Mechanism, Step, register

NAME = "fpv-optimal"


def read_options(options, instance: Instance) -> tuple[int, int, bool]:
    """(d, k, departures) from the options."""
    d = options.get("d", 1)
    if isinstance(d, str) and d.isdigit():
        d = int(d)
    if isinstance(d, bool) or not isinstance(d, int) or d < 0:
        raise OptionError(f"option d: expected a whole number >= 0, got {d!r}")
    k = options.get("k", instance.n)
    if isinstance(k, str) and k.isdigit():
        k = int(k)
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= _disruptions.MAX_AGENTS:
        raise OptionError(f"option k: expected a whole number 1..{_disruptions.MAX_AGENTS} (agents present at once), "
                          f"got {k!r}")
    departures = options.get("departures", "yes")
    if departures not in ("yes", "no", True, False):
        raise OptionError(f"option departures: expected yes or no, got {departures!r}")
    return d, k, departures in ("yes", True)


def allocate(instance: Instance, **options) -> Allocation:
    d, k, departures = read_options(options, instance)
    events = _dynamic.dynamic_events(instance, NAME)
    if instance.m != 1:
        raise InputError(f"{NAME}: one divisible resource (Friedman, Psomas & Vardi's model), got {instance.m}")
    if any(t is not None for t in instance.max_tasks):
        raise InputError(f"{NAME}: task caps are not part of the model")
    if not departures and any(kind == "depart" for kind, _ in events):
        raise InputError(f"{NAME}: departures=no plays the arrivals-only game, which has no answer to a departure")
    plan = _disruptions.strategy(k, d, departures)
    ratio = _disruptions.optimum(k, d, departures).ratio
    capacity = instance.capacities[0]
    classes: dict[int, int] = {}
    steps, disrupted, history = [], [], []
    for kind, a in events:
        present = sorted(classes)
        if kind == "arrive" and len(present) >= k:
            raise InputError(f"{NAME}: more than k = {k} agents present at once (option k)")
        state = tuple(sorted(classes.values()))
        event = ("arrive", 0) if kind == "arrive" else ("depart", classes[a])
        (pairs, newcomer), _ = plan[(state, event)]
        if kind == "depart":
            del classes[a]
        taken: set[int] = set()
        changed = []
        for old, new in pairs:  # the lowest-index agents of each class named
            who = min(i for i in classes if classes[i] == old and i not in taken)
            taken.add(who)
            if new != old:
                changed.append(who)
            classes[who] = new
        if kind == "arrive":
            classes[a] = newcomer
        tasks = tuple(ratio / classes[i] * capacity / instance.demands[i][0] if i in classes else Fraction(0)
                      for i in range(instance.n))
        disrupted.append([instance.users[i] for i in sorted(changed)])
        history.append({instance.users[i]: classes[i] for i in sorted(classes)})
        steps.append(Step((kind, a), tuple(sorted(classes)), tasks))
    extra = dict(_dynamic.with_ratio(instance, steps))
    extra.update(disrupted=disrupted, classes=history, optimal_ratio=ratio)
    return Allocation(NAME, instance, steps[-1].tasks if steps else tuple(Fraction(0) for _ in range(instance.n)),
                      options=MappingProxyType({"d": d, "k": k, "departures": "yes" if departures else "no"}),
                      extra=MappingProxyType(extra), steps=tuple(steps))


MECHANISM = register(
    Mechanism(
        name=NAME,
        summary="agents over time, one resource, at most d disruptions per event: the optimal strategy of the lab's "
                "exact game (shares r/c by class); lab's reading of Friedman, Psomas & Vardi's optimal mechanisms",
        source="Friedman, Psomas & Vardi, EC 2015 (abstract; lab's reading: the lab's own optimum, not transcribed)",
        allocate=allocate,
        spec=None,
        options={"d": "present agents whose share may change per event: a whole number >= 0 (default 1)",
                 "k": "the most agents present at once (default: the instance's users)",
                 "departures": "yes (default: robust to departures) | no (the arrivals-only game)"},
        scale_invariant=True, anonymous=False,
        module=__name__,
        setting="dynamic",
        domain=Domain(demands="positive", weights="none", caps="none"),
    )
)
