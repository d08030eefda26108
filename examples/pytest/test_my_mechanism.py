"""A researcher's tests of their own mechanism (my_mechanism.py), with fairlab's pytest plugin.

Run them as you would any test file (fairlab installed: its plugin loads by itself):

    python -m pytest examples/pytest
    python -m pytest examples/pytest --fairlab-seed 1 --fairlab-candidates 50   # another budget

Each assertion runs the lab's audit of one property at every size up to ``up_to`` (exact checks,
counterexample search, and a proof per size where the mechanism has a spec). A failure prints the
smallest counterexample, the witness in words and the commands that reproduce it.
"""

from pathlib import Path

from hypothesis import given, settings

import fairlab
from fairlab.strategies import instances
from fairlab.testing import assert_satisfies, assert_violates

HERE = Path(__file__).resolve().parent
PARTITION = f"{HERE / 'my_mechanism.py'}:static_partition"  # a plug-in is named `file.py:function`
DICTATOR = f"{HERE / 'my_mechanism.py'}:dictator"


def test_sharing_incentive_up_to_two_by_two():
    # no counterexample at any size up to 2×2 (the default, require="no-violation"); require="proof"
    # passes only for the lab's own mechanisms, whose proofs cover the code: for a plug-in z3 proves
    # its declared .spec, recorded beside the verdict (the spec agrees with the code on samples only)
    result = assert_satisfies(PARTITION, "si", up_to=(2, 2))
    assert result.details["spec_proved_sizes"] == [[1, 1], [1, 2], [2, 1], [2, 2]]


def test_the_partition_wastes_what_a_user_cannot_use(fairlab):
    # the `fairlab` fixture (it shadows the module inside this test): the same assertions with the
    # run's --fairlab-* budget
    result = fairlab.violates(PARTITION, "pe", up_to=(2, 2))
    assert result.instance.n == 2  # the smallest counterexample: two users with different needs


def test_a_dictator_is_not_sharing_incentive():
    result = assert_violates(DICTATOR, "si", up_to=(2, 1))
    print(result.explanation)  # e.g. "user u2 runs 0 tasks but its equal-split bundle <1/2> runs 1/2"


@settings(max_examples=20, deadline=None)
@given(instances(users=(1, 3), resources=(1, 3)))  # weights, task caps and zero demands included
def test_every_user_gets_its_weighted_slice(instance):
    # the strategies of fairlab.strategies draw exact instances for your own property tests
    assert fairlab.check(PARTITION, "si", instance).status == "holds"
