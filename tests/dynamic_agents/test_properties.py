"""The dynamic properties at every step: hand-computed verdicts, witnesses naming the step,
from-scratch re-verification, and deliberately broken mechanisms they catch."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from fairlab import properties
from fairlab.core.errors import InputError
from fairlab.properties.base import Violation

from .conftest import EXCUSED, TWO, ZERO, broken, latest_first, rewards_second_resource

DYNAMIC = ["dynamic-dpo", "dynamic-ef", "dynamic-pe-free", "dynamic-si", "dynamic-sp", "no-takeback"]


def check(mech, prop, inst, **budget):
    return properties.check(mech, prop, inst, **budget)


def test_registered_in_the_dynamic_setting_only():
    assert properties.names("dynamic") == DYNAMIC
    assert not set(DYNAMIC) & set(properties.names("pool"))
    with pytest.raises(InputError, match="dynamic"):
        check("drf", "dynamic-si", "drf-paper")


def test_pe_free_fails_at_step_one_by_hand():
    # dynamic-drf gives A 1/2 task at step 1 (half of r1); r1 and r2 still have room, so A could run 1.
    r = check("dynamic-drf", "dynamic-pe-free", TWO)
    assert r.status == "violated"
    assert r.witness.to_dict() == {"step": 1, "user": 0, "improvement": [1, 0]}
    assert "at step 1" in r.explanation


def test_no_takeback_of_drf_rerun_by_hand():
    # drf-rerun: A alone 1 task, then DRF of A and B: 2/3 each; A lost 1/3.
    r = check("drf-rerun", "no-takeback", TWO)
    assert r.status == "violated" and r.witness.to_dict() == {"step": 2, "user": 0}
    assert "from 1 to 2/3" in r.explanation
    assert check("dynamic-drf", "no-takeback", TWO).status == "holds"


def test_zero_demand_is_outside_dynamic_drf_so_no_dpo_verdict():
    # KPS assume positive demands; dynamic-drf declines the zero-demand instance: n/a, not violated
    with pytest.raises(InputError, match="demands > 0"):  # outside the domain dynamic-drf declares
        check("dynamic-drf", "dynamic-dpo", ZERO)
    # a positive instance: step 1 A at 1/2 of r1 = k/n; step 2 both resources full
    assert check("dynamic-drf", "dynamic-dpo", TWO).status == "holds"


def test_excused_envy_is_not_a_violation():
    # A <1,1/10> 1/3 (r1 at 1/3); then r1 carries M + M/10 <= 2/3: A, B 20/33 each; then C <1,1/10>:
    # r1 20/33 + 2/33 + M <= 1, M = 1/3. C envies A (20/33 > 1/3 on r1; r2 20/330 > 1/30) but A arrived
    # earlier and has not received anything since C arrived (20/33 at steps 2 and 3).
    from fairlab import mechanisms
    a = mechanisms.get("dynamic-drf")(EXCUSED)
    assert a.tasks == (F(20, 33), F(20, 33), F(1, 3))
    assert check("dynamic-drf", "dynamic-ef", EXCUSED).status == "holds"
    # the same envy is a violation when the envied agent arrived later (witness names i, j, step)
    r = check(broken("late-favoured", latest_first), "dynamic-ef", EXCUSED)
    assert r.status == "violated" and r.witness.to_dict() == {"step": 3, "user": 0, "envied": 2}


def test_si_caught_on_a_broken_mechanism():
    # latest_first gives A half its fair share once B arrives: step 2, user A.
    r = check(broken("late-favoured", latest_first), "dynamic-si", TWO)
    assert r.status == "violated" and r.witness.to_dict() == {"step": 2, "user": 0}
    assert check("dynamic-drf", "dynamic-si", TWO).status == "holds"


def test_sp_caught_on_a_manipulable_mechanism():
    # caps <1, 10>, both <1, 1>: truth gives u1 (1/2) min(1/2, 5) = 1/4 task; declaring <1, 2> doubles
    # its declared tasks to (1/2) min(1/2, 5/2) * 2 = 1/2, worth 1/2 true tasks (it needs r2 1 per task).
    inst = {"capacities": [1, 10], "demands": [[1, 1], [1, 1]], "arrivals": [0, 1]}
    r = check(broken("manipulable", rewards_second_resource), "dynamic-sp", inst)
    assert r.status == "violated"
    # the first candidate that pays: r1 halved, <1/2, 1> (r2 >= 2 r1): 1 declared task, bundle <1/2, 1>,
    # worth 1/2 true task against 1/4
    assert r.witness.to_dict() == {"step": 1, "user": 0, "misreport": ["1/2", 1]}
    assert "worth 1/2 true tasks, more than the 1/4 of the truth" in r.explanation
    dyn = check("dynamic-drf", "dynamic-sp", TWO, evaluations=50)
    assert dyn.status == "none-found" and "49 misreports" in dyn.explanation


def test_witnesses_reverify_and_bogus_ones_fail():
    good = Violation("no-takeback", properties.base.resolve_mechanism("drf-rerun"),
                     properties.base.resolve_instance(TWO), {"step": 2, "user": 0})
    assert good.verify()
    for bad in ({"step": 1, "user": 0}, {"step": 3, "user": 0}, {"step": 2, "user": 5}, {"step": True, "user": 0}):
        assert not Violation("no-takeback", good.mechanism, good.instance, bad).verify()
    mech = properties.base.resolve_mechanism("dynamic-drf")
    inst = properties.base.resolve_instance(TWO)
    assert not Violation("dynamic-pe-free", mech, inst, {"step": 1, "user": 0, "improvement": [2, 0]}).verify()
    assert not Violation("dynamic-sp", mech, inst, {"step": 2, "user": 0, "misreport": [1, 1]}).verify()
    assert not Violation("dynamic-ef", mech, inst, {"step": 2, "user": 0, "envied": 1}).verify()


def test_every_property_on_a_departure_instance():
    results = {p: check("drf-rerun", p, "dynamic-departure", evaluations=20).status for p in DYNAMIC}
    assert results["no-takeback"] == "violated"
    assert results["dynamic-si"] == "holds" and results["dynamic-ef"] == "holds"
