"""gsp in the provers and the search: DRF and asset fairness proved on positive demands (the tasks-normalised
relaxed encoding, `fairlab.search.proof_drf_gsp`), coalitions found with zero demands and for CEEI, and the
search's symbolic engine with the coalition symmetry (anonymous built-ins only)."""

import json
import os
import subprocess
import sys

import pytest

from fairlab import mechanisms
from fairlab.core.instance import Instance
from fairlab.properties.base import Violation
from fairlab.search import engines
from fairlab.search.proof import prove
from fairlab.search.proof_encoding import strategies_for


@pytest.mark.parametrize("n,m", [(2, 2), (3, 2)])
def test_prove_drf_gsp_on_the_drf_papers_domain(n, m, tmp_path):
    out = subprocess.run([sys.executable, "-m", "fairlab.cli", "prove", "drf", "gsp", "--domain", "drf-paper",
                          "-n", str(n), "-m", str(m), "--no-store", "--format", "json"],
                         capture_output=True, text=True, timeout=600, cwd=tmp_path,
                         env={**os.environ, "FAIRLAB_STORE": str(tmp_path)})
    data = json.loads(out.stdout)
    assert data["status"] == "proved", data["explanation"]
    assert data["certificate"]["control"]["result"] == "sat" and "gsp.violated" in data["certificate"]["core"]
    assert data["domain"]["asked"] == "drf-paper"


def test_the_relaxed_encoding_serves_drf_and_asset_only_without_options():
    assert strategies_for(mechanisms.get("drf"), "gsp", {}) == ["drf-normalised"]
    assert strategies_for(mechanisms.get("asset"), "gsp", {}) == ["drf-normalised"]
    assert strategies_for(mechanisms.get("ceei"), "gsp", {}) == ["generic"]


def test_ceei_gsp_refuted_by_the_generic_encoding():
    r = prove(mechanisms.get("ceei"), "gsp", 2, 2, time_limit=300, options={"method": "exact"})
    assert r.status == "refuted"
    assert Violation("gsp", mechanisms.get("ceei"), Instance.from_dict(r.instance), r.witness,
                     {"method": "exact"}).verify()


def test_search_ceei_gsp_finds_a_violation_and_drf_holds():
    found = engines.search(mechanisms.get("ceei"), "gsp", 2, 2, time_limit=600, shrink_trials=0)
    assert found.status == "violated"
    assert Violation("gsp", mechanisms.get("ceei"), found.instance, found.witness).verify()
    held = engines.search(mechanisms.get("drf"), "gsp", 2, 2, time_limit=600)
    assert held.status == "holds" and "symmetry.gainer" in held.certificate["core"]
