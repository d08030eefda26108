"""Shrink a violation to a small, readable one, re-verifying exactly at every step.

Greedy and deterministic: drop users, drop resources, drop the weights and the task caps, then
reduce them one user at a time (weights towards 1 and towards equal: a user's weights all 1, a
weight vector made one scalar, every weight divided by their common factor, one weight lowered to
1, half or minus one; caps towards none: a user's cap removed, then written with a smaller
denominator), write each resource column with the smallest integers (`space.integerise`), then
lower single demand and capacity entries (to 0, 1, half, minus one) while the property stays
violated. Every accepted step is a fresh exact check by the caller's
`violates(instance)` (which returns the verified verdict or None), so the result is always a
verified violation.

The budget is a number of trials (checks of smaller candidates), so the same violation shrinks
to the same instance on any machine; a wall-clock `deadline` is only an outer stop, and a shrink
it cuts short says so (the instance is still a verified violation, maybe not the smallest).
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Callable, Iterable, Optional, TypeVar

from fairlab.core.domain import ALL, Domain
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.search.budgets import SHRINK_TRIALS
from fairlab.search.space import integerise

V = TypeVar("V")  # what a violation check answers (a Result, a witness, ...)


def _try(candidate_builder, violates, domain: Domain = ALL):
    try:
        candidate = candidate_builder()
    except InputError:  # e.g. a row became all zero
        return None
    if domain.contains(candidate) is not None:  # a shrink never leaves the domain searched
        return None
    verdict = violates(candidate)
    return (candidate, verdict) if verdict is not None else None


def _smaller_instances(best: Instance, min_users: int):
    """Builders of the next smaller candidates, in the order they are tried: drop a user, drop a
    resource, drop or reduce weights and caps, lower one entry (then rewrite with the smallest integers)."""
    if best.n > min_users:
        for i in range(best.n):
            yield lambda i=i: _drop_user(best, [k for k in range(best.n) if k != i])
    if best.m > 1:
        for r in range(best.m):
            yield lambda r=r: _drop_resource(best, r)
    yield from _plainer(best)
    for position, value in _entries(best):
        for smaller in _smaller_values(value, position[0] == "c"):
            yield lambda position=position, smaller=smaller: integerise(_set_entry(best, position, smaller))


def _plainer(best: Instance):
    """Builders of the same instance with plainer weights and task caps (see the module docstring)."""
    weighted = any(w != 1 for row in best.weights for w in row)
    capped = any(t is not None for t in best.max_tasks)
    if weighted:
        yield lambda: best.replace(weights=None)
    if capped:
        yield lambda: best.replace(max_tasks=None)
    if weighted:
        rows = [list(row) for row in best.weights]
        for i, row in enumerate(rows):
            if any(w != 1 for w in row):
                yield lambda i=i: _set_weights(best, i, [Fraction(1)] * best.m)
        if best.scalar_weights() is None:
            yield lambda: best.replace(weights=[max(row) for row in rows])
            for i, row in enumerate(rows):
                if len(set(row)) > 1:
                    yield lambda i=i, row=row: _set_weights(best, i, [min(row)] * best.m)
        common = _common_factor([w for row in rows for w in row])
        if common != 1:
            yield lambda: _scaled_weights(best, 1 / common)
        for i, row in enumerate(rows):
            for r, w in enumerate(row if best.weights_given == "vector" else row[:1]):
                for smaller in _smaller_values(w, True):
                    yield lambda i=i, r=r, smaller=smaller: _set_weight(best, i, r, smaller)
    if capped:
        for i, cap in enumerate(best.max_tasks):
            if cap is not None:
                yield lambda i=i: _set_cap(best, i, None)
        for i, cap in enumerate(best.max_tasks):
            if cap is not None:
                for simpler in _simpler_caps(cap):
                    yield lambda i=i, simpler=simpler: _set_cap(best, i, simpler)


def _common_factor(values) -> Fraction:
    """The largest rational q with every value an integer multiple of q."""
    numerators, denominators = 0, 1
    for v in values:
        numerators = math.gcd(numerators, v.numerator)
        denominators = denominators * v.denominator // math.gcd(denominators, v.denominator)
    return Fraction(numerators, denominators)


def _simpler_caps(cap: Fraction) -> list[Fraction]:
    """Caps with a smaller denominator near `cap` (towards whole tasks), none of them 0."""
    out: list[Fraction] = []
    for limit in (1, 2, 4, 8):
        if limit >= cap.denominator:
            break
        for v in (cap.limit_denominator(limit), Fraction(math.ceil(cap * limit), limit)):
            if v > 0 and v != cap and v not in out:
                out.append(v)
    return out


def _weight_rows(inst: Instance) -> list[list]:
    return [list(row) for row in inst.weights]


def _weights_value(rows: list[list]) -> list:
    """Weights as `Instance.build` takes them: scalars when every row is constant."""
    if all(len(set(row)) == 1 for row in rows):
        return [row[0] for row in rows]
    return rows


def _set_weights(inst: Instance, i: int, row: list) -> Instance:
    rows = _weight_rows(inst)
    rows[i] = list(row)
    return inst.replace(weights=None if all(w == 1 for r in rows for w in r) else _weights_value(rows))


def _set_weight(inst: Instance, i: int, r: int, value: Fraction) -> Instance:
    rows = _weight_rows(inst)
    if inst.weights_given == "vector":
        rows[i][r] = value
    else:  # a scalar weight is one number per user
        rows[i] = [value] * inst.m
    return inst.replace(weights=None if all(w == 1 for row in rows for w in row) else _weights_value(rows))


def _scaled_weights(inst: Instance, factor: Fraction) -> Instance:
    return inst.replace(weights=_weights_value([[w * factor for w in row] for row in _weight_rows(inst)]))


def _set_cap(inst: Instance, i: int, value: Fraction | None) -> Instance:
    caps = list(inst.max_tasks)
    caps[i] = value
    return inst.replace(max_tasks=None if all(c is None for c in caps) else caps)


def shrink(
    instance: Instance,
    verdict: V,
    violates: Callable[[Instance], Optional[V]],
    trials: int = SHRINK_TRIALS,
    deadline: float | None = None,
    min_users: int = 1,
    stop: type[BaseException] | None = None,
    seconds: float | None = None,
    smaller: Callable[[Instance], Iterable[Instance]] | None = None,
    domain: Domain = ALL,
) -> tuple[Instance, V, int, int, bool]:
    """Returns (smallest instance found, its verdict, accepted steps, trials used, cut short by time):
    after integerising, the first smaller candidate that still violates is accepted and the walk
    starts again from it, until no smaller candidate violates or `trials` checks are spent.

    `smaller(instance)`: the candidates of another setting (machines, arrivals), in the order they
    are tried, instead of this module's (drop a user or resource, lower an entry); then there is no
    integerising step.

    `deadline` (time.monotonic()) or `seconds` is the outer stop; `violates` may raise `stop` to
    say the outer stop fired inside a check. `domain`: a candidate outside it is never tried (the
    shrunk instance stays in the domain the violation was found in)."""
    if seconds is not None:
        limit = time.monotonic() + seconds
        deadline = limit if deadline is None else min(deadline, limit)
    best, best_verdict, steps, tried = instance, verdict, 0, 0
    if trials <= 0:
        return best, best_verdict, steps, tried, False
    stops = (stop,) if stop is not None else ()

    def out_of_time():
        return deadline is not None and time.monotonic() >= deadline

    if smaller is None:
        builders = lambda best: _smaller_instances(best, min_users)  # noqa: E731
    else:
        builders = lambda best: ((lambda c=c: c) for c in smaller(best))  # noqa: E731
    try:
        if smaller is None:
            tried += 1
            result = _try(lambda: integerise(best), violates, domain)
            if result:
                (best, best_verdict), steps = result, 1
        changed = True
        while changed:
            changed = False
            for build in builders(best):
                if tried >= trials:
                    return best, best_verdict, steps, tried, False
                if out_of_time():
                    return best, best_verdict, steps, tried, True
                tried += 1
                result = _try(build, violates, domain)
                if result:
                    (best, best_verdict), steps, changed = result, steps + 1, True
                    break
    except stops:
        return best, best_verdict, steps, tried, True
    return best, best_verdict, steps, tried, False


def _renumbered(names: list[str], kept: list[str], prefix: str) -> list[str]:
    """The names of what is kept: default names (``r1 .. rm`` in order) are numbered afresh, so a
    3×2 instance shrunk from a 3×3 one says ``r1, r2`` (as its indices do), not ``r2, r3``; names the
    instance was given are kept."""
    if names == [f"{prefix}{k + 1}" for k in range(len(names))]:
        return [f"{prefix}{k + 1}" for k in range(len(kept))]
    return kept


def _drop_user(inst: Instance, keep: list[int]) -> Instance:
    data = inst.to_dict()
    data["demands"] = [data["demands"][i] for i in keep]
    data["users"] = _renumbered(data["users"], [data["users"][i] for i in keep], "u")
    if "weights" in data:
        data["weights"] = [data["weights"][i] for i in keep]
    if "max_tasks" in data:
        data["max_tasks"] = [data["max_tasks"][i] for i in keep]
    return Instance.from_dict(data)


def _drop_resource(inst: Instance, r: int) -> Instance:
    data = inst.to_dict()
    data["capacities"] = [c for j, c in enumerate(data["capacities"]) if j != r]
    data["demands"] = [[d for j, d in enumerate(row) if j != r] for row in data["demands"]]
    data["resources"] = _renumbered(data["resources"], [x for j, x in enumerate(data["resources"]) if j != r], "r")
    if inst.weights_given == "vector":
        data["weights"] = [[w for j, w in enumerate(row) if j != r] for row in data["weights"]]
    return Instance.from_dict(data)


def _entries(inst: Instance):
    for r, c in enumerate(inst.capacities):
        yield ("c", r), c
    for i, row in enumerate(inst.demands):
        for r, d in enumerate(row):
            yield ("d", i, r), d


def _smaller_values(value: Fraction, is_capacity: bool):
    out = []
    for v in ([] if is_capacity else [Fraction(0)]) + [Fraction(1), Fraction(int(value) // 2), value - 1]:
        if (v > 0 or (v == 0 and not is_capacity)) and v < value and v not in out:
            out.append(v)
    return out


def _set_entry(inst: Instance, position, value) -> Instance:
    data = inst.to_dict()
    if position[0] == "c":
        data["capacities"][position[1]] = str(value)
    else:
        data["demands"][position[1]][position[2]] = str(value)
    return Instance.from_dict(data)
