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
        if found is None:
            continue
        assert bmf.is_bmf(inst, found[0]).holds, name
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
# the first fix's own counterexample (a random search of 1,500 instances): a user taken off its cap
# at a tie, with the slope a just-saturated resource had before its level was re-solved, ended above its cap
TIED = Instance.from_dict({"capacities": [10, 6], "demands": [[4, 2], [5, 3], [5, 3]],
                           "max_tasks": [None, None, "1/2"]})


@pytest.mark.parametrize("inst, point", [(CAPPED, (F(5, 6), F(5, 6), F(1, 2), F(5, 6))),
                                         (TIED, (F(15, 16), F(3, 4), F(1, 2)))])
def test_continuation_point_on_capped_instances_is_bmf(inst, point):
    """Found by hypothesis: a saturated level that falls while a free user grows on it must take a
    capped user over when it drops below the cap (on CAPPED it returned (3/4, 3/4, 1/2, 1), where
    u1 has no bottleneck). By hand: on CAPPED u1, u2, u4 have 5/6 tasks (share 5/18 of r1, saturated),
    u3 its cap 1/2; on TIED u1 and u2 have share 3/8 of r1 (saturated), u3 its cap."""
    model = bmf._Model.of(inst)
    found = _bmf_levels.continuation_point(model.a, model.g, inst.max_tasks, lambda stage: None, 10_000)
    assert found is not None and found[0] == point
    assert bmf.is_bmf(inst, found[0]).holds and found[0] == allocate("bmf", inst).tasks


def test_levels_answer_the_bmf_allocation_on_the_capped_instance():
    fast = allocate("bmf", CAPPED, method="levels")
    assert bmf.is_bmf(CAPPED, fast.tasks).holds
    assert fast.tasks == allocate("bmf", CAPPED).tasks
