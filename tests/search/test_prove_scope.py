"""The scope of a proof: capacities may be fixed to 1 only for a mechanism declared
scale-invariant, and only user 0 may be asked about only for a mechanism declared anonymous.

The two audit plug-ins (`tests/plugins/capdep.py`, `tests/plugins/asym.py`) have exact specs
(conformance agrees) but break one of these facts each; both were once `proved` (and `holds` in
`search`) although a concrete instance violates the property. Controls: DRF (built-in, both facts
declared) and a plug-in declaring both facts stay `proved`.
"""

import json
from pathlib import Path

import pytest

from fairlab import mechanisms, properties
from fairlab.core.instance import Instance
from fairlab.mechanisms import conformance
from fairlab.search import prove
from fairlab.search.engines import search

PLUGINS = Path(__file__).parents[1] / "plugins"
CAPDEP = f"{PLUGINS / 'capdep.py'}:capdep"
ASYM = f"{PLUGINS / 'asym.py'}:asym"
DECLARED = f"{PLUGINS / 'declared_drf.py'}:declared_drf"


def test_declared_facts_of_the_registry_and_of_plugins():
    for name in ("drf", "asset", "ceei", "ks", "bmf", "maxmin"):
        mech = mechanisms.get(name)
        assert mech.scale_invariant and mech.anonymous, name
    for name in ("drf-tasks", "pdrf"):
        mech = mechanisms.get(name)
        assert not mech.scale_invariant and not mech.anonymous, name
    for name in (CAPDEP, ASYM):
        mech = mechanisms.get(name)
        assert not mech.scale_invariant and not mech.anonymous, name
    declared = mechanisms.get(DECLARED)
    assert declared.scale_invariant and declared.anonymous


def test_the_audit_instances_violate():
    """The ground truth the proofs must not contradict."""
    asym = mechanisms.get(ASYM)
    same = Instance.from_dict(json.loads((PLUGINS / "asym_same.json").read_text()))
    assert properties.check(asym, "sp", same, time_limit=30).status == "violated"
    capdep = mechanisms.get(CAPDEP)
    # capacities not all 1: asset fairness, which violates si (DRF paper, Theorem 1)
    inst = Instance.from_dict({"capacities": [2, 2], "demands": [[2, 0], [2, 2]]})
    assert properties.check(capdep, "si", inst, time_limit=30).status == "violated"


def test_capacity_dependent_plugin_is_not_proved_si():
    proof = prove(mechanisms.get(CAPDEP), "si", 2, 2, time_limit=60, domain="unweighted")
    assert proof.status in ("refuted", "unknown"), proof
    assert any(r.startswith("capacities unknown") for r in proof.details["reductions"])
    assert not any("normalised to 1" in r for r in proof.details["reductions"])


def test_asymmetric_plugin_is_not_proved_sp():
    proof = prove(mechanisms.get(ASYM), "sp", 2, 2, time_limit=60, domain="unweighted")
    assert proof.status in ("refuted", "unknown"), proof
    assert not any("only user 0" in r for r in proof.details["reductions"])
    assert any("every user may deviate" in r for r in proof.details["reductions"])


@pytest.mark.parametrize("name,prop", [(CAPDEP, "si"), (ASYM, "sp")])
def test_search_does_not_claim_holds(name, prop):
    hunt = search(mechanisms.get(name), prop, 2, 2, time_limit=60)
    assert hunt.status != "holds", hunt


def test_search_on_capdep_notes_why_no_holds():
    hunt = search(mechanisms.get(CAPDEP), "si", 2, 2, engines=["symbolic"], time_limit=60, domain="unweighted")
    assert hunt.status != "holds"
    assert any("not declared scale-invariant" in note for note in hunt.details["notes"]), hunt.details["notes"]


def test_drf_si_still_proved_with_normalised_capacities():
    proof = prove(mechanisms.get("drf"), "si", 2, 2, time_limit=60, domain="unweighted")
    assert proof.status == "proved", proof
    assert "capacities normalised to 1 (scale-invariant mechanism)" in proof.details["reductions"]


def test_plugin_declaring_both_facts_is_still_proved():
    """Proved about its declared spec (scope "spec"); the search never claims holds for a foreign
    mechanism, whose spec is only sampled against its allocator."""
    proof = prove(mechanisms.get(DECLARED), "si", 2, 2, time_limit=60, domain="unweighted")
    assert proof.status == "proved" and proof.details["scope"] == "spec", proof
    assert "capacities normalised to 1 (scale-invariant mechanism)" in proof.details["reductions"]
    hunt = search(mechanisms.get(DECLARED), "si", 2, 2, engines=["symbolic"], time_limit=60, domain="unweighted")
    assert hunt.status != "holds", hunt
    assert any("only sampled against its allocator" in note for note in hunt.details["notes"]), hunt.details


SNEAKY = f"{PLUGINS / 'sneaky.py'}:sneaky"
WITH_SPEC = f"{PLUGINS / 'with_spec.py'}:drf_copy"


def test_sneaky_allocator_violates_where_the_sample_does_not_look():
    sneaky = mechanisms.get(SNEAKY)
    seven = Instance.from_dict({"capacities": [7, 7], "demands": [[1, 1], [1, 1]]})
    assert properties.check(sneaky, "si", seven, time_limit=30).status == "violated"
    assert conformance.check_sample(sneaky, 2, 2).status == "agrees"  # no sampled first capacity is 7


def test_a_plugin_whose_allocator_departs_from_its_spec_is_not_proved():
    proof = prove(mechanisms.get(SNEAKY), "si", 2, 2, time_limit=60, domain="unweighted")
    assert not (proof.status == "proved" and proof.details["scope"] == "mechanism"), proof
    assert proof.status == "refuted", proof  # the allocator check finds the capacity-7 instance
    assert proof.details["gates"]["allocator-check"] == "failed"
    assert proof.instance["capacities"][0] == 7
    sneaky = mechanisms.get(SNEAKY)
    assert properties.check(sneaky, "si", Instance.from_dict(proof.instance)).status == "violated"
    assert properties.get("si").verify(sneaky, proof.instance, proof.witness)


def test_a_plugin_proof_says_it_is_about_the_spec():
    proof = prove(mechanisms.get(WITH_SPEC), "si", 2, 2, time_limit=60, domain="unweighted")
    assert proof.status == "proved" and proof.details["scope"] == "spec"
    assert proof.details["gates"]["allocator-check"] == "passed"
    assert "declared spec" in proof.explanation and "not covered" in proof.explanation
    assert proof.details["allocator_check"]["checked"] >= 9


def test_a_builtin_proof_is_about_the_mechanism():
    proof = prove(mechanisms.get("drf"), "si", 2, 2, time_limit=60, domain="unweighted")
    assert proof.status == "proved" and proof.details["scope"] == "mechanism"
    assert "allocator-check" not in proof.details["gates"] and "not covered" not in proof.explanation
