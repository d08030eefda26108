"""The two researchers' mechanisms of examples/plugins/weighted_split.py, right on unit weights and no
caps, wrong elsewhere: an audit with no domain option finds each violation from scratch (the search
draws weights and caps), shrunk and inside the domain; asked without weights (or caps), none."""

from __future__ import annotations

import json
from pathlib import Path

import fairlab
from fairlab.audit.run import audit_property
from fairlab.core.domain import ALL
from fairlab.search import engines

PLUGIN = Path(__file__).resolve().parents[2] / "examples" / "plugins" / "weighted_split.py"
SPLIT, CLIP = f"{PLUGIN}:weighted_dominant_split", f"{PLUGIN}:drf_then_clip"


def test_weighted_dominant_split_violates_si_with_weight_vectors():
    result = audit_property(SPLIT, "si", 2, 2)
    assert result.status == "violated" and result.details["found_by"] == "search"
    inst = result.instance
    assert (inst.n, inst.m) == (2, 2) and inst.weights_given == "vector" and ALL.contains(inst) is None
    assert result.details["shrink_steps"] > 0  # shrunk from what the engine drew
    assert fairlab.check(SPLIT, "si", inst).status == "violated"  # re-checked exactly from scratch
    # the issue's instance, checked by hand: capacities <1, 1>, demands <1, 1/10> and <1/10, 1>, weights <10, 1>
    issue = {"capacities": [1, 1], "demands": [[1, "1/10"], ["1/10", 1]], "weights": [[10, 1], [10, 1]]}
    assert fairlab.check(SPLIT, "si", issue).status == "violated"
    # one weight per user: sharing incentive holds there (none found), and the row says so
    scalar = audit_property(SPLIT, "si", 2, 2, domain="weights=scalar")
    assert scalar.status == "none-found" and scalar.domain["weights"] == "scalar"


def test_drf_then_clip_violates_pe_with_a_cap():
    result = audit_property(CLIP, "pe", 2, 2)
    assert result.status == "violated"
    inst = result.instance
    assert any(t is not None for t in inst.max_tasks) and ALL.contains(inst) is None
    assert fairlab.check(CLIP, "pe", inst).status == "violated"
    issue = {"capacities": [1, 1], "demands": [[1, 1], [1, 1]], "max_tasks": [None, "1/4"]}
    assert fairlab.check(CLIP, "pe", issue).status == "violated"
    uncapped = audit_property(CLIP, "pe", 2, 2, domain="caps=none")
    assert uncapped.status == "none-found" and uncapped.domain["caps"] == "none"


def test_search_finds_the_capped_violation_too(run_cli):
    out = run_cli("search", CLIP, "pe", "-n", "2", "-m", "2", "--no-store", "--format", "json")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert found["status"] == "violated" and any(t is not None for t in found["instance"]["max_tasks"])
    assert found["domain"]["name"] == "all" and found["details"]["drawn"]["capped"] >= 1
    # without caps the same search draws none and finds none
    plain = engines.search(fairlab.mechanism(CLIP), "pe", 2, 2, domain="caps=none", candidates=100)
    assert plain.status == "none-found" and plain.details["drawn"]["capped"] == 0
