"""Regressions from the adversarial audit of the campaign paths (issue 17): each test is one way a
campaign could have reported a result that was not about its cell, or left processes behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fairlab.campaign import cell as cells
from fairlab.campaign import executors, lab_sweeps, report, run, spec
from fairlab.core.errors import InputError
from fairlab.counterexamples.store import Store


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_shipped_example_is_the_shipped_file_whatever_the_cwd(tmp_path, monkeypatch):
    path = _write(tmp_path / "spec" / "c.toml", 'verb = "check"\n[sweep]\nmechanisms = ["asset"]\n'
                  'properties = ["si"]\ninstances = ["thm1-asset-si"]\n')
    [cell] = spec.expand(spec.load(path), path.parent)
    assert cell.description["instance"]["example"] and cell.description["instance"]["sha256"]
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "thm1-asset-si", '{"capacities": [30, 30], "demands": [[1, 1], [1, 1]]}')  # a stray file
    outcome = cells.run_isolated(cell.description, None)
    assert (outcome["outcome"], outcome["status"]) == ("done", "violated"), outcome


def test_a_file_beside_the_spec_wins_over_the_example_of_its_name(tmp_path):
    _write(tmp_path / "thm1-asset-si", '{"capacities": [30, 30], "demands": [[1, 1], [1, 1]]}')
    path = _write(tmp_path / "c.toml", 'verb = "check"\n[sweep]\nmechanisms = ["asset"]\nproperties = ["si"]\n'
                  'instances = ["thm1-asset-si"]\n')
    [cell] = spec.expand(spec.load(path), tmp_path)
    assert cell.description["instance"]["path"] == str((tmp_path / "thm1-asset-si").resolve())


def test_dynamics_cells_run_the_plugin_they_name(tmp_path, monkeypatch):
    drf_like = "from fairlab import mechanisms\ndef alloc(i):\n    return mechanisms.get('drf').allocate(i).tasks\n"
    _write(tmp_path / "specdir" / "pd.py", drf_like)
    _write(tmp_path / "pd.py", drf_like.replace("'drf'", "'asset'"))  # same name in the cwd, other code
    path = _write(tmp_path / "specdir" / "d.toml", 'verb = "dynamics-rates"\nrequirements = "0.2,1;1,0.5"\n'
                  '[sweep]\nmechanisms = ["pd.py:alloc"]\nloads = ["0.3,0.2"]\n[budget]\ntruncation = 4\n')
    [cell] = spec.expand(spec.load(path), path.parent)
    monkeypatch.chdir(tmp_path)
    outcome = cells.run_isolated(cell.description, None)
    def rates(name: str) -> object:
        document = cells.execute({**cell.description, "mechanism": {"name": name}}, None)
        return {k: v for k, v in document.items() if k not in ("seconds", "provenance")}

    named, other = rates(str(tmp_path / "specdir" / "pd.py:alloc")), rates("pd.py:alloc")
    assert named != other  # the two plug-ins give different rates: the test can tell them apart
    assert outcome["outcome"] == "done"
    assert {k: v for k, v in outcome["result"].items() if k not in ("seconds", "provenance")} == named


def test_editing_a_module_beside_a_plugin_gives_new_cells(tmp_path):
    _write(tmp_path / "helper.py", "def alloc(i):\n    return None\n")
    _write(tmp_path / "p.py", "import helper\ndef alloc(i):\n    return helper.alloc(i)\n")
    path = _write(tmp_path / "s.toml", 'verb = "search"\n[sweep]\nmechanisms = ["p.py:alloc"]\n'
                  'properties = ["si"]\nsizes = [[2, 2]]\n')
    [before] = spec.expand(spec.load(path), tmp_path)
    _write(tmp_path / "helper.py", "def alloc(i):\n    return [0] * i.n\n")
    [after] = spec.expand(spec.load(path), tmp_path)
    assert before.id != after.id
    outcome = cells.run_isolated(before.description, None)  # the stale cell is refused, not run
    assert outcome["outcome"] == "error" and "beside it changed" in outcome["error"]


def test_a_cell_made_by_another_version_is_refused(tmp_path):
    [cell] = spec.expand({"verb": "search", "sweep": {"mechanisms": ["drf"], "properties": ["si"],
                                                      "sizes": [[2, 2]]}, "budget": {"candidates": 5}}, tmp_path)
    outcome = cells.run_isolated({**cell.description, "lab": "0.0.0-other"}, None)
    assert outcome["outcome"] == "error" and "0.0.0-other" in outcome["error"]


SEARCH = {"verb": "search", "sweep": {"mechanisms": ["drf", "asset"], "properties": ["si", "bf"], "sizes": [[2, 2]],
                                       "domains": ["unweighted"]},
          "budget": {"candidates": 20, "time_limit": 30}}


def _campaign(tmp_path: Path) -> Path:
    return _write(tmp_path / "s.json", json.dumps(SEARCH))


def test_damaged_forged_or_misfiled_results_run_again(tmp_path, capsys):
    path, out = _campaign(tmp_path), tmp_path / "out"
    run.run(path, out, workers=2)
    files = sorted((out / "cells").glob("*.json"))
    by_prop = {json.loads(f.read_text())["cell"]["mechanism"]["name"] + json.loads(f.read_text())["cell"]["property"]:
               f for f in files}
    forged = json.loads(by_prop["assetsi"].read_text())
    forged["status"] = "holds"  # its result still says violated
    by_prop["assetsi"].write_text(json.dumps(forged))
    by_prop["drfsi"].write_text(by_prop["drfbf"].read_text())  # another cell's result under this id
    by_prop["assetbf"].write_text('{"kind": "campaign-cell"}')
    summary = run.run(path, out, workers=2)
    assert summary["ran"] == 3 and summary["outcomes"] == {"holds": 2, "violated": 2}
    assert capsys.readouterr().err.count("its cell runs again") == 3


@pytest.mark.parametrize("text", ['{"cells": [1]}', "[]", '{"cells": "abc"}'])
def test_a_damaged_campaign_json_is_one_line(tmp_path, text):
    _write(tmp_path / "campaign.json", text)
    with pytest.raises(InputError, match="campaign.json"):
        report.read(tmp_path)


def test_a_finding_is_stored_when_a_cell_first_ran_without_a_store(tmp_path):
    path, out = _campaign(tmp_path), tmp_path / "out"
    run.run(path, out, workers=2)  # no store
    store = Store(tmp_path / "store")
    summary = run.run(path, out, workers=2, store=store)
    assert summary["ran"] == 2  # the two violations, now stored
    assert len(list((tmp_path / "store").rglob("*.json"))) == 2


def test_retry_matches_any_status_of_an_audit_cell():
    assert run._statuses({"status": "8 unknown, 1 violated"}) >= {"unknown", "violated"}


def test_a_plugin_that_leaves_a_process_holding_the_pipe_still_answers(tmp_path):
    plug = _write(tmp_path / "forky.py", "import os, time\nfrom fairlab import mechanisms\nSTARTED = []\n"
                  "def alloc(i):\n    if not STARTED:\n        STARTED.append(1)\n        if os.fork() == 0:\n"
                  "            time.sleep(60)\n            os._exit(0)\n"
                  "    return mechanisms.get('drf').allocate(i).tasks\n")
    [cell] = spec.expand({"verb": "search", "sweep": {"mechanisms": [f"{plug}:alloc"], "properties": ["si"],
                                                      "sizes": [[2, 2]]},
                          "budget": {"candidates": 5, "time_limit": 5}}, tmp_path)
    start = time.monotonic()
    outcome = cells.run_isolated(cell.description, None, grace=5)
    assert outcome["outcome"] == "done" and time.monotonic() - start < 9, outcome


def test_matrix_does_not_take_a_store_record_that_does_not_reverify(tmp_path):
    record = json.loads(next((Path(__file__).parents[2] / "counterexamples" / "fixtures").glob("asset-si-*.json"))
                        .read_text())
    store = tmp_path / "store"
    _write(store / "drf-si-forged.json", json.dumps({**record, "mechanism": "drf"}))
    with executors.local(2) as pool:
        results = lab_sweeps.matrix(["drf"], 2, 2, candidates=10, rlimit=2_000_000, seed=0, time_limit=30,
                                    executor=pool, store=Store(store), write=False, domain="unweighted",
                                    property_names=["si"])
    si = next(r for r in results if r.property == "si")
    assert si.status == "holds" and not si.details.get("known")


def test_sigterm_stops_every_process_of_the_campaign(tmp_path):
    token = f"term-{os.getpid()}-{time.monotonic_ns()}"
    plug = _write(tmp_path / f"{token}.py", "import time\nfrom fairlab import mechanisms\ndef alloc(i):\n"
                  "    time.sleep(0.5)\n    return mechanisms.get('drf').allocate(i).tasks\n")
    path = _write(tmp_path / f"{token}.json", json.dumps({
        "verb": "search", "sweep": {"mechanisms": [f"{plug}:alloc"], "properties": ["si", "ef", "bf", "pe"],
                                    "sizes": [[2, 2]]}, "budget": {"candidates": 50, "time_limit": 60}}))
    driver = subprocess.Popen([sys.executable, "-m", "fairlab", "campaign", "run", str(path), "--out",
                               str(tmp_path / "out"), "-j", "2", "--no-store"], start_new_session=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    seen: dict[int, str] = {}
    while time.monotonic() < deadline and not _cells_running(seen):  # a cell's process runs the plug-in
        seen.update(_descendants(driver.pid))
        time.sleep(0.2)
    seen.update(_descendants(driver.pid))
    assert _cells_running(seen), seen
    driver.send_signal(signal.SIGTERM)
    _, err = driver.communicate(timeout=20)
    assert driver.returncode == 130 and "interrupted" in err
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(seen):
        time.sleep(0.2)
    assert not _alive(seen)
    assert not (tmp_path / "out" / "cells").exists() or all(
        json.loads(f.read_text())["outcome"] == "done" for f in (tmp_path / "out" / "cells").glob("*.json"))


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, start time) of a live process, from /proc (None: gone, or a zombie)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (None if fields[0] == "Z" else (int(fields[1]), fields[19]))  # type: ignore[return-value]


def _descendants(root: int) -> dict[int, str]:
    """Every live process below `root`: pid -> its start time (so a reused pid is not it)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (found := _stat(int(entry.name))) is not None:
            parents[int(entry.name)] = found
    out: dict[int, str] = {}
    frontier = [root]
    while frontier:
        pid = frontier.pop()
        for child, (parent, started) in parents.items():
            if parent == pid and child not in out:
                out[child] = started
                frontier.append(child)
    return out


def _cells_running(processes: dict[int, str]) -> bool:
    """Are cells running their plug-in: the driver's fork server, a pool worker, its fork server, a
    cell, the cell's fork server and the plug-in's worker, one below the other (7 processes with the
    resource tracker)?"""
    return len(_alive(processes)) >= 7


def _alive(processes: dict[int, str]) -> list[int]:
    """Those of `processes` still running (the same process: same start time)."""
    return [pid for pid, started in processes.items() if (found := _stat(pid)) is not None and found[1] == started]


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux's /proc")
def test_an_out_folder_that_cannot_be_made_is_one_line(tmp_path):
    with pytest.raises(InputError, match="cannot make"):
        run.run(_campaign(tmp_path), Path("/proc") / f"fairlab-{os.getpid()}", workers=1)
