"""Search and prove for agents over time (the "dynamic" setting): instances AND arrival orders.

`search(mechanism, prop, n, m, ...)` (reached from `fairlab.search.engines.search`, so from
``fairlab search``, ``fairlab matrix --setting dynamic`` and campaigns) pulls candidates in a fixed
round-robin from two deterministic streams until one violates or `candidates` are spent:

* grid: every demand matrix with integer entries 0..D (each row with a positive entry; D = 3 for
  n·m <= 4, else 2), capacities D on every resource, each with EVERY arrival order (n <= 4; beyond,
  `RANDOM_ORDERS` seeded orders) and — for a mechanism that takes departures (probed once on a
  small instance) — each single departure (a user leaving after some arrival at or after its own);
* random: seeded instances (demands 0..6, capacities 1..6, a seeded order, a seeded departure for a
  mechanism that takes them).

Each candidate is decided by the property's exact check (`Property.check`: every step, exactly;
dynamic-sp spends `CHECK_MISREPORTS` misreports per candidate). The first violation is shrunk
(lower single demand entries, drop the departure, while still violated; `SHRINK_TRIALS` checks at
most) and returned with its re-verified witness (which names the step). Nothing found: ``none-found``
with the count. The time limit is only the outer stop (``unknown``).

`prove(mechanism, prop, n, m, ...)`: for dynamic-drf and the step properties that KPS's theorems
concern, a z3 proof over EVERY instance of the size (real demands; capacities 1, which covers every
capacity vector since the mechanism is scale-invariant; arrivals in user order, which covers every
order since the demand matrix is arbitrary), with the lab's gates: conformance of the spec on a
seeded sample, the spec satisfiable, and a positive control (the property's encoding with its
strict inequality relaxed must be satisfiable — for DPO and pe-free, which the spec's loads imply
relaxed, a planted mutant must violate — or the encoding could not see a violation at all).
Where no sound encoding exists (other mechanisms, dynamic-sp), `prove` enumerates the grid
exhaustively: ``refuted`` with a re-verified witness, else ``none-found`` — NOT ``proved``: a finite
grid of integers is not every instance.
"""

from __future__ import annotations

import itertools
import random
import time
from fractions import Fraction
from typing import Iterator

from fairlab import properties
from fairlab.core.domain import ALL, Domain
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.core.results import Result, Status
from fairlab.mechanisms.base import Mechanism
from fairlab.search.budgets import PROVE_SAFETY_NET, SEARCH_TIME_LIMIT
from fairlab.search.shrink import shrink as greedy_shrink

RANDOM_ORDERS = 6
CHECK_MISREPORTS = 40
SHRINK_TRIALS = 60
WEIGHTS = {"grid": 3, "random": 1}


# --------------------------------------------------------------------------- candidate streams
def grid_entry(n: int, m: int) -> int:
    return 3 if n * m <= 4 else 2


def _orders(n: int, rng: random.Random) -> list[tuple[int, ...]]:
    if n <= 4:
        return list(itertools.permutations(range(n)))
    return [tuple(rng.sample(range(n), n)) for _ in range(RANDOM_ORDERS)]


def _departure_variants(order: tuple[int, ...]) -> list[list[dict]]:
    """No departure, then each single departure: user order[p] leaves after arrival a >= p + 1."""
    n = len(order)
    out: list[list[dict]] = [[]]
    for p, i in enumerate(order):
        for after in range(p + 1, n + 1):
            out.append([{"user": i, "after": after}])
    return out


def build(capacities, demands, order, departures=()) -> Instance:
    data = {"capacities": list(capacities), "demands": [list(r) for r in demands], "arrivals": list(order)}
    if departures:
        data["departures"] = list(departures)
    return Instance.from_dict(data)


def grid(n: int, m: int, departures: bool, seed: int = 0, low: int = 0) -> Iterator[Instance]:
    """Every demand matrix with entries low..D and every arrival order (see the module docstring);
    low = 1 for a mechanism that declines zero demands (`Mechanism.positive_demands`)."""
    top = grid_entry(n, m)
    rows = [r for r in itertools.product(range(low, top + 1), repeat=m) if any(r)]
    rng = random.Random(seed)
    orders = _orders(n, rng)
    for matrix in itertools.product(rows, repeat=n):
        for order in orders:
            for leave in (_departure_variants(order) if departures else [[]]):
                yield build([top] * m, matrix, order, leave)


def grid_size(n: int, m: int, departures: bool, low: int = 0) -> int:
    top = grid_entry(n, m)
    rows = (top + 1) ** m - 1 if low == 0 else (top + 1 - low) ** m
    orders = len(_orders(n, random.Random(0)))
    per_order = 1 + n * (n + 1) // 2 if departures else 1
    return rows ** n * orders * per_order


def random_instances(n: int, m: int, departures: bool, seed: int, low: int = 0) -> Iterator[Instance]:
    rng = random.Random(seed)
    while True:
        demands = []
        for _ in range(n):
            row = [0 if rng.random() < 1 / 4 else rng.randint(1, 6) for _ in range(m)]
            if low:
                row = [v or rng.randint(1, 6) for v in row]
            if not any(row):
                row[rng.randrange(m)] = rng.randint(1, 6)
            demands.append(row)
        caps = [rng.randint(1, 6) for _ in range(m)]
        order = tuple(rng.sample(range(n), n))
        leave = []
        if departures and rng.random() < 1 / 2:
            p = rng.randrange(n)
            leave = [{"user": order[p], "after": rng.randint(p + 1, n)}]
        yield build(caps, demands, order, leave)


def lowest(mechanism: Mechanism) -> int:
    """The smallest demand entry the streams use: 1 for a mechanism that declines zero demands."""
    return 1 if getattr(mechanism, "positive_demands", False) else 0


def takes_departures(mechanism: Mechanism, options: dict) -> bool:
    """Does the mechanism allocate an instance with a departure (probe: 2 users, one leaves)?"""
    try:
        mechanism(build([1], [[1], [1]], (0, 1), [{"user": 0, "after": 2}]), **options)
        return True
    except InputError:
        return False


# --------------------------------------------------------------------------- checking one candidate
def classify(mechanism: Mechanism, prop: str, inst: Instance, options: dict, seed: int, deadline: float):
    """("violated", result) | ("holds"/"none-found", result) | ("declined", why) | ("undecided", why) |
    ("stopped", why)."""
    left = deadline - time.monotonic()
    if left <= 0:
        return "stopped", "time"
    try:
        mechanism(inst, **options)
    except InputError as exc:
        return "declined", str(exc)
    result = properties.check(mechanism, prop, inst, options=options, seed=seed, evaluations=CHECK_MISREPORTS,
                              time_limit=max(left, 0.01))
    if result.status == Status.VIOLATED:
        return "violated", result
    if result.status == Status.UNKNOWN:
        return ("stopped", "time") if result.budget.get("stopped") == "time" else ("undecided", result.explanation)
    if result.status == Status.NOT_APPLICABLE:
        return "declined", result.explanation
    return "evaluated", result


def _smaller(inst: Instance) -> Iterator[Instance]:
    """Smaller candidates: drop the departures, then lower one demand entry (to 0, 1, one less)."""
    data = inst.to_dict()
    if "departures" in data:
        yield Instance.from_dict({k: v for k, v in data.items() if k != "departures"})
    for i in range(inst.n):
        for r in range(inst.m):
            d = inst.demands[i][r]
            for lower in sorted({Fraction(0), Fraction(1), d - 1}):  # a declined candidate is skipped
                if 0 <= lower < d:
                    rows = [list(row) for row in inst.demands]
                    rows[i][r] = lower
                    if any(rows[i]):
                        new = dict(data)
                        new["demands"] = [[str(v) for v in row] for row in rows]
                        yield Instance.from_dict(new)


def shrink(mechanism, prop, found: Result, options, seed, deadline, trials=SHRINK_TRIALS):
    """Greedy (`fairlab.search.shrink.shrink` over `_smaller`): accept the first smaller candidate
    that is still violated; every step a fresh exact check. Returns (result, trials, steps)."""

    def violates(candidate):
        kind, payload = classify(mechanism, prop, candidate, options, seed, deadline)
        return payload if kind == "violated" else None

    _, best, steps, tried, _ = greedy_shrink(found.instance, found, violates, trials=trials, deadline=deadline,
                                             smaller=_smaller)
    return best, tried, steps


# --------------------------------------------------------------------------- search
def search(mechanism: Mechanism, prop: str, n: int, m: int, *, time_limit: float = SEARCH_TIME_LIMIT, seed: int = 0,
           options: dict | None = None, candidates: int = 500, rlimit: int | None = None, progress=None,
           domain: Domain = ALL) -> Result:
    """See the module docstring. A ``search`` `Result`. `domain`: positive demands raise the
    streams' lowest entry to 1, ``departures=none`` drops the departures."""
    options = dict(options or {})
    _size(n, m)
    if domain.capacities == "unit":
        raise InputError("domain capacities=unit: the dynamic setting's search does not explore it (its capacities "
                         "are the grid's top entry and 1..6)")
    if isinstance(candidates, bool) or not isinstance(candidates, int) or candidates < 1:
        raise InputError(f"candidates: expected a positive integer, got {candidates!r}")
    start = time.monotonic()
    deadline = start + time_limit
    leaves = takes_departures(mechanism, options) and domain.departures != "none"
    low = max(lowest(mechanism), 1 if domain.demands == "positive" else 0)
    streams = {"grid": grid(n, m, leaves, seed, low), "random": random_instances(n, m, leaves, seed, low)}
    counts = {name: {"evaluated": 0, "declined": 0, "undecided": 0} for name in streams}
    budget = {"size": f"{n}×{m}", "users": n, "resources": m, "candidates": candidates, "seed": seed,
              "schedule": dict(WEIGHTS), "rlimit": rlimit, "time_limit": time_limit,
              "check": {"evaluations": CHECK_MISREPORTS, "rlimit": None, "misreports": CHECK_MISREPORTS}}
    space = (f"grid: demands {low}..{grid_entry(n, m)}, capacities {grid_entry(n, m)}, "
             f"{'every arrival order' if n <= 4 else f'{RANDOM_ORDERS} seeded arrival orders'}"
             f"{', each single departure' if leaves else ''} ({grid_size(n, m, leaves, low)} instances); "
             f"random: seeded (seed {seed}) demands {low}..6, capacities 1..6, "
             f"orders{' and departures' if leaves else ''}")
    details = {"users": n, "resources": m, "options": options, "space": space, "departures": leaves,
               "counts": counts, "notes": [f"dynamic setting: {space}"]}
    taken, live, reason, stopped = 0, list(streams), None, None

    def done(status, explanation, **fields):
        used = sum(sum(c.values()) for c in counts.values())
        return Result("search", status, mechanism=mechanism.name, property=prop,
                      budget={**budget, "candidates_used": used, **({"stopped": stopped} if stopped else {})},
                      details={**details, **{key: {k: c[key] for k, c in counts.items()}
                                             for key in ("evaluated", "declined", "undecided")}},
                      explanation=explanation, seconds=time.monotonic() - start, **fields)

    while live and taken < candidates:
        for name in list(live):
            for _ in range(WEIGHTS[name]):
                if taken >= candidates or name not in live:
                    break
                inst = next(streams[name], None)
                if inst is None:
                    live.remove(name)
                    break
                taken += 1
                if progress:
                    progress(name, taken)
                kind, payload = classify(mechanism, prop, inst, options, seed, deadline)
                if kind == "stopped":
                    stopped = "time"
                    return done(Status.UNKNOWN, f"stopped by the time limit ({time_limit:g} s) after {taken - 1} "
                                "candidates; no verdict")
                if kind == "violated":
                    counts[name]["evaluated"] += 1
                    small, tried, steps = shrink(mechanism, prop, payload, options, seed, deadline)
                    details.update(engine=name, found_instance=inst, shrink_steps=steps)
                    budget["shrink_trials_used"] = tried
                    return done(Status.VIOLATED, small.explanation, instance=small.instance, witness=small.witness,
                                exactness="rational")
                key = {"evaluated": "evaluated", "declined": "declined", "undecided": "undecided"}[kind]
                counts[name][key] += 1
                if kind in ("declined", "undecided"):
                    reason = reason or payload
    evaluated = sum(c["evaluated"] for c in counts.values())
    declined = sum(c["declined"] for c in counts.values())
    undecided = sum(c["undecided"] for c in counts.values())
    if evaluated == 0 and declined and not undecided:
        return done(Status.NOT_APPLICABLE, f"the mechanism declined every candidate, e.g.: {reason}")
    if evaluated == 0:
        return done(Status.UNKNOWN, f"no candidate decided exactly, e.g.: {reason}")
    extra = f"; {declined} declined" if declined else ""
    extra += f"; {undecided} undecided, e.g.: {reason}" if undecided else ""
    return done(Status.NONE_FOUND, f"none of {evaluated} candidates evaluated exactly (every step) violates {prop} "
                f"({space}){extra}")


def _size(n: int, m: int) -> None:
    if isinstance(n, bool) or isinstance(m, bool) or not isinstance(n, int) or not isinstance(m, int) or n < 1 or m < 1:
        raise InputError(f"size: need at least one user and one resource, got {n} × {m}")
    if n > 6:
        raise InputError(f"size: at most 6 users in the dynamic setting's search, got {n}")


# --------------------------------------------------------------------------- prove
def prove(mechanism: Mechanism, prop: str, n: int, m: int, *, time_limit: float = PROVE_SAFETY_NET,
          options: dict | None = None,
          rlimit: int | None = None, attempts: int | None = None) -> Result:
    """See the module docstring. A ``proof`` `Result`."""
    options = dict(options or {})
    _size(n, m)
    if not time_limit > 0 or time_limit == float("inf"):
        raise InputError(f"time_limit: must be a positive number of seconds, got {time_limit!r}")
    from fairlab.search import dynamic_proof  # z3 encodings of dynamic-drf (a sibling module)

    if dynamic_proof.applies(mechanism, prop, options):
        return dynamic_proof.prove(mechanism, prop, n, m, time_limit=time_limit, rlimit=rlimit, attempts=attempts)
    return exhaustive(mechanism, prop, n, m, time_limit=time_limit, options=options)


def exhaustive(mechanism: Mechanism, prop: str, n: int, m: int, *, time_limit: float, options: dict,
               note: str = "") -> Result:
    """Every instance of the grid: ``refuted`` (re-verified witness) or ``none-found`` (NOT proved)."""
    start = time.monotonic()
    deadline = start + time_limit
    leaves = takes_departures(mechanism, options)
    low = lowest(mechanism)
    total = grid_size(n, m, leaves, low)
    top = grid_entry(n, m)
    what = (f"the {total} instances with demands in {low}..{top} (every row non-zero), capacities {top}, "
            f"{'every arrival order' if n <= 4 else f'{RANDOM_ORDERS} seeded arrival orders'}"
            f"{' and each single departure' if leaves else ''}")
    counts = {"evaluated": 0, "declined": 0, "undecided": 0}

    def done(status, explanation, **fields):
        return Result("proof", status, mechanism=mechanism.name, property=prop,
                      budget={"time_limit": time_limit, "instances": total, "rlimit": 0, "attempts": 0, "schedule": [],
                              "rlimit_spent": 0, **counts},
                      details={"users": n, "resources": m, "options": options, "scope": "grid", "gates": {},
                               "reductions": [f"exhaustive enumeration of {what} (not a proof)"], "conformance": [],
                               "queries": [], "grid": what, "method": "exhaustive enumeration (not a proof)",
                               **counts},
                      explanation=explanation, seconds=time.monotonic() - start, **fields)

    for inst in grid(n, m, leaves, low=low):
        kind, payload = classify(mechanism, prop, inst, options, 0, deadline)
        if kind == "stopped":
            return done(Status.UNKNOWN, f"time: stopped by the time limit ({time_limit:g} s) after "
                        f"{sum(counts.values())} of {total} instances; no verdict")
        if kind == "violated":
            return done(Status.REFUTED, payload.explanation, instance=payload.instance, witness=payload.witness,
                        exactness="rational")
        counts[kind if kind != "evaluated" else "evaluated"] += 1
    if not counts["evaluated"]:
        return done(Status.UNKNOWN, f"no instance of the grid was decided ({counts})")
    tail = f" ({counts['declined']} declined, {counts['undecided']} undecided)" if counts["declined"] or \
        counts["undecided"] else ""
    sp = " (dynamic-sp: each instance's misreports are a finite seeded sample too)" if prop == "dynamic-sp" else ""
    return done(Status.NONE_FOUND, f"{note}exhaustive over {what}: no violation{tail}{sp}; a finite grid is not "
                "every instance, so this is not a proof")
