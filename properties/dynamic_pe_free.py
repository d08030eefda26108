"""Pareto efficiency relative to what is still free (the lab's brief, "Agents over time": "Pareto
efficiency relative to what is still free"): at every step, no present agent can get more out of
the resources still free without anyone losing — i.e. the allocation is not Pareto dominated by
any allocation of the present agents within the whole capacities that gives each at least its
tasks. (Unlike KPS's DPO, the budget is the whole capacity, not k/n: a mechanism that holds back
resources for agents still to come violates it.)

Decided exactly like DPO (see `fairlab.properties.dynamic_dpo`) with the limit 1: violated iff
some present agent uses only resources not yet full; the witness gives the dominating allocation.
"""

from __future__ import annotations

from fractions import Fraction

from fairlab.core.exact import format_exact
from fairlab.properties import _dynamic
from fairlab.properties.property import ALLOCATION, register

FULL = Fraction(1)


def find(inst, steps, s):
    return _dynamic.find_improvement(inst, steps, s, FULL)


def explain(inst, steps, w):
    s, i = w.step, w.user
    confirmed = _dynamic.confirmed_improvement(inst, steps, w, FULL)
    if confirmed is None:
        return None
    better, _, tasks = confirmed
    free = [FULL - x for x in _dynamic.loads(inst, tasks)]
    return (f"at step {s} user {inst.users[i]} could run {format_exact(better[i])} instead of "
            f"{format_exact(tasks[i])} tasks from the free resources <{', '.join(format_exact(f) for f in free)}> "
            "(fractions of capacity) without anyone losing")


PROPERTY = register(_dynamic.StepProperty(
    name="dynamic-pe-free",
    title="Pareto efficiency relative to what is still free",
    definition=("At every step, no present agent can get more out of the still-free resources without anyone "
                "losing."),
    source="the lab's brief ('Pareto efficiency relative to what is still free'); cf. DRF paper §3 property 4",
    witness=_dynamic.StepImprovementWitness,
    witness_help='{"step": s, "user": i, "improvement": [tasks...]}  (a dominating allocation within capacity)',
    compares=ALLOCATION,
    setting="dynamic",
    find=find,
    explain=explain,
))
