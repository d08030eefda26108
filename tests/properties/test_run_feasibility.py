"""`fairlab.properties.base.run` hands out only exactly feasible tasks. A plug-in's allocator
(`fairlab.mechanisms.plugin._allocator`) checks its exact answers itself, so `run` does not check them
again (`plugin.FEASIBILITY_CHECKED`, by identity); every other allocator's answer is checked by `run`."""

from fractions import Fraction as F

import pytest

from fairlab.core.errors import InputError, PluginBadAnswer
from fairlab.core.instance import Instance
from fairlab.mechanisms import plugin
from fairlab.mechanisms.base import Allocation, Mechanism
from fairlab.properties.base import allocation_cache, run

INSTANCE = Instance.build([3, 3], [[1, 1], [1, 1]])
OVER = (F(2), F(2))  # uses 4 of each resource's 3


def test_a_plugins_infeasible_answer_is_its_wrong_answer():
    def over(instance):
        return [2, 2]

    mech = plugin.from_callable(over)
    assert mech.allocate in plugin.FEASIBILITY_CHECKED
    with pytest.raises(PluginBadAnswer, match="infeasible"):
        run(mech, INSTANCE, {})
    with allocation_cache(), pytest.raises(PluginBadAnswer, match="infeasible"):
        run(mech, INSTANCE, {})


def test_a_hand_made_allocator_is_checked_by_run_whatever_it_declares():
    def allocate(instance):
        return Allocation("over", instance, OVER)

    allocate.checks_feasibility = True  # an attribute is not the lab's record
    mech = Mechanism("over", "infeasible", "test", allocate)
    assert mech.allocate not in plugin.FEASIBILITY_CHECKED
    with pytest.raises(InputError, match="infeasible"):
        run(mech, INSTANCE, {})


def test_a_plugins_feasible_answer_comes_back_unchanged():
    mech = plugin.from_callable(lambda instance: [1, F(1, 3)])
    assert run(mech, INSTANCE, {}) == (F(1), F(1, 3))
