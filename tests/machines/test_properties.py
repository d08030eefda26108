"""The machines properties: exact verdicts on instances computed by hand, witnesses re-verified,
n/a outside Theorem 7's assumptions, and deliberately broken mechanisms caught."""

from fractions import Fraction as F

import pytest

from fairlab import mechanisms, properties
from fairlab.core.errors import InputError
from fairlab.mechanisms.base import Allocation, Mechanism
from fairlab.properties.base import Violation

TWO_SERVERS = {"machines": [[4, 8], [6, 4]], "demands": [[1, 2], [2, 1]], "users": ["A", "B"],
               "resources": ["CPU", "GB"]}
# A <2, 2>, B <1, 1>; machines <2, 5>, <5, 2>; pooled <7, 7>; max-task <2, 2> (dominant share 2/7).
# drf-machines: m1 A (tie), <0, 3> left; m2 B (0 < 2/7), <4, 1> left. A 1 task (2/7), B 1 (1/7).
# Continuous DRF on <7, 7>: 2 t_A = t_B, 4 t_A = 7: both dominant shares 1/2. B is 1/2 - 1/7 = 5/14 > 2/7
# away: thm7-continuous violated at B; A is 3/14 away. Pairwise 2/7 - 1/7 = 1/7 <= 2/7: holds.
WASTED = {"machines": [[2, 5], [5, 2]], "demands": [[2, 2], [1, 1]], "users": ["A", "B"]}


def check(prop, inst, **budget):
    return properties.check("drf-machines", prop, inst, **budget)


def test_si_by_hand():
    # 1/2 of each machine: <2, 4> runs 2 of A, <3, 2> runs 1: A is owed 3 but runs 2.
    r = check("machines-si", TWO_SERVERS)
    assert r.status == "violated" and r.witness == {"user": 0}
    assert "runs 3" in r.explanation
    # one machine <4, 4>, A = B = <1, 1>: each owed 2, each gets 2.
    assert check("machines-si", {"machines": [[4, 4]], "demands": [[1, 1], [1, 1]]}).status == "holds"


def test_ef_by_hand():
    # one machine <1, 1>, A = B = <1, 1>: A runs the only task, B envies it.
    r = check("machines-ef", {"machines": [[1, 1]], "demands": [[1, 1], [1, 1]]})
    assert r.status == "violated" and r.witness == {"user": 1, "envied": 0}
    assert check("machines-ef", TWO_SERVERS).status == "holds"


def test_pe_exact_both_ways():
    # TWO_SERVERS: [1 1; 1 1] leaves <3, 1> on s2: one more B task fits there ([1 1; 1 2]).
    r = check("machines-pe", TWO_SERVERS)
    assert r.status == "violated"
    assert Violation("machines-pe", mechanisms.get("drf-machines"), properties.base.resolve_instance(TWO_SERVERS),
                     r.witness).verify()
    # one machine <2, 2>, A = B = <1, 1>: 1 + 1 fills it: no placement dominates.
    assert check("machines-pe", {"machines": [[2, 2]], "demands": [[1, 1], [1, 1]]}).status == "holds"
    # a forged improvement (over capacity) is rejected by confirm
    bad = {"improvement": [[5, 5], [5, 5]], "user": 0}
    assert properties.get("machines-pe").confirm("drf-machines", TWO_SERVERS, bad, {}) is None


def test_sp_overreport_by_hand():
    # one machine <2, 2>, A = B = <1, 1>: truthful 1 each. A declares <2, 2>: max-task <2, 2>, tie at 0 goes to
    # A (lower index), <0, 0> left: A holds <2, 2>, which runs floor(min(2/1, 2/1)) = 2 real tasks > 1.
    inst = {"machines": [[2, 2]], "demands": [[1, 1], [1, 1]]}
    r = check("machines-sp", inst)
    assert r.status == "violated"
    prop = properties.get("machines-sp")
    assert prop.confirm("drf-machines", inst, {"user": 0, "misreport": [2, 2]}, {}) is not None
    # under-reporting gives utility 0: never a gain
    assert prop.confirm("drf-machines", inst, {"user": 0, "misreport": ["1/2", 5]}, {}) is None


def test_sp_none_found_states_count():
    r = check("machines-sp", {"machines": [[1, 1]], "demands": [[1, 1]]}, evaluations=20)
    assert r.status == "none-found"
    assert r.budget["misreports"] == 19


def test_thm7_readings_on_the_wasted_example():
    r = check("thm7-continuous", WASTED)
    assert r.status == "violated" and r.witness == {"user": 1}
    assert "5/14" in r.explanation and "2/7" in r.explanation
    assert check("thm7-pairwise", WASTED).status == "holds"


def test_thm7_not_applicable_outside_its_assumptions():
    cases = [("thm7-pairwise", {"machines": [[4, 4]], "demands": [[1, 0], [1, 1]]}, "strictly positive"),
             ("thm7-continuous", {"machines": [[4, 4], [1, 4]], "demands": [[2, 1], [1, 1]]}, "max-task"),
             ("thm7-pairwise", {"machines": [[4, 4]], "demands": [[1, 1], [1, 1]], "max_tasks": [1, None]}, "caps")]
    for prop, inst, why in cases:
        r = check(prop, inst)
        assert r.status == "n/a" and why in r.explanation
    # the search counts such instances as declined, never as evaluated
    from fairlab.search.engines import candidate_check
    classify = candidate_check("thm7-pairwise", mechanisms.get("drf-machines"), {}, None)
    assert classify(properties.base.resolve_instance(cases[0][1]))[0] == "declined"


def _mech(name, placement_of):
    def allocate(instance, **options):
        rows = tuple(tuple(F(x) for x in row) for row in placement_of(instance))
        return Allocation(name, instance, tuple(sum(r, F(0)) for r in rows), placement=rows)
    return Mechanism(name=name, summary="test", source="test", allocate=allocate, discrete=True, setting="machines")


def test_broken_mechanisms_are_caught():
    # everything to user 0 on every machine, as many as fit: user 1 below 1/n of every machine
    def hog(inst):
        rows = [[0] * inst.k for _ in range(inst.n)]
        for k, machine in enumerate(inst.machines):
            rows[0][k] = min(machine[r] // inst.demands[0][r] for r in range(inst.m) if inst.demands[0][r] > 0)
        return rows
    hog_mech = _mech("hog", hog)
    r = properties.check(hog_mech, "machines-si", {"machines": [[4, 4]], "demands": [[1, 1], [1, 1]]})
    assert r.status == "violated" and r.witness == {"user": 1}
    # a placement over a machine's capacity is refused (no verdict on an infeasible placement)
    over = _mech("over", lambda inst: [[9] * inst.k for _ in range(inst.n)])
    with pytest.raises(InputError, match="infeasible|over capacity"):
        properties.check(over, "machines-ef", {"machines": [[4, 4]], "demands": [[1, 1], [1, 1]]})
    # a greedy fill breaks the pairwise bound (tests/machines/test_search.py finds it by search)
    greedy = properties.check("drf-machines", "thm7-pairwise", {"machines": [[4, 3], [5, 4]],
                                                                 "demands": [[4, 1], [1, 3]]},
                              options={"fill": "greedy"})
    assert greedy.status == "violated" and greedy.witness == {"user": 1, "other": 0}


def test_registry_and_setting():
    assert set(properties.names("machines")) == {"machines-si", "machines-ef", "machines-pe", "machines-sp",
                                                 "thm7-pairwise", "thm7-continuous", "machines-gsp"}
    with pytest.raises(InputError, match="setting"):
        properties.check("drf", "machines-si", {"capacities": [1], "demands": [[1]]})


def test_malformed_witnesses_do_not_verify():
    prop = properties.get("machines-si")
    inst = {"machines": [[4, 8], [6, 4]], "demands": [[1, 2], [2, 1]]}
    assert prop.confirm("drf-machines", inst, {"user": 0}, {}) is not None
    for bad in ({"user": True}, {"user": 5}, {"user": None}, {"user": 1}):  # user 1 (B) is not below its share
        assert prop.confirm("drf-machines", inst, bad, {}) is None
    assert not Violation("machines-sp", mechanisms.get("drf-machines"), properties.base.resolve_instance(inst),
                         {"user": 0, "misreport": [0, 0]}).verify()


def test_canonical_hash_tells_machine_splits_apart():
    from fairlab.core.instance import Instance
    from fairlab.counterexamples import store
    a = Instance.build(demands=[[1, 1]], machines=[[2, 5], [5, 2]])
    b = Instance.build(demands=[[1, 1]], machines=[[3, 3], [4, 4]])  # same pooled capacities <7, 7>
    c = Instance.build(demands=[[1, 1]], machines=[[5, 2], [2, 5]])  # a's machines reordered
    h = [store.canonical_hash("drf-machines", "machines-si", x, rescale_rows=False) for x in (a, b, c)]
    assert h[0] != h[1] and h[0] == h[2]
