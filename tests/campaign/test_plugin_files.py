"""A plug-in is identified by every source file it loads, not by a guess by folder (issue 26,
audit finding 1): a plug-in importing its allocator from a package folder beside it
(``lab26_helpers/impl.py``) is another version once that file is edited — a resumed campaign runs
its cell again, and `fairlab store verify` refuses its fixture."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fairlab.campaign import run
from fairlab.mechanisms import plugin

PLUGIN = '''import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its package folder beside it
from lab26_helpers.impl import allocate


def mech(instance):
    """A plug-in whose allocator lives in lab26_helpers/impl.py."""
    return allocate(instance)
'''
IMPL = '''from fairlab.mechanisms import get


def allocate(instance):
    return get("{name}").allocate(instance).tasks
'''
LAZY = '''def mech(instance):
    """Imports its helper at call time (in the plug-in's worker process)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from lab26_lazy.impl import allocate
    return allocate(instance)
'''


def _plugin(folder: Path, name: str = "drf", package: str = "lab26_helpers") -> Path:
    (folder / package).mkdir(parents=True, exist_ok=True)
    (folder / package / "__init__.py").write_text("")
    (folder / package / "impl.py").write_text(IMPL.format(name=name))
    mine = folder / "mine.py"
    mine.write_text(PLUGIN if package == "lab26_helpers" else LAZY)
    return mine


SPEC = """verb = "search"
[sweep]
mechanisms = ["mine.py:mech"]
properties = ["si"]
sizes = [[2, 2]]
seeds = [0]
[budget]
candidates = 30
time_limit = 60
"""


def _cli(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fairlab", *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env={**os.environ, "FAIRLAB_DEBUG": ""})


def test_a_resumed_campaign_reruns_a_cell_whose_plugin_helper_changed(tmp_path):
    _plugin(tmp_path, "drf")
    spec = tmp_path / "campaign.toml"
    spec.write_text(SPEC)
    out = tmp_path / "out"
    first = run.run(spec, out, workers=1)
    assert (first["ran"], first["outcomes"]) == (1, {"none-found": 1}), first
    [cell] = [json.loads(p.read_text()) for p in (out / "cells").glob("*.json")]
    impl = str((tmp_path / "lab26_helpers" / "impl.py").resolve())
    assert impl in cell["files"] and str((tmp_path / "mine.py").resolve()) in cell["files"]
    assert run.run(spec, out, workers=1)["ran"] == 0  # nothing changed: nothing runs again

    (tmp_path / "lab26_helpers" / "impl.py").write_text(IMPL.format(name="asset"))  # now it violates si
    again = run.run(spec, out, workers=1)
    assert (again["ran"], again["outcomes"]) == (1, {"violated": 1}), again
    check = _cli("search", "mine.py:mech", "si", "-n", "2", "-m", "2", "--no-store", "--format", "json", cwd=tmp_path)
    assert json.loads(check.stdout)["status"] == "violated"  # what the campaign now says too


def test_store_verify_refuses_a_fixture_whose_plugin_helper_changed(tmp_path):
    _plugin(tmp_path, "asset")
    store = tmp_path / "store"
    found = _cli("search", "mine.py:mech", "si", "-n", "2", "-m", "2", "--store", store, "--format", "json",
                 cwd=tmp_path)
    assert json.loads(found.stdout)["status"] == "violated", found.stderr
    [fixture] = list(store.rglob("*.json"))
    record = json.loads(fixture.read_text())
    assert set(record["plugin"]["files"]) == {"lab26_helpers/__init__.py", "lab26_helpers/impl.py"}
    ok = _cli("store", "verify", fixture, "--store", store, "--plugin", "mine.py", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr

    (tmp_path / "lab26_helpers" / "impl.py").write_text(IMPL.format(name="asset") + "# edited\n")
    refused = _cli("store", "verify", fixture, "--store", store, "--plugin", "mine.py", cwd=tmp_path)
    assert refused.returncode != 0
    assert "lab26_helpers/impl.py, a file it loaded, has sha256" in refused.stderr + refused.stdout


def test_modules_a_call_imports_count_too(tmp_path):
    """A helper imported inside the function runs in the plug-in's worker process: the worker
    reports it, so it is the plug-in's as much as one imported with the file."""
    script = f"""
import json
from fairlab.core.instance import Instance
from fairlab.mechanisms import plugin
name = {str(_plugin(tmp_path, "drf", package="lab26_lazy")) + ":mech"!r}
mech = plugin.load(name)
before = sorted(plugin.loaded_files(name))
mech.allocate(Instance.from_dict({{"capacities": [1, 1], "demands": [[1, 1], [1, 2]]}}))
print(json.dumps([before, sorted(plugin.loaded_files(name))]))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    before, after = json.loads(out.stdout)
    impl = str((tmp_path / "lab26_lazy" / "impl.py").resolve())
    assert impl not in before and impl in after, out.stderr


def test_changed_files_names_edited_and_missing_files(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 1\n")
    recorded = plugin.plugin_files.digests([str(a), str(b)])
    assert plugin.changed_files(recorded) == []
    a.write_text("x = 2\n")
    b.unlink()
    assert plugin.changed_files(recorded) == [str(a), str(b)]


@pytest.mark.parametrize("files", [{"/abs/impl.py": "0" * 64}, {"impl.py": "short"}, ["impl.py"]])
def test_a_fixture_plugin_record_with_bad_files_is_malformed(files):
    from fairlab.search.verify import _plugin_record_ok

    assert _plugin_record_ok({"name": "mine.py:mech", "sha256": "a" * 64})
    assert _plugin_record_ok({"name": "mine.py:mech", "sha256": "a" * 64, "files": {"h/impl.py": "b" * 64}})
    assert not _plugin_record_ok({"name": "mine.py:mech", "sha256": "a" * 64, "files": files})
