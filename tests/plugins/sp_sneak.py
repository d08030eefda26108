"""Audit plug-in (issue 16 audit, finding 1): DRF with DRF's spec, except on one misreport.

On capacities <9, 18> a user 0 declaring <1, 37/8> gets everything it can use: with its true
demand <1, 4> (the DRF paper's example, `drf-paper`) that bundle runs 144/37 > 3 real tasks, so
the allocator is NOT strategyproof at drf-paper, while its declared spec (DRF's) is. A check that
trusted the spec's unsat would say `holds`.
"""

from fractions import Fraction

from fairlab import mechanisms
from fairlab.mechanisms import drf


def sp_sneak(instance):
    """DRF, but user 0's one special misreport gets it everything."""
    if (instance.n == 2 and list(instance.capacities) == [9, 18]
            and list(instance.demands[0]) == [1, Fraction(37, 8)]):
        return [instance.solo_tasks(0), 0]
    return list(mechanisms.allocate("drf", instance).tasks)


sp_sneak.spec = drf.spec
