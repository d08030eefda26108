"""No take-back (irrevocability): no agent's allocation ever decreases while it is present — the
requirement of Kash, Procaccia & Shah's dynamic model (JAIR 51 (2014) §2: allocations are
irrevocable, A_i^k >= A_i^{k-1}). Leontief bundles are tasks times the demand vector, so this is
"tasks never decrease". Checked between every pair of consecutive steps at which the user is present.
"""

from __future__ import annotations

from fairlab.core.exact import format_exact
from fairlab.properties import _dynamic
from fairlab.properties.property import ALLOCATION, register


def find(inst, steps, s):
    if s < 2:
        return None
    here = _dynamic.present_sets(inst)
    for i in here[s - 1]:
        if i in here[s - 2] and steps[s - 1].tasks[i] < steps[s - 2].tasks[i]:
            return _dynamic.StepUserWitness(s, i)
    return None


def explain(inst, steps, w):
    i, s = w.user, w.step
    here = _dynamic.present_sets(inst)
    if s < 2 or i not in here[s - 1] or i not in here[s - 2]:
        return None
    before, after = steps[s - 2].tasks[i], steps[s - 1].tasks[i]
    if not after < before:
        return None
    kind, j = inst.events[s - 1]
    return (f"at step {s} ({kind} of {inst.users[j]}) user {inst.users[i]} drops from {format_exact(before)} to "
            f"{format_exact(after)} tasks: resources taken back")


PROPERTY = register(_dynamic.StepProperty(
    name="no-takeback",
    title="no take-back (irrevocable allocations)",
    definition="No agent's allocation ever decreases while it is present (nothing given is taken back).",
    source="Kash, Procaccia & Shah, No agent left behind (JAIR 51, 2014), §2 (irrevocable allocations)",
    witness=_dynamic.StepUserWitness,
    witness_help='{"step": s, "user": i}  (s: 1-based event index at which user i, present before, loses tasks)',
    compares=ALLOCATION,
    setting="dynamic",
    find=find,
    explain=explain,
))
