"""The positive control of the dynamic z3 proofs must be able to fail: for dynamic-dpo and
dynamic-pe-free the relaxed violation is implied by the spec, so a planted mutant is used; and at
n = 1 no-takeback / dynamic-ef are vacuous (said so), not `unknown`."""

from __future__ import annotations

import z3

from fairlab import mechanisms
from fairlab.core.results import Status
from fairlab.search import dynamic_proof, proof


def test_relaxed_control_was_implied_by_the_spec():
    # why the old control could not bite: spec ∧ ¬(relaxed DPO violation) is unsatisfiable at 2 × 2
    base, _, control, _ = dynamic_proof.encode(2, 2, "dynamic-dpo")
    s = z3.Solver()
    s.add(*[c.expr for c in base], z3.Not(control))
    assert s.check() == z3.unsat


def test_mutant_control_sees_a_violation_and_catches_a_broken_encoding():
    base, bad, control, _ = dynamic_proof.encode(2, 2, "dynamic-dpo")
    what, query = dynamic_proof.control_query("dynamic-dpo", list(base), bad, control)
    assert "mutant" in what
    s = z3.Solver()
    s.add(*[c.expr for c in query])
    assert s.check() == z3.sat
    # a broken violation encoding (nothing can violate it) fails the control
    _, broken = dynamic_proof.control_query("dynamic-dpo", list(base), z3.BoolVal(False), control)
    s = z3.Solver()
    s.add(*[c.expr for c in broken])
    assert s.check() == z3.unsat


def test_broken_dpo_encoding_is_not_proved(monkeypatch):
    # the violation formula replaced by False: unsat trivially. Before the fix the (implied) relaxed
    # control passed and this was `proved`; the mutant control stops it: unknown
    real = dynamic_proof.encode

    def broken(n, m, prop):
        base, _, control, sym = real(n, m, prop)
        return base, z3.BoolVal(False), control, sym

    monkeypatch.setattr(dynamic_proof, "encode", broken)
    r = proof.prove(mechanisms.get("dynamic-drf"), "dynamic-dpo", 2, 2, time_limit=60)
    assert r.status == Status.UNKNOWN and r.details["gates"]["control"] == "failed"


def test_dpo_still_proved_with_the_mutant_control():
    r = proof.prove(mechanisms.get("dynamic-drf"), "dynamic-dpo", 2, 2, time_limit=60)
    assert r.status == Status.PROVED and "mutant" in r.certificate["positive_control"]


def test_single_agent_no_takeback_and_def_are_vacuous():
    mech = mechanisms.get("dynamic-drf")
    for prop in ("no-takeback", "dynamic-ef"):
        r = proof.prove(mech, prop, 1, 2, time_limit=60)
        assert r.status == Status.PROVED and r.explanation.startswith("vacuous"), (prop, r.explanation)
        assert r.certificate["vacuous"] and r.details["gates"]["conformance"] == "passed"
    # SI at n = 1 has content (the agent gets all of its dominant resource): a real z3 proof
    r = proof.prove(mech, "dynamic-si", 1, 2, time_limit=60)
    assert r.status == Status.PROVED and "vacuous" not in r.explanation
