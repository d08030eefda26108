"""Issue 18: DRF si, ef, pe, sp proved at 4 users with the tasks-normalised encoding; its
reductions are recorded, and the gates still bite (a wrong negation or a symmetry constraint that
excludes every violation is no proof). No timings here: `benchmarks/bench_prove.py` measures."""

import pytest
import z3

from fairlab import mechanisms, properties
from fairlab.core.errors import InputError
from fairlab.mechanisms.base import Constraint, z3_max
from fairlab.search import proof as P
from fairlab.search import prove


@pytest.mark.parametrize("prop", ["si", "ef", "pe", "sp"])
def test_drf_uses_the_normalised_encoding_and_records_its_reductions(prop):
    drf = mechanisms.get("drf")
    assert P.strategies_for(drf, prop, {}) == ["drf-normalised"]
    assert P.baseline_strategies_for(drf, prop, {}) == (["drf-bundles", "generic"] if prop == "sp" else ["generic"])
    proof = prove(drf, prop, 2, 2, time_limit=60)
    assert proof.status == "proved" and set(proof.details["gates"].values()) == {"passed"}
    reductions = proof.details["reductions"]
    assert any(r.startswith("tasks normalised to 1") for r in reductions)
    assert any(r.startswith("symmetry: users") for r in reductions)
    assert reductions[-1].startswith("encoding: drf-normalised")
    control = proof.certificate["control"]
    assert control["result"] == "sat" and control["dropped"].split(":")[-1].startswith("drf.")
    if prop == "sp":  # the control is restricted (others keep their tasks): named in the certificate
        assert control["restricted_by"] == ["sp.lie0.t1 = 1"]
        assert any(r.startswith("user symmetry: only user 0") for r in reductions)


def test_other_mechanisms_and_options_keep_the_generic_encoding():
    assert P.strategies_for(mechanisms.get("asset"), "si", {}) == ["generic"]
    assert P.strategies_for(mechanisms.get("drf"), "bf", {}) == ["generic"]
    with pytest.raises(InputError):
        prove(mechanisms.get("drf"), "si", 2, 2, strategies=["nope"])


def test_the_baseline_is_still_callable_and_agrees():
    drf = mechanisms.get("drf")
    for prop in ("si", "sp"):
        old = prove(drf, prop, 2, 2, time_limit=60, strategies=P.baseline_strategies_for(drf, prop, {}))
        assert old.status == "proved"
        assert "drf-normalised" not in old.details["reductions"][-1]


def test_a_wrongly_negated_sp_cannot_pass_as_a_proof(monkeypatch):
    """sp's '¬sp' replaced by False: UNSAT, no hypothesis of the spec in the core, no control."""
    prop = properties.get("sp")
    real = prop.encode

    def broken(sym, spec, prefix="sp", **kw):
        enc = real(sym, spec, prefix, **kw)
        enc.constraints = [c if c.name != f"{prefix}.violated" else c._replace(expr=z3.BoolVal(False))
                           for c in enc.constraints]
        return enc

    monkeypatch.setattr(prop, "encode", broken)
    proof = prove(mechanisms.get("drf"), "sp", 2, 2, time_limit=30)
    assert proof.status == "unknown" and "positive control" in proof.explanation


@pytest.mark.parametrize("prop", ["si", "sp"])
def test_a_symmetry_constraint_that_excludes_every_violation_is_caught(monkeypatch, prop):
    """A 'reduction' that is not one (it excludes the violations themselves, not just symmetric
    copies): the base stays satisfiable (DRF does have si and sp), so only the positive control,
    which keeps every symmetry constraint, can refuse it."""
    real = P.STRATEGIES["drf-normalised"]

    def bogus(mechanism, prop_, n, m, options, positive_demands):
        enc = real(mechanism, prop_, n, m, options, positive_demands)
        d = [[z3.Real(f"d{i}_{r}") for r in range(m)] for i in range(n)]
        if prop_ == "si":  # every dominant share at least 1/n: exactly "si holds"
            bad = z3.And([z3_max(row) >= z3.RealVal(1) / n for row in d])
        else:  # the liar declares its true row
            bad = z3.And([z3.Real(f"sp.lie0_{r}") == d[0][r] for r in range(m)])
        enc.constraints.append(Constraint("symmetry.bogus", bad))
        enc.base.add("symmetry.bogus")
        return enc

    monkeypatch.setitem(P.STRATEGIES, "drf-normalised", bogus)
    proof = prove(mechanisms.get("drf"), prop, 2, 2, time_limit=60)
    assert proof.status == "unknown", proof
    assert proof.details["gates"]["positive-control"] == "failed"


@pytest.mark.slow
@pytest.mark.parametrize("size", [(3, 4), (4, 3), (4, 4)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("prop", ["si", "ef", "pe"])
def test_drf_si_ef_pe_at_four_users(prop, size):
    proof = prove(mechanisms.get("drf"), prop, *size, time_limit=300)
    assert proof.status == "proved", proof.explanation
    assert set(proof.details["gates"].values()) == {"passed"}


@pytest.mark.slow
def test_drf_sp_three_by_four():
    proof = prove(mechanisms.get("drf"), "sp", 3, 4, time_limit=300)
    assert proof.status == "proved", proof.explanation


@pytest.mark.slow
def test_drf_sp_four_by_three():
    proof = prove(mechanisms.get("drf"), "sp", 4, 3, time_limit=600)
    assert proof.status == "proved", proof.explanation
