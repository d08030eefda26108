"""Plug-in mechanisms `path/to/file.py:function`: loading, result shapes, failures, and checks."""

from fractions import Fraction as F
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairlab import mechanisms, properties
from fairlab.cli import app
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance

PLUGINS = Path(__file__).parents[1] / "plugins"
UNFAIR = f"{PLUGINS / 'unfair.py'}"
THM1 = Instance.build([30, 30], [[1, 3], [1, 1]])


def test_a_deliberately_unfair_plugin_is_caught():
    name = f"{UNFAIR}:dictator"
    assert mechanisms.allocate(name, THM1).tasks == (10, 0)
    si = properties.check(name, "si", THM1)
    assert (si.status, si.witness) == ("violated", {"user": 1})
    assert properties.get("si").verify(name, THM1, si.witness)
    ef = properties.check(name, "ef", THM1)
    assert (ef.status, ef.witness) == ("violated", {"user": 1, "envied": 0})
    assert properties.check(name, "pe", THM1).status == "holds"  # a dictatorship wastes nothing


def test_plugin_without_spec_uses_numeric_search_only():
    thm4 = Instance.build([100, 100], [[16, 1], [1, 2]])
    v = properties.check(f"{PLUGINS / 'with_spec.py'}:ceei_without_spec", "sp", thm4, evaluations=60)
    assert v.status == "violated" and v.budget["z3"] == "not used"
    assert properties.get("sp").verify(f"{PLUGINS / 'with_spec.py'}:ceei_without_spec", thm4, v.witness)
    v = properties.check(f"{UNFAIR}:equal_split", "sp", THM1, evaluations=30)
    assert v.status == "none-found" and v.budget["candidates"] == 29


def test_plugin_spec_is_used_but_never_says_holds():
    """z3 runs on the plug-in's spec (its models are candidates), but an unsat is about the spec,
    not the plug-in's code: the check goes on with numeric candidates (tests/plugins/sp_sneak.py
    is an allocator that departs from its spec on one misreport)."""
    name = f"{PLUGINS / 'with_spec.py'}:drf_copy"
    assert mechanisms.get(name).spec is not None
    v = properties.check(name, "sp", THM1)
    assert v.status == "none-found" and v.budget["z3"].startswith("unsat for the plug-in's declared spec")


def test_result_shapes():
    assert mechanisms.allocate(f"{UNFAIR}:equal_split", THM1).tasks == (5, 15)  # a mapping
    floats = mechanisms.allocate(f"{UNFAIR}:as_floats", THM1)  # floats: read, but labelled approximate
    assert floats.tasks == (F(5, 2), F(15, 2)) and floats.exactness == "approximate" and "floats" in floats.notes[0]
    assert mechanisms.allocate(f"{PLUGINS / 'with_spec.py'}:numpy_tasks", THM1).tasks == (5, 15)


@pytest.mark.parametrize(
    "target, message",
    [
        (f"{UNFAIR}:raises", "raised RuntimeError: boom"),
        (f"{UNFAIR}:wrong_length", "returned 3 task counts for 2 users"),
        (f"{UNFAIR}:not_numbers", "tasks[0]: expected a number"),
        (f"{UNFAIR}:scalar", "returned int, expected one task count per user"),
        (f"{UNFAIR}:infeasible", "infeasible, resource r1 used 60000 > capacity 30"),
        (f"{UNFAIR}:NOT_CALLABLE", "is not callable"),
        (f"{UNFAIR}:missing", "defines no function 'missing'"),
        (f"{PLUGINS / 'nowhere.py'}:f", "no such file"),
        (f"{PLUGINS / 'broken_import.py'}:f", "importing"),
        (f"{UNFAIR}:not-a-name", "with a Python function name"),
    ],
)
def test_plugin_failures_are_one_line_input_errors(target, message):
    with pytest.raises(InputError) as info:
        mechanisms.allocate(target, THM1)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_plugin_failures_exit_2_in_the_cli(tmp_path):
    inst = tmp_path / "thm1.json"
    inst.write_text('{"capacities": [30, 30], "demands": [[1, 3], [1, 1]]}')
    runner = CliRunner()
    result = runner.invoke(app, ["check", f"{UNFAIR}:raises", "si", str(inst)])
    assert result.exit_code == 2
    result = runner.invoke(app, ["allocate", f"{UNFAIR}:infeasible", str(inst)])
    assert result.exit_code == 2
    result = runner.invoke(app, ["check", f"{UNFAIR}:dictator", "si", str(inst), "--format", "json"])
    assert result.exit_code == 0 and '"status": "violated"' in result.stdout


def test_plugins_take_no_options():
    with pytest.raises(InputError, match="not an option"):
        mechanisms.allocate(f"{UNFAIR}:dictator", THM1, method="x")


def test_a_broken_plugin_spec_falls_back_to_numeric_search():
    v = properties.check(f"{PLUGINS / 'with_spec.py'}:broken_spec", "sp", THM1, evaluations=20)
    assert v.status == "none-found"
    assert v.budget["z3"].startswith("error (ValueError")


def test_plugin_exception_names_its_own_file_and_lines(monkeypatch):
    """Issue 29: the one-line error points at the plug-in's own frames, innermost first."""
    monkeypatch.delenv("FAIRLAB_DEBUG", raising=False)
    with pytest.raises(InputError) as err:
        mechanisms.allocate(f"{PLUGINS / 'raises_deep.py'}:mech", THM1)
    message = str(err.value)
    assert "ZeroDivisionError" in message and "\n" not in message
    assert "raises_deep.py:6 in _helper <- " in message and "raises_deep.py:10 in mech" in message
    assert "plugin.py" not in message  # not the lab's own frames


def test_plugin_traceback_with_fairlab_debug(tmp_path):
    import os
    import subprocess
    import sys

    plugin = f"{PLUGINS / 'raises_deep.py'}:mech"
    code = f"import fairlab.cli as c, sys; sys.argv = ['fairlab', 'allocate', {plugin!r}, 'thm1-asset-si']; c.main()"
    env = {k: v for k, v in os.environ.items() if k != "FAIRLAB_DEBUG"}
    quiet = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert quiet.returncode == 2 and "Traceback" not in quiet.stderr
    assert quiet.stderr.count("\n") == 1 and "raises_deep.py:6 in _helper" in quiet.stderr
    loud = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**env, "FAIRLAB_DEBUG": "1"}, cwd=tmp_path)
    assert loud.returncode == 2 and "Traceback" in loud.stderr and 'raises_deep.py", line 6' in loud.stderr
