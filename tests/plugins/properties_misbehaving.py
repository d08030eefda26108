"""Plug-in properties that misbehave (issue 29): a rule that raises, a rule whose z3 form disagrees
with its exact form (the contract must catch it), and a name that is not a Property."""

from fairlab.properties.property import ALLOCATION, AllocationProperty, UserWitness


def _raising_rule(view, tasks, i):
    return _helper(tasks, i)


def _helper(tasks, i):
    raise KeyError(f"no rule for user {i}")  # line 12


RAISES = AllocationProperty(
    name="raises", title="a rule that raises", definition="test", source="test", witness=UserWitness,
    witness_help='{"user": i}', compares=ALLOCATION, rule=_raising_rule,
    choices=lambda view: [(i,) for i in range(view.n)], explain=lambda *args: "never")


def _two_faced(view, tasks, i):
    """Exactly: user i runs fewer than 1 task; in z3: never (a rule written twice, wrongly)."""
    if view.symbolic:
        return view.not_(tasks[i] == tasks[i])
    return tasks[i] < 1


TWO_FACED = AllocationProperty(
    name="two-faced", title="a rule whose two views disagree", definition="test", source="test",
    witness=UserWitness, witness_help='{"user": i}', compares=ALLOCATION, rule=_two_faced,
    choices=lambda view: [(i,) for i in range(view.n)],
    explain=lambda inst, tasks, w, integral: f"user {w.user} runs fewer than one task")

NOT_A_PROPERTY = {"name": "ef1"}
