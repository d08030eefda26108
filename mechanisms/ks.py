"""Kalai–Smorodinsky, lexicographic (Procaccia & Psomas lecture; DRF paper §8).

Each user's utility is normalised by its ideal point, the tasks it would run with the whole system
to itself (capped by its task cap): u_i / u_i^max. KS equalises normalised utilities (divided by
scalar weights) and, lexicographically, keeps raising those that can still grow — progressive
filling on u_i / u_i^max. Without task caps u_i / u_i^max is exactly the dominant share, so KS
coincides with DRF (the DRF paper's remark that leximin is the lexicographic KS solution); with a
cap below a user's solo maximum they differ.
"""

from __future__ import annotations

from fractions import Fraction

import z3

from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.mechanisms import _filling
from fairlab.mechanisms.base import Allocation, Mechanism, SymbolicInstance, register


def sigma(instance: Instance):
    """1 / (w_i * ideal tasks of user i)."""
    weights = instance.scalar_weights()
    if weights is None:
        raise InputError("weights: Kalai–Smorodinsky takes one scalar weight per user, not weight vectors")
    out = []
    for i in range(instance.n):
        ideal = instance.solo_tasks(i)
        out.append(1 / (weights[i] * ideal) if ideal > 0 else Fraction(1))  # cap 0: never filled
    return out


def allocate(instance: Instance) -> Allocation:
    tasks, rounds = _filling.fill(instance, sigma(instance))
    return Allocation("ks", instance, tasks, extra={"rounds": rounds})


def _ideal(sym: SymbolicInstance, i: int) -> z3.ArithRef:
    """min over used resources of c_r / d_ir, then min with the cap (If-chains for unknown demands)."""
    best = None
    for r in range(sym.m):
        d, c = sym.demands[i][r], sym.capacities[r]
        cand = c / d
        if best is None:
            best = z3.If(d > 0, cand, -1)  # -1: no used resource seen yet
        else:
            best = z3.If(z3.And(d > 0, z3.Or(best < 0, cand < best)), cand, best)
    cap = sym.max_tasks[i]
    if cap is not None:
        best = z3.If(cap < best, cap, best)
    return best


def spec(sym: SymbolicInstance, tasks) -> list:
    """Bottleneck characterisation on normalised utilities tasks_i / (w_i ideal_i)."""
    sig = [1 / (sym.weights[i][0] * _ideal(sym, i)) for i in range(sym.n)]
    return _filling.bottleneck_spec(sym, tasks, sig, "ks")


MECHANISM = register(
    Mechanism(
        name="ks",
        summary="Kalai–Smorodinsky: leximin on utilities normalised by each user's solo maximum",
        source="Procaccia & Psomas lecture 'Kalai–Smorodinsky bargaining solution'; DRF paper §8",
        allocate=allocate,
        spec=spec,
        scale_invariant=True, anonymous=True,
        module=__name__,
    )
)
