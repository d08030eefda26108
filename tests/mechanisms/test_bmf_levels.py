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
