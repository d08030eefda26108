"""The two settings beyond one pool (issue 19): instances with machines or arrivals, the setting
checks, and the one validation every placement / lottery / steps allocation passes."""

from __future__ import annotations

import json
import textwrap
from fractions import Fraction as F

import pytest

from fairlab import mechanisms
from fairlab.core.errors import InputError, PluginError
from fairlab.core.instance import Instance
from fairlab.mechanisms import plugin
from fairlab.mechanisms.base import Allocation, Step, check_setting_allocation

MACHINES = {"machines": [[4, 8], [2, 2]], "demands": [[1, 2], [1, 1]]}
ARRIVALS = {"capacities": [1, 1], "demands": [[1, 2], [1, 1], [2, 1]], "users": ["A", "B", "C"],
            "arrivals": ["B", 0, "C"], "departures": [{"user": "B", "after": 2}]}


def test_machines_instance_pools_its_capacities():
    inst = Instance.from_dict(MACHINES)
    assert inst.setting == "machines" and inst.k == 2
    assert inst.capacities == (F(6), F(10))  # 4 + 2, 8 + 2
    assert inst.machine_names == ("m1", "m2")
    assert inst.pooled().setting == "pool" and inst.pooled().capacities == inst.capacities
    assert Instance.from_dict(json.loads(json.dumps(inst.to_dict()))) == inst


def test_arrivals_become_events():
    inst = Instance.from_dict(ARRIVALS)
    assert inst.setting == "dynamic"
    assert inst.events == (("arrive", 1), ("arrive", 0), ("depart", 1), ("arrive", 2))
    assert inst.arrivals == (1, 0, 2)
    assert Instance.from_dict(inst.to_dict()) == inst


@pytest.mark.parametrize("change, words", [
    ({"machines": [[1, 2], [1]]}, "ragged"),
    ({"machines": [[0, 0]]}, "all zero"),
    ({"machines": [[1, -1]]}, "non-negative"),
    ({"machines": [[1, "nan"]]}, r"machines\[0\]\[1\]"),
    ({"machines": [[1, 1]], "capacities": [3, 1]}, "not the machines' total"),
    ({"machines": [[1, 1]], "weights": [1, 2]}, "weights"),
    ({"machines": [[1, 1], [1, 1]], "machine_names": ["a", "a"]}, "distinct"),
    ({"machine_names": ["a"]}, "without machines"),
    ({"machines": [[1, 1]], "arrivals": [0, 1]}, "not both"),
])
def test_bad_machines_are_one_line(change, words):
    data = {"capacities": [1, 1], "demands": [[1, 1], [1, 1]], **change}
    if "machines" in change and "capacities" not in change:
        data.pop("capacities")
    with pytest.raises(InputError, match=words) as info:
        Instance.from_dict(data)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("change, words", [
    ({"arrivals": ["A", "A", "B"]}, "every user exactly once"),
    ({"arrivals": ["A", "B", "Z"]}, r"arrivals\[2\]"),
    ({"arrivals": ["A", "B", "C"], "departures": [{"user": "C", "after": 1}]}, "arrives at 3"),
    ({"arrivals": ["A", "B", "C"], "departures": [{"user": "A", "after": 0}]}, "arrival count"),
    ({"arrivals": ["A", "B", "C"], "departures": [{"user": "A"}]}, "departures"),
    ({"departures": [{"user": "A", "after": 1}]}, "without arrivals"),
    ({"arrivals": ["A", "B", "C"], "max_tasks": [1, None, None]}, "max_tasks"),
])
def test_bad_arrivals_are_one_line(change, words):
    data = {"capacities": [1, 1], "demands": [[1, 1]] * 3, "users": ["A", "B", "C"], **change}
    with pytest.raises(InputError, match=words):
        Instance.from_dict(data)


def test_a_mechanism_refuses_another_settings_instance():
    with pytest.raises(InputError, match="drf is for one divisible pool.*machines"):
        mechanisms.allocate("drf", MACHINES)
    with pytest.raises(InputError, match="arrivals"):
        mechanisms.allocate("drf", ARRIVALS)


def _alloc(inst, tasks, **shape):
    return Allocation("test", inst, tuple(F(t) for t in tasks), **shape)


def test_placement_is_checked_per_machine():
    inst = Instance.from_dict({"machines": [[4, 8], [2, 8]], "demands": [[1, 2], [1, 1]]})
    ok = _alloc(inst, [3, 2], placement=((F(2), F(1)), (F(1), F(1))))
    check_setting_allocation(ok, "test", discrete=True)
    crowded = _alloc(inst, [3, 3], placement=((F(3), F(0)), (F(3), F(0))))  # fits the pool (6 <= 6), not m1
    with pytest.raises(InputError, match="machine m1 uses 6 r1 > its capacity 4"):
        check_setting_allocation(crowded, "test")
    with pytest.raises(InputError, match="row sums"):
        check_setting_allocation(_alloc(inst, [3, 3], placement=((F(2), F(1)), (F(1), F(1)))), "test")
    with pytest.raises(InputError, match="whole number"):
        check_setting_allocation(_alloc(inst, ["1/2", 0], placement=((F(1, 2), F(0)), (F(0), F(0)))), "t", True)


def test_lottery_probabilities_and_expectation():
    inst = Instance.from_dict(MACHINES)
    a, b = ((F(1), F(0)), (F(0), F(0))), ((F(0), F(0)), (F(1), F(0)))
    check_setting_allocation(_alloc(inst, ["1/2", "1/2"], lottery=((F(1, 2), a), (F(1, 2), b))), "t")
    with pytest.raises(InputError, match="sum to 3/4"):
        check_setting_allocation(_alloc(inst, ["1/2", "1/4"], lottery=((F(1, 2), a), (F(1, 4), b))), "t")
    with pytest.raises(InputError, match="row sums"):
        check_setting_allocation(_alloc(inst, [1, 0], lottery=((F(1, 2), a), (F(1, 2), b))), "t")


def test_steps_follow_the_events():
    inst = Instance.from_dict(ARRIVALS)
    zero = (F(0),) * 3
    good = (Step(("arrive", 1), (1,), (F(0), F(1, 4), F(0))), Step(("arrive", 0), (0, 1), (F(1, 8), F(1, 4), F(0))),
            Step(("depart", 1), (0,), (F(1, 8), F(0), F(0))), Step(("arrive", 2), (0, 2), (F(1, 8), F(0), F(1, 8))))
    check_setting_allocation(_alloc(inst, good[-1].tasks, steps=good), "t")
    ghost = good[:2] + (Step(("depart", 1), (0,), (F(1, 8), F(1, 4), F(0))),) + good[3:]
    with pytest.raises(InputError, match="step 3 gives tasks to B, who is not present"):
        check_setting_allocation(_alloc(inst, good[-1].tasks, steps=ghost), "t")
    with pytest.raises(InputError, match="one step per event"):
        check_setting_allocation(_alloc(inst, zero, steps=good[:2]), "t")


PLUGIN = textwrap.dedent('''
    def firstfit(instance):
        return {"placement": [[1] + [0] * (instance.k - 1) for _ in range(instance.n)]}
    firstfit.setting = "machines"
    firstfit.discrete = True

    def crowd(instance):
        return {"placement": [[3, 0], [3, 0]]}
    crowd.setting = "machines"

    def half(instance):
        return {"placement": [["1/2", 0] for _ in range(instance.n)]}
    half.setting = "machines"
    half.discrete = True

    def dyn(instance):
        steps, present = [], set()
        for kind, i in instance.events:
            present = present | {i} if kind == "arrive" else present - {i}
            steps.append(["1/10" if j in present else 0 for j in range(instance.n)])
        return {"steps": steps}
    dyn.setting = "dynamic"

    def unknown(instance):
        return [1]
    unknown.setting = "galaxy"
''')


def test_plugins_of_the_new_settings(tmp_path):
    path = tmp_path / "plug.py"
    path.write_text(PLUGIN)
    two = {"machines": [[4, 8], [2, 8]], "demands": [[1, 2], [1, 1]]}
    got = mechanisms.allocate(f"{path}:firstfit", two)
    assert got.placement == ((1, 0), (1, 0)) and got.tasks == (1, 1)
    with pytest.raises(PluginError, match="machine m1 uses 6"):
        mechanisms.allocate(f"{path}:crowd", two)
    with pytest.raises(PluginError, match="whole number"):
        mechanisms.allocate(f"{path}:half", two)
    steps = mechanisms.allocate(f"{path}:dyn", ARRIVALS).steps
    assert [s.present for s in steps] == [(1,), (0, 1), (0,), (0, 2)]
    assert steps[2].tasks == (F(1, 10), 0, 0)
    with pytest.raises(InputError, match="setting attribute 'galaxy'"):
        plugin.load(f"{path}:unknown")
