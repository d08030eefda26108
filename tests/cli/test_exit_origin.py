"""Exit codes by origin (issue 26): bad input or a misbehaving plug-in exits 2, any other exception
is an internal error, exit 3, with one line on stderr; also when it happened in a cell's process
(`fairlab rediscover`, `matrix`, `prove --catalogue` run their cells in processes of their own)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from fairlab.campaign import cell as cells
from fairlab.campaign.lab_sweeps import raise_failure
from fairlab.campaign.spec import make_cell
from fairlab.core.errors import InputError, InternalError

ROOT = Path(__file__).resolve().parents[2]


def run_patched(patch: str, *argv: str) -> subprocess.CompletedProcess:
    """``fairlab ARGV`` in a fresh process after `patch` (Python) replaced a lab function. The patch
    is a ``sitecustomize`` module, so every process of the run applies it when it starts: the cells'
    processes come from a fork server (or spawn), which do not inherit the parent's patched modules."""
    code = f"import sys\nimport fairlab.cli as c\nsys.argv = ['fairlab', *{list(argv)!r}]\nc.main()\n"
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "sitecustomize.py").write_text(patch + "\n")
        path = (folder, str(ROOT), os.environ.get("PYTHONPATH"))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)}
        env.pop("FAIRLAB_DEBUG", None)
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env,
                              stdin=subprocess.DEVNULL)


def one_error_line(err: str) -> str:
    """The one ``error:`` line (after `--progress plain`'s lines of the units that finished first)."""
    lines = [line for line in err.splitlines() if not re.match(r"\[\d+/\d+\] ", line)]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


CLAIM = ["rediscover", "--claim", "thm1-asset-si", "--workers", "1", "--no-store", "--format", "json"]


def test_internal_error_inside_a_rediscover_cell_exits_3():
    """The issue's case: a TypeError inside the lab, in a claim's cell process, was reported with exit 2."""
    out = run_patched("import fairlab.search.rediscover as r\n"
                      "def boom(*a, **k): raise TypeError('unexpected keyword argument x')\n"
                      "r.run_claim = boom", *CLAIM)
    assert out.returncode == 3, out
    line = one_error_line(out.stderr)
    assert line.startswith("error: rediscover thm1-asset-si: TypeError: unexpected keyword argument x (internal error")
    assert out.stdout == ""


def test_bad_input_inside_a_rediscover_cell_exits_2():
    out = run_patched("import fairlab.search.rediscover as r\n"
                      "from fairlab.core.errors import InputError\n"
                      "def refuse(*a, **k): raise InputError('claim: the store is not writable')\n"
                      "r.run_claim = refuse", *CLAIM)
    assert out.returncode == 2, out
    assert one_error_line(out.stderr) == "error: claim: the store is not writable"
    assert out.stdout == ""


def test_internal_error_in_a_verb_of_this_process_exits_3():
    out = run_patched("import fairlab.search as s\n"
                      "def boom(*a, **k): raise TypeError('bad operand')\n"
                      "s.run_search = boom",  # the verb's module imports it after this
                      "search", "asset", "si", "-n", "2", "-m", "2", "--no-store", "--format", "json")
    assert out.returncode == 3, out
    assert one_error_line(out.stderr).startswith("error: TypeError: bad operand (internal error")
    assert out.stdout == ""


def test_a_cell_records_the_origin_of_its_error(monkeypatch):
    description = make_cell(verb="rediscover", claim="thm1-asset-si", mechanism={"name": "asset"}, seed=0,
                            budget={"time_limit": 5.0}).description

    def boom(description, store):
        raise TypeError("a bug")

    # what the cell's process runs (its process comes from a fork server: it does not inherit this
    # patch, so the outcome is read here; the exit code of a patched cell's process is tested above)
    monkeypatch.setattr(cells, "execute", boom)
    internal = cells._answer(description, None)
    assert internal["outcome"] == "error" and internal["internal"] is True
    assert internal["error"] == "TypeError: a bug (internal error)"

    def refuse(description, store):
        raise InputError("instance: no users")

    monkeypatch.setattr(cells, "execute", refuse)
    bad = cells._answer(description, None)
    assert bad["outcome"] == "error" and "internal" not in bad and bad["error"] == "instance: no users"
    monkeypatch.undo()
    # through a cell's own process: a claim that does not exist is bad input, not a bug
    unknown = make_cell(verb="rediscover", claim="no-such-claim", mechanism={"name": "asset"}, seed=0,
                        budget={"time_limit": 5.0}).description
    bad = cells.run_isolated(unknown, None, grace=5)
    assert bad["outcome"] == "error" and "internal" not in bad and bad["error"].startswith("claim 'no-such-claim'")


def _cell(mechanism: dict):
    return make_cell(verb="search", mechanism=mechanism, property="si", users=2, resources=2, seed=0, options={},
                     budget={"time_limit": 1.0})


@pytest.mark.parametrize(("outcome", "mechanism", "raised"), [
    ({"outcome": "error", "error": "instance: no users"}, {"name": "drf"}, InputError),
    ({"outcome": "error", "error": "TypeError: x (internal error)", "internal": True}, {"name": "drf"}, InternalError),
    ({"outcome": "crashed", "error": "the cell's process ended (signal 9)"}, {"name": "drf"}, InternalError),
    ({"outcome": "crashed", "error": "the cell's process ended (exit code 0)"},
     {"name": "p.py:f", "path": "p.py:f"}, InputError),
])
def test_a_failed_cell_is_re_raised_with_its_origin(outcome, mechanism, raised):
    with pytest.raises(raised) as caught:
        raise_failure(_cell(mechanism), outcome)
    assert not (raised is InternalError and "(internal error)" in str(caught.value))  # said once, by the CLI
    raise_failure(_cell(mechanism), {"outcome": "done"})  # a finished cell is no failure


def test_a_builtin_spec_that_raises_is_internal_a_plugins_is_bad_input(plugins, tmp_path):
    """A spec raising TypeError: the lab's own mechanism has a bug (exit 3); a researcher's plug-in
    is broken (exit 2)."""
    builtin = run_patched("from fairlab import mechanisms\n"
                          "def boom(*a, **k): raise TypeError('spec bug')\n"
                          "object.__setattr__(mechanisms.get('drf'), 'spec', boom)",
                          "prove", "drf", "si", "-n", "2", "-m", "2", "--format", "json")
    assert builtin.returncode == 3, builtin
    assert one_error_line(builtin.stderr).startswith("error: TypeError: spec bug (internal error")
    mine = tmp_path / "mine.py"
    mine.write_text((plugins / "half_drf.py").read_text()
                    + "\n\ndef _spec(sym, tasks):\n    raise TypeError('spec bug')\n\n\nhalf_drf.spec = _spec\n")
    plugin = run_patched("", "prove", f"{mine}:half_drf", "si", "-n", "2", "-m", "2", "--format", "json")
    assert plugin.returncode == 2, plugin
    assert "its spec raised TypeError: spec bug" in one_error_line(plugin.stderr)
