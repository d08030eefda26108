"""Instance spaces the engines walk: a grid of small instances up to symmetry, and random samples,
each drawing the whole domain it is given (demands, weights, task caps, capacities).

Grid: capacities 1 for continuous mechanisms (every mechanism here works on shares, so a resource
can be rescaled to capacity 1 without changing any verdict) or small integers for discrete ones;
demands from a small set of integers, growing the largest entry 1, 2, 3, …; users up to order
(rows as a multiset) and everything up to resource order and row scaling through the canonical
form of `fairlab.counterexamples.store`, so each instance is evaluated once.

Weights and task caps (`DRAWS`): where the domain allows them, the streams interleave three kinds
of candidates in a fixed cycle — *plain* ones (unit weights, no caps: exactly the stream of earlier
versions, so the old corner stays explored at half the pulls), *weighted* ones and *capped* ones:

====================  ==============================  ===========================================
domain allows         cycle of pulls                  share
====================  ==============================  ===========================================
weights and caps      plain, plain, weighted, capped  1/2 plain, 1/4 weighted, 1/4 capped
weights only          plain, weighted                 1/2 plain, 1/2 weighted
caps only             plain, capped                   1/2 plain, 1/2 capped
neither               plain                           all plain (the stream of earlier versions)
====================  ==============================  ===========================================

* grid weights: small integers (`GRID_WEIGHTS`, 1..3), one per user on ``weights=scalar``, one per
  user and resource on ``weights=vector`` (scalar and vector assignments alternate), never all equal
  (that is the unweighted instance again); caps: ``k/4`` of the user's solo tasks, k = 1, 2, 3
  (`GRID_CAP_QUARTERS`; whole tasks below the solo count for discrete mechanisms), on a non-empty
  set of users. A decorated instance is a plain grid instance paired with a decoration in Cantor
  (diagonal) order, so small instances meet small decorations first and neither list starves the
  other;
* random weights: integers 1..`RANDOM_MAX_WEIGHT` (scalar or vector, half each where vectors are
  allowed); random caps: ``k/8`` of the solo tasks, k = 1..7 (whole tasks for discrete
  mechanisms), each user capped with probability 1/2 (at least one); a weighted candidate is also
  capped one time in four (where caps are allowed), a capped one also weighted one time in four.
  The plain candidates come from the seeded stream of earlier versions; the decorated ones from a
  second stream seeded from the same seed.

`plain_first`: the ∃∀ impossibility families (`fairlab.search.impossibility`) take every plain
base first and the decorated ones after (an impossibility on a smaller domain is the stronger
statement), so the sources' families are found as before; so does the non-uniqueness hunt of
`fairlab rediscover` (its readable tied instances are plain).
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction
from typing import Iterator, Sequence

from fairlab.core.domain import ALL, LEVELS, Domain
from fairlab.core.instance import Instance
from fairlab.counterexamples.store import canonical_form

#: the weights the grid draws (small integers; all equal is the unweighted instance, never drawn)
GRID_WEIGHTS = (1, 2, 3)
#: the grid's task caps, in quarters of the user's solo tasks (what it would run alone)
GRID_CAP_QUARTERS = (1, 2, 3)
#: the random engine's largest weight (weights 1..this)
RANDOM_MAX_WEIGHT = 10
#: the kinds of candidates and their cycle of pulls, by what the domain allows (module docstring)
DRAWS: dict[tuple[bool, bool], tuple[str, ...]] = {
    (True, True): ("plain", "plain", "weighted", "capped"),
    (True, False): ("plain", "weighted"),
    (False, True): ("plain", "capped"),
    (False, False): ("plain",),
}


def cycle_of(domain: Domain) -> tuple[str, ...]:
    """The cycle of candidate kinds the streams draw on `domain` (`DRAWS`)."""
    return DRAWS[(domain.weights != "none", domain.caps != "none")]


def drawn_domain(instance: Instance) -> Domain:
    """The narrowest weights and caps an instance lies in (the other fields at ``all``): what a
    candidate shows of the domain (`widest` of them is the part a search explored)."""
    weights = "none"
    if any(w != 1 for row in instance.weights for w in row):
        weights = "scalar" if instance.scalar_weights() is not None else "vector"
    caps = "allowed" if any(t is not None for t in instance.max_tasks) else "none"
    return Domain(weights=weights, caps=caps)


def narrowest(instance: Instance) -> Domain:
    """The narrowest domain holding `instance` (every field: demands, weights, caps, capacities,
    departures)."""
    pools = list(instance.machines) if instance.machines is not None else [instance.capacities]
    return Domain(demands="positive" if all(d > 0 for row in instance.demands for d in row) else "nonnegative",
                  weights=drawn_domain(instance).weights, caps=drawn_domain(instance).caps,
                  capacities="unit" if all(c == 1 for pool in pools for c in pool) else "arbitrary",
                  departures="allowed" if any(k == "depart" for k, _ in instance.events or ()) else "none")


def widest(a: Domain, b: Domain) -> Domain:
    """The smallest domain containing both (each field the wider of the two)."""
    return Domain(**{key: max(getattr(a, key), getattr(b, key), key=LEVELS[key].index) for key in LEVELS})


def _rows(m: int, values) -> list[tuple[int, ...]]:
    return [row for row in itertools.product(values, repeat=m) if any(row)]


# --------------------------------------------------------------------------- the plain streams
def plain_grid(n: int, m: int, max_entry: int = 4, discrete: bool = False, max_capacity: int = 8,
               domain: Domain = ALL) -> Iterator[Instance]:
    """Small unweighted, uncapped instances, smallest largest-entry first, each once up to symmetry,
    all in `domain` (demands from 1 up if it asks positive demands, capacities 1 if unit): the grid
    of earlier versions."""
    seen: set = set()
    low = 1 if domain.demands == "positive" else 0
    for bound in range(1, max_entry + 1):
        rows = _rows(m, range(low, bound + 1))
        cap_choices = [(1,) * m] if not discrete or domain.capacities == "unit" else \
            list(itertools.product(range(1, max_capacity + 1), repeat=m))
        for combo in itertools.combinations_with_replacement(rows, n):
            if max(max(r) for r in combo) != bound:
                continue
            for caps in cap_choices:
                if discrete and max(caps) > bound * max_capacity:
                    continue
                inst = Instance.build(list(caps), [list(r) for r in combo])
                key = canonical_form(inst, rescale_rows=not discrete)
                if key in seen:
                    continue
                seen.add(key)
                yield inst


def _plain_random(n: int, m: int, rng: random.Random, max_entry: int, discrete: bool,
                  domain: Domain) -> Iterator[Instance]:
    positive = domain.demands == "positive"
    while True:
        rows = []
        for _ in range(n):
            row = [rng.randint(1, max_entry) if positive else
                   rng.choice([0] + list(range(1, max_entry + 1))) if rng.random() < 0.3 else rng.randint(1, max_entry)
                   for _ in range(m)]
            if not any(row):
                row[rng.randrange(m)] = rng.randint(1, max_entry)
            rows.append(row)
        if discrete:
            caps = [rng.randint(max(max(r[j] for r in rows), 1), 4 * max_entry) for j in range(m)]
        else:
            caps = [rng.randint(1, max_entry) for _ in range(m)]
        if domain.capacities == "unit":
            caps = [1] * m
        yield Instance.build(caps, rows)


# --------------------------------------------------------------------------- decorations
def _solo(instance: Instance, i: int, discrete: bool) -> Fraction:
    """Tasks user i runs alone (whole tasks for a discrete mechanism), no cap."""
    best = min(instance.capacities[r] / d for r, d in enumerate(instance.demands[i]) if d > 0)
    return Fraction(math.floor(best)) if discrete else best


def _cap(instance: Instance, i: int, fraction: Fraction, discrete: bool) -> Fraction | None:
    """The cap `fraction` of user i's solo tasks (whole tasks, at least 1 and below the solo count, for
    a discrete mechanism; None where no such whole number exists)."""
    solo = _solo(instance, i, discrete)
    if not discrete:
        return solo * fraction
    cap = Fraction(max(1, math.floor(solo * fraction)))
    return cap if cap < solo else None


def weight_assignments(n: int, m: int, domain: Domain, values: Sequence[int] = GRID_WEIGHTS) -> Iterator[list]:
    """The grid's weight assignments on `domain`, lazily: per user a scalar (``weights=scalar``) or,
    on ``weights=vector``, a scalar or a vector (alternating), entries from `values`, smallest
    largest entry first, never every weight equal (the unweighted instance again). Nothing where
    the domain has no weights."""
    if domain.weights == "none":
        return
    for top in values[1:]:
        level = [v for v in values if v <= top]
        scalars = ([*ws] for ws in itertools.product(level, repeat=n) if max(ws) == top and len(set(ws)) > 1)
        vectors = ([[*row] for row in rows] for rows in itertools.product(itertools.product(level, repeat=m), repeat=n)
                   if max(w for row in rows for w in row) == top and any(len(set(row)) > 1 for row in rows))
        streams: list[Iterator[list]] = [scalars, vectors] if domain.weights == "vector" and m > 1 else [scalars]
        while streams:
            for stream in list(streams):
                item = next(stream, None)
                if item is None:
                    streams.remove(stream)
                else:
                    yield item


def cap_assignments(n: int, quarters: Sequence[int] = GRID_CAP_QUARTERS) -> Iterator[tuple]:
    """The grid's cap patterns, lazily: per user None (no cap) or a fraction of its solo tasks, at
    least one user capped; fewest capped users first, then largest caps on the first users first
    (the order of sorting every pattern by that key, without building the (|quarters|+1)^n of them:
    at 12 users that list alone took minutes)."""
    values = [Fraction(q, 4) for q in sorted(quarters, reverse=True)] + [None]

    def patterns(position: int, capped_left: int) -> Iterator[tuple]:
        if position == n:
            if capped_left == 0:
                yield ()
            return
        for value in values:
            left = capped_left - (value is not None)
            if 0 <= left <= n - position - 1:
                for rest in patterns(position + 1, left):
                    yield (value, *rest)

    for capped in range(1, n + 1):
        yield from patterns(0, capped)


def with_caps(instance: Instance, pattern: Sequence[Fraction | None], discrete: bool) -> Instance | None:
    """`instance` with user i capped at ``pattern[i]`` of its solo tasks (None: no cap; whole tasks for a
    discrete mechanism, `_cap`); None when no user can be capped so."""
    caps = [None if f is None else _cap(instance, i, f, discrete) for i, f in enumerate(pattern)]
    if all(c is None for c in caps):
        return None
    return instance.replace(max_tasks=caps)


def _diagonal(first: Iterator, second: Iterator) -> Iterator[tuple]:
    """Every pair (a, b), a from `first`, b from `second` (both lazy, maybe endless), in Cantor
    order: (0,0), (0,1), (1,0), (0,2), (1,1), (2,0), ..."""
    heads: tuple[list, list] = ([], [])
    done = [False, False]
    streams = (first, second)
    s = 0
    while True:
        for k in (0, 1):  # each list long enough for this diagonal, if the stream has that much
            while not done[k] and len(heads[k]) <= s:
                item = next(streams[k], _END)
                if item is _END:
                    done[k] = True
                else:
                    heads[k].append(item)
        a, b = heads
        if not a or not b or s > len(a) + len(b) - 2:
            return
        for i in range(max(0, s - len(b) + 1), min(s, len(a) - 1) + 1):
            yield a[i], b[s - i]
        s += 1


_END = object()


def _decorated_grid(kind: str, base: Iterator[Instance], n: int, m: int, discrete: bool,
                    domain: Domain) -> Iterator[Instance]:
    """The grid's weighted (or capped) instances: the plain grid instances `base` × decorations,
    diagonally, each once up to symmetry."""
    decorations = weight_assignments(n, m, domain) if kind == "weighted" else cap_assignments(n)
    seen: set = set()
    for inst, decoration in _diagonal(base, decorations):
        out = inst.replace(weights=decoration) if kind == "weighted" else with_caps(inst, decoration, discrete)
        if out is None:
            continue
        key = canonical_form(out, rescale_rows=not discrete)
        if key in seen:
            continue
        seen.add(key)
        yield out


def _interleave(streams: dict[str, Iterator[Instance]], cycle: Sequence[str]) -> Iterator[Instance]:
    """Pull the streams in the fixed `cycle` of kinds; a stream that ends drops out of the cycle."""
    live = [kind for kind in cycle if kind in streams]
    while live:
        for kind in list(live):
            if kind not in live:
                continue
            try:
                yield next(streams[kind])
            except StopIteration:
                live = [k for k in live if k != kind]


# --------------------------------------------------------------------------- what the engines walk
def grid(n: int, m: int, max_entry: int = 4, discrete: bool = False, max_capacity: int = 8,
         domain: Domain = ALL) -> Iterator[Instance]:
    """Small instances of `domain`, each once up to symmetry: the plain grid (`plain_grid`)
    interleaved with weighted and capped ones where `domain` allows them (module docstring)."""
    cycle = cycle_of(domain)
    kinds = [kind for kind in ("weighted", "capped") if kind in cycle]
    # one walk of the plain grid (its symmetry reduction is the costly part), shared by every stream
    plain, *bases = itertools.tee(plain_grid(n, m, max_entry, discrete, max_capacity, domain), 1 + len(kinds))
    streams = {"plain": plain}
    for kind, base in zip(kinds, bases):
        streams[kind] = _decorated_grid(kind, base, n, m, discrete, domain)
    return _interleave(streams, cycle)


def plain_first(n: int, m: int, max_entry: int = 4, discrete: bool = False,
                   domain: Domain = ALL) -> Iterator[Instance]:
    """The grid's instances of `domain`, every plain one first, then the weighted and capped ones
    (alternating): the bases of the impossibility families, and the non-uniqueness hunt's grid."""
    seen: list[Instance] = []
    for inst in plain_grid(n, m, max_entry, discrete, domain=domain):
        seen.append(inst)
        yield inst
    kinds = [k for k in cycle_of(domain) if k != "plain"]
    yield from _interleave({kind: _decorated_grid(kind, iter(seen), n, m, discrete, domain) for kind in kinds}, kinds)


def _decorate_randomly(inst: Instance, kind: str, rng: random.Random, discrete: bool,
                       domain: Domain) -> Instance:
    n, m = inst.n, inst.m
    weights = kind == "weighted" or (domain.weights != "none" and rng.random() < 0.25)
    capped = kind == "capped" or (domain.caps != "none" and rng.random() < 0.25)
    changes: dict = {}
    if weights:
        while True:  # not every weight 1 (that is the plain instance)
            if domain.weights == "vector" and m > 1 and rng.random() < 0.5:
                ws: list = [[rng.randint(1, RANDOM_MAX_WEIGHT) for _ in range(m)] for _ in range(n)]
                flat = [w for row in ws for w in row]
            else:
                ws = [rng.randint(1, RANDOM_MAX_WEIGHT) for _ in range(n)]
                flat = ws
            if any(w != 1 for w in flat):
                break
        changes["weights"] = ws
    if capped:
        while True:
            chosen = [rng.random() < 0.5 for _ in range(n)]
            if any(chosen):
                break
        caps = [None if not c else _cap(inst, i, Fraction(rng.randint(1, 7), 8), discrete)
                for i, c in enumerate(chosen)]
        if any(c is not None for c in caps):
            changes["max_tasks"] = caps
    return inst.replace(**changes) if changes else inst


def _decorated_random(kind: str, n: int, m: int, rng: random.Random, max_entry: int, discrete: bool,
                      domain: Domain) -> Iterator[Instance]:
    for inst in _plain_random(n, m, rng, max_entry, discrete, domain):
        yield _decorate_randomly(inst, kind, rng, discrete, domain)


def random_instances(n: int, m: int, seed: int = 0, max_entry: int = 12, discrete: bool = False,
                     domain: Domain = ALL) -> Iterator[Instance]:
    """An endless seeded stream of random instances of `domain` (integer demands 0..max_entry, some
    zeros; from 1 if it asks positive demands; capacities 1 if it asks unit capacities): the plain
    stream of earlier versions interleaved with weighted and capped candidates where `domain`
    allows them (module docstring)."""
    cycle = cycle_of(domain)
    streams = {"plain": _plain_random(n, m, random.Random(seed), max_entry, discrete, domain)}
    decorated = random.Random(f"fairlab decorations {seed}")  # one second stream, its own seed
    for kind in ("weighted", "capped"):
        if kind in cycle:
            streams[kind] = _decorated_random(kind, n, m, decorated, max_entry, discrete, domain)
    return _interleave(streams, cycle)


def integerise(instance: Instance) -> Instance:
    """The same instance written with the smallest integers per resource column (scale a column)."""
    caps, rows = list(instance.capacities), [list(r) for r in instance.demands]
    for r in range(instance.m):
        column = [caps[r]] + [row[r] for row in rows]
        lcm = 1
        for v in column:
            lcm = lcm * v.denominator // math.gcd(lcm, v.denominator)
        ints = [int(v * lcm) for v in column]
        g = 0
        for x in ints:
            g = math.gcd(g, x)
        caps[r] = Fraction(ints[0] // g)
        for i in range(instance.n):
            rows[i][r] = Fraction(ints[i + 1] // g)
    return instance.replace(capacities=caps, demands=rows)
