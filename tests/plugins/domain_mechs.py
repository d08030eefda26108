"""Plug-ins of the domain tests (issue 27): a mechanism that ignores weights, one that crashes on
part of the instance space, and one that declares its domain (each honours task caps: the engines
draw them)."""

from fractions import Fraction


def _capped(instance, tasks):
    """Each user's tasks at most its task cap."""
    return [t if cap is None else min(t, cap) for t, cap in zip(tasks, instance.max_tasks)]


def equal_split(instance):
    """Every user gets 1/n of every resource (ignores weights): the most tasks its 1/n bundle runs
    (under its task cap)."""
    n = instance.n
    return _capped(instance, [min(c / n / d for c, d in zip(instance.capacities, row) if d > 0)
                              for row in instance.demands])


def raw_drf(instance):
    """DRF by plain progressive filling (lab's test plug-in): every active user's dominant share grows
    at the same rate until a resource it uses is full (or it reaches its task cap). Divides by zero
    when no active user needs a resource (a zero demand column), as a careless implementation would."""
    n, m = instance.n, instance.m
    caps, dem, limit = instance.capacities, instance.demands, instance.max_tasks
    share = [max(d / c for d, c in zip(row, caps)) for row in dem]  # dominant share per task
    tasks = [Fraction(0)] * n
    active = set(range(n))
    while active:
        rate = [sum(dem[i][r] / share[i] for i in active) / caps[r] for r in range(m)]
        used = [sum(tasks[i] * dem[i][r] for i in range(n)) / caps[r] for r in range(m)]
        step = min((1 - used[r]) / rate[r] for r in range(m))  # raises when some rate is 0
        step = min([step] + [(limit[i] - tasks[i]) * share[i] for i in active if limit[i] is not None])
        for i in active:
            tasks[i] += step / share[i]
        full = {r for r in range(m) if sum(tasks[i] * dem[i][r] for i in range(n)) >= caps[r]}
        active = {i for i in active if not any(dem[i][r] > 0 for r in full)
                  and (limit[i] is None or tasks[i] < limit[i])}
    return tasks


def positive_only(instance):
    """Declares positive demands (its domain attribute) and refuses anything else loudly."""
    assert all(d > 0 for row in instance.demands for d in row), "a zero demand reached a positive-only mechanism"
    return equal_split(instance)


positive_only.domain = "demands=positive"


def greedy_first(instance):
    """User 0 takes everything it can, the others nothing (lab's test plug-in): violates si on every
    instance with two users. Divides by zero on a zero demand, as a careless implementation would."""
    first = min(c / d for c, d in zip(instance.capacities, instance.demands[0]))  # raises when some d is 0
    return _capped(instance, [first] + [Fraction(0)] * (instance.n - 1))


def scalar_split(instance):
    """The weighted equal split w_i / sum w of every resource (one weight per user); refuses weight
    vectors (lab's test plug-in: a search of it covers scalar weights only, and says so)."""
    from fairlab.core.errors import InputError

    weights = instance.scalar_weights()
    if weights is None:
        raise InputError("weight vectors: this mechanism takes one weight per user")
    total = sum(weights)
    return _capped(instance, [min(w / total * c / d for c, d in zip(instance.capacities, row) if d > 0)
                              for w, row in zip(weights, instance.demands)])
