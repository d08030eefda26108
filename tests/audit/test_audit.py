"""`fairlab.audit.run`: the property profile of a mechanism, each status backed by what it claims.

Every `violated` is re-verified here from scratch (`fairlab.properties.Violation`), every stored
finding re-verified from its file; the plug-ins of tests/plugins get the profiles their
definitions imply (see each plug-in's docstring); the same audit twice gives the same document.
"""

from __future__ import annotations

import json

import pytest

from fairlab import mechanisms, properties
from fairlab.audit import markdown
from fairlab.audit.reference import profiles
from fairlab.audit.run import AuditBudget, audit, audit_property, sizes_up_to
from fairlab.core.domain import PRESETS
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.core.schemas import validate
from fairlab.counterexamples.store import Store
from fairlab.search.verify import reverify


def _verified(result, mechanism, options=None) -> bool:
    inst = result.instance if isinstance(result.instance, Instance) else Instance.resolve(result.instance)
    return properties.Violation(result.property, mechanisms.get(mechanism), inst, result.witness,
                                dict(options or {})).verify()


def _statuses(report) -> dict:
    return {r.property: r.status.value for r in report.results}


def _stable(document: dict) -> dict:
    """The document without what may differ between two runs of the same audit (clock, paths)."""
    out = json.loads(json.dumps(document))
    out.pop("seconds"), out.pop("provenance")
    for row in out["properties"]:
        row.pop("seconds"), row.pop("fixture")
        for size in row["sizes"]:
            size.pop("seconds")
    return out


@pytest.fixture(scope="module")
def asset_audit(tmp_path_factory):
    store = tmp_path_factory.mktemp("store")
    return audit("asset", 2, 2, store=store), store


def test_sizes_smallest_first_and_bounded():
    assert sizes_up_to(2, 3) == [(1, 1), (1, 2), (2, 1), (1, 3), (2, 2), (2, 3)]
    for bad in (0, 7, True, 2.0):
        with pytest.raises(InputError, match="--users"):
            sizes_up_to(bad, 2)
    with pytest.raises(InputError, match="time limit"):
        AuditBudget(time_limit=float("nan"))


def test_asset_profile_matches_the_drf_paper(asset_audit):
    """DRF paper Theorems 1-3 (asset fairness violates si, bf, rm) and Table 2 (it is sp, ef)."""
    report, store = asset_audit
    got = _statuses(report)
    assert {p: got[p] for p in ("si", "bf", "rm")} == {"si": "violated", "bf": "violated", "rm": "violated"}
    assert got["sp"] == got["ef"] == "proved"
    for r in report.results:
        if r.status == "violated":
            assert _verified(r, "asset"), r
            assert r.details["allocations"], r.property
            assert r.details["fixture"] is not None
            assert (r.instance.n, r.instance.m) <= (2, 2)
        if r.status == "proved":
            assert r.details["proved_sizes"] and r.details["scope"] == "mechanism"
    # sp: proved at every size (a proof per size), with the core of the largest
    sp = report.result("sp")
    assert sp.details["proved_everywhere"] and sp.details["largest_proved"] == [2, 2] and sp.details["core"]
    # the findings are in the store, and each re-verifies from its file
    found = Store(store).load_all()
    assert {record["property"] for _, record in found} >= {"si", "bf", "rm"}
    assert all(reverify(record).ok for _, record in found)


def test_audit_document_validates_and_renders(asset_audit):
    report, _ = asset_audit
    document = report.to_dict()
    validate(json.loads(json.dumps(document)), "audit")
    assert [row["property"] for row in document["properties"]] == properties.names()
    assert document["command"] == "fairlab audit asset --users 2 --resources 2 --seed 0"
    text = markdown.render(document)
    assert "| si (sharing incentive) | **violated at 2×2**" in text
    # the si counterexample's figure data: one allocation with the user's equal split
    si = next(row for row in document["properties"] if row["property"] == "si")
    [view] = si["allocations"]
    assert view["equal_split"] and view["user"] == si["witness"]["user"]
    rm = next(row for row in document["properties"] if row["property"] == "rm")
    assert [a["label"].split()[0] for a in rm["allocations"]] == ["before", "capacities"]


def test_same_audit_same_document(asset_audit):
    report, _ = asset_audit
    again = audit("asset", 2, 2)
    assert _stable(again.to_dict()) == _stable(report.to_dict())


def test_reference_profiles_come_from_catalogue_and_fixtures():
    ref = profiles()["mechanisms"]  # on the union domain (all)
    assert ref["asset"]["si"]["status"] == "violated" and "fixture" in ref["asset"]["si"]["evidence"][0]["evidence"]
    # on the union DRF's si is violated (a shipped fixture: weight vectors, the lab's finding); the
    # catalogue's proofs range over unit weights and no caps: on the union they are restricted
    assert ref["drf"]["si"]["status"] == "violated"
    assert ref["drf"]["ef"]["status"] == "proved (restricted)" and [2, 2] in ref["drf"]["ef"]["sizes"]
    assert ref["ceei"]["sp"]["status"] == "violated"
    assert ref["bmf"]["sp"]["status"] == "violated" and ref["bmf"]["pe"]["status"] == "proved (restricted)"
    unweighted = profiles(domain=PRESETS["unweighted"])["mechanisms"]
    assert unweighted["drf"]["si"]["status"] == "proved" and unweighted["bmf"]["pe"]["status"] == "proved"
    # DRF's pm: violated with a zero demand (fixture), proved only with strictly positive demands
    assert ref["drf"]["pm"]["status"] == "violated"
    assert any(e.get("domain") == "drf-paper" and e.get("restriction") for e in ref["drf"]["pm"]["evidence"])
    assert profiles(domain=PRESETS["drf-paper"])["mechanisms"]["drf"]["pm"]["status"] == "proved"


# --------------------------------------------------------------------------- plug-ins
def test_dictator_profile(plugins):
    """Everything to user 0: not sharing-incentive, not envy-free, not efficient; nobody gains by
    lying (user 0 already gets all it can use, the others get nothing whatever they say)."""
    mech = f"{plugins / 'unfair.py'}:dictator"
    report = audit(mech, 2, 2, properties_=["si", "ef", "pe", "sp"], candidates=30)
    got = _statuses(report)
    assert got == {"si": "violated", "ef": "violated", "pe": "violated", "sp": "none-found"}
    for r in report.results:
        if r.status == "violated":
            assert _verified(r, mech)
    assert report.result("sp").details["candidates"] > 0
    assert report.about["builtin"] is False and report.about["plugin"]["sha256"]


def test_half_drf_profile(plugins):
    """tests/plugins/half_drf.py: si and pe fail (already for one user, who gets half of everything); ef
    fails only when a task cap binds (the capped user gets half its cap, the other half of the rest:
    the capped one envies), so it holds as far as searched without caps (no spec: no proof)."""
    mech = f"{plugins / 'half_drf.py'}:half_drf"
    report = audit(mech, 2, 2, properties_=["si", "pe", "ef"], candidates=30)
    assert _statuses(report) == {"si": "violated", "pe": "violated", "ef": "violated"}
    si = report.result("si")
    assert _verified(si, mech) and (si.instance.n, si.instance.m) == (1, 1)  # one user, half of everything
    ef = report.result("ef")
    assert _verified(ef, mech) and any(t is not None for t in ef.instance.max_tasks)
    uncapped = audit(mech, 2, 2, properties_=["ef"], candidates=30, domain="caps=none")
    assert _statuses(uncapped) == {"ef": "none-found"}


def test_asym_violates_sp_through_user_one(plugins):
    """tests/plugins/asym.py: user 1 gains by misreporting; a proof letting only user 0 deviate
    would have said `proved`."""
    mech = f"{plugins / 'asym.py'}:asym"
    r = audit_property(mech, "sp", 2, 2, candidates=30)
    assert r.status == "violated" and r.witness.user == 1 and _verified(r, mech)


def test_capdep_violates_si_off_unit_capacities(plugins):
    """tests/plugins/capdep.py: DRF at capacities 1, asset fairness elsewhere: si fails (Theorem 1)."""
    mech = f"{plugins / 'capdep.py'}:capdep"
    r = audit_property(mech, "si", 2, 2, candidates=30)
    assert r.status == "violated" and _verified(r, mech)
    assert any(c != 1 for c in r.instance.capacities)


def test_asset_allocator_with_drf_spec_is_violated_not_proved(plugins):
    """tests/plugins/asset_with_drf_spec.py: the spec (DRF's) passes for no proof; the allocator's si
    violation is what the audit reports."""
    mech = f"{plugins / 'asset_with_drf_spec.py'}:asset_with_drf_spec"
    r = audit_property(mech, "si", 2, 2, candidates=30)
    assert r.status == "violated" and _verified(r, mech)
    assert r.details["proved_sizes"] == [] or r.details["scope"] == "spec"


def test_a_plugin_spec_proof_is_recorded_but_never_makes_it_proved(plugins):
    """A plug-in's proof is about its declared spec, not its code (tests/plugins/sp_sneak.py departs
    from DRF's spec on one misreport): the status rests on the search of the allocator."""
    mech = f"{plugins / 'with_spec.py'}:drf_copy"
    r = audit_property(mech, "si", 2, 1, candidates=20, prove_spec=True)
    assert r.status == "none-found" and r.details["scope"] == "spec"
    assert r.details["spec_proved_sizes"] == [[1, 1], [2, 1]] and r.details["proved_sizes"] == []
    assert "declared spec is proved" in r.explanation


def test_a_plugin_spec_is_proved_only_when_asked(plugins):
    """Without prove_spec a plug-in's declared spec is not proved (its status rests on the search
    either way): the same status and candidates, no spec-proved size, and the explanation says so;
    a built-in's spec is proved whatever prove_spec says."""
    mech = f"{plugins / 'with_spec.py'}:drf_copy"
    asked = audit_property(mech, "si", 2, 1, candidates=20, prove_spec=True)
    r = audit_property(mech, "si", 2, 1, candidates=20)
    assert r.status == asked.status == "none-found"
    assert r.details["candidates_by_size"] == asked.details["candidates_by_size"]
    assert r.details["spec_proved_sizes"] == [] and r.details["scope"] is None
    assert "declared spec was not proved (--prove-spec proves it" in r.explanation
    assert all(s["how"] == "search" for s in r.details["sizes"])
    assert audit_property("drf", "si", 2, 1).details["proved_sizes"] == [[1, 1], [2, 1]]
    report = audit(mech, 1, 1, properties_=["si"], prove_spec=True, candidates=5)
    assert report.budget["prove_spec"] is True and report.command.endswith("--property si --candidates 5 --prove-spec")


def test_vacuous_at_every_size_is_proved():
    r = audit_property("drf", "ef", 1, 2)
    assert r.status == "proved" and r.details["proved_everywhere"] and "vacuous" in r.explanation


def test_declined_sizes_are_na(plugins):
    """maxmin is single-resource: at two resources it declines every instance."""
    r = audit_property("maxmin", "si", 2, 2, candidates=20)
    rows = {(s["users"], s["resources"]): s["status"] for s in r.details["sizes"]}
    assert rows[(2, 2)] == "n/a" and rows[(1, 2)] == "n/a"
    assert rows[(2, 1)] in ("proved", "holds")
    assert r.status == "proved" and not r.details["proved_everywhere"]


def test_time_limit_gives_unknown_never_a_false_verdict():
    report = audit("drf", 3, 3, time_limit=0.5, candidates=20)
    assert report.budget["stopped"] == "time"
    for r in report.results:
        assert r.status in ("proved", "none-found", "unknown", "violated", "n/a")
        if r.status == "violated":
            assert _verified(r, "drf")
        if r.status == "proved":
            assert r.details["proved_sizes"]


def test_a_plugin_that_raises_is_an_error_row_not_the_end(plugins):
    """A crash is a finding (issue 27): status error, the exception and the plug-in's own line."""
    report = audit(f"{plugins / 'unfair.py'}:raises", 1, 1, properties_=["si", "pe"])
    for r in report.results:
        assert r.status == "error" and "RuntimeError: boom" in r.explanation
        assert r.certificate["where"] == f"{plugins / 'unfair.py'}:28"


def test_a_wrong_answer_is_an_error_row_but_nonsense_still_stops_the_audit(plugins):
    """A wrong answer (here the wrong number of task counts) is a finding like a raise (issue 35);
    an answer that is not numbers at all is a broken plug-in: the audit stops with one line."""
    from fairlab.core.errors import PluginError

    [row] = audit(f"{plugins / 'unfair.py'}:wrong_length", 1, 1, properties_=["si"]).results
    assert row.status == "error" and "wrong answer: returned 2 task counts for 1 users" in row.explanation
    assert row.certificate["where"] == f"{plugins / 'unfair.py'}:31"
    with pytest.raises(PluginError, match="tasks\\[0\\]"):
        audit(f"{plugins / 'unfair.py'}:not_numbers", 1, 1, properties_=["si"])
