"""The large-size mutant of DRF as a mechanism (exact allocator and z3 spec), for the positive
controls of all-size proofs: `drf_from(first)` is DRF, except that from `first` users on the last
user gets half its DRF tasks unless resource 0 is one of its dominant resources.

It agrees with DRF below `first` users, so every fixed-size proof up to `first - 1` users proves
it; from `first` users on it violates si, ef, pe (identical users whose dominant resource is not
resource 0) and sp (the last user gains by declaring resource 0 dominant). An all-size proof must
not prove it (`fairlab.search.all_sizes.prove_all_sizes`: its abstraction does not hold of the
allocator at `first` users). It is not in the mechanism registry: it is a control, not a mechanism
of the sources; its all-size schema is registered with `register_family`.
"""

from __future__ import annotations

from fractions import Fraction

import z3

from fairlab.core.instance import Instance
from fairlab.mechanisms import drf
from fairlab.mechanisms.base import Allocation, Constraint, Mechanism, SymbolicInstance, z3_max
from fairlab.search.all_sizes.families import mutant_family
from fairlab.search.all_sizes.prover import register_family

_MADE: dict[int, Mechanism] = {}


def drf_from(first: int = 5) -> Mechanism:
    """The mutant (one object per `first`, registered for all-size proofs)."""
    if first in _MADE:
        return _MADE[first]
    name = f"drf-from-{first}"

    def halved(instance: Instance) -> bool:
        last = instance.n - 1
        return instance.n >= first and instance.demand_share(last, 0) < instance.dominant_share_per_task(last)

    def allocate(instance: Instance) -> Allocation:
        tasks = [Fraction(str(t)) for t in drf.allocate(instance).tasks]  # DRF's tasks are rational
        if halved(instance):
            tasks[-1] = tasks[-1] / 2
        return Allocation(name, instance, tuple(tasks))

    def spec(sym: SymbolicInstance, tasks) -> list[Constraint]:
        """DRF's spec of the tasks with the halving undone (no helper unknowns)."""
        undone = list(tasks)
        if sym.n >= first:
            last = sym.n - 1
            shares = [sym.demands[last][r] / sym.capacities[r] for r in range(sym.m)]
            undone[last] = z3.If(shares[0] < z3_max(shares), 2 * tasks[last], tasks[last])
        return list(drf.spec(sym, undone))

    mechanism = Mechanism(name=name, summary=f"DRF, except from {first} users on (a control: the large-size mutant)",
                          source="fairlab (control of all-size proofs)", allocate=allocate, spec=spec,
                          scale_invariant=True, module=__name__)
    register_family(mechanism, mutant_family(first))
    _MADE[first] = mechanism
    return mechanism


__all__ = ["drf_from"]
