"""`fairlab.campaign`: specs expand into cells identified by content, cells run in processes of their
own under a hard time limit, results are written atomically and a campaign resumes."""

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
from fairlab.campaign import report, run, spec
from fairlab.core.errors import InputError
from fairlab.search import run_search

SEARCH = """verb = "search"
[sweep]
mechanisms = ["drf", "asset"]
properties = ["si", "bf"]
sizes = [[2, 2]]
seeds = [0, 1]
domains = ["unweighted"]  # the DRF paper's weights (one per user): DRF is not si with weight vectors
[budget]
candidates = 30
time_limit = 30
"""


def _spec(tmp_path: Path, text: str, name: str = "campaign.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_expansion_is_deterministic_and_content_addressed(tmp_path, plugins):
    path = _spec(tmp_path, SEARCH)
    first = spec.expand(spec.load(path), tmp_path)
    assert len(first) == 8 and [c.id for c in first] == [c.id for c in spec.expand(spec.load(path), tmp_path)]
    # a plug-in is identified by its content: editing it gives a new cell id
    mine = tmp_path / "mine.py"
    mine.write_text((plugins / "half_drf.py").read_text())
    text = SEARCH.replace('"asset"]', '"mine.py:half_drf"]')
    before = {c.description["mechanism"]["name"]: c.id for c in spec.expand(spec.load(_spec(tmp_path, text)), tmp_path)}
    mine.write_text(mine.read_text() + "\n# edited\n")
    after = {c.description["mechanism"]["name"]: c.id for c in spec.expand(spec.load(_spec(tmp_path, text)), tmp_path)}
    assert before["drf"] == after["drf"] and before["mine.py:half_drf"] != after["mine.py:half_drf"]


@pytest.mark.parametrize("text,words", [
    ('verb = "dance"', "verb"),
    ('verb = "search"\n[sweep]\nmechanisms = ["drf"]\nproperties = ["si"]', "sweep.sizes"),
    ('verb = "search"\n[sweep]\nmechanisms = ["nope"]\nproperties = ["si"]\nsizes = [[2, 2]]', "nope"),
    ('verb = "search"\n[sweep]\nmechanisms = ["drf"]\nproperties = ["si"]\nsizes = [[0, 2]]', "sweep.sizes"),
    ('verb = "search"\n[sweep]\nmechanisms = ["drf"]\nproperties = ["si"]\nsizes = [[2, 2]]\n[budget]\nfoo = 1',
     "budget.foo"),
    ('verb = "search"\n[sweep]\nmechanisms = ["drf"]\nproperties = ["si"]\nsizes = [[2, 2]]\n[budget]\n'
     'time_limit = -1', "budget.time_limit"),
    ('verb = "search" [', "TOML"),
])
def test_bad_specs_are_one_line(tmp_path, text, words):
    with pytest.raises(InputError, match=words.replace(".", r"\.")):
        spec.expand(spec.load(_spec(tmp_path, text)), tmp_path)


def test_cells_give_the_verdicts_of_the_verbs(tmp_path):
    out = tmp_path / "out"
    summary = run.run(_spec(tmp_path, SEARCH), out, workers=2)
    assert summary == {"cells": 8, "ran": 8, "reused": 0, "outcomes": {"holds": 4, "violated": 4}, "out": str(out)}
    _, rows = report.read(out)
    for row in rows:
        c = row["cell"]
        direct = run_search(c["mechanism"]["name"], c["property"], 2, 2, seed=c["seed"], candidates=30,
                            domain="unweighted")
        assert row["status"] == direct.status.value, row["cell"]
        assert row["result"]["witness"] == json.loads(direct.to_json())["witness"]
    again = run.run(_spec(tmp_path, SEARCH), out, workers=2)
    assert again["ran"] == 0 and again["reused"] == 8


def test_a_hung_and_a_crashing_cell_are_recorded(tmp_path, plugins):
    text = f"""verb = "prove"
[sweep]
mechanisms = ["drf", "{plugins / 'ignores_alarms.py'}:never", "{plugins / 'spec_kills_its_process.py'}:crashes"]
properties = ["si"]
sizes = [[2, 2]]
domains = ["unweighted"]
[budget]
time_limit = 1
"""
    path = _spec(tmp_path, text)
    description = {c.description["mechanism"]["name"].rsplit("/", 1)[-1]: c.description
                   for c in spec.expand(spec.load(path), tmp_path)}
    hung = cells.run_isolated(description["ignores_alarms.py:never"], None, grace=1.0)
    # killed at its hard limit (1 s + 1 s grace, counted from when its process was ready), not left hanging
    assert hung["outcome"] == "timeout" and hung["seconds"] < 10, hung
    crashed = cells.run_isolated(description["spec_kills_its_process.py:crashes"], None, grace=1.0)
    assert crashed["outcome"] == "crashed"
    fine = cells.run_isolated({**description["drf"], "budget": {"time_limit": 30}}, None)
    assert (fine["outcome"], fine["status"]) == ("done", "proved")


GATE = """import time
from pathlib import Path

from fairlab.mechanisms import get

HERE = Path(__file__).resolve().parent


def held(instance):
    \"\"\"DRF, once the file 'open' exists beside it; says it started by making 'started'.\"\"\"
    (HERE / "started").touch()
    while not (HERE / "open").exists():
        time.sleep(0.02)
    return get("drf").allocate(instance).tasks
"""


def test_interrupted_campaign_leaves_complete_files_and_resumes(tmp_path):
    """Deterministic under load (issue 26, audit finding 4): the last cells (a plug-in that waits
    for a file) cannot finish before the test interrupts the campaign, whatever the machine's speed;
    the test interrupts once every other cell's file is written and a held cell is running."""
    (tmp_path / "gate.py").write_text(GATE)
    path = _spec(tmp_path, SEARCH.replace('["drf", "asset"]', '["drf", "asset", "gate.py:held"]')
                 .replace("time_limit = 30", "time_limit = 120"))
    cells_of = {c.id: c.description["mechanism"]["name"] for c in spec.expand(spec.load(path), tmp_path)}
    free = {i for i, name in cells_of.items() if name != "gate.py:held"}
    assert len(free) == 8 and len(cells_of) == 12  # the held cells come last (mechanisms vary slowest)
    out = tmp_path / "out"
    process = subprocess.Popen([sys.executable, "-m", "fairlab", "campaign", "run", str(path), "--out", str(out),
                                "--no-store", "-j", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 600  # only a broken campaign waits this long
        while not ({p.stem for p in (out / "cells").glob("*.json")} >= free and (tmp_path / "started").exists()):
            assert time.monotonic() < deadline and process.poll() is None, process.poll()
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode in (1, 130), (process.returncode, err)  # interrupted (click: Abort, 1)
    files = list((out / "cells").glob("*"))
    assert all(f.suffix == ".json" and not f.name.startswith(".") for f in files), files
    for f in files:
        json.loads(f.read_text())  # complete
    assert {f.stem for f in files} == free  # no held cell finished: they were interrupted
    (tmp_path / "open").touch()
    summary = run.run(path, out, workers=2)
    assert summary["ran"] == 4 and sum(summary["outcomes"].values()) == 12
    assert "missing" not in summary["outcomes"] and "error" not in summary["outcomes"], summary


def test_retry_reruns_the_named_outcomes(tmp_path):
    out = tmp_path / "out"
    run.run(_spec(tmp_path, SEARCH), out, workers=1)
    assert run.run(_spec(tmp_path, SEARCH), out, workers=1, retry=["violated"])["ran"] == 4
    with pytest.raises(InputError, match="--retry"):
        run.run(_spec(tmp_path, SEARCH), out, retry=["sometimes"])


def test_cli_run_and_report(run_cli, tmp_path):
    path = _spec(tmp_path, SEARCH)
    out = tmp_path / "out"
    ran = run_cli("campaign", "run", path, "--out", out, "--no-store", "--format", "json")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["outcomes"] == {"holds": 4, "violated": 4}
    lines = run_cli("campaign", "report", out, "--format", "jsonl").stdout.splitlines()
    assert len(lines) == 8 and all(json.loads(line)["outcome"] == "done" for line in lines)
    table = run_cli("campaign", "report", out)
    assert "asset si" in table.stdout and "violated" in table.stdout
    bad = run_cli("campaign", "run", tmp_path / "missing.toml", "--out", out)
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and bad.stdout == ""
    assert os.path.isdir(out)


def test_audit_cells_report_their_property_statuses(tmp_path):
    text = """verb = "audit"
[sweep]
mechanisms = ["asset"]
sizes = [[2, 2]]
properties = ["si", "sp"]
[budget]
candidates = 20
time_limit = 60
"""
    out = tmp_path / "out"
    summary = run.run(_spec(tmp_path, text), out, workers=2)
    assert summary["outcomes"] == {"violated": 1, "proved": 1}
    _, rows = report.read(out)
    assert {row["cell"]["property"]: row["result"]["properties"][0]["status"] for row in rows} == \
        {"si": "violated", "sp": "proved"}


def test_out_inside_the_package_is_refused(tmp_path):
    import fairlab

    inside = Path(fairlab.__file__).parent / "campaign-results"
    with pytest.raises(InputError, match="--out: .* inside the installed package"):
        run.run(_spec(tmp_path, SEARCH), inside)
    assert not inside.exists()


def test_a_plugin_edited_after_expansion_is_an_error_not_a_result(tmp_path, plugins):
    mine = tmp_path / "mine.py"
    mine.write_text((plugins / "half_drf.py").read_text())
    text = SEARCH.replace('["drf", "asset"]', '["mine.py:half_drf"]').replace('["si", "bf"]', '["si"]')
    [first, *_] = spec.expand(spec.load(_spec(tmp_path, text)), tmp_path)
    mine.write_text(mine.read_text() + "\n# edited after the cell was made\n")
    outcome = cells.run_isolated(first.description, None)
    assert outcome["outcome"] == "error" and "changed since the campaign was expanded" in outcome["error"]
