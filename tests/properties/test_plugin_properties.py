"""Plug-in properties (issue 29): ``file.py:NAME`` and the entry-point group ``fairlab.properties``
give a `Property` that every verb takes, with the contract tests of the built-ins
(`fairlab.testing.property_contract`) and a content-hash identity."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fairlab
from fairlab import properties
from fairlab.audit.run import audit
from fairlab.campaign import spec as campaign_spec
from fairlab.campaign.cell import execute
from fairlab.core.errors import InputError, PluginError
from fairlab.search.matrix import matrix
from fairlab.testing import ContractError, assert_satisfies, assert_violates, property_contract

ROOT = Path(__file__).parents[2]
EF1 = str(ROOT / "examples" / "properties" / "ef1.py") + ":EF1"
BAD = ROOT / "tests" / "plugins" / "properties_misbehaving.py"
DICTATOR = str(ROOT / "tests" / "plugins" / "unfair.py") + ":dictator"


def test_check_search_prove_audit_take_a_plugin_property():
    held = fairlab.check("drf", EF1, "thm1-asset-si")
    assert held.status == "holds" and held.property == EF1
    hit = fairlab.check(DICTATOR, EF1, "thm1-asset-si")
    assert hit.status == "violated" and hit.witness == {"user": 1, "envied": 0}
    assert type(hit.witness).__name__ == "EF1Witness"  # the plug-in's own typed witness
    assert "less one task" in hit.explanation
    assert properties.get(EF1).verify(DICTATOR, "thm1-asset-si", {"user": 1, "envied": 0})
    assert not properties.get(EF1).verify(DICTATOR, "thm1-asset-si", {"user": 0, "envied": 1})
    found = fairlab.run_search(DICTATOR, EF1, 2, 1, candidates=20)
    assert found.status == "violated" and found.property == EF1
    proof = fairlab.prove("drf", EF1, 2, 2, time_limit=60)
    assert proof.status == "proved"
    report = audit(DICTATOR, 2, 1, properties_=[EF1], candidates=10, with_examples=False)
    assert report.result(EF1).status == "violated"
    # listed nowhere as a lab property
    assert EF1 not in properties.names(None) and EF1 in properties.PLUGINS


def test_ef1_is_weaker_than_ef():
    """EF implies EF1: a control for the rule itself (the example is not vacuous either way)."""
    inst = fairlab.Instance.build([4], [[1], [1]])
    four_zero = fairlab.check(lambda i: [4, 0], EF1, inst)
    three_one = fairlab.check(lambda i: [3, 1], EF1, inst)
    two_one = fairlab.check(lambda i: [2, 1], "ef", inst)
    assert four_zero.status == "violated" and three_one.status == "violated"  # 3 - 1 = 2 > 1
    assert two_one.status == "violated" and fairlab.check(lambda i: [2, 1], EF1, inst).status == "holds"


def test_testing_assertions_and_the_contract():
    assert assert_satisfies("drf", EF1, up_to=(2, 2), candidates=20).status == "proved"
    assert assert_violates(DICTATOR, EF1, up_to=(2, 1), candidates=20).status == "violated"
    counts = property_contract(EF1, (DICTATOR, "thm1-asset-si"), users=(2,), resources=(1, 2), samples=3)
    assert counts["checked"] == 18 and counts["encodings"] >= 18


def test_the_contract_fails_where_it_must():
    with pytest.raises(ContractError, match="negated rule|z3 encoding"):  # its z3 form is never violated
        property_contract(f"{BAD}:TWO_FACED", (DICTATOR, "thm1-asset-si"), users=(2,), resources=(1,), samples=2)
    with pytest.raises(ContractError, match="expected violated"):  # drf is EF1: not a positive control
        property_contract(EF1, ("drf", "thm1-asset-si"), users=(2,), resources=(1,), samples=1)


def test_a_broken_plugin_property_is_one_line_naming_its_frames():
    with pytest.raises(PluginError) as err:
        fairlab.check("drf", f"{BAD}:RAISES", "thm1-asset-si")
    message = str(err.value)
    assert "KeyError" in message and "properties_misbehaving.py:12 in _helper" in message and "\n" not in message
    with pytest.raises(InputError, match="expected a fairlab.properties.property.AllocationProperty"):
        properties.get(f"{BAD}:NOT_A_PROPERTY")
    with pytest.raises(InputError, match="defines no 'MISSING'"):
        properties.get(f"{BAD}:MISSING")
    with pytest.raises(InputError, match="no such file"):
        properties.get("no/such/file.py:EF1")


def test_cli_check_with_a_plugin_property(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "FAIRLAB_DEBUG"}
    run = subprocess.run([sys.executable, "-m", "fairlab", "check", DICTATOR, EF1, "thm1-asset-si", "--format", "json"],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["status"] == "violated"
    bad = subprocess.run([sys.executable, "-m", "fairlab", "check", "drf", f"{BAD}:RAISES", "thm1-asset-si"],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.count("\n") == 1


def test_campaign_cells_carry_the_plugin_content_hash(tmp_path):
    plugin = tmp_path / "ef1.py"
    plugin.write_text((ROOT / "examples" / "properties" / "ef1.py").read_text())
    data = {"verb": "check", "sweep": {"mechanisms": ["drf"], "properties": ["ef1.py:EF1", "ef"],
                                       "instances": ["thm1-asset-si"]}}
    cells = campaign_spec.expand(data, tmp_path)
    mine = next(c for c in cells if c.description["property"].endswith("ef1.py:EF1"))
    builtin = next(c for c in cells if c.description["property"] == "ef")
    assert "property_plugin" not in builtin.description  # built-in cells keep their ids
    assert len(mine.description["property_plugin"]["sha256"]) == 64
    assert execute(mine.description, None)["status"] == "holds"
    plugin.write_text(plugin.read_text() + "\n# edited\n")
    assert campaign_spec.expand(data, tmp_path)[0].id != mine.id  # an edited plug-in is another cell
    with pytest.raises(InputError, match="changed since the campaign was expanded"):
        execute(mine.description, None)


def test_matrix_takes_plugin_properties():
    cells = matrix(["drf", DICTATOR], 2, 1, candidates=10, write=False, property_names=[EF1])
    assert [(c.mechanism, c.property, c.status.value) for c in cells] == [
        ("drf", EF1, "holds"), (DICTATOR, EF1, "violated")]


def test_entry_point_group(tmp_path, monkeypatch):
    """A package registering a property in ``fairlab.properties`` (a dist-info folder on sys.path)."""
    (tmp_path / "their_props.py").write_text((ROOT / "examples" / "properties" / "ef1.py").read_text())
    info = tmp_path / "their_props-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: their-props\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[fairlab.properties]\nef1-installed = their_props:EF1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    prop = properties.get("ef1-installed")
    assert prop.name == "ef1-installed" and prop.plugin.identity["distribution"] == "their-props 1.0"
    assert fairlab.check(DICTATOR, "ef1-installed", "thm1-asset-si").status == "violated"


def test_pytest_fixture_runs_the_contract():
    from fairlab.pytest_plugin import Assertions
    from fairlab.testing import Budget

    counts = Assertions(Budget(seed=1)).property_contract(EF1, (DICTATOR, "thm1-asset-si"), users=(2,),
                                                          resources=(1,), samples=1)
    assert counts["checked"] == 3
