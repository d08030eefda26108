"""A per-user reading of Theorem 7 of the DRF paper: within one max-task of the continuous DRF.

Source: the wording of the lab's brief ("dominant shares within one max-task of the continuous DRF"). The DRF
paper (§6.2, Theorem 7, as translated in the lab's sources) states the bound for ANY TWO USERS,
compared with the continuous allocation — `fairlab.properties.thm7_pairwise`; this per-user reading
is not the paper's statement (the ledger entry ``drf-thm7-machines-continuous`` is out of scope
for that reason, and checks that the reading fails). Checked literally: each user's dominant share
(against the pooled capacities) is within the dominant share of one max-task of its dominant share
in the continuous DRF allocation of the pooled instance (`Instance.pooled`, mechanism ``drf``),
in either direction. n/a outside the theorem's assumptions (`fairlab.properties._thm7`). With K
machines each wasting almost a max-task this reading fails although the pairwise one holds.
"""

from __future__ import annotations

from fairlab import mechanisms
from fairlab.core.exact import format_exact
from fairlab.properties._machines import PlacementProperty, totals, users
from fairlab.properties._thm7 import assumptions, dominant_shares
from fairlab.properties.base import run
from fairlab.properties.property import UserWitness, register

NAME = "thm7-continuous"


def context(mech, inst, options):
    big, delta = assumptions(NAME, inst)
    pooled = inst.pooled()
    drf = run(mechanisms.get("drf"), pooled, {})
    return big, delta, tuple(t * pooled.dominant_share_per_task(i) for i, t in enumerate(drf))


def off(inst, placement, integral, context, i):
    _, delta, continuous = context
    s = dominant_shares(inst, totals(placement))
    return abs(s[i] - continuous[i]) > delta


def explain(inst, placement, integral, context, witness):
    _, delta, continuous = context
    i = witness.user
    s = dominant_shares(inst, totals(placement))
    return (f"user {inst.users[i]}'s dominant share {format_exact(s[i])} is {format_exact(abs(s[i] - continuous[i]))} "
            f"away from its continuous DRF dominant share {format_exact(continuous[i])} on the pooled capacities, more "
            f"than one max-task's dominant share {format_exact(delta)}")


PROPERTY = register(PlacementProperty(
    name=NAME,
    title="Theorem 7 (continuous): dominant shares within one max-task of continuous DRF",
    definition=("Each user's dominant share (against the pooled capacities) is within the dominant share of one "
                "max-task of its dominant share under continuous DRF on the pooled capacities. A per-user reading "
                "(the lab's wording) of DRF paper §6.2 Theorem 7, which states the bound pairwise (thm7-pairwise). "
                "n/a unless all demands are positive, no task caps, and every machine holds "
                "a max-task."),
    source="the lab's reading of Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §6.2 Theorem 7",
    witness=UserWitness,
    witness_help='{"user": i}  (0-based: a user more than one max-task away from continuous DRF)',
    rule=off,
    choices=users,
    explain=explain,
    context=context,
))
