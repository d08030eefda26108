"""controlled-drf (at most d disruptions per arrival; lab's reading of Friedman, Psomas & Vardi) and the
exact worst fairness ratio over every event sequence (`fairlab.search.fairness_ratio`)."""

from fractions import Fraction as F

import pytest

from fairlab.core.errors import InputError
from fairlab.mechanisms import allocate
from fairlab.search.fairness_ratio import departure_plans, family, worst_ratio

ONE = {"capacities": [1], "demands": [[1]] * 4, "users": list("ABCD"), "arrivals": list("ABCD")}


def _steps(a):
    return [list(s.tasks) for s in a.steps]


def test_one_resource_by_hand():
    # d = 1: B shares with A (1/2 each); C with the largest (A, tie with B: lower index) -> A 1/4, C 1/4;
    # D with the largest, B -> 1/4 each
    a = allocate("controlled-drf", ONE, d=1)
    assert _steps(a) == [[1, 0, 0, 0], [F(1, 2), F(1, 2), 0, 0], [F(1, 4), F(1, 2), F(1, 4), 0], [F(1, 4)] * 4]
    assert a.extra["disrupted"] == [[], ["A"], ["A"], ["B"]]
    assert a.extra["fairness_ratio"] == F(3, 4)  # C's 1/4 against the ideal 1/3
    # d = 2 at D's arrival: A and B (1/3 each, the two first by index) share 2/3 with D: 2/9 each
    assert _steps(allocate("controlled-drf", ONE, d=2))[-1] == [F(2, 9), F(2, 9), F(1, 3), F(2, 9)]
    assert allocate("controlled-drf", ONE, d=0).extra["fairness_ratio"] == 0  # nothing free for B


def test_d_all_matches_drf_rerun_and_departures_refill_the_smallest():
    ex = {"capacities": [9, 18], "demands": [[1, 4], [3, 1], [1, 1]], "users": ["A", "B", "C"],
          "arrivals": ["A", "B", "C"], "departures": [{"user": "B", "after": 3}]}
    assert _steps(allocate("controlled-drf", ex, d="all")) == _steps(allocate("drf-rerun", ex))
    one = {**ONE, "departures": [{"user": "B", "after": 3}]}
    a = allocate("controlled-drf", one, d=1)
    # after C: A 1/4, B 1/2, C 1/4; B leaves: the smallest (A, tie with C: lower index) takes the freed 1/2
    assert a.steps[3].tasks == (F(3, 4), 0, F(1, 4), 0)
    assert a.extra["disrupted"][3] == ["A"]


@pytest.mark.parametrize("d", [0, 1, 2])
def test_at_most_d_agents_change_per_event(d):
    for inst in family(3, m=2, entries=(1, 2)):
        a = allocate("controlled-drf", inst, d=d)
        assert all(len(changed) <= d for changed in a.extra["disrupted"]), inst.to_dict()
        previous = [F(0)] * inst.n
        for step in a.steps:  # the count in extra is the truth: recount from the steps
            kind, who = step.event
            moved = [i for i in step.present if i != who and step.tasks[i] != previous[i]]
            assert len(moved) <= d
            previous = step.tasks


def test_bad_options_are_declined():
    for bad in (-1, "some", 1.5, True):
        with pytest.raises(InputError, match="option d"):
            allocate("controlled-drf", ONE, d=bad)


def test_departure_plans_and_family_counts():
    assert len(list(departure_plans([0, 1]))) == 3 * 2  # first: stay / after 1 / after 2; second: stay / after 2
    # 1 agent: 2 plans; 2 agents: 2 orders x 6 plans
    assert sum(1 for _ in family(2)) == 2 + 12


def test_worst_ratio_one_resource():
    """Exact worst ratios, one resource, every sequence of up to 3 agents with departures."""
    assert worst_ratio("controlled-drf", 3, options={"d": 0})["ratio"] == 0
    one = worst_ratio("controlled-drf", 3, options={"d": 1})
    assert one["ratio"] == F(1, 2) and one["evaluated"] == 2 + 12 + 6 * 24 and one["declined"] == 0
    assert worst_ratio("controlled-drf", 3, options={"d": "all"})["ratio"] == 1
    assert worst_ratio("drf-rerun", 3)["ratio"] == 1
    kps = worst_ratio("dynamic-drf", 3, departures=False)
    assert kps["ratio"] == F(1, 3)  # it reserves: the first of n = 3 agents gets 1/3, ideal 1


def test_audit_draws_a_dynamic_sp_violation():
    """The audit's figures of a dynamic-sp finding (the example the 3 x 2 audit of controlled-drf checks):
    the truthful run and the misreport's (before the fix: AttributeError, exit 3)."""
    from fairlab import properties
    from fairlab.audit.allocations import involved_allocations
    from fairlab.core.instance import Instance
    from fairlab.mechanisms import get

    inst = Instance.build(capacities=[1, 1], demands=[[1, 2], [1, 0], [1, 0]], users=["A", "B", "C"],
                          arrivals=["A", "B", "C"])
    witness = {"step": 3, "user": 0, "misreport": ["3/2", 2]}
    assert properties.get("dynamic-sp").confirm("controlled-drf", inst, witness, {}) is not None
    views = involved_allocations(get("controlled-drf"), "dynamic-sp", inst, witness, {})
    assert [v["label"] for v in views] == ["allocation (last step)", "A declares <3/2, 2> (last step)"]
