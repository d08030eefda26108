"""dynamic-ef's excuse taken literally (KPS, JAIR 51 (2014) §3: "j has not been allocated any resources
since i arrived"): j's tasks never increased at any step from i's arrival on — checked with plug-ins
that take back (raise then lower j's allocation, and lower then raise it)."""

from __future__ import annotations

import pytest

from fairlab import mechanisms, properties
from fairlab.properties.base import Violation

PLUGIN = '''
def table(rows):
    def fn(instance):
        return {"steps": rows}
    fn.setting = "dynamic"
    return fn

# A 1/2 | A 9/20, B 9/20 | A 1/2, B 1/4, C 1/2: A lowered at B's arrival, raised again at step 3
lower_raise = table([["1/2", 0, 0], ["9/20", "9/20", 0], ["1/2", "1/4", "1/2"]])
# A 1 | A 4/5, B 1/5: A only lowered
lowered = table([[1, 0], ["4/5", "1/5"]])
# A 1/4 | A 1/2, B 1/4 | A 1/4, B 1/8, C 1/4: A raised at B's arrival, lowered back at step 3
raise_lower = table([["1/4", 0, 0], ["1/2", "1/4", 0], ["1/4", "1/8", "1/4"]])
'''

#: one resource of 2, unit demands: a user's utility of a bundle is its tasks
THREE = {"capacities": [2], "demands": [[1], [1], [1]], "users": ["A", "B", "C"], "arrivals": ["A", "B", "C"]}
TWO = {"capacities": [1], "demands": [[1], [1]], "users": ["A", "B"], "arrivals": ["A", "B"]}


@pytest.fixture
def plug(tmp_path):
    path = tmp_path / "takeback.py"
    path.write_text(PLUGIN)
    return lambda name: mechanisms.get(f"{path}:{name}")


def test_raised_after_arrival_is_not_excused_even_if_back_to_the_old_level(plug):
    # step 3: B (1/4) envies A (1/2); A arrived earlier, A's 1/2 equals its 1/2 just before B arrived,
    # but A was allocated more at step 3 (9/20 -> 1/2), after B arrived: violated (the old check
    # compared 1/2 with 1/2 and excused it)
    mech = plug("lower_raise")
    r = properties.check(mech, "dynamic-ef", THREE)
    assert r.status == "violated", r.explanation
    assert r.witness.to_dict() == {"step": 3, "user": 1, "envied": 0}
    assert "was allocated more at step 3 (9/20 -> 1/2 tasks), after B arrived (step 2)" in r.explanation
    assert Violation("dynamic-ef", mech, THREE, r.witness).verify()


def test_only_lowered_is_excused_and_not_said_to_get_more(plug):
    # step 2: B (1/5) envies A (4/5); A arrived earlier and was only lowered (1 -> 4/5): excused
    mech = plug("lowered")
    r = properties.check(mech, "dynamic-ef", TWO)
    assert r.status == "holds", r.explanation
    assert properties.get("dynamic-ef").confirm(mech, TWO, {"step": 2, "user": 1, "envied": 0}, {}) is None


def test_raised_then_lowered_back_is_not_excused(plug):
    # step 2 already: B (1/4) envies A (1/2), A raised at B's arrival; step 3: A lowered back to 1/4,
    # B (1/8) still envies it, and A was allocated more at step 2, after B arrived
    mech = plug("raise_lower")
    r = properties.check(mech, "dynamic-ef", THREE)
    assert r.status == "violated" and r.witness.to_dict() == {"step": 2, "user": 1, "envied": 0}
    text = properties.get("dynamic-ef").confirm(mech, THREE, {"step": 3, "user": 1, "envied": 0}, {})
    assert text is not None and "was allocated more at step 2 (1/4 -> 1/2 tasks)" in text
