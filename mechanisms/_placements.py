"""The integral placements of a machines instance, up to what a user cares about: its task count.

Whole tasks on several machines (the machines setting): a placement puts x_ik whole tasks of user i on machine
k within every machine's capacity. Users value a placement by their task totals u_i = sum_k x_ik,
so a lottery over placements matters only through the total vectors it mixes, and a lottery that
is best for some Pareto-monotone criterion (the maximal t of the randomized Kalai–Smorodinsky
mechanism, a leximin, Pareto efficiency ex ante) needs only the *Pareto-maximal* total vectors:
replacing a vector by one that dominates it never hurts anyone.

`frontier(instance)` computes them exactly: the maximal count vectors of each machine (users
enumerated within its capacity), then their Minkowski sum machine by machine, pruned to the maximal
ones after every machine (a maximal sum is a sum of maximal parts, so the pruning loses nothing).
Each vector keeps one placement reaching it (the first found in a fixed enumeration order, so the
same instance gives the same placement). Task caps: the vectors are clipped to the caps (a
placement above a cap loses tasks on its last machines) and pruned again.

Used by `ks-lottery`, `random-dictatorship` and the ex-ante Pareto check of `machines-pe`.

`envy_value` is the one place where a user's value for another user's placement row is written, in
both valuation models of the machines setting (`fairlab.mechanisms.base.VALUATIONS`): `machines-ef`
judges with it and `ks-lottery`'s envy-free refinement restricts with it.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TypeVar

from fairlab.core.errors import InputError
from fairlab.core.instance import Instance

Vector = tuple[int, ...]
Placement = tuple[tuple[int, ...], ...]  # placement[i][k]

T = TypeVar("T")

#: more candidate count vectors than this at any stage: refused (exact enumeration is for small instances)
MAX_VECTORS = 60_000


def most_on(instance: Instance, i: int, free) -> int:
    """The most whole tasks of user i that the capacity vector `free` holds."""
    row = instance.demands[i]
    used = [r for r in range(instance.m) if row[r] > 0]
    if not used:
        raise InputError(f"machines: user {instance.users[i]} demands nothing; its task count is unbounded")
    return min(math.floor(free[r] / row[r]) for r in used)


def maximal(vectors: dict[Vector, T]) -> dict[Vector, T]:
    """The Pareto-maximal keys of `vectors` (kept in their first-seen order)."""
    ranked = sorted(vectors, key=lambda v: -sum(v))
    kept: list[Vector] = []
    for v in ranked:
        if not any(all(a >= b for a, b in zip(w, v)) for w in kept):
            kept.append(v)
    keep = set(kept)
    return {v: p for v, p in vectors.items() if v in keep}


def machine_vectors(instance: Instance, k: int) -> dict[Vector, Vector]:
    """The maximal count vectors of machine k (each its own placement column)."""
    machine = (instance.machines or ())[k]
    out: dict[Vector, Vector] = {}

    def walk(i: int, free: list[Fraction], prefix: list[int]) -> None:
        if len(out) > MAX_VECTORS:
            raise InputError(f"machines: more than {MAX_VECTORS} task vectors on one machine; instance too large for "
                             "the exact enumeration of placements")
        if i == instance.n:
            out[tuple(prefix)] = tuple(prefix)
            return
        top = most_on(instance, i, free)
        for x in range(top, -1, -1):
            walk(i + 1, [f - x * d for f, d in zip(free, instance.demands[i])], prefix + [x])

    walk(0, list(machine), [])
    return maximal(out)


def frontier(instance: Instance) -> dict[Vector, Placement]:
    """The Pareto-maximal task-total vectors of the integral placements, each with one placement."""
    if instance.machines is None:
        raise InputError("machines: the instance lists no machines")
    n = instance.n
    current: dict[Vector, Placement] = {tuple([0] * n): tuple(() for _ in range(n))}
    for k in range(instance.k):
        columns = machine_vectors(instance, k)
        merged: dict[Vector, Placement] = {}
        for v, placement in current.items():
            for w, column in columns.items():
                total = tuple(a + b for a, b in zip(v, w))
                if total not in merged:
                    merged[total] = tuple(row + (x,) for row, x in zip(placement, column))
            if len(merged) > MAX_VECTORS:
                raise InputError(f"machines: more than {MAX_VECTORS} task vectors; instance too large for the exact "
                                 "enumeration of placements")
        current = maximal(merged)
    if any(cap is not None for cap in instance.max_tasks):
        current = maximal(dict(clip(instance, v, p) for v, p in current.items()))
    return current


def clip(instance: Instance, vector: Vector, placement: Placement) -> tuple[Vector, Placement]:
    """The vector and placement cut down to the task caps (tasks removed from the last machines first)."""
    rows, out = [], []
    for i, row in enumerate(placement):
        cap = instance.max_tasks[i]
        limit = vector[i] if cap is None else min(vector[i], math.floor(cap))
        kept, left = [], limit
        for x in row:
            kept.append(min(x, left))
            left -= kept[-1]
        rows.append(tuple(kept))
        out.append(limit)
    return tuple(out), tuple(rows)


def envy_value(instance: Instance, placement, i: int, j: int, integral: bool = True, model: str = "pooled") -> Fraction:
    """What user i runs with user j's per-machine bundles (`placement[j][k]` tasks of j on machine k),
    capped by i's task cap (rounded down for whole tasks).

    ``pooled``: machine k's bundle x_jk d_j is pooled and runs ``floor(min over r with d_ir > 0 of
    x_jk d_jr / d_ir)`` of i's tasks there (no floor if not `integral`), summed over the machines (a
    task never spans machines). ``containers`` (Friedman, Ghodsi & Psomas, EC 2014; lab's reading):
    j holds x_jk containers on machine k, each sized d_j; a container runs ONE task of i if i's task
    fits in it (d_ir <= d_jr for every r) and none otherwise, so the value is j's task count when
    d_i <= d_j and 0 otherwise — whatever the machines (it depends on j's total only)."""
    d = instance.demands
    row = placement[j]
    if model == "containers":
        fits = all(d[i][r] <= d[j][r] for r in range(instance.m))
        total = sum((Fraction(x) for x in row), Fraction(0)) if fits else Fraction(0)
    else:
        used = [r for r in range(instance.m) if d[i][r] > 0]
        total = Fraction(0)
        for k in range(len(row)):
            value = min(Fraction(row[k]) * d[j][r] / d[i][r] for r in used)
            total += Fraction(math.floor(value)) if integral else value
    cap = instance.max_tasks[i]
    if cap is None:
        return total
    return min(total, Fraction(math.floor(cap)) if integral else cap)


def solo(instance: Instance, i: int) -> int:
    """u_i*: the most tasks user i runs with every machine to itself (capped)."""
    total = sum(most_on(instance, i, machine) for machine in instance.machines or ())
    cap = instance.max_tasks[i]
    return total if cap is None else min(total, math.floor(cap))


def as_fractions(placement: Placement) -> tuple[tuple[Fraction, ...], ...]:
    return tuple(tuple(Fraction(x) for x in row) for row in placement)
