"""Mechanisms that mishandle weights or task caps, for the proofs on the whole domain: each must
not be proved where it departs from DRF (its spec describes its allocator, so conformance passes
and the proof itself must find the violation), and is proved where it is DRF.

* `unweighted_drf`: DRF that ignores the weights (allocator and spec alike);
* `clipped_drf`: DRF computed as if nobody were capped, then each user clipped at its cap (what a
  capped user leaves is never handed on): not Pareto efficient when a cap binds;
* `spec_ignores_weights`: DRF's allocator with the unweighted spec (spec and allocator disagree
  on a weighted instance: the conformance gate's sample must include weights to notice).
"""

import z3

from fairlab.mechanisms import drf
from fairlab.mechanisms.base import Constraint, SymbolicInstance


def _unweighted(sym):
    return SymbolicInstance(list(sym.capacities), [list(r) for r in sym.demands],
                            [[z3.RealVal(1)] * sym.m for _ in range(sym.n)], list(sym.max_tasks))


def unweighted_drf(instance):
    """DRF with every weight read as 1."""
    return drf.allocate(instance.replace(weights=None)).tasks


unweighted_drf.spec = lambda sym, tasks: drf.spec(_unweighted(sym), tasks)
unweighted_drf.scale_invariant = True
unweighted_drf.anonymous = True


def clipped_drf(instance):
    """DRF without the caps, then each user clipped at its cap."""
    uncapped = drf.allocate(instance.replace(max_tasks=None)).tasks
    return [t if cap is None else min(t, cap) for t, cap in zip(uncapped, instance.max_tasks)]


def _clipped_spec(sym, tasks):
    free = [z3.Real(f"u{i}") for i in range(sym.n)]
    uncapped = SymbolicInstance(list(sym.capacities), [list(r) for r in sym.demands], [list(w) for w in sym.weights],
                                [None] * sym.n)
    out = [Constraint(f"clip.{c.name}", c.expr) for c in drf.spec(uncapped, free)]
    for i, cap in enumerate(sym.max_tasks):
        value = free[i] if cap is None else z3.If(free[i] <= cap, free[i], cap)
        out.append(Constraint(f"clip.tasks[{i}]", tasks[i] == value))
    return out


clipped_drf.spec = _clipped_spec
clipped_drf.scale_invariant = True
clipped_drf.anonymous = True


def spec_ignores_weights(instance):
    """DRF's allocator (weights honoured); its declared spec ignores them."""
    return drf.allocate(instance).tasks


spec_ignores_weights.spec = unweighted_drf.spec
spec_ignores_weights.scale_invariant = True
spec_ignores_weights.anonymous = True
