"""Dynamic envy-freeness (DEF; Kash, Procaccia & Shah, JAIR 51 (2014) §3): at any step an agent
i envies an agent j only if j arrived before i did and j has not been allocated any resources
since i arrived. Formally, for every step k and agents i, j present at k:
u_i(A_j^k) > u_i(A_i^k)  implies  j arrived before i  and  A_j^k = A_j^{(step before i arrived)}.

A violation is an envy not covered by that exception: i envies a later agent, or an earlier agent
that has received resources since i arrived. Utilities are Leontief (continuous tasks): u_i of j's
bundle t_j d_j is min over i's demanded resources r of t_j d_jr / d_ir. With departures (not in
KPS's model; only comparators take them) the same words are applied to the event sequence.
"""

from __future__ import annotations

from fractions import Fraction

from fairlab.core.exact import format_exact
from fairlab.properties import _dynamic
from fairlab.properties.property import ALLOCATION, register


def envies(inst, tasks, i, j) -> bool:
    return _dynamic.utility(inst, i, _dynamic.bundle(inst, j, tasks[j])) > tasks[i]


def excused(inst, steps, s, i, j) -> bool:
    """KPS's exception: j arrived before i and its allocation is unchanged since just before i arrived."""
    ai, aj = _dynamic.arrival_event(inst, i), _dynamic.arrival_event(inst, j)
    if not aj < ai:
        return False
    before = steps[ai - 2].tasks[j] if ai >= 2 else Fraction(0)
    return steps[s - 1].tasks[j] == before


def find(inst, steps, s):
    here = _dynamic.present_sets(inst)[s - 1]
    tasks = steps[s - 1].tasks
    for i in here:
        for j in here:
            if i != j and envies(inst, tasks, i, j) and not excused(inst, steps, s, i, j):
                return _dynamic.StepEnvyWitness(s, i, j)
    return None


def explain(inst, steps, w):
    s, i, j = w.step, w.user, w.envied
    here = _dynamic.present_sets(inst)[s - 1]
    tasks = steps[s - 1].tasks
    if i == j or i not in here or j not in here or not envies(inst, tasks, i, j) or excused(inst, steps, s, i, j):
        return None
    value = _dynamic.utility(inst, i, _dynamic.bundle(inst, j, tasks[j]))
    later = _dynamic.arrival_event(inst, j) > _dynamic.arrival_event(inst, i)
    why = "arrived after it" if later else "has been allocated more since it arrived"
    return (f"at step {s} user {inst.users[i]} runs {format_exact(tasks[i])} tasks but would run "
            f"{format_exact(value)} with {inst.users[j]}'s bundle, and {inst.users[j]} {why}")


PROPERTY = register(_dynamic.StepProperty(
    name="dynamic-ef",
    title="dynamic envy-freeness (DEF)",
    definition=("At any step an agent i envies an agent j only if j arrived before i did and j has not been "
                "allocated any resources since i arrived."),
    source="Kash, Procaccia & Shah, No agent left behind (JAIR 51, 2014), §3, dynamic envy freeness (DEF)",
    witness=_dynamic.StepEnvyWitness,
    witness_help='{"step": s, "user": i, "envied": j}  (s: 1-based event index; i envies j without KPS\'s excuse)',
    compares=ALLOCATION,
    setting="dynamic",
    find=find,
    explain=explain,
))
