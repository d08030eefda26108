"""Envy-freeness up to one task (EF1) as a plug-in property: ``examples/properties/ef1.py:EF1``.

EF1 (Budish 2011, "The combinatorial assignment problem", for indivisible goods; here for tasks,
the lab's reading): no user i prefers user j's bundle with one of j's tasks removed,
``u_i((t_j - 1) d_j) <= t_i`` whenever t_j >= 1 (unit weights; weight-scaled like the lab's ef,
``w_i / w_j`` per resource, with weights). With whole tasks (a discrete mechanism such as
drf-tasks) utilities count whole tasks (`fairlab.properties.leontief.utility`). Envy-freeness
implies EF1, so every EF mechanism (drf, ceei) satisfies it; a mechanism can be EF1 without being
EF.

The rule is written once, against the view interface: `ExactView` evaluates it on exact numbers
for ``fairlab check``/``search``, `Z3View` turns the same code into a z3 formula for
``fairlab prove`` and the symbolic search engine.

    fairlab check drf-tasks examples/properties/ef1.py:EF1 thm1-asset-si
    fairlab search asset examples/properties/ef1.py:EF1 --users 3 --resources 2
    fairlab prove drf examples/properties/ef1.py:EF1 -n 2 -m 2
    fairlab audit asset --property examples/properties/ef1.py:EF1 --users 2 --resources 2
"""

from dataclasses import dataclass

from fairlab.core.exact import format_exact
from fairlab.properties import leontief
from fairlab.properties.property import ALLOCATION, AllocationProperty, Witness


@dataclass(frozen=True, eq=False)
class EF1Witness(Witness):
    """`user` prefers `envied`'s bundle even with one of `envied`'s tasks removed."""

    user: int
    envied: int


def bundle_less_one(view, i, j, tasks_j):
    """j's bundle less one task, as i sees it (weight-scaled): (t_j - 1) d_jr w_ir / w_jr."""
    return [(tasks_j - 1) * view.demands[j][r] * view.weights[i][r] / view.weights[j][r] for r in range(view.m)]


def rule(view, tasks, i, j):
    """Violated at (i, j): j runs at least one task, and i prefers j's bundle less one task."""
    return view.all([tasks[j] >= 1, lambda: view.prefers(i, bundle_less_one(view, i, j, tasks[j]), tasks[i])])


def choices(view):
    return [(i, j) for i in range(view.n) for j in range(view.n) if i != j]


def explain(instance, tasks, witness, integral):
    i, j = witness.user, witness.envied
    theirs = leontief.utility(instance, i, bundle_less_one(instance, i, j, tasks[j]), integral)
    return (f"user {instance.users[i]} runs {format_exact(tasks[i])} tasks but would run {format_exact(theirs)} "
            f"with user {instance.users[j]}'s bundle less one task ({format_exact(tasks[j])} - 1 tasks)")


EF1 = AllocationProperty(
    name="ef1",
    title="envy-freeness up to one task",
    definition=("No user prefers another user's bundle with one of that user's tasks removed (weight-scaled "
                "as in ef). The lab's reading of EF1 (Budish 2011) for Leontief users and tasks."),
    source="Budish, The combinatorial assignment problem (JPE 2011), EF1; lab's reading for tasks",
    witness=EF1Witness,
    witness_help='{"user": i, "envied": j}  (0-based: i prefers j\'s bundle less one task)',
    compares=ALLOCATION,
    rule=rule,
    choices=choices,
    explain=explain,
    vacuous=lambda instance: "vacuous: a single user envies no one" if instance.n == 1 else None,
)
#: the instances EF1 is defined on (a `fairlab.core.domain.Domain`; None: every pool instance)
DOMAIN = None
