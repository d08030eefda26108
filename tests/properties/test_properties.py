"""Fairness properties on the DRF paper's theorem instances, witnesses, verification, encodings.

Theorem instances (DRF paper §6.1, transcribed; Theorem 4 with the lecture's capacities <100, 100>).
"""

from fractions import Fraction as F

import pytest

from fairlab import mechanisms, properties
from fairlab.core.errors import InputError, PluginError
from fairlab.core.instance import Instance
from fairlab.core.results import Result
from fairlab.mechanisms.base import Allocation, Mechanism, SymbolicInstance
from fairlab.properties import pm, rm, si, sp
from fairlab.properties.base import Violation, solve

THM1 = Instance.build([30, 30], [[1, 3], [1, 1]])
THM2 = Instance.build([21, 21], [[3, 2], [4, 1]])
THM3 = Instance.build([77, 77], [[4, 2], [1, 1]])
THM4 = Instance.build([100, 100], [[16, 1], [1, 2]])
THM5 = Instance.build([100, 100], [[4, 1], [1, 16], [16, 1]])
ALL = [THM1, THM2, THM3, THM4, THM5]

needs_ceei = pytest.mark.skipif("ceei" not in mechanisms.REGISTRY, reason="CEEI mechanism not registered yet")


def test_every_property_module_is_complete():
    assert properties.names() == ["si", "sp", "ef", "pe", "srf", "bf", "pm", "rm", "njc", "gsp"]
    for name in properties.names():
        prop = properties.get(name)
        assert prop.name == name
        assert "§" in prop.definition or "Bonald" in prop.definition
        assert prop.source and prop.compares in ("allocation", "misreport", "capacity-change", "departure")
        for attr in ("title", "witness_shape", "check", "confirm", "encode", "holds", "witness"):
            assert hasattr(prop, attr), (name, attr)


# --------------------------------------------------------------------------- asset fairness, Theorems 1-3
def test_theorem1_asset_violates_sharing_incentive():
    v = properties.check("asset", "si", THM1)
    assert isinstance(v, Result) and v.kind == "check" and v.exactness == "rational"
    assert (v.status, v.witness) == ("violated", {"user": 1})
    assert properties.get("si").verify("asset", THM1, v.witness)
    assert mechanisms.allocate("asset", THM1).tasks == (6, 12)
    assert si.equal_split_utility(THM1, 1) == 15


def test_theorem2_asset_violates_bottleneck_fairness():
    v = properties.check("asset", "bf", THM2)
    assert (v.status, v.witness) == ("violated", {"resource": 0, "user": 0})
    assert "3/7" in v.explanation and "1/2" in v.explanation
    assert properties.get("bf").verify("asset", THM2, v.witness)


def test_theorem3_asset_violates_resource_monotonicity():
    v = properties.check("asset", "rm", THM3)
    assert v.status == "violated"
    assert properties.get("rm").verify("asset", THM3, v.witness)
    # The paper's own deviation: the second resource doubles, A drops from 11 to 21/2 tasks.
    text = rm.PROPERTY.confirm(mechanisms.get("asset"), THM3, {"capacities": [77, 154], "user": 0}, {})
    assert text is not None and "from 11 to 21/2" in text
    assert mechanisms.allocate("asset", THM3.replace(capacities=[77, 154])).tasks == (F(21, 2), 35)


# --------------------------------------------------------------------------- CEEI, Theorems 4-5
@needs_ceei
def test_theorem4_ceei_is_not_strategyproof_and_the_search_finds_a_misreport():
    v = properties.check("ceei", "sp", THM4, time_limit=60)
    assert v.status == "violated"
    assert v.witness["user"] == 0 and v.witness["misreport"] != [16, 1]
    assert properties.get("sp").verify("ceei", THM4, v.witness)
    # The lecture's misreport <16, 8>: 100/31 tasks truthful, 25/6 of its real tasks when lying.
    assert mechanisms.allocate("ceei", THM4).tasks == (F(100, 31), F(1500, 31))
    text = sp.PROPERTY.confirm(mechanisms.get("ceei"), THM4, {"user": 0, "misreport": [16, 8]}, {})
    assert text is not None and "100/31" in text and "25/6" in text


@needs_ceei
def test_theorem5_ceei_violates_population_monotonicity():
    v = properties.check("ceei", "pm", THM5, time_limit=60)
    assert (v.status, v.witness) == ("violated", {"removed": 2, "user": 1})
    assert properties.get("pm").verify("ceei", THM5, v.witness)
    after = mechanisms.allocate("ceei", pm.without(THM5, 2)).tasks
    assert after[1] == F(100, 21)  # the paper's 4.8; it had about 5.35 with user 3 present
    assert mechanisms.allocate("ceei", THM5).tasks[1] > F(535, 100)


# --------------------------------------------------------------------------- DRF on all of them
@pytest.mark.parametrize("prop", ["si", "ef", "pe", "bf"])
@pytest.mark.parametrize("index", range(5))
def test_drf_satisfies_the_required_properties_on_the_theorem_instances(prop, index):
    v = properties.check("drf", prop, ALL[index])
    assert v.status == "holds", v.explanation
    assert v.witness is None


def test_drf_strategyproofness_is_proved_by_z3_on_theorem4():
    v = properties.check("drf", "sp", THM4, time_limit=30)
    assert v.status == "holds"
    assert v.budget["z3"] == "unsat"


def test_drf_is_not_resource_monotone_theorem6():
    """Theorem 6: no mechanism with SI and PE is resource monotone; DRF fails on Theorem 4's instance."""
    v = properties.check("drf", "rm", THM4)
    assert (v.status, v.witness) == ("violated", {"capacities": [100, 200], "user": 0})
    assert "25/6 to 25/8" in v.explanation


# --------------------------------------------------------------------------- witnesses
def test_a_wrong_witness_does_not_verify():
    asset = mechanisms.get("asset")
    assert not Violation("si", asset, THM1, {"user": 0}).verify()
    assert not Violation("sp", asset, THM4, {"user": 0, "misreport": [16, 8]}).verify()
    assert not Violation("pm", mechanisms.get("drf"), THM5, {"removed": 2, "user": 1}).verify()
    assert not Violation("bf", asset, THM3, {"resource": 1, "user": 0}).verify()


def test_malformed_witness_is_rejected_not_crashing():
    assert not Violation("si", mechanisms.get("asset"), THM1, {"user": 7}).verify()
    assert not Violation("sp", mechanisms.get("asset"), THM1, {"user": 0, "misreport": [1]}).verify()


def test_a_non_deterministic_mechanism_gets_no_verdict():
    """Unfair on the first call, fair afterwards: `run` runs a foreign mechanism twice and refuses
    one that answers differently (a one-line PluginError), never a verdict."""
    calls = []

    def flaky(inst):
        calls.append(1)
        tasks = (F(0), F(0)) if len(calls) == 1 else mechanisms.allocate("drf", inst).tasks
        return Allocation("flaky", inst, tasks)

    with pytest.raises(PluginError, match="not a deterministic mechanism; no verdict"):
        properties.check(Mechanism("flaky", "", "", flaky), "si", THM1)


def test_a_violation_that_fails_reverification_is_never_reported():
    """A witness that does not re-verify (here: the allocation changes between the check and its
    re-verification, two runs each) is unknown, never violated."""
    calls = []

    def flaky(inst):
        calls.append(1)
        tasks = (F(0), F(0)) if len(calls) <= 2 else mechanisms.allocate("drf", inst).tasks
        return Allocation("flaky", inst, tasks)

    v = properties.check(Mechanism("flaky", "", "", flaky), "si", THM1)
    assert v.status == "unknown" and v.witness is None


def test_ef_and_pe_do_not_imply_si():
    """c = <1, 1>, d1 = <1, 1>, d2 = <1, 1/10>, tasks <2/5, 3/5>: envy-free, efficient, not SI."""
    inst = Instance.build([1, 1], [[1, 1], [1, "1/10"]])
    fixed = Mechanism("fixed", "", "", lambda i: Allocation("fixed", i, (F(2, 5), F(3, 5))))
    assert properties.check(fixed, "ef", inst).status == "holds"
    assert properties.check(fixed, "pe", inst).status == "holds"
    assert properties.check(fixed, "si", inst).witness == {"user": 0}


def test_pe_witness_is_the_exact_lp_optimum():
    half = Mechanism("half", "", "",
                     lambda i: Allocation("half", i, tuple(t / 2 for t in mechanisms.allocate("drf", i).tasks)))
    v = properties.check(half, "pe", THM1)
    assert v.status == "violated"
    assert v.witness == {"improvement": ["5/2", "45/2"], "user": 1}


def test_weighted_sharing_incentive_uses_the_weight_shares():
    inst = Instance.build([12], [[1], [1]], weights=[1, 2])
    even = Mechanism("even", "", "", lambda i: Allocation("even", i, (F(6), F(6))))
    assert properties.check(even, "si", inst).witness == {"user": 1}  # entitled to 8
    assert properties.check(even, "srf", inst).witness == {"user": 1}
    assert properties.check("drf", "srf", inst).status == "holds"


def test_notes_water_filling_example_is_single_resource_fair():
    inst = Instance.build([10], [[1], [1], [1], [1]], max_tasks=[2, "2.6", 4, 5])
    assert mechanisms.allocate("drf", inst).tasks == (2, F(13, 5), F(27, 10), F(27, 10))
    assert properties.check("drf", "srf", inst).status == "holds"


def test_srf_is_vacuous_with_several_resources():
    v = properties.check("asset", "srf", THM2)
    assert v.status == "holds" and "vacuous" in v.explanation


def test_bf_says_when_it_holds_vacuously():
    """No common bottleneck (<1, 2> on <1, 1>: user 1's is r1, user 2's r2): bf holds without looking, and says
    so; with a common bottleneck its holds is an exact check of the allocation, not 'vacuous'."""
    crossed = Instance.build([1, 1], [[2, 1], [1, 2]])
    v = properties.check("asset", "bf", crossed)
    assert v.status == "holds" and v.explanation.startswith("vacuous: no resource")
    common = Instance.build([1, 1], [[2, 1], [2, 1]])
    w = properties.check("drf", "bf", common)
    assert w.status == "holds" and "vacuous" not in w.explanation


# --------------------------------------------------------------------------- budgets
def test_bad_budget_is_an_input_error():
    with pytest.raises(InputError, match="budget 'bogus'"):
        properties.check("drf", "si", THM1, bogus=1)
    with pytest.raises(InputError, match="time_limit"):
        properties.check("drf", "sp", THM1, time_limit=0)
    with pytest.raises(InputError, match="evaluations"):
        properties.check("drf", "sp", THM1, evaluations=0)
    with pytest.raises(InputError, match="property 'xx'"):
        properties.check("drf", "xx", THM1)


def test_solver_giving_up_is_unknown_never_holds(monkeypatch):
    from fairlab.properties import _search

    monkeypatch.setattr(_search, "solve_spent", lambda constraints, budget: ("unknown", None, "rlimit", budget.rlimit))
    v = properties.check("drf", "sp", THM1, evaluations=1)
    assert v.status == "unknown"
    v = properties.check("drf", "sp", THM1, evaluations=5)
    assert v.status == "none-found" and v.budget["z3"] == "unknown"
    assert v.budget["z3_reason"].startswith("rlimit")


# --------------------------------------------------------------------------- z3 encodings
def _status(module, mechanism, inst, **kw):
    sym = SymbolicInstance.from_instance(inst)
    prop = getattr(module, "PROPERTY", module)  # a property module or the Property itself
    encoding = prop.encode(sym, mechanisms.get(mechanism).spec, **kw)
    status, model = solve(sym.domain + encoding.constraints, 30)
    return status, (encoding.witness(model) if model is not None else None)


def test_si_encoding_finds_theorem1_and_is_unsat_for_drf():
    assert _status(si, "asset", THM1) == ("sat", {"user": 1})
    assert _status(si, "drf", THM1) == ("unsat", None)


def test_rm_encoding_finds_a_verified_violation_for_asset_on_theorem3():
    status, witness = _status(rm, "asset", THM3)
    assert status == "sat"
    assert rm.PROPERTY.confirm(mechanisms.get("asset"), THM3, witness, {}) is not None


def test_sp_encoding_is_unsat_for_drf_on_theorem5():
    assert _status(sp, "drf", THM5) == ("unsat", None)


def test_pm_encoding_is_unsat_for_drf_and_vacuous_with_one_user():
    assert _status(pm, "drf", THM5) == ("unsat", None)
    assert _status(pm, "asset", Instance.build([1], [[1]])) == ("unsat", None)


def test_encodings_of_static_properties_agree_with_checks():
    for name in ("ef", "pe", "bf", "srf", "njc"):
        module = properties.get(name)
        for inst in (THM1, THM2):
            for mechanism in ("drf", "asset"):
                status, witness = _status(module, mechanism, inst)
                expected = properties.check(mechanism, name, inst).status
                assert status == ("sat" if expected == "violated" else "unsat"), (name, mechanism)


# --------------------------------------------------------------------------- the Python API
def test_check_takes_the_cli_order_example_names_and_plain_callables():
    """check(mechanism, property, instance) as ``fairlab check``; a shipped example's name; a plain
    Python callable as the mechanism (resolved by `fairlab.mechanisms.get`)."""
    v = properties.check("asset", "si", "thm1-asset-si")
    assert (v.status, v.witness, v.mechanism, v.property) == ("violated", {"user": 1}, "asset", "si")

    def dictator(instance):
        return [min(c / d for c, d in zip(instance.capacities, instance.demands[0]) if d > 0), 0]

    v = properties.check(dictator, "ef", THM1)
    assert (v.status, v.witness) == ("violated", {"user": 1, "envied": 0})
    assert properties.get("ef").verify(dictator, THM1, v.witness)
