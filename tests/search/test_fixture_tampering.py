"""Regressions for the fixture-tampering audit: `store verify` re-verifies only what a fixture
really is — an impossibility family whose members stand in their stated relations to the record's
base, a plug-in only by its recorded name and hash, and a record not shaped like a fixture is one
line (exit 2), never an internal error."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from fairlab.core.errors import InputError
from fairlab.counterexamples import store
from fairlab.search.verify import reverify, verify_fixtures

FIXTURES = Path(store.FIXTURES)
RM_FAMILY = "any-si+pe+rm-03e9ff21c25d8ac2.json"
SP_FAMILY = "any-si+pe+sp-indivisible-1c7bced03134f64e.json"


def _shipped(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())




def _forged_si_rm() -> dict:
    """The audit's forgery: an "rm" member with other demands makes si + rm look impossible."""
    base = {"capacities": [1, 1], "demands": [[1, 0], [0, 1]]}
    return {
        "kind": "impossibility", "mechanism": "any", "property": "si+rm", "properties": ["si", "rm"],
        "indivisible": False, "instance": base, "canonical_hash": "03e9ff21c25d8ac2",
        "family": [{"label": "base", "relation": "base", "user": None, "instance": base},
                   {"label": "grow", "relation": "rm", "user": None,
                    "instance": {"capacities": [2, 2], "demands": [[10, 10], [10, 10]]}}],
    }


# --------------------------------------------------------------------------- forged impossibility families
def _three_resources(record):
    record["family"][1]["instance"] = {"capacities": [2, 1, 1], "demands": [[1, 2, 1], [2, 1, 1]]}


def _sp_two_rows(record):
    record["family"][1]["instance"]["demands"] = [[1], [1]]


def _pm_wrong_user(record):
    record["properties"], record["property"] = ["si", "pm"], "si+pm"
    base = {"capacities": [1, 1], "demands": [[1, 2], [2, 1], [1, 1]]}
    record["instance"] = base
    record["family"] = [{"label": "base", "relation": "base", "user": None, "instance": base},
                        {"label": "without0", "relation": "pm", "user": 0,
                         "instance": {"capacities": [1, 1], "demands": [[1, 2], [1, 1]]}}]  # user 1 removed


def _other_base(record):
    record["instance"] = {"capacities": [1, 1], "demands": [[1, 2], [1, 2]]}


@pytest.mark.parametrize("name, forge, words", [
    (RM_FAMILY, lambda r: r["family"][1]["instance"].update(demands=[[1, 2], [1, 2]]), "base's users"),
    (RM_FAMILY, _three_resources, "base's users"),
    (RM_FAMILY, lambda r: r["family"][1]["instance"].update(capacities=["1/2", 1]), "at least the base's"),
    (RM_FAMILY, lambda r: r["family"].insert(0, r["family"].pop(1)), "first member"),
    (SP_FAMILY, _sp_two_rows, "only user 0's demands"),
    (SP_FAMILY, _pm_wrong_user, "without exactly user 0"),
    (RM_FAMILY, _other_base, "not the family's base"),
])
def test_a_forged_impossibility_family_does_not_verify(name, forge, words):
    record = _shipped(name)
    assert reverify(record).ok
    forge(record)
    verified = reverify(record)
    assert not verified.ok and words in verified.message, verified.message


def test_the_audits_forged_si_rm_impossibility_is_bad(tmp_path, run_cli):
    verified = reverify(_forged_si_rm())
    assert not verified.ok and "not an impossibility family" in verified.message
    path = tmp_path / "any-si+rm-forged.json"
    path.write_text(json.dumps(_forged_si_rm()))
    out = run_cli("store", "verify", path)
    assert out.returncode == 1 and out.stdout.startswith("BAD "), (out.stdout, out.stderr)


# --------------------------------------------------------------------------- plug-in records
def _plugin_record(plugins, tmp_path, run_cli) -> dict:
    home = tmp_path / "store"
    out = run_cli("search", f"{plugins / 'unfair.py'}:dictator", "si", "--store", home, "--format", "json")
    assert out.returncode == 0, out.stderr
    [path] = list(home.glob("*.json"))
    return json.loads(path.read_text())


def test_a_plugin_record_must_name_its_mechanism(tmp_path, plugins, run_cli, assert_one_line_error):
    record = _plugin_record(plugins, tmp_path, run_cli)
    assert reverify(record, [plugins / "unfair.py"]).ok
    tampered = {**record, "mechanism": "drf"}
    with pytest.raises(InputError, match="plugin record is 'unfair.py:dictator'"):
        reverify(tampered, [plugins / "unfair.py"])
    path = tmp_path / "drf-si-forged.json"
    path.write_text(json.dumps(tampered))
    assert_one_line_error(run_cli("store", "verify", path, "--plugin", plugins / "unfair.py"), "must agree")


def test_a_file_plugin_without_its_hash_is_never_loaded(tmp_path, plugins, run_cli, assert_one_line_error):
    record = _plugin_record(plugins, tmp_path, run_cli)
    marker = tmp_path / "imported"
    evil = tmp_path / "evil.py"
    evil.write_text(f"open({str(marker)!r}, 'w').close()\n"
                    "def dictator(instance):\n    return [instance.solo_tasks(0)] + [0] * (instance.n - 1)\n")
    for name in (f"{evil}:dictator", "evil.py:dictator", f"{evil}"):
        tampered = {k: v for k, v in record.items() if k != "plugin"}
        tampered["mechanism"] = name
        with pytest.raises(InputError, match="no plugin record"):
            reverify(tampered, [evil])
        path = tmp_path / "nokey.json"
        path.write_text(json.dumps(tampered))
        assert_one_line_error(run_cli("store", "verify", path, "--plugin", evil), "no plugin record")
    assert not marker.exists(), "a fixture made the lab import a file it names"


# --------------------------------------------------------------------------- malformed records
def _violation() -> dict:
    return _shipped("asset-si-be83754a32e354a3.json")


def _malformed():
    violation = _violation()
    impossibility = _shipped(RM_FAMILY)
    nonunique = _shipped("bmf-unique-d59a099aad928010.json")
    yield "empty", {}, "kind"
    yield "kind only", {"kind": "violation"}, "mechanism"
    yield "no hash", {k: v for k, v in violation.items() if k != "canonical_hash"}, "canonical_hash"
    yield "no family", {k: v for k, v in impossibility.items() if k != "family"}, "family"
    yield "family member", {**impossibility, "family": [{"label": "base"}]}, "family"
    yield "member user", {**impossibility, "family": [{**impossibility["family"][0], "user": "0"}]}, "user"
    yield "duplicate property", {**impossibility, "properties": ["si", "pe", "rm", "rm"]}, "properties"
    yield "no indivisible", {k: v for k, v in impossibility.items() if k != "indivisible"}, "indivisible"
    yield "empty witness", {**nonunique, "witness": {}}, "witness"
    yield "plugin string", {**violation, "plugin": "zz"}, "plugin"
    yield "plugin path", {**violation, "plugin": {"name": "/tmp/x.py:f", "sha256": "0" * 64}}, "plugin"
    yield "float user", {**violation, "witness": {"user": 0.0}}, "witness"
    yield "bool user", {**violation, "witness": {"user": True}}, "witness"
    yield "witness list", {**violation, "witness": [0]}, "witness"
    yield "options list", {**violation, "options": [1]}, "options"
    yield "instance", {**violation, "instance": {"capacities": [1]}}, "instance"
    yield "member instance", {**impossibility, "family": [{**impossibility["family"][0], "instance": {}}]}, \
        "family[0].instance"
    yield "not an object", [violation], "JSON object"


@pytest.mark.parametrize("label, record, field", list(_malformed()), ids=[c[0] for c in _malformed()])
def test_a_malformed_record_is_one_input_error_naming_the_field(label, record, field):
    with pytest.raises(InputError, match="fixture 'x.json'") as raised:
        verify_fixtures([("x.json", copy.deepcopy(record))])
    assert field in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize("label, record", [("empty", {}), ("kind only", {"kind": "violation"}),
                                           ("float user", {**_violation(), "witness": {"user": 0.0}}),
                                           ("plugin string", {**_violation(), "plugin": "zz"})])
def test_store_verify_of_a_malformed_record_is_one_line(tmp_path, run_cli, label, record, assert_one_line_error):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    assert_one_line_error(run_cli("store", "verify", path), "bad.json")
    folder = tmp_path / "store"
    folder.mkdir()
    shutil.copy(path, folder / "bad.json")
    assert_one_line_error(run_cli("store", "verify", "--store", folder), "bad.json")
