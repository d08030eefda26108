"""Dynamic envy-freeness (DEF; Kash, Procaccia & Shah, JAIR 51 (2014) §3): at any step an agent
i envies an agent j only if j arrived before i did and j has not been allocated any resources
since i arrived. Formally, for every step k and agents i, j present at k:
u_i(A_j^k) > u_i(A_i^k)  implies  j arrived before i  and  A_j^t <= A_j^{t-1} for every step t
with a_i <= t <= k  (a_i: the step at which i arrived; step a_i - 1 is the allocation just before).

The reading named: "j has not been allocated any resources since i arrived" is taken literally — j's
tasks never increased at any step from i's arrival up to k. For an irrevocable mechanism (no
take-back, e.g. dynamic-drf) this is the same as A_j^k = A_j^{a_i - 1}; for a mechanism that takes
back it is not (j raised then lowered back to its earlier level was still allocated resources; j only
lowered was not).

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


def tasks_at(steps, t, j) -> Fraction:
    """j's tasks after step t (1-based; step 0: nothing allocated yet)."""
    return steps[t - 1].tasks[j] if t >= 1 else Fraction(0)


def first_increase(inst, steps, s, i, j) -> int | None:
    """The first step t, i's arrival <= t <= s, at which j's tasks increased, else None."""
    ai = _dynamic.arrival_event(inst, i)
    return next((t for t in range(ai, s + 1) if tasks_at(steps, t, j) > tasks_at(steps, t - 1, j)), None)


def excused(inst, steps, s, i, j) -> bool:
    """KPS's exception, literally: j arrived before i and j's tasks never increased at any step
    from i's arrival up to step s."""
    if not _dynamic.arrival_event(inst, j) < _dynamic.arrival_event(inst, i):
        return False
    return first_increase(inst, steps, s, i, j) is None


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
    if later:
        why = "arrived after it"
    else:
        t = first_increase(inst, steps, s, i, j)
        assert t is not None  # the envy is not excused
        why = (f"was allocated more at step {t} ({format_exact(tasks_at(steps, t - 1, j))} -> "
               f"{format_exact(tasks_at(steps, t, j))} tasks), after {inst.users[i]} arrived "
               f"(step {_dynamic.arrival_event(inst, i)})")
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
