"""Dominant Resource Fairness, continuous (Ghodsi et al., NSDI 2011, §4 and appendix A.1).

Max-min fairness on dominant shares by progressive filling, with several rounds: when a resource
saturates, its users freeze and the others keep growing (zero demands let a user ignore a
saturated resource). Weighted DRF (§4.3): user i's dominant share is max_r s_ir / w_ir with a
weight vector w_i, or s_i / w_i with a scalar weight. Task caps freeze a user at its cap.

Example (§4.1): capacities <9 CPU, 18 GB>, demands A <1, 4>, B <3, 1> -> A 3 tasks, B 2 tasks,
both with dominant share 2/3.
"""

from __future__ import annotations

from fairlab.core.instance import Instance
from fairlab.mechanisms import _filling
from fairlab.mechanisms.base import Allocation, Mechanism, SymbolicInstance, register, z3_max


def sigma(instance: Instance):
    """Weighted dominant share of one task: max_r d_ir / (c_r w_ir)."""
    return [instance.weighted_dominant_share_per_task(i) for i in range(instance.n)]


def allocate(instance: Instance) -> Allocation:
    tasks, rounds = _filling.fill(instance, sigma(instance))
    return Allocation("drf", instance, tasks, extra={"rounds": rounds})


def sigma_terms(sym: SymbolicInstance) -> list:
    """z3: each user's weighted dominant share of one task, max_r d_ir / (c_r w_ir) (`sigma`; the
    terms `spec` uses, which `fairlab.search.proof_weights` abstracts)."""
    return [
        z3_max([sym.demands[i][r] / (sym.capacities[r] * sym.weights[i][r]) for r in range(sym.m)])
        for i in range(sym.n)
    ]


def spec(sym: SymbolicInstance, tasks) -> list:
    """Bottleneck characterisation: each user below its cap has a saturated resource it uses on
    which its weighted dominant share is maximal among that resource's users."""
    return _filling.bottleneck_spec(sym, tasks, sigma_terms(sym), "drf")


MECHANISM = register(
    Mechanism(
        name="drf",
        summary="Dominant Resource Fairness: progressive filling on (weighted) dominant shares",
        source="DRF paper §4, §4.3 (weights), appendix A.1 (progressive filling)",
        allocate=allocate,
        spec=spec,
        scale_invariant=True, anonymous=True, parametric_spec=True,
        module=__name__,
    )
)
