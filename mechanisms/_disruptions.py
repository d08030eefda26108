"""The best fairness ratio any online mechanism with at most d disruptions per event can guarantee —
exactly, for one divisible resource and at most K agents present at once (the question Friedman,
Psomas & Vardi answer in "Dynamic fair division with minimal disruptions", EC 2015; their values and
mechanisms could not be read, so this is the lab's own computation of the quantity they study).

The model (the lecture's fairness ratio, FPV's disruptions):

* one divisible resource of size 1; agents arrive and (with ``departures``) depart, one event at a
  time, chosen by an adversary who sees the mechanism's answers (an event tree); at most K agents
  are present at once, and the mechanism knows K;
* after each event the mechanism sets every present agent's share x_i >= 0, sum <= 1; an arriving
  agent gets any share; of the agents present before the event (and still present) at most ``d``
  may have their share changed — a change up or down is a disruption;
* the fairness ratio of a run is min over steps t and present agents i of x_i / (1/k_t), k_t agents
  present (the ideal 1/k_t is what static DRF gives each of k_t agents with one resource); the value
  is max over mechanisms of min over the adversary's sequences (unbounded in length with departures).

A sound finite formulation (the reduction to classes). Fix a target ratio r > 0. A run keeps ratio
>= r iff at every step every present agent has x_i >= r/k_t, and k_t <= K, so every share ever held
is >= r/K. Round every share down to the largest threshold r/c (c = 1..K) below it: the rounded run
(1) keeps ratio >= r (x >= r/k iff its rounding >= r/k, r/k being a threshold), (2) stays feasible
(sums only drop), (3) disrupts no more (a rounded share changes only when the share does), and (4) is
an online mechanism (it simulates the original). So, without loss, every share is r/c for an integer
*class* c in 1..K, and a step with k agents needs every class <= k. A state is the multiset of the
present agents' classes (agents of one class are interchangeable for the adversary and for the
mechanism), it is feasible iff r · H(state) <= 1 with H = sum of 1/c, and the game is a finite
safety game: the mechanism wins with r iff the empty state is in the greatest set W of states with
H <= 1/r and classes <= their count from which every adversary event (an arrival while fewer than K
are present; a departure of an agent of any class present) has an answer (the newcomer's class and
at most d present agents given new classes) that lands in W. W is computed by removing states until
none can be removed (at most as many rounds as states: a fixed point, no horizon). Winning is
monotone in 1/r, and only the finitely many values H(S) matter, so the best ratio is exactly 1/h*,
h* the least H(S) for which the mechanism wins: a rational number, computed in Fractions. A winning
strategy (the answer to each state and event) is read off W (`strategy`).

Arrivals only: the same game without departures; it ends when K agents are present.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterator

from fairlab.core.errors import InputError

State = tuple[int, ...]  # the present agents' classes, sorted (share of class c: r / c)
#: one event of the adversary: ("arrive", 0) or ("depart", c), c the class of the agent leaving
Event = tuple[str, int]
#: the mechanism's answer: ((old class, new class) per disrupted agent, sorted; the newcomer's class or 0)
Answer = tuple[tuple[tuple[int, int], ...], int]

#: the largest K computed (the states grow like the partitions of K)
MAX_AGENTS = 8


def harmonic(state: State) -> Fraction:
    """H(state): the resource the state uses at ratio 1 (sum of 1/c)."""
    return sum((Fraction(1, c) for c in state), Fraction(0))


def check_size(agents: int, d: int) -> None:
    if isinstance(agents, bool) or not isinstance(agents, int) or not 1 <= agents <= MAX_AGENTS:
        raise InputError(f"agents: expected a whole number 1..{MAX_AGENTS} (agents present at once), got {agents!r}")
    if isinstance(d, bool) or not isinstance(d, int) or d < 0:
        raise InputError(f"d: expected a whole number >= 0 (disruptions per event), got {d!r}")


def states(agents: int) -> list[State]:
    """Every state with at most `agents` agents whose classes are at most their count."""
    out: list[State] = [()]
    for k in range(1, agents + 1):
        out += list(itertools.combinations_with_replacement(range(1, k + 1), k))
    return out


def events(state: State, agents: int, departures: bool) -> list[Event]:
    out: list[Event] = [("arrive", 0)] if len(state) < agents else []
    if departures:
        out += [("depart", c) for c in sorted(set(state))]
    return out


def answers(state: State, event: Event, d: int) -> Iterator[tuple[Answer, State]]:
    """Every answer to `event` at `state` (at most d present agents change class; classes <= the new
    count), with the state it leads to."""
    kind, leaving = event
    rest = list(state)
    if kind == "depart":
        rest.remove(leaving)
    count = len(rest) + (kind == "arrive")
    newcomers = range(1, count + 1) if kind == "arrive" else (0,)
    seen = set()
    for size in range(min(d, len(rest)) + 1):
        for picked in itertools.combinations(range(len(rest)), size):
            old = tuple(rest[p] for p in picked)
            if (size, old) in seen:
                continue
            seen.add((size, old))
            kept = [c for p, c in enumerate(rest) if p not in picked]
            if any(c > count for c in kept):
                continue
            for new in itertools.product(range(1, count + 1), repeat=size):
                for c in newcomers:
                    after = tuple(sorted(kept + list(new) + ([c] if c else [])))
                    yield (tuple(sorted(zip(old, new))), c), after


@functools.cache
def winning(agents: int, d: int, departures: bool, h: Fraction) -> frozenset:
    """W: the states with H <= h from which the mechanism can stay within H <= h forever."""
    alive = {s for s in states(agents) if harmonic(s) <= h}
    changed = True
    while changed:
        changed = False
        for s in sorted(alive):
            if any(not any(after in alive for _, after in answers(s, e, d)) for e in events(s, agents, departures)):
                alive.discard(s)
                changed = True
    return frozenset(alive)


@dataclass(frozen=True)
class Optimum:
    """The best guaranteed fairness ratio for at most `agents` present and `d` disruptions per event:
    `ratio` = 1 / `harmonic` (exact); `tried`: the H values decided (each a finite safety game)."""

    agents: int
    d: int
    departures: bool
    ratio: Fraction
    harmonic: Fraction
    tried: int
    states: int


@functools.cache
def optimum(agents: int, d: int, departures: bool) -> Optimum:
    """The exact best ratio (module docstring)."""
    check_size(agents, d)
    every = states(agents)
    candidates = sorted({harmonic(s) for s in every if s})
    for tried, h in enumerate(candidates, start=1):
        if () in winning(agents, d, departures, h):
            return Optimum(agents, d, departures, 1 / h, h, tried, len(every))
    raise AssertionError("the largest H always wins: every agent of class k when k are present")  # pragma: no cover


def strategy(agents: int, d: int, departures: bool) -> dict[tuple[State, Event], tuple[Answer, State]]:
    """An optimal mechanism read off the game: for each state of W (at the optimum) and each event, the
    answer with the fewest agents changed, then the least resource used (H), then the smallest state."""
    best = optimum(agents, d, departures)
    alive = winning(agents, d, departures, best.harmonic)
    plan = {}
    for s in alive:
        for e in events(s, agents, departures):
            options = [(sum(o != n for o, n in answer[0]), harmonic(after), after, answer)
                       for answer, after in answers(s, e, d) if after in alive]
            _, _, after, answer = min(options)
            plan[(s, e)] = (answer, after)
    return plan


__all__ = ["optimum", "strategy", "Optimum", "harmonic", "states", "answers", "events", "winning", "MAX_AGENTS"]
