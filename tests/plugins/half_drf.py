"""Audit plug-in: DRF, then every user gives back half (a researcher's "reserve half" variant).

What its definition implies (DRF paper §3 and Theorem 6 for DRF itself): scaling every user's
tasks by 1/2 keeps envy-freeness (each bundle is scaled alike) and strategyproofness (a misreport
gains under half-DRF exactly when it gains under DRF), but leaves resources idle, so Pareto
efficiency fails, and a user may end below its equal split (sharing incentive fails: two users on
one resource get 1/4 each where 1/2 is theirs). No symbolic spec: only the numeric engines serve it.
"""

from fractions import Fraction

from fairlab import mechanisms


def half_drf(instance):
    """Half of DRF's tasks for every user."""
    return [Fraction(t) / 2 for t in mechanisms.allocate("drf", instance).tasks]
