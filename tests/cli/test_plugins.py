"""A failing plug-in or a bad mechanism option stops a search (never "none-found"); SystemExit in a
plug-in is a one-line error; click usage errors are one line ``error: ...`` with exit 2."""

import json
import re
import subprocess
import sys
import textwrap

import pytest

from fairlab import mechanisms, properties
from fairlab.core.errors import InputError, OptionError, PluginError
from fairlab.core.instance import Instance
from fairlab.mechanisms.base import Mechanism
from fairlab.properties import _search
from fairlab.properties.base import parse_budget
from fairlab.search import engines

GOOD = {"capacities": [9, 18], "demands": [[1, 4], [3, 1]]}

PLUGIN = textwrap.dedent(
    """
    import sys
    from fairlab.core.errors import InputError
    _calls = {"n": 0}
    def raises(inst):
        raise RuntimeError("boom")
    def garbage(inst):
        return "garbage"
    def flip(inst):
        _calls["n"] += 1
        if _calls["n"] % 2:
            return [0] * inst.n
        raise RuntimeError("flip")
    def refuses(inst):
        raise InputError("not this instance")
    def exits(inst):
        raise SystemExit(0)
    def interrupted(inst):
        raise KeyboardInterrupt
    """
)


@pytest.fixture
def plug(tmp_path):
    path = tmp_path / "plug.py"
    path.write_text(PLUGIN)
    return lambda fn: f"{path}:{fn}"


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "fairlab.cli", *args], capture_output=True, text=True, timeout=60)


def one_line_error(out, needle):
    lines = [line for line in out.stderr.strip().splitlines() if not re.match(r"\[\d+/\d+\] ", line)]  # progress
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], out.stderr
    assert "Traceback" not in out.stderr and "╭" not in out.stderr


# --------------------------------------------------------------------------- failing plug-ins stop the search
@pytest.mark.parametrize("fn, needle", [("garbage", "returned str")])
def test_a_failing_plugin_aborts_the_search(plug, fn, needle):
    with pytest.raises(PluginError, match=needle):
        engines.search(mechanisms.get(plug(fn)), "si", time_limit=5, shrink_seconds=0.5)


@pytest.mark.parametrize("fn, needle", [("raises", "raised RuntimeError: boom"), ("flip", "raised RuntimeError: flip")])
def test_a_plugin_that_raises_is_an_error_finding(plug, fn, needle):
    """A crash is a finding (issue 27): status error at the crashing instance, never none-found."""
    hunt = engines.search(mechanisms.get(plug(fn)), "si", time_limit=5, shrink_seconds=0.5)
    assert hunt.status == "error" and needle in hunt.explanation and hunt.instance is not None


def test_a_plugin_refusing_an_instance_is_still_skipped(plug):
    """Refusals are skipped, not errors; refusing every candidate reads n/a with the plug-in's reason."""
    hunt = engines.search(mechanisms.get(plug("refuses")), "si", engines=["grid"], candidates=20, time_limit=120)
    assert hunt.status == "n/a" and "not this instance" in hunt.explanation
    assert hunt.details["declined"] == {"grid": 20} and hunt.details["evaluated"] == {"grid": 0}


def test_verification_does_not_hide_a_failing_plugin(plug):
    inst = Instance.from_dict(GOOD)
    mech = mechanisms.get(plug("flip"))
    with pytest.raises(PluginError, match="flip"):
        properties.check(mech, "si", inst)  # first run all zeros (violates), the re-run raises


def test_cli_search_reports_a_failing_plugin(plug):
    out = run_cli("search", plug("raises"), "si", "--time-limit", "60", "--no-store")
    assert out.returncode == 0, out.stderr
    assert "error (the mechanism raised or answered wrongly)" in out.stdout
    assert "raised RuntimeError: boom" in out.stdout
    out = run_cli("search", plug("garbage"), "si", "--time-limit", "60", "--no-store")
    assert out.returncode == 2 and out.stdout == ""
    one_line_error(out, "returned str")


def test_cli_matrix_reports_a_failing_plugin_instead_of_n_a_cells(plug):
    out = run_cli("matrix", "--mechanism", plug("raises"), "--time-limit", "60", "--no-store", "--format", "json")
    assert out.returncode == 0, out.stderr
    cells = json.loads(out.stdout)["results"]
    assert cells and all(c["status"] == "error" and "raised RuntimeError: boom" in c["explanation"] for c in cells)
    out = run_cli("matrix", "--mechanism", plug("garbage"), "--time-limit", "60", "--no-store", "--format", "json")
    assert out.returncode == 2 and out.stdout == ""
    one_line_error(out, "returned str")


# --------------------------------------------------------------------------- bad options are rejected at once
@pytest.mark.parametrize(
    "mech, options, needle",
    [
        ("drf-tasks", {"tie": "bad"}, "option tie"),
        ("ceei", {"method": "bogus"}, "option method"),
        ("ceei", {"timeout": -1}, "option timeout"),
        ("drf", {"nope": 1}, "not an option"),
    ],
)
def test_a_bad_option_aborts_the_search(mech, options, needle):
    with pytest.raises(OptionError, match=needle):
        engines.search(mechanisms.get(mech), "si", time_limit=5, options=options, shrink_seconds=0.5)


def test_cli_search_rejects_a_bad_option():
    out = run_cli("search", "ceei", "si", "-o", "method=bogus", "--time-limit", "5", "--no-store")
    assert out.returncode == 2 and out.stdout == ""
    one_line_error(out, "option method")


def test_property_z3_step_gets_the_mechanism_options():
    seen = []

    def spec(sym, tasks, **options):
        seen.append(options)
        return []

    mech = Mechanism("rec", "records its spec options", "test", allocate=None, spec=spec, options={"mode": "x"})
    budget = parse_budget({"options": {"mode": "b"}})
    _search.symbolic_at(mech, Instance.from_dict(GOOD), budget, lambda sym, s: s(sym, []))()
    assert seen == [{"mode": "b"}]


# --------------------------------------------------------------------------- SystemExit / KeyboardInterrupt
def test_systemexit_in_a_plugin_is_a_plugin_error(plug, tmp_path):
    with pytest.raises(PluginError, match="SystemExit"):
        mechanisms.get(plug("exits"))(GOOD)
    (tmp_path / "exits_on_import.py").write_text("import sys; sys.exit(3)\ndef f(inst): return [1, 1]\n")
    with pytest.raises(PluginError, match="importing .* failed: SystemExit: exit code 3"):
        mechanisms.get(f"{tmp_path / 'exits_on_import.py'}:f")
    with pytest.raises(KeyboardInterrupt):
        mechanisms.get(plug("interrupted"))(GOOD)


def test_cli_allocate_with_an_exiting_plugin(plug, tmp_path):
    inst = tmp_path / "inst.json"
    inst.write_text('{"capacities": [9, 18], "demands": [[1, 4], [3, 1]]}')
    out = run_cli("allocate", plug("exits"), str(inst))
    assert out.returncode == 2 and out.stdout == ""
    one_line_error(out, "SystemExit")


def test_plain_input_error_from_a_plugin_stays_input_error(plug):
    with pytest.raises(InputError) as info:
        mechanisms.get(plug("refuses"))(GOOD)
    assert not isinstance(info.value, (PluginError, OptionError))


# --------------------------------------------------------------------------- usage errors
@pytest.mark.parametrize(
    "args, needle",
    [
        (["allocate", "drf", "drf-paper", "--bogus"], "unknown option '--bogus'"),
        (["nosuchverb"], "command 'nosuchverb': unknown"),
        (["search", "drf", "si", "-n", "abc"], "'--users'"),
        (["examples", "extra"], "unexpected extra argument"),
    ],
)
def test_usage_errors_are_one_line_exit_2(args, needle):
    out = run_cli(*args)
    assert out.returncode == 2 and out.stdout == ""
    one_line_error(out, needle)


def test_help_still_works():
    out = run_cli("allocate", "--help")
    assert out.returncode == 0 and "Usage" in out.stdout and out.stderr == ""
    assert run_cli().returncode == 2  # bare `fairlab` prints the help, exit 2 as before


def test_stdin_instance_is_capped_like_a_file(monkeypatch):
    """`-` reads at most MAX_FILE_BYTES from stdin (an endless stream must not hang)."""
    import io

    from fairlab import cli
    from fairlab.core import json_input

    monkeypatch.setattr(json_input, "MAX_FILE_BYTES", 64)
    good = b'{"capacities": [9, 18], "demands": [[1, 4], [3, 1]]}'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(good)))
    assert cli.read_instance("-").n == 2
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(good + b" " * 100)))
    with pytest.raises(InputError, match="stdin is larger than"):
        cli.read_instance("-")
