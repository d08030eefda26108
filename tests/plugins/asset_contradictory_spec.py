"""Reproducer (issue 14 §2): asset fairness whose attached spec contradicts itself.

The spec is asset's own plus ``tasks[0] > 5`` and ``tasks[0] < 3``: no allocation satisfies it,
so "spec ∧ ¬property" is UNSAT for every property — a vacuous proof. `fairlab prove` must not
call that `proved` (asset violates si and bf: DRF paper Theorems 1-2).
"""

from fairlab.mechanisms import Constraint, allocate, asset


def asset_contradictory(instance):
    """Asset fairness with a self-contradictory spec."""
    return allocate("asset", instance)


def _spec(sym, tasks):
    return [*asset.spec(sym, tasks),
            Constraint("bad.tasks0>5", tasks[0] > 5),
            Constraint("bad.tasks0<3", tasks[0] < 3)]


asset_contradictory.spec = _spec
