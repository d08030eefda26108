"""The Dask path (`fairlab[cluster]`): the same cells on a `LocalCluster` of two single-thread
worker processes give the verdicts of the local process pool; a hung and a crashing cell are
recorded there too (each cell forks a process of its own inside the Dask worker)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from fairlab.campaign import cell as cells
from fairlab.campaign import executors, lab_sweeps, run, spec
from fairlab.core.errors import InputError
from fairlab.search import rediscover as claims

if not os.environ.get("CI"):  # CI installs the test extra, which has Dask: there a missing Dask fails
    pytest.importorskip("distributed")

SPEC = """verb = "search"
[sweep]
mechanisms = ["drf", "asset", "ks"]
properties = ["si", "bf", "ef"]
sizes = [[2, 2]]
seeds = [0, 1]
[budget]
candidates = 25
time_limit = 30
"""


@pytest.fixture(scope="module")
def dask_pool():
    with executors.dask(local_workers=2) as pool:
        yield pool


def _verdicts(out: Path) -> dict:
    return {cell_id: (doc["outcome"], doc["status"], doc["result"]["instance"], doc["result"]["witness"])
            for cell_id, doc in run.load_results(out).items()}


def test_dask_gives_the_verdicts_of_the_local_pool(dask_pool, tmp_path):
    path = tmp_path / "sweep.toml"
    path.write_text(SPEC)
    local = run.run(path, tmp_path / "local", workers=2)
    on_dask = run.run(path, tmp_path / "dask", executor=dask_pool)
    assert on_dask["outcomes"] == local["outcomes"] and on_dask["ran"] == 18
    assert _verdicts(tmp_path / "dask") == _verdicts(tmp_path / "local")
    assert {"violated", "holds"} <= set(local["outcomes"])


def test_a_lab_sweep_on_dask_equals_the_local_one(dask_pool):
    chosen = [claims.get_claim(i) for i in ("thm1-asset-si", "thm3-asset-rm")]
    with executors.local(2) as pool:
        local = lab_sweeps.rediscover(chosen, executor=pool)
    on_dask = lab_sweeps.rediscover(chosen, executor=dask_pool)
    assert [(r.status, r.instance, r.witness) for r in on_dask] == [(r.status, r.instance, r.witness) for r in local]


def test_a_hung_and_a_crashing_cell_on_dask(dask_pool, plugins, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(f"""verb = "prove"
[sweep]
mechanisms = ["{plugins / 'ignores_alarms.py'}:never", "{plugins / 'spec_kills_its_process.py'}:crashes"]
properties = ["si"]
sizes = [[2, 2]]
[budget]
time_limit = 1
""")
    found = spec.expand(spec.load(path), tmp_path)
    start = time.monotonic()
    futures = [dask_pool.submit(cells.run_isolated, c.description, None, 1.0) for c in found]
    hung, crashed = [f.result() for f in futures]
    assert hung["outcome"] == "timeout" and crashed["outcome"] == "crashed", (hung, crashed)
    assert time.monotonic() - start < 15


def test_campaign_run_cluster_local_from_the_cli(run_cli, tmp_path):
    path = tmp_path / "sweep.toml"
    path.write_text(SPEC.replace('"ks"', '"ceei"').replace('seeds = [0, 1]', 'seeds = [0]'))
    out = run_cli("campaign", "run", path, "--out", tmp_path / "res", "--cluster", "local:2", "--no-store",
                  "--format", "json")
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["ran"] == 9 and sum(summary["outcomes"].values()) == 9 and "missing" not in summary["outcomes"]


@pytest.mark.parametrize("args,words", [
    (["--cluster", "remote:2"], "--cluster"),
    (["--cluster", "local:0"], "--cluster"),
    (["-j", "2", "--cluster", "local:2"], "one of"),
])
def test_bad_cluster_options_are_one_line(run_cli, tmp_path, args, words):
    out = run_cli("campaign", "run", "examples/campaign/sweep.toml", "--out", tmp_path / "r", *args)
    assert out.returncode != 0 and words in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()


def test_an_unreachable_scheduler_is_one_line():
    start = time.monotonic()
    with pytest.raises(InputError, match="cannot reach the Dask scheduler"), \
            executors.dask(scheduler="tcp://127.0.0.1:9", connect_seconds=1):
        pass
    assert time.monotonic() - start < 10
