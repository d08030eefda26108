"""Reference profiles use what the lab knows: an in-domain counterexample from a shipped fixture, a
shipped example or a refuted proof (the index `fairlab/audit/reference_counterexamples.json`),
re-checked exactly before it is shown, with its size; "—" only where nothing is known."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest

from fairlab import mechanisms
from fairlab.audit import reference
from fairlab.audit.markdown import reference_word
from fairlab.core.domain import ALL, PRESETS, parse
from fairlab.search.verify import confirm_violation

PAPER = PRESETS["drf-paper"]


@pytest.fixture(scope="module")
def on_paper():
    return reference.profiles(domain=PAPER)["mechanisms"]


def test_the_paper_domain_shows_the_shipped_examples_counterexamples(on_paper):
    """asset's si, bf and rm (Theorems 1-3), ceei's sp (Theorem 4) and drf's rm: violated on positive
    demands, each by a shipped example, its size shown, its explanation recomputed now."""
    for mech, prop in (("asset", "si"), ("asset", "bf"), ("asset", "rm"), ("ceei", "sp"), ("drf", "rm")):
        entry = on_paper[mech][prop]
        assert entry["status"] == "violated", (mech, prop)
        assert reference_word(entry) == "violated 2×2"
        assert PAPER.contains(reference.Instance.from_dict(entry["instance"])) is None
        shown = entry["evidence"][0]
        assert "re-checked exactly by this report" in shown["evidence"] and shown["explanation"]
    assert "thm1-asset-si" in on_paper["asset"]["si"]["source"]
    assert "thm4-ceei-sp" in on_paper["ceei"]["sp"]["source"]


def test_a_dash_only_where_nothing_is_known(on_paper):
    for profile in on_paper.values():
        for entry in profile.values():
            assert (entry["status"] == "not established") == (not entry["evidence"])
            if entry["status"] == "not established":
                assert reference_word(entry) == "—"


def test_only_counterexamples_inside_the_domain_are_shown(on_paper):
    on_all = reference.profiles(domain=ALL)["mechanisms"]
    # on all the fixture with a zero demand is the smallest (and plainest source): shown, and said so
    assert reference_word(on_all["asset"]["si"]) == "violated 2×2 (with a zero demand)"
    for profile in on_paper.values():
        for entry in profile.values():
            for item in entry["evidence"]:
                if item.get("instance"):
                    assert PAPER.contains(reference.Instance.from_dict(item["instance"])) is None
    unit_domain = parse("capacities=unit")
    unit = reference.profiles(domain=unit_domain)["mechanisms"]  # thm4's capacities are 100
    assert all(unit_domain.contains(reference.Instance.from_dict(e["instance"])) is None
               for p in unit.values() for e in p.values() if e.get("instance"))
    assert "thm4-ceei-sp" not in str(unit["ceei"]["sp"].get("source"))


def test_every_index_entry_re_checks_exactly():
    entries = reference.index_entries()
    assert entries and {e["source"] for e in entries} <= {"example", "proof"}
    for entry in entries:
        explanation, inexact = confirm_violation(mechanisms.get(entry["mechanism"]), entry["property"],
                                                 reference.entry_instance(entry), entry["witness"],
                                                 entry.get("options") or {})
        assert explanation is not None, (entry["name"], entry["mechanism"], entry["property"], inexact)


def test_a_counterexample_that_does_not_re_check_is_not_shown(monkeypatch):
    entries = copy.deepcopy(list(reference.index_entries()))
    asset_si = next(e for e in entries if (e["mechanism"], e["property"]) == ("asset", "si"))
    asset_si["witness"] = {"user": 1 - asset_si["witness"]["user"]}  # the other user is not below its share
    proof = {"mechanism": "drf", "property": "srf", "source": "proof", "name": "made up",
             "instance": {"capacities": [1, 1], "demands": [[1, 1], [1, 1]]}, "witness": {"user": 0}, "options": {}}
    monkeypatch.setattr(reference, "index_entries", lambda: tuple(entries + [proof]))
    reference._recheck.cache_clear()
    try:
        paper = reference.profiles(domain=PAPER)["mechanisms"]
    finally:
        reference._recheck.cache_clear()
    assert paper["asset"]["si"]["status"] == "not established"  # its fixture has a zero demand: outside
    assert paper["drf"]["srf"]["status"] == "proved"  # the made-up refutation does not re-check


def test_a_refuted_proof_in_the_index_is_shown(monkeypatch):
    """The index's third source: a refuted proof's counterexample (here drf's pm at 3×2 with a zero
    demand, the catalogue's refutation, as its fixture records it), shown on all, not on drf-paper."""
    fixture = next(r for _, r in reference.fixtures.shipped() if (r["mechanism"], r["property"]) == ("drf", "pm"))
    pm = {"mechanism": "drf", "property": "pm", "source": "proof", "name": "fairlab prove drf pm -n 3 -m 2",
          "instance": fixture["instance"], "witness": fixture["witness"], "options": {}}
    monkeypatch.setattr(reference, "index_entries", lambda: (pm,))
    monkeypatch.setattr(reference.fixtures, "shipped", lambda: [])
    on_all = reference.profile("drf", ALL, ["pm"])["pm"]
    assert on_all["status"] == "violated" and on_all["source"].startswith("a refuted proof")
    assert reference_word(on_all) == "violated 3×2 (with a zero demand); proved on drf-paper"
    assert reference.profile("drf", PAPER, ["pm"])["pm"]["status"] == "proved"


@pytest.mark.slow
def test_the_index_of_examples_is_up_to_date():
    script = Path(__file__).resolve().parents[2] / "scripts" / "reference_counterexamples.py"
    out = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=3600)
    assert out.returncode == 0, out.stderr[-2000:]
