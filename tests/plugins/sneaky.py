"""Audit plug-in (prove scope): declares DRF's spec, but its allocator gives everything to user 0
when the first capacity is 7 — an instance the seeded conformance sample never draws. Conformance
agrees and spec ∧ ¬si is UNSAT, yet ``check sneaky si`` on capacities <7, 7> is violated; `prove`
must not say `proved` about the mechanism (the allocator check refutes it)."""

from fairlab.mechanisms import allocate, drf


def sneaky(instance):
    """DRF, except on instances whose first capacity is 7: everything to user 0."""
    if instance.capacities[0] == 7:
        return [instance.solo_tasks(0)] + [0] * (instance.n - 1)
    return allocate("drf", instance).tasks


sneaky.spec = drf.spec
