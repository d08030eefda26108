"""Theorem 7 of the DRF paper (§6.2): what both of its readings share — the assumptions and the max-task.

Theorem 7 (Ghodsi et al., NSDI 2011, §6.2): with several machines and whole tasks, DRF's discrete
placement (machine by machine, lowest dominant share first, while a max-task fits) gives dominant
shares within the dominant share of one *max-task* — the componentwise maximum of all demand
vectors — of each other / of the continuous DRF allocation. Its proof assumes that every demand is
strictly positive and that every machine can hold a max-task; the lab also excludes task caps (the
theorem has none). On an instance outside these assumptions both properties answer ``n/a`` with the
reason (`assumptions` raises `InputError`; `PlacementProperty` turns it into the n/a verdict, and the
search counts the instance as declined).
"""

from __future__ import annotations

from fractions import Fraction

from fairlab.core.errors import InputError
from fairlab.properties._machines import fmt_vec, pooled_sigma


def assumptions(name: str, inst) -> tuple[tuple[Fraction, ...], Fraction]:
    """(the max-task, its dominant share against the pooled capacities), or InputError (n/a)."""
    for i in range(inst.n):
        if any(d <= 0 for d in inst.demands[i]):
            raise InputError(f"{name}: n/a, Theorem 7 assumes strictly positive demands ({inst.users[i]} has a zero)")
    if any(t is not None for t in inst.max_tasks):
        raise InputError(f"{name}: n/a, Theorem 7 has no task caps (the instance has max_tasks)")
    big = tuple(max(inst.demands[i][r] for i in range(inst.n)) for r in range(inst.m))
    for k, machine in enumerate(inst.machines):
        if any(b > c for b, c in zip(big, machine)):
            raise InputError(f"{name}: n/a, Theorem 7 assumes every machine holds a max-task {fmt_vec(big)}; "
                             f"{inst.machine_names[k]} is {fmt_vec(machine)}")
    delta = max(big[r] / inst.capacities[r] for r in range(inst.m))
    return big, delta


def dominant_shares(inst, placement_totals) -> tuple[Fraction, ...]:
    return tuple(t * pooled_sigma(inst, i) for i, t in enumerate(placement_totals))
