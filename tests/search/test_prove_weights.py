"""Proofs on the whole domain: weights (one per user; weight vectors, DRF paper §4.3) and task caps
as unknowns, every cap pattern, positive controls inside the domain, and what the result records.
Each positive test has a twin that fails where the mechanism departs (mutants in
tests/plugins/weight_mutants.py). No timings: `benchmarks/bench_prove_domain.py` measures."""

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import z3

from fairlab import mechanisms, properties
from fairlab.core.domain import parse
from fairlab.core.instance import Instance
from fairlab.mechanisms import conformance, drf
from fairlab.mechanisms.base import SymbolicInstance
from fairlab.properties.property import ExactView, Z3View
from fairlab.search import prove
from fairlab.search.proof_domain import cap_patterns, prove_on
from fairlab.search.proof_weights import levels, lift_ite, nonlinear

DRF = mechanisms.get("drf")
MUTANTS = Path(__file__).parents[1] / "plugins" / "weight_mutants.py"
SCALAR = "weighted,weights=scalar,caps=none"


def _mutant(name):
    return mechanisms.get(f"{MUTANTS}:{name}")


def _weights_of(instance):
    rows = instance.get("weights") or []
    return [[Fraction(str(w)) for w in (row if isinstance(row, list) else [row])] for row in rows]


# --------------------------------------------------------------------------- weighted DRF, one weight per user
@pytest.mark.parametrize("prop", ["si", "ef", "pe", "sp"])
def test_weighted_drf_is_proved_with_the_weights_recorded_as_covered(prop):
    result = prove(DRF, prop, 2, 3, domain=SCALAR)
    assert result.status == "proved", result.explanation
    assert set(result.details["gates"].values()) == {"passed"}
    assert result.domain["weights"] == "scalar" and result.domain["caps"] == "none" and "note" not in result.domain
    assert result.details["weights"] == "scalar"
    assert any(r.startswith("encoding: drf-levels") for r in result.details["reductions"])
    assert "weights: one unknown weight w_i > 0 per user" in result.details["reductions"]
    # the positive control's instance lies in the domain (unknown weights, no caps), every weight positive
    control = result.certificate["control"]
    assert control["result"] == "sat" and control["instance"] is not None
    assert all(Fraction(str(w)) > 0 for row in _weights_of(control["instance"]) for w in row)
    assert "max_tasks" not in control["instance"]


def test_the_cli_proves_weighted_si_at_three_by_three_and_records_the_weights():
    out = subprocess.run([sys.executable, "-m", "fairlab.cli", "prove", "drf", "si", "-n", "3", "-m", "3", "--domain",
                          SCALAR, "--format", "json"], capture_output=True, text=True, timeout=600)
    data = json.loads(out.stdout)
    assert data["status"] == "proved", data["explanation"]
    assert data["domain"]["weights"] == "scalar" and "note" not in data["domain"]
    table = subprocess.run([sys.executable, "-m", "fairlab.cli", "prove", "drf", "si", "-n", "2", "-m", "2", "--domain",
                            SCALAR], capture_output=True, text=True, timeout=600)
    assert "proved" in table.stdout and "one weight per user" in table.stdout and "unweighted" not in table.stdout


def test_a_drf_that_ignores_the_weights_is_refuted_with_weights_and_proved_without():
    mutant = _mutant("unweighted_drf")
    weighted = prove(mutant, "si", 2, 2, domain=SCALAR)
    assert weighted.status == "refuted", weighted.explanation
    assert len({str(w) for w in weighted.instance["weights"]}) > 1  # the counterexample needs unequal weights
    assert properties.get("si").verify(mutant, weighted.instance, weighted.witness)
    plain = prove(mutant, "si", 2, 2, domain="unweighted")
    assert plain.status == "proved", plain.explanation


def test_the_conformance_sample_has_weights_so_a_spec_ignoring_them_is_not_proved():
    mutant = _mutant("spec_ignores_weights")  # DRF's allocator, the unweighted spec
    weighted = prove(mutant, "si", 2, 2, domain=SCALAR)
    assert weighted.status == "unknown" and weighted.details["gates"]["conformance"] == "failed"
    assert "weights" in weighted.explanation
    assert "whole_domain" not in weighted.details  # a failed gate is reported, not replaced by a smaller proof
    plain = prove(mutant, "si", 2, 2, domain="unweighted")  # the same spec where it is right
    assert plain.status == "proved"


# --------------------------------------------------------------------------- weight vectors (DRF paper §4.3)
def _drf_two_users(capacities, demands, weights):
    """Weighted DRF for two users, by hand: progressive filling on levels max_r d_ir / (c_r w_ir)."""
    sigma = [max(d / (c * w) for d, c, w in zip(row, capacities, ws)) for row, ws in zip(demands, weights)]
    # round 1: both grow at level L (tasks L / sigma_i) until a resource saturates
    rates = [sum(demands[i][r] / sigma[i] for i in range(2)) for r in range(len(capacities))]
    level = min(c / rate for c, rate in zip(capacities, rates) if rate > 0)
    tasks = [level / s for s in sigma]
    full = [r for r in range(len(capacities)) if rates[r] > 0 and level * rates[r] == capacities[r]]
    frozen = [any(demands[i][r] > 0 for r in full) for i in range(2)]
    if all(frozen):
        return tasks
    k = frozen.index(False)  # round 2: the other user alone grows into what is left
    room = [(capacities[r] - sum(tasks[i] * demands[i][r] for i in range(2))) / demands[k][r]
            for r in range(len(capacities)) if demands[k][r] > 0]
    tasks[k] += min(room)
    return tasks


def test_weight_vectors_refute_si_and_the_witness_is_rechecked_by_hand():
    result = prove(DRF, "si", 2, 2, domain="weighted")
    assert result.status == "refuted" and result.domain["weights"] == "vector"
    inst = result.instance
    capacities = [Fraction(str(c)) for c in inst["capacities"]]
    demands = [[Fraction(str(d)) for d in row] for row in inst["demands"]]
    weights = _weights_of(inst)
    assert any(len(set(row)) > 1 for row in weights)  # a real weight vector
    tasks = _drf_two_users(capacities, demands, weights)
    assert tasks == [Fraction(str(t)) for t in DRF(Instance.from_dict(inst)).tasks]
    i = result.witness["user"]
    # its bundle of weight share w_ir / sum_k w_kr of each resource runs more tasks than DRF gives it
    share = [weights[i][r] / (weights[0][r] + weights[1][r]) * capacities[r] for r in range(2)]
    runs = min(share[r] / demands[i][r] for r in range(2) if demands[i][r] > 0)
    assert runs > tasks[i]
    # the twin: the same instance with one weight per user (each user's first weight) is not a violation
    scalar = [[row[0]] * 2 for row in weights]
    tasks = _drf_two_users(capacities, demands, scalar)
    for k in range(2):
        share = [scalar[k][r] / (scalar[0][r] + scalar[1][r]) * capacities[r] for r in range(2)]
        assert min(share[r] / demands[k][r] for r in range(2) if demands[k][r] > 0) <= tasks[k]


@pytest.mark.parametrize("prop", ["ef", "pe", "sp"])
def test_weight_vectors_keep_ef_pe_sp(prop):
    result = prove(DRF, prop, 2, 2, domain="weighted")
    assert result.status == "proved" and result.domain["weights"] == "vector" and "note" not in result.domain


def test_the_levels_encoding_alone_does_not_prove_vector_si():
    """si with weight vectors: the levels relaxation does not apply (its per-resource sums stay
    products), so the nonlinear encoding decides, and refutes."""
    from fairlab.search.proof_encoding import strategies_for

    assert strategies_for(DRF, "si", {}, weights="vector") == ["drf-normalised"]
    assert strategies_for(DRF, "si", {}, weights="scalar") == ["drf-levels", "drf-normalised"]
    assert strategies_for(DRF, "si", {}) == ["drf-normalised"]


# --------------------------------------------------------------------------- task caps
def test_drf_pe_and_sp_with_caps_cover_every_cap_pattern():
    for prop, patterns in (("pe", 3), ("sp", 4)):
        result = prove(DRF, prop, 2, 2, domain="unweighted,caps=allowed")
        assert result.status == "proved", result.explanation
        assert result.domain["caps"] == "allowed" and "note" not in result.domain
        assert [p["status"] for p in result.details["cap_patterns"]] == ["proved"] * patterns
        assert result.budget["rlimit_spent"] == sum(p["rlimit_spent"] for p in result.details["cap_patterns"])


def test_a_drf_that_clips_at_the_caps_is_refuted_with_a_cap_and_proved_without():
    mutant = _mutant("clipped_drf")
    capped = prove(mutant, "pe", 2, 2, domain="unweighted,caps=allowed")
    assert capped.status == "refuted", capped.explanation
    assert any(t is not None for t in capped.instance["max_tasks"])
    assert properties.get("pe").verify(mutant, capped.instance, capped.witness)
    plain = prove(mutant, "pe", 2, 2, domain="unweighted")
    assert plain.status == "proved"


def test_cap_patterns():
    assert cap_patterns(2, anonymous=True) == [(False, False), (False, True), (True, True)]
    assert cap_patterns(3, anonymous=True, focus=True) == [
        (False, False, False), (False, False, True), (True, False, False), (False, True, True), (True, False, True),
        (True, True, True)]
    assert len(cap_patterns(3, anonymous=False)) == 8 and cap_patterns(3, anonymous=False)[0] == (False,) * 3


# --------------------------------------------------------------------------- the entry point's record
def _fake(statuses):
    from fairlab.core.results import Result

    calls = []

    def prove_encoded(mechanism, prop, n, m, **kw):
        calls.append(kw)
        status, explanation, gates = statuses(kw)
        return Result("proof", status, mechanism=mechanism.name, property=prop, explanation=explanation,
                      details={"gates": gates}, budget={"rlimit_spent": 1})

    return prove_encoded, calls


def test_an_undecided_whole_domain_falls_back_to_its_unweighted_part_and_says_so():
    passed = {"conformance": "passed", "satisfiable": "not-reached"}
    fake, calls = _fake(lambda kw: ("unknown", "rlimit: every proof attempt ran out", passed) if "weights" in kw
                        else ("proved", "spec ∧ ¬si is UNSAT", {g: "passed" for g in passed}))
    result = prove_on(fake, DRF, "si", 2, 2, domain=SCALAR)
    assert result.status == "proved" and result.domain["weights"] == "none"
    assert "sub-domain" in result.domain["note"] and result.details["whole_domain"]["status"] == "unknown"
    assert [c.get("weights") for c in calls] == ["scalar", None]
    # the twin: a failed gate on the whole domain is the answer (no smaller proof replaces it)
    failed = {"conformance": "failed"}
    fake, calls = _fake(lambda kw: ("unknown", "spec and allocator disagree", failed) if "weights" in kw
                        else ("proved", "UNSAT", {"conformance": "passed"}))
    result = prove_on(fake, DRF, "si", 2, 2, domain=SCALAR)
    assert result.status == "unknown" and len(calls) == 1


# --------------------------------------------------------------------------- the conformance sample
def test_the_conformance_sample_draws_weights_and_caps_only_where_asked():
    plain = conformance.sample(3, 3)
    assert plain == conformance.sample(3, 3, domain=parse("unweighted"))  # the old sample, number for number
    spread = conformance.sample(3, 3, domain=parse("all"))
    assert [i.demands for i in spread] == [i.demands for i in plain]
    assert any(i.weights_given == "vector" for i in spread) and any(t is not None for i in spread for t in i.max_tasks)
    assert any(t == 0 for i in spread for t in i.max_tasks)  # a cap of 0 is seen too
    assert spread[0] == plain[0]  # some instances stay unweighted and uncapped
    scalar = conformance.sample(3, 3, domain=parse(SCALAR))
    assert {i.weights_given for i in scalar} == {"none", "scalar"} and all(
        t is None for i in scalar for t in i.max_tasks)


# --------------------------------------------------------------------------- one rule: exact check and z3 view
RULES = ["si", "ef", "pe", "njc"]


@pytest.mark.parametrize("prop", RULES)
def test_the_exact_check_and_the_z3_view_check_the_same_weighted_form(prop):
    """On weighted, capped instances and allocations (not only the mechanism's), the rule read by
    the exact view and by the z3 view over numerals agree at every choice."""
    module = properties.get(prop)
    for inst in conformance.sample(3, 3, samples=12, seed=4, domain=parse("all")):
        sym = SymbolicInstance.from_instance(inst)
        for scale in (Fraction(1, 3), Fraction(1, 2), Fraction(1)):
            tasks = [scale * inst.solo_tasks(i) / inst.n for i in range(inst.n)]
            exact, view = ExactView(inst), Z3View(sym)
            for choice in module.choices(exact):
                want = bool(module.rule(exact, tasks, *choice))
                got = z3.simplify(module.rule(view, [z3.RealVal(t) for t in tasks], *choice))
                assert z3.is_true(got) == want and (z3.is_true(got) or z3.is_false(got)), (prop, inst, choice)


def test_the_views_would_disagree_on_another_weighted_form():
    """The twin: a z3 entitlement with the weights ignored (1/n) differs from the exact one on a
    weighted instance, so the comparison above can fail."""
    inst = Instance.build([1, 1], [[1, 1], [1, 1]], weights=[1, 3])
    exact = ExactView(inst)
    assert exact.entitlement(0) == (Fraction(1, 4), Fraction(1, 4))
    unweighted = Z3View(SymbolicInstance.from_instance(inst.replace(weights=None)))
    assert [z3.simplify(x) for x in unweighted.entitlement(0)] != [z3.RealVal(Fraction(1, 4))] * 2


def test_every_pool_property_says_its_weighted_form():
    for name in properties.names("pool"):
        text = properties.get(name).weighted
        assert text and ("lab's reading" in text or "DRF paper" in text or "Bonald" in text), name


# --------------------------------------------------------------------------- the relaxation's pieces
def test_lift_ite_is_an_identity():
    c, x, y = z3.Reals("c x y")
    ite = z3.If(c > 0, z3.RealVal(1), z3.RealVal(0))
    for expr in (ite * x * y <= x, (ite * x) / y == 1, z3.Sum([ite * y, x * 2]) > 0):
        lifted = lift_ite(expr)
        assert not nonlinear([lifted]) or not nonlinear([z3.substitute(lifted, (y, z3.RealVal(2)))])
        assert z3.Solver().check(z3.Not(lifted == expr), y != 0) == z3.unsat


def test_levels_refuses_to_leave_a_product():
    sym = SymbolicInstance.unknown(2, 2, weights="scalar")
    from fairlab.mechanisms.base import Constraint

    stray = [Constraint("stray", sym.demands[0][0] * sym.weights[1][0] > 1)]
    with pytest.raises(ValueError, match="products left"):
        levels(stray, [("", sym)], drf.sigma_terms)
    # the twin: the spec's own level terms are abstracted, nothing is left
    spec = DRF.spec(sym, [z3.RealVal(1)] * 2)
    rewritten, axioms, lv = levels(spec, [("", sym)], drf.sigma_terms)
    assert nonlinear(c.expr for c in spec) and not nonlinear(c.expr for c in rewritten) and len(lv) == 2


# --------------------------------------------------------------------------- the symbolic search engine
def test_the_symbolic_engine_finds_weighted_si_and_holds_pe_on_the_whole_domain():
    from fairlab.search import engines

    si = engines.search(DRF, "si", 2, 2, engines=["symbolic"], time_limit=300)
    assert si.status == "violated" and si.instance.weights_given == "vector"
    pe = engines.search(DRF, "pe", 2, 2, engines=["symbolic"], time_limit=300)
    assert pe.status == "holds" and "each of the 4 cap patterns" in pe.explanation
    assert pe.domain["name"] == "all" and "note" not in pe.domain
    # the twin: on the unweighted domain the same engine proves si
    plain = engines.search(DRF, "si", 2, 2, engines=["symbolic"], time_limit=300, domain="unweighted")
    assert plain.status == "holds" and "unit weights, no task caps" in plain.explanation
