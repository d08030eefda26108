"""Sharing incentive on several machines (DRF paper §3 property 1, §6.2).

Each user runs at least as many tasks as it would with 1/n of EVERY machine to itself: with whole
tasks ``sum_k floor(min over r with d_ir > 0 of c_kr / (n d_ir))`` (a task runs whole on one
machine, so each machine's slice is floored separately), capped by its task cap (rounded down);
for a divisible mechanism the same sum without floors. Source of the property: the DRF paper's
sharing incentive (Ghodsi et al., NSDI 2011, §3 property 1), applied to the machines of §6.2 —
the slice of each machine is our reading of "1/n of the cluster" when tasks cannot span machines.
"""

from __future__ import annotations

from fairlab.core.exact import format_exact
from fairlab.properties._machines import PlacementProperty, machine_share, totals, users
from fairlab.properties.property import UserWitness, register


def below_share(inst, placement, integral, context, i):
    return totals(placement)[i] < machine_share(inst, i, integral)


def explain(inst, placement, integral, context, witness):
    i = witness.user
    return (f"user {inst.users[i]} runs {format_exact(totals(placement)[i])} tasks but 1/{inst.n} of every machine "
            f"runs {format_exact(machine_share(inst, i, integral))}")


PROPERTY = register(PlacementProperty(
    name="machines-si",
    title="sharing incentive (machines)",
    definition=("Every user runs at least as many tasks as with 1/n of every machine: sum over machines k of "
                "floor(min_r c_kr / (n d_ir)) whole tasks (no floor for a divisible mechanism), capped by its task "
                "cap. Source: DRF paper §3 property 1 (sharing incentive), on the machines of §6.2."),
    source="Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §3 property 1, §6.2",
    witness=UserWitness,
    witness_help='{"user": i}  (0-based index of a user below what 1/n of every machine runs)',
    rule=below_share,
    choices=users,
    explain=explain,
))
