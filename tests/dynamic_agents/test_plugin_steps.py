"""Dynamic plug-ins: `fn.discrete = True` enforces whole tasks at EVERY step (not only placements),
and a steps list of the wrong length is refused (not cut short by zip)."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from fairlab import mechanisms
from fairlab.core.errors import InputError, PluginError
from fairlab.core.instance import Instance
from fairlab.mechanisms.base import Allocation, Step, check_setting_allocation

PLUGIN = '''
def half_first(instance):
    # whole tasks at the last step only: step 1 gives A half a task
    return {"steps": [["1/2", 0], [1, 1]]}
half_first.setting = "dynamic"
half_first.discrete = True

def whole(instance):
    return {"steps": [[1, 0], [1, 1]]}
whole.setting = "dynamic"
whole.discrete = True

def continuous(instance):
    return {"steps": [["1/2", 0], [1, 1]]}
continuous.setting = "dynamic"

def extra_step(instance):
    return {"steps": [[1, 0], [1, 1], [2, 2]]}
extra_step.setting = "dynamic"

def short(instance):
    return {"steps": [[1, 0]]}
short.setting = "dynamic"
'''

INST = {"capacities": [4], "demands": [[1], [1]], "users": ["A", "B"], "arrivals": ["A", "B"]}


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "steps.py"
    p.write_text(PLUGIN)
    return p


def test_discrete_is_enforced_on_every_step(path):
    with pytest.raises(PluginError, match="step 1 gives A 1/2 tasks, not a whole number"):
        mechanisms.allocate(f"{path}:half_first", INST)
    assert mechanisms.allocate(f"{path}:whole", INST).tasks == (1, 1)
    assert mechanisms.allocate(f"{path}:continuous", INST).steps[0].tasks == (F(1, 2), 0)


def test_check_setting_allocation_discrete_steps():
    inst = Instance.from_dict(INST)
    steps = (Step(("arrive", 0), (0,), (F(1, 2), F(0))), Step(("arrive", 1), (0, 1), (F(1), F(1))))
    alloc = Allocation("t", inst, steps[-1].tasks, steps=steps)
    check_setting_allocation(alloc, "t")
    with pytest.raises(InputError, match="step 1 gives A 1/2 tasks, not a whole number"):
        check_setting_allocation(alloc, "t", discrete=True)


def test_steps_of_the_wrong_length_are_refused(path):
    # 3 steps for 2 events: the third ([2, 2]) used to be dropped silently by zip
    with pytest.raises(PluginError, match=r"gave 3 steps for 2 events") as exc:
        mechanisms.allocate(f"{path}:extra_step", INST)
    assert "\n" not in str(exc.value)
    with pytest.raises(PluginError, match=r"gave 1 steps for 2 events"):
        mechanisms.allocate(f"{path}:short", INST)
