"""Search engines, shrinking, the ∃∀ engine, and the search/rediscover/matrix CLI."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fairlab import mechanisms
from fairlab.core.instance import Instance
from fairlab.core.results import to_dict
from fairlab.search import engines, impossibility, space
from fairlab.search.rediscover import CLAIMS, run_claim
from fairlab.search.verify import confirm_violation, reverify

PLUGINS = Path(__file__).parents[1] / "plugins"


def run(*args):
    return subprocess.run([sys.executable, "-m", "fairlab.cli", *args], capture_output=True, text=True, timeout=300)


def test_each_engine_alone_finds_asset_violating_sharing_incentive():
    for engine in ("symbolic", "grid", "random"):
        hunt = engines.search(mechanisms.get("asset"), "si", engines=[engine], time_limit=20)
        assert hunt.status == "violated", engine
        assert hunt.details["engine"] == engine
        explanation, _ = confirm_violation(mechanisms.get("asset"), "si", hunt.instance, to_dict(hunt.witness), {})
        assert explanation is not None


def test_shrinking_gives_small_integers():
    hunt = engines.search(mechanisms.get("asset"), "si", engines=["random"], time_limit=20, seed=3)
    original = hunt.details["found_instance"]
    assert original is not None
    assert max(max(r) for r in hunt.instance.demands) <= max(max(r) for r in original.demands)
    assert all(d.denominator == 1 for row in hunt.instance.demands for d in row)
    assert all(c.denominator == 1 for c in hunt.instance.capacities)


def test_no_violation_within_budget_is_none_found_not_holds():
    """Numeric engines only: no proof, so none-found with the count of candidates evaluated."""
    hunt = engines.search(mechanisms.get("drf"), "ef", engines=["grid", "random"], candidates=200, time_limit=120)
    assert hunt.status == "none-found"
    assert sum(hunt.details["evaluated"].values()) == 200
    assert hunt.budget["candidates"] == 200 and hunt.budget["candidates_used"] == 200


def test_symbolic_engine_proves_drf_sharing_incentive_holds_at_the_size():
    """z3 unsat for spec ∧ ¬si at 2×2 is `holds at 2×2` with its core, not none-found (issue 14 §3)."""
    hunt = engines.search(mechanisms.get("drf"), "si", engines=["symbolic"], time_limit=120, domain="unweighted")
    assert hunt.status == "holds" and hunt.details["engine"] == "symbolic"
    core = hunt.certificate["core"]
    assert "v.violated" in core and any(c.startswith("drf.") for c in core)
    assert hunt.certificate["control"]["dropped"] in core
    assert "2 users × 2 resources" in hunt.explanation and hunt.budget["candidates_used"] == 0


def test_grid_is_deduplicated_up_to_symmetry():
    from fairlab.counterexamples.store import canonical_form

    instances = list(space.grid(2, 2, max_entry=2))
    keys = [canonical_form(i) for i in instances]
    assert len(keys) == len(set(keys))
    # [[1,2],[2,1]] and [[2,1],[1,2]] are one instance up to user order
    plain = [i for i in instances if i.weights_given == "none" and i.max_tasks == (None, None)]
    assert sum(1 for i in plain if sorted(map(tuple, i.demands)) == [(1, 2), (2, 1)]) == 1
    # weighted too: [[1,2],[2,1]] with weights 1, 2 is the same instance as with weights 2, 1 (swap the resources)
    swapped = [i for i in instances if i.weights_given == "scalar" and sorted(i.scalar_weights()) == [1, 2]
               and sorted(map(tuple, i.demands)) == [(1, 2), (2, 1)]]
    assert len(swapped) == 1


def test_impossibility_controls_and_a_family_that_is_not_impossible():
    result = impossibility.search(["si", "pe", "rm"], time_limit=30)
    assert result.status == "found" and result.kind == "impossibility"
    assert result.certificate["controls"] == {"si": "sat", "pe": "sat", "rm": "sat"}
    core = result.certificate["core"]
    assert any(c.startswith("rm[") for c in core) and any(c.startswith("si[") for c in core)
    # with divisible tasks, si + pe + sp hold together (DRF has them): no family is found
    continuous = impossibility.search(["si", "pe", "sp"], indivisible=False, time_limit=3)
    assert continuous.status in ("not-found", "unknown")


def test_paper_family_of_theorem_6_needs_its_symmetric_twin():
    """The DRF paper's family (<2,1>, <1,2>, resource 2 multiplied by 4) checked, not searched. On its
    own it is satisfiable — the proof's "without loss of generality A gets more than half of
    resource 1" hides the symmetric case — and with the twin (resource 1 multiplied by 4) it is
    impossible, with every property needed."""
    base = Instance.build([1, 1], [[2, 1], [1, 2]])
    printed = impossibility.Member("r2x4", base.replace(capacities=[1, 4]), "rm")
    twin = impossibility.Member("r1x4", base.replace(capacities=[4, 1]), "rm")
    alone = impossibility.Family([impossibility.Member("base", base), printed])
    assert impossibility.solve(alone, ["si", "pe", "rm"], indivisible=False)[0] == "sat"
    both = impossibility.Family([impossibility.Member("base", base), printed, twin])
    status, info = impossibility.check_family(both, ["si", "pe", "rm"], indivisible=False)
    assert status == "unsat"
    _, core, controls, _ = info
    assert controls == {"si": "sat", "pe": "sat", "rm": "sat"}


@pytest.mark.parametrize("claim",
                         [c for c in CLAIMS if c.id in ("thm1-asset-si", "drf-tasks-pe", "indivisible-si-pe-sp")],
                         ids=lambda c: c.id)
def test_claims_are_found_from_scratch_and_verify(claim, tmp_path):
    outcome = run_claim(claim, store=tmp_path)
    assert outcome.status == "found"
    [path] = list(tmp_path.glob("*.json"))
    assert outcome.details["fixture"] == str(path)
    verified = reverify(json.loads(path.read_text()))
    assert verified.ok, verified.message


def test_a_claim_run_without_a_store_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRLAB_STORE", str(tmp_path))
    outcome = run_claim(CLAIMS[0])
    assert outcome.status == "found" and outcome.details["fixture"] is None and not list(tmp_path.iterdir())


def test_search_cli_json_and_fixture(tmp_path):
    out = run("search", "asset", "bf", "--time-limit", "20", "--format", "json", "--no-store")
    data = json.loads(out.stdout)
    assert out.returncode == 0
    assert data["schema_version"] == 1 and data["kind"] == "search"
    assert data["status"] == "violated" and set(data["witness"]) == {"resource", "user"}
    assert data["instance"]["capacities"] and data["seconds"] >= 0 and data["details"]["fixture"] is None


def test_search_a_plugin_mechanism():
    out = run("search", f"{PLUGINS / 'unfair.py'}:dictator", "si", "--time-limit", "20", "--format", "json",
              "--no-store")
    data = json.loads(out.stdout)
    assert data["status"] == "violated" and data["witness"]["user"] >= 1


@pytest.mark.parametrize("args,needle", [
    (["search", "drf", "si", "--engine", "magic"], "engine 'magic'"),
    (["search", "drf", "nope"], "property 'nope'"),
    (["search", "nope", "si"], "mechanism 'nope'"),
    (["search", "drf", "si", "--users", "0"], "--users"),
    (["rediscover", "--claim", "thm9"], "claim 'thm9'"),
])
def test_search_bad_input(args, needle):
    out = run(*args)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and needle in out.stderr, out.stderr


def test_matrix_json_for_one_mechanism():
    out = run("matrix", "--mechanism", "asset", "--time-limit", "120", "--domain", "unweighted", "--format", "json",
              "--no-store")
    data = json.loads(out.stdout)
    assert data["schema_version"] == 1 and data["kind"] == "matrix"
    cells = {c["property"]: c for c in data["results"]}
    assert cells["si"]["status"] == "violated" and cells["si"]["details"]["fixture"]  # the shipped fixture
    assert {c["status"] for c in cells.values()} <= {"violated", "holds", "none-found"}
    # asset fairness is strategyproof and envy-free (DRF paper, Table 2): z3 proves it at 2×2
    assert cells["sp"]["status"] == "holds" and cells["sp"]["certificate"]["core"] and cells["ef"]["status"] == "holds"
    for cell in cells.values():
        if cell["status"] == "none-found":
            assert sum(cell["details"]["evaluated"].values()) > 0 and cell["budget"]["candidates"] == 300
