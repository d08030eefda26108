"""search/dynamic.py and the z3 proofs of dynamic-drf: violations found (and shrunk) with the step
named, none-found with counts, determinism, gates, and never `proved` from a finite grid."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import z3

from fairlab import mechanisms, properties
from fairlab.core.results import Status
from fairlab.mechanisms.base import Constraint
from fairlab.properties.base import Violation
from fairlab.search import dynamic, dynamic_proof, engines, proof


def test_search_finds_takeback_of_drf_rerun():
    mech = mechanisms.get("drf-rerun")
    r = engines.search(mech, "no-takeback", 2, 2, candidates=50)
    assert r.status == Status.VIOLATED and r.kind == "search"
    assert r.witness["step"] == 2
    assert Violation("no-takeback", mech, r.instance, r.witness).verify()


def test_search_no_dpo_violation_on_the_domain_of_dynamic_drf():
    # dynamic-drf declines zero demands (outside KPS's model): the streams draw demands 1.. only,
    # and all 200 candidates are evaluated (none wasted on declined instances); DPO holds on them
    r = engines.search(mechanisms.get("dynamic-drf"), "dynamic-dpo", 3, 2, candidates=200)
    assert r.status == Status.NONE_FOUND and "200 candidates" in r.explanation
    assert "demands 1..2" in r.explanation and "declined" not in r.explanation
    assert sum(r.details["evaluated"].values()) == 200


def test_none_found_with_count_and_deterministic():
    mech = mechanisms.get("dynamic-drf")
    a = engines.search(mech, "dynamic-si", 2, 2, candidates=80)
    b = engines.search(mech, "dynamic-si", 2, 2, candidates=80)
    assert a.status == Status.NONE_FOUND and "80 candidates" in a.explanation
    assert sum(a.details["evaluated"].values()) == 80
    assert a.explanation == b.explanation and a.details["evaluated"] == b.details["evaluated"]


def test_orders_and_departures_are_explored():
    orders = {inst.arrivals for inst in dynamic.grid(3, 1, departures=False)}
    assert len(orders) == 6
    with_departures = list(dynamic.grid(2, 1, departures=True))
    assert any(inst.events and ("depart", 0) in inst.events for inst in with_departures)
    assert dynamic.takes_departures(mechanisms.get("drf-rerun"), {})
    assert not dynamic.takes_departures(mechanisms.get("dynamic-drf"), {})
    assert len(with_departures) == dynamic.grid_size(2, 1, True)


def test_prove_si_with_gates_and_refute_pe_free():
    mech = mechanisms.get("dynamic-drf")
    r = proof.prove(mech, "dynamic-si", 2, 2, time_limit=60)
    assert r.status == Status.PROVED
    assert r.details["gates"] == {"conformance": "passed", "satisfiable": "passed", "control": "passed"}
    bad = proof.prove(mech, "dynamic-pe-free", 2, 2, time_limit=60)
    assert bad.status == Status.REFUTED and bad.witness["step"] == 1
    assert Violation("dynamic-pe-free", mech, bad.instance, bad.witness).verify()


def test_the_encoding_sees_a_violation_when_there_is_one():
    # positive control by hand: with the SI threshold raised above 1/n, z3 must find a "violation"
    # (at step 1 the first agent sits exactly at 1/n); with the true threshold it finds none.
    base, bad, control, sym = dynamic_proof.encode(2, 2, "dynamic-si")
    x1 = z3.Real("p.t0.dyn.x1_0")
    s = z3.Solver()
    s.add(*[c.expr for c in base])
    s.push()
    s.add(x1 < F(1, 2) + F(1, 100))
    assert s.check() == z3.sat
    s.pop()
    s.add(bad)
    assert s.check() == z3.unsat
    assert isinstance(base[0], Constraint)


def test_prove_never_claims_proved_from_the_grid():
    r = proof.prove(mechanisms.get("drf-rerun"), "dynamic-si", 2, 1, time_limit=60)
    assert r.status == Status.NONE_FOUND and "not a proof" in r.explanation and r.details["scope"] == "grid"
    r = proof.prove(mechanisms.get("drf-rerun"), "no-takeback", 2, 1, time_limit=60)
    assert r.status == Status.REFUTED


@pytest.mark.slow
def test_prove_dynamic_drf_theorems_at_two_by_three():
    mech = mechanisms.get("dynamic-drf")
    for prop in ("dynamic-si", "dynamic-ef", "dynamic-dpo", "no-takeback"):
        assert proof.prove(mech, prop, 2, 3, time_limit=120).status == Status.PROVED, prop


def test_check_results_are_exact():
    r = properties.check("dynamic-drf", "dynamic-si", "dynamic-kps")
    assert r.status == "holds" and r.exactness == "rational"


def test_store_hash_tells_arrival_orders_apart():
    from fairlab.core.instance import Instance
    from fairlab.counterexamples import store

    def h(demands, arrivals):
        return store.canonical_hash("m", "p", Instance.from_dict({"capacities": [1, 1], "demands": demands,
                                                                 "arrivals": arrivals}))

    # <1,0> first then <1,1>, vs <1,1> first: different findings; the same one with users renamed: equal
    assert h([[1, 0], [1, 1]], [0, 1]) != h([[1, 0], [1, 1]], [1, 0])
    assert h([[1, 0], [1, 1]], [0, 1]) == h([[1, 1], [1, 0]], [1, 0])


@pytest.mark.slow
def test_dpo_at_three_users_is_not_refuted_on_positive_demands():
    # the spec states every demand > 0 (dynamic-drf's domain): z3 finds no DPO violation at 3 × 2
    base, bad, _, sym = dynamic_proof.encode(3, 2, "dynamic-dpo")
    assert any(c.name.startswith("dynamic-drf.positive") for c in base if isinstance(c, Constraint))
    s = z3.Solver()
    s.set("timeout", 120_000)
    s.add(*[c.expr for c in base], bad)
    assert s.check() == z3.unsat


@pytest.mark.slow
def test_prove_dpo_at_three_users_says_positive_demands_only():
    r = proof.prove(mechanisms.get("dynamic-drf"), "dynamic-dpo", 3, 2, time_limit=60)
    assert r.status in (Status.PROVED, Status.UNKNOWN, Status.NONE_FOUND), r.explanation
    assert "positive demands only" in r.details["domain"]
