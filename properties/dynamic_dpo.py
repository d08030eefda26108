"""Dynamic Pareto optimality (DPO; Kash, Procaccia & Shah, JAIR 51 (2014) §3): at each step k the
allocation is not Pareto dominated by any other allocation of the k agents present that allocates
at most a k/n fraction of each resource (n = all agents, known in advance).

With departures (not in KPS's model) k counts the arrivals so far. Decided exactly: with Leontief
utilities a dominating allocation exists iff the allocation itself uses at most k/n of each
resource and some present agent uses only resources below k/n (loads only grow with tasks, so an
agent on a resource at k/n cannot gain; one that is not can take the slack). The witness gives the
dominating allocation, re-checked from scratch.
"""

from __future__ import annotations

from fractions import Fraction

from fairlab.core.exact import format_exact
from fairlab.properties import _dynamic
from fairlab.properties.property import ALLOCATION, register


def limit(inst, s) -> Fraction:
    return Fraction(_dynamic.arrivals_until(inst, s), inst.n)


def find(inst, steps, s):
    return _dynamic.find_improvement(inst, steps, s, limit(inst, s))


def explain(inst, steps, w):
    s, i = w.step, w.user
    confirmed = _dynamic.confirmed_improvement(inst, steps, w, limit(inst, s))
    if confirmed is None:
        return None
    better, here, tasks = confirmed
    return (f"at step {s} the allocation <{', '.join(format_exact(tasks[j]) for j in here)}> is dominated by "
            f"<{', '.join(format_exact(better[j]) for j in here)}> (users {', '.join(inst.users[j] for j in here)}), "
            f"which uses at most {format_exact(limit(inst, s))} of each resource; {inst.users[i]} gains")


PROPERTY = register(_dynamic.StepProperty(
    name="dynamic-dpo",
    title="dynamic Pareto optimality (DPO)",
    definition=("At each step k, no allocation of the agents present that uses at most k/n of each resource "
                "Pareto dominates the mechanism's."),
    source="Kash, Procaccia & Shah, No agent left behind (JAIR 51, 2014), §3, dynamic Pareto optimality (DPO)",
    witness=_dynamic.StepImprovementWitness,
    witness_help='{"step": s, "user": i, "improvement": [tasks...]}  (a dominating allocation within k/n)',
    compares=ALLOCATION,
    setting="dynamic",
    find=find,
    explain=explain,
))
