"""Plug-in properties of the exactness tests (issue 35): at least the equal split, written exactly and
written with floats (a float never decides: that one answers unknown)."""

from dataclasses import dataclass

from fairlab.properties.property import ALLOCATION, AllocationProperty, Witness


@dataclass(frozen=True, eq=False)
class UserWitness(Witness):
    user: int


def equal_split(view, i):
    return min(view.capacities[r] / view.n / view.demands[i][r] for r in range(view.m) if view.demands[i][r] > 0)


def below_equal_split(view, tasks, i):
    """Violated at i: user i runs fewer tasks than in the equal split (exact numbers)."""
    return tasks[i] < equal_split(view, i)


def below_equal_split_in_floats(view, tasks, i):
    """The same rule, decided on floats."""
    return float(tasks[i]) < float(equal_split(view, i))


def _property(name, rule):
    return AllocationProperty(
        name=name, title="at least the equal split", definition="each user runs at least its equal-split tasks",
        source="test", witness=UserWitness, witness_help='{"user": i}', compares=ALLOCATION, rule=rule,
        choices=lambda view: [(i,) for i in range(view.n)],
        explain=lambda instance, tasks, w, integral: f"user {w.user} runs fewer tasks than in the equal split")


EXACT = _property("split-exact", below_equal_split)
FLOATS = _property("split-floats", below_equal_split_in_floats)
