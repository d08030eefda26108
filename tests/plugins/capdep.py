"""Audit plug-in (finding 1): an allocation that depends on the capacities themselves.

DRF when every capacity is 1, asset fairness otherwise. Its spec is the exact `If` of the DRF and
asset specs (correct on every instance, so conformance agrees), but the mechanism is NOT
scale-invariant: asset fairness violates sharing incentives (DRF paper, Theorem 1) on instances
whose capacities are not all 1. A proof that fixes capacities to 1 would wrongly say `proved` for
si; it declares neither `.scale_invariant` nor `.anonymous`.
"""

import z3

from fairlab.mechanisms import asset, drf
from fairlab.mechanisms.base import Constraint


def capdep(instance):
    """DRF if every capacity is 1, else asset fairness (not scale-invariant)."""
    if all(c == 1 for c in instance.capacities):
        return drf.allocate(instance).tasks
    return asset.allocate(instance).tasks


def _spec(sym, tasks):
    unit = z3.And([c == 1 for c in sym.capacities])
    return ([Constraint(c.name, z3.Implies(unit, c.expr)) for c in drf.spec(sym, tasks)]
            + [Constraint(c.name, z3.Implies(z3.Not(unit), c.expr)) for c in asset.spec(sym, tasks)])


capdep.spec = _spec
