"""Issue 18: DRF si, ef, pe, sp proved at 4 users with the tasks-normalised encoding; its
reductions are recorded, and the gates still bite (a wrong negation or a symmetry constraint that
excludes every violation is no proof). No timings here: `benchmarks/bench_prove.py` measures."""

from fractions import Fraction

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
    proof = prove(drf, prop, 2, 2, time_limit=60, domain="unweighted")
    assert proof.status == "proved" and set(proof.details["gates"].values()) == {"passed"}
    reductions = proof.details["reductions"]
    assert any(r.startswith("tasks normalised to 1") for r in reductions)
    assert any(r.startswith("symmetry: users") for r in reductions)
    assert reductions[-1].startswith("encoding: drf-normalised")
    control = proof.certificate["control"]
    assert control["result"] == "sat" and control["dropped"].split(":")[-1].startswith("drf.")
    if prop == "sp":  # the control is restricted (others keep their bundles): named in the certificate
        assert control["restricted_by"] == ["sp.lie0.e1_0 = d1_0", "sp.lie0.e1_1 = d1_1"]
        assert any(r.startswith("user symmetry: only user 0") for r in reductions)
        assert any(r.startswith("relaxation: in the misreported run") for r in reductions)


def test_other_mechanisms_and_options_keep_the_generic_encoding():
    assert P.strategies_for(mechanisms.get("asset"), "si", {}) == ["generic"]
    assert P.strategies_for(mechanisms.get("drf"), "rm", {}) == ["generic"]
    assert P.strategies_for(mechanisms.get("drf"), "bf", {"weights": "x"}) == ["generic"]
    with pytest.raises(InputError):
        prove(mechanisms.get("drf"), "si", 2, 2, strategies=["nope"], domain="unweighted")


def test_the_baseline_is_still_callable_and_agrees():
    drf = mechanisms.get("drf")
    for prop in ("si", "sp"):
        old = prove(drf, prop, 2, 2, time_limit=60, strategies=P.baseline_strategies_for(drf, prop, {}),
                    domain="unweighted")
        assert old.status == "proved"
        assert "drf-normalised" not in old.details["reductions"][-1]


def test_a_wrongly_negated_sp_cannot_pass_as_a_proof(monkeypatch):
    """sp's rule (what the relaxed encoding negates) replaced by False: UNSAT, no hypothesis of
    the spec in the core, no control."""
    monkeypatch.setattr(properties.get("sp"), "rule", lambda *args, **kwargs: z3.BoolVal(False))
    proof = prove(mechanisms.get("drf"), "sp", 2, 2, time_limit=30, domain="unweighted")
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
    proof = prove(mechanisms.get("drf"), prop, 2, 2, time_limit=60, domain="unweighted")
    assert proof.status == "unknown", proof
    assert proof.details["gates"]["positive-control"] == "failed"


@pytest.mark.slow
@pytest.mark.parametrize("size", [(3, 4), (4, 3), (4, 4)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("prop", ["si", "ef", "pe"])
def test_drf_si_ef_pe_at_four_users(prop, size):
    proof = prove(mechanisms.get("drf"), prop, *size, time_limit=300, domain="unweighted")
    assert proof.status == "proved", proof.explanation
    assert set(proof.details["gates"].values()) == {"passed"}


def test_drf_sp_four_by_three_relaxed():
    """The relaxed misreported run is linear: 4 x 3 is decided on the first attempt."""
    proof = prove(mechanisms.get("drf"), "sp", 4, 3, time_limit=120, domain="unweighted")
    assert proof.status == "proved", proof.explanation
    assert set(proof.details["gates"].values()) == {"passed"}
    assert [q["result"] for q in proof.details["queries"] if q["stage"] == "proof"] == ["unsat"]


@pytest.mark.slow
@pytest.mark.parametrize("size", [(3, 4), (4, 4)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_drf_sp_at_four(size):
    proof = prove(mechanisms.get("drf"), "sp", *size, time_limit=300, domain="unweighted")
    assert proof.status == "proved", proof.explanation
    assert set(proof.details["gates"].values()) == {"passed"}


def test_the_relaxed_sp_encoding_admits_the_truthful_runs():
    """The relaxation is an over-approximation: a real DRF run with the liar telling the truth,
    the others keeping their bundles (e_k = d_k), satisfies every constraint except the violation."""
    from fairlab.core.instance import Instance

    enc = P.STRATEGIES["drf-normalised"](mechanisms.get("drf"), "sp", 3, 2, {}, False)
    inst = Instance.from_dict({"capacities": [1, 1], "demands": [[1, 4], [3, 1], [1, 1]]})
    tasks = mechanisms.get("drf")(inst).tasks
    rows = [[t * x for x in row] for t, row in zip(tasks, inst.demands)]
    rows = [rows[0]] + sorted(rows[1:], key=max)  # the symmetry: users 1..n-1 by dominant share
    rows = [[row[r] for r in sorted(range(2), key=lambda r: -rows[0][r])] for row in rows]  # resources
    value = {f"d{i}_{r}": rows[i][r] for i in range(3) for r in range(2)}
    value.update({f"sp.lie0_{r}": rows[0][r] for r in range(2)})
    value.update({f"sp.lie0.e{k}_{r}": rows[k][r] for k in (1, 2) for r in range(2)})
    subs = [(z3.Real(k), z3.RealVal(str(v))) for k, v in value.items()]
    truth = {c.name: z3.is_true(z3.simplify(z3.substitute(c.expr, *subs))) for c in enc.constraints}
    assert [name for name, ok in truth.items() if not ok] == ["sp.violated"]


@pytest.mark.slow
@pytest.mark.parametrize("prop", ["si", "ef", "pe", "sp"])
def test_drf_catalogue_entries_reach_four_by_four(prop):
    from fairlab.search.catalogue import GRID, get_entry, run_catalogue

    [row] = run_catalogue(time_limit=300, entries=[get_entry(f"drf-{prop}")])
    assert [c["status"] for c in row.details["checked"]] == ["proved"] * len(GRID), row.details["checked"]
    assert row.status == "reproduced" and row.details["largest"] == [4, 4]


def test_drf_sp_with_positive_demands_is_still_proved():
    """Found by an audit: the relaxed sp encoding's control (the others keep their bundles) cannot
    bite when every demand is positive; with positive demands it is restricted to the others
    halving their bundles instead (issue 27), so the relaxed encoding runs there too."""
    result = prove(mechanisms.get("drf"), "sp", 2, 2, positive_demands=True, domain="unweighted")
    assert result.status == "proved" and result.details["reductions"][-1].startswith("encoding: drf-normalised")
    control = result.certificate["control"]
    assert control["restricted_by"] == ["sp.lie0.e1_0 = 1/2*d1_0", "sp.lie0.e1_1 = 1/2*d1_1"]
    assert all(x > 0 for row in control["instance"]["demands"] for x in map(Fraction, row))
