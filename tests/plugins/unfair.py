"""Test plug-ins: deliberately unfair, broken and well-behaved mechanisms written by a 'researcher'."""

from fairlab.core.instance import Instance


def dictator(instance: Instance):
    """Everything to the first user: it runs as many tasks as the whole cluster allows."""
    return [instance.solo_tasks(0)] + [0] * (instance.n - 1)


def equal_split(instance: Instance):
    """Each user runs its tasks in the equal split c/n (shares of a static partition)."""
    return {
        "tasks": [
            min(c / instance.n / d for c, d in zip(instance.capacities, row) if d > 0)
            for row in instance.demands
        ]
    }


def as_floats(instance: Instance):
    """Half of DRF, returned as Python floats (read through their decimal text)."""
    from fairlab import mechanisms
    return [float(t) / 2 for t in mechanisms.allocate("drf", instance).tasks]


def raises(instance: Instance):
    raise RuntimeError("boom")


def wrong_length(instance: Instance):
    return [1] * (instance.n + 1)


def not_numbers(instance: Instance):
    return ["many"] * instance.n


def scalar(instance: Instance):
    return 3


def infeasible(instance: Instance):
    return [instance.capacities[0] * 1000] * instance.n


NOT_CALLABLE = 42
