"""Instance spaces the engines walk: a grid of small instances up to symmetry, and random samples.

Grid: capacities 1 for continuous mechanisms (every mechanism here works on shares, so a resource
can be rescaled to capacity 1 without changing any verdict) or small integers for discrete ones;
demands from a small set of integers, growing the largest entry 1, 2, 3, …; users up to order
(rows as a multiset) and everything up to resource order and row scaling through the canonical
form of `fairlab.counterexamples.store`, so each instance is evaluated once.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction
from typing import Iterator

from fairlab.core.domain import ALL, Domain
from fairlab.core.instance import Instance
from fairlab.counterexamples.store import canonical_form


def _rows(m: int, values) -> list[tuple[int, ...]]:
    return [row for row in itertools.product(values, repeat=m) if any(row)]


def grid(n: int, m: int, max_entry: int = 4, discrete: bool = False, max_capacity: int = 8,
         domain: Domain = ALL) -> Iterator[Instance]:
    """Small instances, smallest largest-entry first, each once up to symmetry, all in `domain`
    (unit weights, no caps; demands from 1 up if it asks positive demands, capacities 1 if unit)."""
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


def random_instances(n: int, m: int, seed: int = 0, max_entry: int = 12, discrete: bool = False,
                     domain: Domain = ALL) -> Iterator[Instance]:
    """An endless seeded stream of random instances (integer demands 0..max_entry, some zeros; from
    1 if `domain` asks positive demands; capacities 1 if it asks unit capacities; unit weights, no
    caps). The stream of ``all`` is the one of earlier versions."""
    rng = random.Random(seed)
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
