"""Regressions for the adversarial audit of issue 14: plug-in specs that hang or return garbage,
plug-ins that print or end the process at import, approximate labels on plain objects, and
refutations of `prove` stored as fixtures that re-verify."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PLUGINS = Path(__file__).parents[1] / "plugins"
MISBEHAVING = PLUGINS / "misbehaving.py"


def fairlab(*args, timeout=120):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.run([sys.executable, "-m", "fairlab.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, env=env)




@pytest.mark.parametrize("verb", [["prove", "{p}", "si", "-n", "2", "-m", "2"], ["conformance", "{p}"]])
def test_a_spec_that_never_returns_is_stopped_at_the_time_limit(verb, assert_one_line_error):
    args = [a.replace("{p}", f"{PLUGINS / 'hangs.py'}:slow_spec") for a in verb]
    assert_one_line_error(fairlab(*args, "--time-limit", "3", timeout=90), "did not return within 3 s")


@pytest.mark.parametrize("verb", [["prove", "{p}", "si", "-n", "2", "-m", "2"], ["conformance", "{p}"]])
def test_a_spec_returning_garbage_is_one_line(verb, assert_one_line_error):
    args = [a.replace("{p}", f"{MISBEHAVING}:spec_garbage") for a in verb]
    assert_one_line_error(fairlab(*args), "item 0 of its spec is int")


def test_plugin_prints_go_to_stderr_and_json_parses():
    out = fairlab("allocate", f"{MISBEHAVING}:prints", "drf-paper", "--format", "json")
    assert out.returncode == 0, out.stderr
    json.loads(out.stdout)
    assert "HELLO FROM PLUGIN" in out.stderr and "RAW C-LEVEL WRITE" in out.stderr
    out = fairlab("check", f"{PLUGINS / 'prints_at_import.py'}:f", "si", "drf-paper", "--format", "json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["status"] in ("violated", "holds")
    assert "PRINTED AT IMPORT" in out.stderr


def test_an_import_that_ends_the_process_is_an_error_not_a_silent_success(assert_one_line_error):
    assert_one_line_error(fairlab("allocate", f"{PLUGINS / 'exits_at_import.py'}:f", "drf-paper", "--format", "json"),
                   "ended the process", "exit code 0")


@pytest.mark.parametrize("function", ["ceei_float_object", "ceei_float_mapping"])
def test_an_approximate_label_on_a_plain_result_is_kept(function):
    from fairlab import properties
    v = properties.check(f"{MISBEHAVING}:{function}", "pe", "thm4-ceei-sp")
    assert v.status == "unknown" and "approximate" in v.explanation


def test_prove_refutations_store_fixtures_that_reverify():
    from fairlab import mechanisms
    from fairlab.search import prove
    from fairlab.search.findings import fixture_record
    from fairlab.search.verify import reverify

    for name, prop in (("drf-tasks", "bf"), ("pdrf", "bf")):  # discrete: no row rescaling in the hash
        mech = mechanisms.get(name)
        proof = prove(mech, prop, 2, 2, time_limit=120)
        assert proof.status == "refuted"
        verified = reverify(fixture_record(proof, mech))
        assert verified.ok, verified.message
    drf = mechanisms.get("drf")
    relation = prove(drf, "same-as:asset", 2, 2, time_limit=120)
    assert relation.status == "refuted" and fixture_record(relation, drf) is None  # not a property violation
