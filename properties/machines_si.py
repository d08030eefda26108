"""Sharing incentive on several machines (DRF paper §3 property 1, §6.2).

Each user runs at least as many tasks as it would with 1/n of EVERY machine to itself: with whole
tasks ``sum_k floor(min over r with d_ir > 0 of c_kr / (n d_ir))`` (a task runs whole on one
machine, so each machine's slice is floored separately), capped by its task cap (rounded down);
for a divisible mechanism the same sum without floors. Source of the property: the DRF paper's
sharing incentive (Ghodsi et al., NSDI 2011, §3 property 1), applied to the machines of §6.2 —
the slice of each machine is our reading of "1/n of the cluster" when tasks cannot span machines.

A lottery is judged ex ante: the user's EXPECTED tasks against the same number; a placement
of its support below it is reported apart, as an ex-post finding (`fairlab.properties._machines`).

The valuation model (pooled or containers) does not change this property: a user's own tasks count
the same in both (one per container), and 1/n of every machine is a slice of resources it would
fill with containers of its own size — the same whole-task count per machine. The result records
the model with that note.
"""

from __future__ import annotations

from fairlab.core.exact import format_exact
from fairlab.properties._machines import PlacementProperty, expected_totals, machine_share, users
from fairlab.properties.property import UserWitness, register


def below_share(inst, outcomes, integral, context, i):
    return expected_totals(outcomes)[i] < machine_share(inst, i, integral)


def explain(inst, outcomes, integral, context, witness):
    i = witness.user
    runs = "runs" if len(outcomes) == 1 else "runs in expectation"
    return (f"user {inst.users[i]} {runs} {format_exact(expected_totals(outcomes)[i])} tasks but 1/{inst.n} of every "
            f"machine runs {format_exact(machine_share(inst, i, integral))}")


PROPERTY = register(PlacementProperty(
    name="machines-si",
    title="sharing incentive (machines)",
    definition=("Every user runs at least as many tasks as with 1/n of every machine: sum over machines k of "
                "floor(min_r c_kr / (n d_ir)) whole tasks (no floor for a divisible mechanism), capped by its task "
                "cap; a lottery ex ante (expected tasks). Source: DRF paper §3 property 1 (sharing incentive), on the "
                "machines of §6.2."),
    source="Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §3 property 1, §6.2",
    witness=UserWitness,
    witness_help='{"user": i}  (0-based index of a user below what 1/n of every machine runs)',
    rule=below_share,
    choices=users,
    explain=explain,
    ex_ante=True,
))
