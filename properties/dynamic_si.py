"""Dynamic sharing incentive (Kash, Procaccia & Shah, JAIR 51 (2014) §3, "sharing incentives"
(SI) in their dynamic model): at EVERY step, every agent present gets at least the utility of
1/n of every resource, n the total number of agents (known in advance):
u_i(A_i^k) >= u_i(<1/n, ..., 1/n>) for all steps k and agents i present at k.

Utilities are Leontief tasks: 1/n of every resource runs min_r (c_r / n) / d_ir tasks of user i.
"""

from __future__ import annotations

from fractions import Fraction

from fairlab.core.exact import format_exact
from fairlab.properties import _dynamic
from fairlab.properties.property import ALLOCATION, register


def fair_share(inst, i) -> Fraction:
    """Tasks user i runs with 1/n of every resource."""
    return _dynamic.utility(inst, i, [c / inst.n for c in inst.capacities])


def find(inst, steps, s):
    step = steps[s - 1]
    for i in _dynamic.present_sets(inst)[s - 1]:
        if step.tasks[i] < fair_share(inst, i):
            return _dynamic.StepUserWitness(s, i)
    return None


def explain(inst, steps, w):
    i, s = w.user, w.step
    if i not in _dynamic.present_sets(inst)[s - 1]:
        return None
    got, share = steps[s - 1].tasks[i], fair_share(inst, i)
    if not got < share:
        return None
    return (f"at step {s} user {inst.users[i]} runs {format_exact(got)} tasks but 1/{inst.n} of every resource "
            f"runs {format_exact(share)}")


PROPERTY = register(_dynamic.StepProperty(
    name="dynamic-si",
    title="dynamic sharing incentive",
    definition=("At every step, every agent present runs at least as many tasks as 1/n of every resource gives it "
                "(n = all agents, known in advance)."),
    source="Kash, Procaccia & Shah, No agent left behind (JAIR 51, 2014), §3, sharing incentives (SI)",
    witness=_dynamic.StepUserWitness,
    witness_help='{"step": s, "user": i}  (s: 1-based event index; i: 0-based user below 1/n of everything)',
    compares=ALLOCATION,
    setting="dynamic",
    find=find,
    explain=explain,
))
