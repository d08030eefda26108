"""BMF at cluster sizes (issue 18): ``bmf`` with ``method="levels"`` (progressive filling on the
resource levels, `fairlab.mechanisms._bmf_levels`) returns an exact BMF allocation, re-checked
with `bmf.is_bmf`, and on random small instances the same allocation as the default enumeration
(the leximin rule) wherever a level procedure reached a point."""

from __future__ import annotations

import random
from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings

from fairlab import strategies
from fairlab.core.errors import OptionError
from fairlab.core.instance import Instance
from fairlab.mechanisms import _bmf_levels, allocate, bmf

THREE = Instance.build([1, 1, 1], [[1, 1, 1], [1, "1/2", "3/4"], ["1/2", 1, "3/4"]])


def level_points(inst: Instance):
    model = bmf._Model.of(inst)
    for procedure in (_bmf_levels.continuation_point, _bmf_levels.level_point):
        yield procedure.__name__, procedure(model.a, model.g, inst.max_tasks, lambda stage: None, 10_000)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.instances(users=(1, 4), resources=(1, 3), twins=True))
def test_level_points_are_bmf_and_the_enumerations_choice(inst):
    reference = allocate("bmf", inst).tasks
    for name, found in level_points(inst):
        if found is None or not bmf.is_bmf(inst, found[0]).holds:
            continue  # a point that is not BMF is refused by `bmf` (re-checked, then the enumeration)
        assert found[0] == reference, name
    fast = allocate("bmf", inst, method="levels")
    assert fast.tasks == reference
    assert bmf.is_bmf(inst, fast.tasks).holds


def test_paper_continuum_gets_the_leximin_point():
    """B&R §2.4's segment of BMF allocations: the level path returns φ(0) = (2/5, 2/5, 2/5), the
    enumeration's leximin choice."""
    a = allocate("bmf", THREE, method="levels")
    assert a.tasks == (F(2, 5),) * 3
    assert a.extra["method"].startswith("levels")
    assert a.options["method"] == "levels"


def test_forty_users_six_resources_exact_and_bmf():
    rng = random.Random(0)
    inst = Instance.build([rng.randint(500, 1000) for _ in range(6)],
                          [[rng.randint(1, 20) for _ in range(6)] for _ in range(40)])
    a = allocate("bmf", inst, method="levels")
    assert all(isinstance(t, F) for t in a.tasks)
    assert bmf.is_bmf(inst, a.tasks).holds
    assert a.extra["method"].startswith("levels")


def test_method_option_is_checked():
    with pytest.raises(OptionError, match="method"):
        allocate("bmf", THREE, method="fast")


def test_levels_respects_the_deterministic_budget():
    rng = random.Random(0)
    inst = Instance.build([rng.randint(500, 1000) for _ in range(6)],
                          [[rng.randint(1, 20) for _ in range(6)] for _ in range(40)])
    with pytest.raises(bmf.BMFBudgetExceeded, match="max_checks"):
        allocate("bmf", inst, method="levels", max_checks=3)


@pytest.mark.parametrize("data,levels,enumeration", [
    ({"capacities": ["5/2", 2], "demands": [[2, 2], [1, "1/2"], [1, "1/2"], [0, 1]],
      "weights": [[1, 2], [1, "1/3"], [2, 2], [2, 1]], "max_tasks": [None, 1, 0, 0]},
     [F(6, 7), F(4, 7), 0, 0], [F(3, 4), 1, 0, 0]),
    ({"capacities": [1, 2], "demands": [[1, 2], [1, 2], ["1/2", 1], [3, 2]],
      "weights": [["1/3", 2], [2, 1], ["1/3", 1], [2, 1]], "max_tasks": ["1/2", None, None, 0]},
     [F(1, 2), F(1, 4), F(1, 2), 0], [F(1, 5), F(3, 5), F(2, 5), 0]),
])
def test_with_weight_vectors_levels_can_give_another_bmf_allocation(data, levels, enumeration):
    """Found by an audit: both are BMF, so the levels answer is labelled "a BMF allocation, not
    always the leximin rule's", and the enumeration stays the default."""
    inst = Instance.from_dict(data)
    fast, default = allocate("bmf", inst, method="levels"), allocate("bmf", inst)
    assert list(fast.tasks) == levels and list(default.tasks) == enumeration
    assert bmf.is_bmf(inst, fast.tasks).holds and bmf.is_bmf(inst, default.tasks).holds
    assert "not always the leximin" in bmf.LEVELS_RULE


CAPPED = Instance.from_dict({"capacities": [3, 2], "demands": [[1, 0], [1, 2], [1, 0], [1, 0]],
                             "max_tasks": [None, None, "1/2", "1"]})


@pytest.mark.xfail(strict=True, reason="known bug: continuation_point returns (3/4, 3/4, 1/2, 1), which is not BMF "
                                       "(u1 has no bottleneck), on this capped instance found by hypothesis")
def test_continuation_point_on_a_capped_instance_is_bmf():
    """The internal procedure's point is re-checked by `bmf` (method=levels), which then answers
    the enumeration's BMF allocation: the mechanism's answer is right (next test), the procedure is not."""
    model = bmf._Model.of(CAPPED)
    found = _bmf_levels.continuation_point(model.a, model.g, CAPPED.max_tasks, lambda stage: None, 10_000)
    assert found is not None and bmf.is_bmf(CAPPED, found[0]).holds


def test_levels_answer_the_bmf_allocation_on_the_capped_instance():
    fast = allocate("bmf", CAPPED, method="levels")
    assert bmf.is_bmf(CAPPED, fast.tasks).holds
    assert fast.tasks == allocate("bmf", CAPPED).tasks
