"""Theorem 7 of the DRF paper, as its proof shows it: pairwise dominant shares within one max-task.

Source: Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §6.2, Theorem 7 and its proof: the
discrete placement (fill machine by machine, always the lowest dominant share, while a max-task
fits) keeps any two users' dominant shares — against the pooled capacities — within the dominant
share of one max-task (componentwise maximum of all demands) of each other. Violated at (i, j)
when s_j - s_i exceeds that bound. Defined for any machines mechanism; meaningful for
drf-machines. n/a outside the theorem's assumptions (`fairlab.properties._thm7`).
"""

from __future__ import annotations

from fairlab.core.exact import format_exact
from fairlab.properties._machines import PairWitness, PlacementProperty, pairs, totals
from fairlab.properties._thm7 import assumptions, dominant_shares
from fairlab.properties.property import register

NAME = "thm7-pairwise"


def context(mech, inst, options):
    return assumptions(NAME, inst)


def apart(inst, placement, integral, context, i, j):
    _, delta = context
    s = dominant_shares(inst, totals(placement))
    return s[j] - s[i] > delta


def explain(inst, placement, integral, context, witness):
    big, delta = context
    s = dominant_shares(inst, totals(placement))
    i, j = witness.user, witness.other
    return (f"{inst.users[j]}'s dominant share {format_exact(s[j])} exceeds {inst.users[i]}'s "
            f"{format_exact(s[i])} by {format_exact(s[j] - s[i])}, more than one max-task's dominant share "
            f"{format_exact(delta)}")


PROPERTY = register(PlacementProperty(
    name=NAME,
    title="Theorem 7 (pairwise): dominant shares within one max-task of each other",
    definition=("Any two users' dominant shares (against the pooled capacities) differ by at most the dominant share "
                "of one max-task (componentwise maximum of all demands). Source: DRF paper §6.2, Theorem 7 and its "
                "proof. n/a unless all demands are positive, no task caps, and every machine holds a max-task."),
    source="Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §6.2 Theorem 7 (proof)",
    witness=PairWitness,
    witness_help='{"user": i, "other": j}  (0-based: s_j - s_i exceeds one max-task\'s dominant share)',
    rule=apart,
    choices=pairs,
    explain=explain,
    context=context,
))
