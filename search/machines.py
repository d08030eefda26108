"""Search and proofs for the machines setting: whole tasks on several machines.

`fairlab.search.engines.search` and `fairlab.search.proof.prove` send a property of this setting
here. There is no symbolic engine: drf-machines has a z3 specification of its literal placement (checked
by `fairlab conformance`), but the machines properties have no z3 encoding over unknown instances
(the max-task and the pooled shares are data-dependent maxima, the placement integral), so everything
is decided by exact checks of concrete integer instances (`fairlab.properties.check`: Fractions, z3 integer arithmetic
for machines-pe).

`search`: deterministic candidates at n users × m resources — a grid of small integers first
(demands 1..2, machine capacities 1..4, 1 to 3 machines, the machine count cycling so that every
count is reached early), then seeded random instances (demands 1..4, capacities 1..8 — or, half of
the time, each machine at least the max-task plus 0..8, Theorem 7's assumption — 1 to 3
machines; where the domain allows task caps, every other one with whole-task caps from a second
seeded stream, `capped_instances`) — each checked exactly (`fairlab.search.engines.candidate_check`, the same check as
`fairlab check`); the first violation is shrunk (a machine or a user dropped, a number lowered,
each step re-checked) and returned with its re-verified witness; otherwise ``none-found`` with
the number of candidates evaluated, ``n/a`` if the property declined every candidate, ``unknown``
on the time limit.

Every result records the valuation model its checks used (``details["model"]``: the mechanism's declared
one, or ``options["model"]`` when asked; `fairlab.properties._machines`).

`prove`: without a z3 encoding of the properties there is no sound statement of "every instance of the size";
`prove` checks EVERY instance of a finite integer grid (demands 1..2, capacities 1..3, 1 or 2
machines, machines in sorted order) and answers ``refuted`` with a verified counterexample, or
``none-found`` stating the grid — never ``proved``.
"""

from __future__ import annotations

import itertools
import random
import time
from typing import Iterator

from fairlab import properties
from fairlab.core.domain import ALL, Domain
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.core.results import Result, Status
from fairlab.properties._machines import model_record
from fairlab.properties.base import Violation
from fairlab.search.budgets import (
    CHECK_EVALUATIONS,
    CHECK_RLIMIT,
    DEFAULT_CANDIDATES,
    PROVE_SAFETY_NET,
    SEARCH_TIME_LIMIT,
    SHRINK_TRIALS,
    WEIGHTS,
)
from fairlab.search.engines import Drawn, candidate_check, hunt
from fairlab.search.shrink import shrink as greedy_shrink

setting = "machines"

GRID_DEMANDS = (1, 2)
GRID_CAPACITIES = (1, 2, 3, 4)
RANDOM_DEMANDS = (1, 4)
RANDOM_CAPACITIES = (1, 8)
MAX_MACHINES = 3
PROVE_DEMANDS = (1, 2)
PROVE_CAPACITIES = (1, 2, 3)
PROVE_MACHINES = (1, 2)


def make(demands, machines, max_tasks=None) -> Instance:
    """An instance from integer rows (users × resources), machine capacity rows and (optionally) task
    caps (None or one per user, None: uncapped)."""
    m = len(demands[0])
    caps = None if max_tasks is None or all(t is None for t in max_tasks) else list(max_tasks)
    return Instance.build(demands=[list(row) for row in demands], machines=[list(row) for row in machines],
                          users=[chr(ord("A") + i) if i < 26 else f"u{i}" for i in range(len(demands))],
                          resources=[f"r{r + 1}" for r in range(m)], max_tasks=caps)


def _sorted_machines(values, count, m):
    """All multisets of `count` machines (capacity rows from `values`), rows in sorted order."""
    rows = list(itertools.product(values, repeat=m))
    rows = [r for r in rows if any(x > 0 for x in r)]
    return itertools.combinations_with_replacement(rows, count)


def grid_for(n: int, m: int, machines: int, demands=GRID_DEMANDS, capacities=GRID_CAPACITIES) -> Iterator[Instance]:
    """Every instance with demands in `demands` and `machines` machines with capacities in `capacities`."""
    for rows in itertools.product(itertools.product(demands, repeat=m), repeat=n):
        for ms in _sorted_machines(capacities, machines, m):
            yield make(rows, ms)


def grid(n: int, m: int) -> Iterator[Instance]:
    """The small-integer grid, machine counts 1..3 interleaved (round robin) so each is reached early."""
    streams = [grid_for(n, m, k) for k in range(1, MAX_MACHINES + 1)]
    while streams:
        for stream in list(streams):
            try:
                yield next(stream)
            except StopIteration:
                streams.remove(stream)


def random_instances(n: int, m: int, seed: int, domain: Domain = ALL) -> Iterator[Instance]:
    """The seeded random stream; where `domain` allows task caps, every other candidate is capped
    (`capped_instances`; the uncapped ones are the stream of earlier versions)."""
    plain = _random_plain(n, m, random.Random(seed))
    if domain.caps == "none":
        return plain
    capped = capped_instances(_random_plain(n, m, random.Random(f"fairlab caps {seed}")), random.Random(seed + 1))
    return (inst for pair in zip(plain, capped) for inst in pair)


def capped_instances(stream: Iterator[Instance], rng: random.Random) -> Iterator[Instance]:
    """Each instance of `stream` with whole-task caps: each user (at least one) with probability 1/2 at
    1 to (its solo tasks on the pooled capacities) - 1; an instance where no user can be capped so is
    skipped."""
    for inst in stream:
        solo = [min(int(inst.capacities[r] // d) for r, d in enumerate(row) if d > 0) for row in inst.demands]
        while True:
            chosen = [rng.random() < 0.5 for _ in range(inst.n)]
            if any(chosen):
                break
        caps = [rng.randint(1, s - 1) if c and s >= 2 else None for c, s in zip(chosen, solo)]
        if any(t is not None for t in caps):
            yield make([[int(x) for x in row] for row in inst.demands],
                       [[int(x) for x in row] for row in inst.machines or ()], caps)


def _random_plain(n: int, m: int, rng: random.Random) -> Iterator[Instance]:
    lo, hi = RANDOM_DEMANDS
    clo, chi = RANDOM_CAPACITIES
    while True:
        rows = [[rng.randint(lo, hi) for _ in range(m)] for _ in range(n)]
        count = 1 + rng.randrange(MAX_MACHINES)
        if rng.random() < 0.5:  # every machine holds a max-task (Theorem 7's assumption) half of the time
            big = [max(row[r] for row in rows) for r in range(m)]
            machines = sorted([rng.randint(big[r], big[r] + chi) for r in range(m)] for _ in range(count))
        else:
            machines = sorted([rng.randint(clo, chi) for _ in range(m)] for _ in range(count))
        yield make(rows, machines)


def _check_size(n: int, m: int) -> None:
    for label, value in (("users", n), ("resources", m)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError(f"size: {label} must be a positive integer, got {value!r}")
    if n > 6 or m > 4:
        raise InputError(f"size: the machines search enumerates small instances (at most 6 users × 4 resources), "
                         f"got {n} × {m}")


# --------------------------------------------------------------------------- shrinking
def smaller(inst: Instance) -> Iterator[Instance]:
    """Candidate simplifications of `inst`: a machine dropped, a user dropped, the task caps dropped
    (all, then one user's), one number (a capacity, a demand, a cap) lowered by 1."""
    demands = [[int(x) for x in row] for row in inst.demands]
    machines = [[int(x) for x in row] for row in inst.machines or ()]
    caps = [None if t is None else int(t) for t in inst.max_tasks]
    if len(machines) > 1:
        for k in range(len(machines)):
            yield make(demands, machines[:k] + machines[k + 1:], caps)
    if len(demands) > 1:
        for i in range(len(demands)):
            yield make(demands[:i] + demands[i + 1:], machines, caps[:i] + caps[i + 1:])
    if any(t is not None for t in caps):
        yield make(demands, machines)
        for i, t in enumerate(caps):
            if t is not None:
                yield make(demands, machines, caps[:i] + [None] + caps[i + 1:])
    for k, row in enumerate(machines):
        for r, x in enumerate(row):
            if x > 1:
                new = [list(m_) for m_ in machines]
                new[k][r] = x - 1
                yield make(demands, sorted(new), caps)
    for i, row in enumerate(demands):
        for r, x in enumerate(row):
            if x > 1:
                new = [list(d) for d in demands]
                new[i][r] = x - 1
                yield make(new, machines, caps)
    for i, t in enumerate(caps):
        if t is not None and t > 1:
            yield make(demands, machines, caps[:i] + [t - 1] + caps[i + 1:])


def _integral(inst: Instance) -> bool:
    return all(x.denominator == 1 for row in (*inst.demands, *(inst.machines or ())) for x in row) and all(
        t is None or t.denominator == 1 for t in inst.max_tasks)


def shrink_violation(classify, instance: Instance, verdict, trials: int, deadline: float):
    """Greedy (`fairlab.search.shrink.shrink` over `smaller`): take the first simpler instance that
    still violates (re-checked exactly), until none does; an instance with fractions is kept as is."""
    if not _integral(instance):
        return instance, verdict, 0, 0, False

    def violates(candidate):
        try:
            kind, payload = classify(candidate)
        except InputError:
            return None
        return payload if kind == "violated" else None

    return greedy_shrink(instance, verdict, violates, trials=trials, deadline=deadline, smaller=smaller)


# --------------------------------------------------------------------------- search
def search(mechanism, prop: str, n: int = 2, m: int = 2, *, time_limit: float = SEARCH_TIME_LIMIT, seed: int = 0,
           options=None, candidates: int = DEFAULT_CANDIDATES, rlimit=None, progress=None,
           check_evaluations: int = CHECK_EVALUATIONS, shrink_trials: int = SHRINK_TRIALS,
           domain: Domain = ALL) -> Result:
    """Hunt a violation of `prop` by `mechanism` on machines instances with n users × m resources;
    a candidate outside `domain` is skipped (counted apart), never evaluated."""
    options = dict(options or {})
    mechanism.check_options(options)
    _check_size(n, m)
    if isinstance(candidates, bool) or not isinstance(candidates, int) or candidates < 1:
        raise InputError(f"candidates: expected a positive integer, got {candidates!r}")
    prop_object = properties.get(prop)
    if prop_object.setting != setting or mechanism.setting != setting:
        raise InputError(f"{prop} / {mechanism.name}: not both of the machines setting")
    start = time.monotonic()
    deadline = start + time_limit
    check_rlimit = CHECK_RLIMIT if rlimit is None else rlimit
    classify = candidate_check(prop, mechanism, options, deadline, check_evaluations, check_rlimit, seed,
                               domain=domain)
    pool = {"grid": grid(n, m), "random": random_instances(n, m, seed, domain)}
    budget = {"size": f"{n}×{m}", "users": n, "resources": m, "candidates": candidates, "seed": seed,
              "rlimit": check_rlimit,
              "schedule": {e: WEIGHTS[e] for e in pool}, "machines": f"1..{MAX_MACHINES}",
              "check": {"evaluations": check_evaluations, "rlimit": check_rlimit, "seed": seed},
              "shrink_trials": shrink_trials, "time_limit": time_limit}
    space = {"grid": f"demands {GRID_DEMANDS[0]}..{GRID_DEMANDS[-1]}, machine capacities "
                     f"{GRID_CAPACITIES[0]}..{GRID_CAPACITIES[-1]}, 1..{MAX_MACHINES} machines",
             "random": f"seed {seed}: demands {RANDOM_DEMANDS[0]}..{RANDOM_DEMANDS[1]}, capacities "
                       f"{RANDOM_CAPACITIES[0]}..{RANDOM_CAPACITIES[1]}, 1..{MAX_MACHINES} machines"
                       + ("" if domain.caps == "none" else "; every other candidate with whole-task caps")}
    drawn = Drawn(m, weights=False)  # no weights on machines; the caps drawn are counted
    result = hunt(pool, drawn.counting(classify), candidates, deadline=deadline, progress=progress)
    details = {**result.details, "users": n, "resources": m, "options": options, "space": space,
               "drawn": drawn.to_dict(),
               "model": model_record(mechanism, options, getattr(prop_object, "model_matters", False))}
    if result.status == Status.VIOLATED:
        found = result.instance
        verdict = Result("check", Status.VIOLATED, witness=result.witness, explanation=result.explanation)
        small, verdict, steps, tried, cut = shrink_violation(classify, found, verdict, shrink_trials, deadline)
        budget["shrink_trials_used"] = tried
        if cut:
            details["notes"] = [*details["notes"], "shrinking stopped by the time limit: the instance is verified but "
                                "may not be the smallest"]
        details.update(found_instance=found, shrink_steps=steps)
        result = result.replace(instance=small, witness=verdict.witness, explanation=verdict.explanation)
    return result.replace(mechanism=mechanism.name, property=prop, budget={**budget, **result.budget},
                          details=details, seconds=time.monotonic() - start)


# --------------------------------------------------------------------------- prove
def prove_grid(n: int, m: int) -> Iterator[Instance]:
    for count in PROVE_MACHINES:
        yield from grid_for(n, m, count, PROVE_DEMANDS, PROVE_CAPACITIES)


def prove(mechanism, prop: str, n: int = 2, m: int = 2, *, time_limit: float = PROVE_SAFETY_NET, options=None,
          rlimit=None,
          attempts=None, check_evaluations: int = CHECK_EVALUATIONS) -> Result:
    """Check every instance of the finite grid; ``refuted`` (verified) or ``none-found`` (NOT proved)."""
    options = dict(options or {})
    mechanism.check_options(options)
    _check_size(n, m)
    if not time_limit > 0:
        raise InputError(f"time limit: must be a positive number of seconds, got {time_limit}")
    prop_object = properties.get(prop)
    if prop_object.setting != setting or mechanism.setting != setting:
        raise InputError(f"{prop} / {mechanism.name}: not both of the machines setting")
    start = time.monotonic()
    deadline = start + time_limit
    check_rlimit = CHECK_RLIMIT if rlimit is None else rlimit
    classify = candidate_check(prop, mechanism, options, deadline, check_evaluations, check_rlimit, 0)
    grid_words = (f"demands in {PROVE_DEMANDS[0]}..{PROVE_DEMANDS[-1]}, machine capacities in "
                  f"{PROVE_CAPACITIES[0]}..{PROVE_CAPACITIES[-1]}, {PROVE_MACHINES[0]} or {PROVE_MACHINES[-1]} "
                  "machines "
                  f"(machines in sorted order)")
    counts = {"evaluated": 0, "declined": 0, "undecided": 0, "searched": 0}
    budget = {"size": f"{n}×{m}", "grid": grid_words, "check": {"evaluations": check_evaluations,
                                                               "rlimit": check_rlimit}, "time_limit": time_limit}

    def done(status, explanation, **fields):
        return Result("proof", status, mechanism=mechanism.name, property=prop, budget={**budget, **counts},
                      seconds=time.monotonic() - start, explanation=explanation,
                      details={"method": "exhaustive finite grid (no z3 encoding of the properties in this setting)",
                               "users": n, "resources": m,
                               "model": model_record(mechanism, options, getattr(prop_object, "model_matters", False)),
                               "grid": grid_words, **counts}, **fields)

    total = 0
    for inst in prove_grid(n, m):
        total += 1
        if time.monotonic() >= deadline:
            return done(Status.UNKNOWN, f"time: stopped by the time limit after {total - 1} grid instances; no verdict",
                        )
        kind, payload = classify(inst)
        if kind == "violated":
            if not Violation(prop, mechanism, inst, payload.witness, options).verify():
                return done(Status.UNKNOWN, "a counterexample failed its re-verification; not reported")
            counts["evaluated"] += 1
            return done(Status.REFUTED, f"counterexample: {payload.explanation}", instance=inst,
                        witness=payload.witness)
        if kind == "stopped":
            return done(Status.UNKNOWN, f"time: stopped by the time limit after {total} grid instances; no verdict")
        counts[{"evaluated": "evaluated", "declined": "declined"}.get(kind, "undecided")] += 1
        if kind == "evaluated" and payload == "none-found":
            counts["searched"] += 1  # that instance's own check was a finite search (machines-sp's misreports)
    if counts["evaluated"] == 0:
        status = Status.NOT_APPLICABLE if counts["declined"] else Status.UNKNOWN
        return done(status, f"no grid instance decided ({counts['declined']} declined, {counts['undecided']} "
                            f"undecided) of {total}")
    extra = (f", of which {counts['searched']} only by a finite search of that instance (none-found, e.g. "
             "misreports)") if counts["searched"] else ""
    extra += f"; {counts['declined']} declined (n/a)" if counts["declined"] else ""
    extra += f"; {counts['undecided']} undecided" if counts["undecided"] else ""
    return done(Status.NONE_FOUND,
                f"exhaustive over the {total} instances with {grid_words}: no violation ({counts['evaluated']} "
                f"checked exactly{extra}); a finite grid, not a proof for every instance of the size")
