"""The command line for agents over time: allocate (per-step table, fairness ratio, JSON steps,
--figure), check, search, prove, matrix --setting dynamic, store verify."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fairlab.cli import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def test_allocate_table_per_step_and_ratio():
    r = run("allocate", "dynamic-drf", "dynamic-kps")
    assert r.exit_code == 0, r.output
    assert "allocation after each step" in r.output and "1 +A" in r.output and "3 +C" in r.output
    assert "fairness ratio: 1/3" in r.output


def test_allocate_json_has_steps_and_ratio():
    r = run("allocate", "dynamic-drf", "dynamic-kps", "--format", "json")
    doc = json.loads(r.stdout)
    assert [s["tasks"] for s in doc["steps"]] == [["3/2", "0", "0"], ["2", "4/3", "0"], ["2", "4/3", "3"]]
    assert doc["fairness_ratio"] == "1/3" and doc["fairness_ratio_steps"] == ["1/3", "2/3", "5/6"]


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_allocate_figure_writes_only_the_path(tmp_path, suffix):
    target = tmp_path / f"shares.{suffix}"
    r = run("allocate", "drf-rerun", "dynamic-departure", "--figure", str(target))
    assert r.exit_code == 0, r.output
    assert [p.name for p in tmp_path.iterdir()] == [target.name] and target.stat().st_size > 1000


def test_allocate_figure_bad_paths_are_one_line_errors(tmp_path):
    for path, words in ((tmp_path / "x.pdf", "must end in .png or .svg"),
                        (tmp_path / "no" / "x.png", "no such directory"), (tmp_path, "must end in")):
        r = run("allocate", "dynamic-drf", "dynamic-kps", "--figure", str(path))
        assert r.exit_code == 2 and words in r.output and len(r.output.strip().splitlines()) == 1
    r = run("allocate", "drf", "drf-paper", "--figure", str(tmp_path / "x.png"))
    assert r.exit_code == 2 and "instance with arrivals" in r.output
    assert list(tmp_path.iterdir()) == []


def test_check_search_prove_and_store_verify(tmp_path):
    store = str(tmp_path / "store")
    r = run("check", "dynamic-drf", "dynamic-si", "dynamic-kps")
    assert r.exit_code == 0 and "holds" in r.output
    r = run("search", "drf-rerun", "no-takeback", "-n", "2", "-m", "2", "--store", store)
    assert r.exit_code == 0 and "violated" in r.output and "step: 2" in r.output
    r = run("prove", "dynamic-drf", "dynamic-pe-free", "-n", "2", "-m", "2", "--store", store)
    assert r.exit_code == 0 and "refuted" in r.output
    r = run("store", "verify", "--store", store)
    assert r.exit_code == 0 and r.output.count("ok ") == 2, r.output


@pytest.mark.slow
def test_matrix_dynamic_setting():
    r = run("matrix", "--setting", "dynamic", "--no-store", "--candidates", "60")
    assert r.exit_code == 0, r.output
    assert "dynamic-drf" in r.output and "drf-rerun" in r.output and "violated" in r.output
