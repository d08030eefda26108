"""`fairlab matrix`, `prove --catalogue` and `rediscover` run as campaigns (cells in parallel) and
give the results of running the same cells one after another."""

from __future__ import annotations

import dataclasses
import json

import pytest

from fairlab import mechanisms, properties
from fairlab.campaign import executors, lab_sweeps
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.core.results import to_dict
from fairlab.search import catalogue
from fairlab.search import rediscover as claims
from fairlab.search.matrix import matrix


def _verdict(result) -> dict:
    """What must not depend on how the cells were scheduled. (The example models z3 gives for a
    satisfiable positive control can differ with the process's z3 history; they decide nothing.)"""
    row = to_dict(result, versioned=False)
    details = dict(row["details"])
    certificate = {k: v for k, v in (row["certificate"] or {}).items() if k != "control_models"}
    return {"status": row["status"], "mechanism": row["mechanism"], "property": row["property"],
            "instance": row["instance"], "witness": row["witness"], "certificate": certificate,
            "evaluated": details.get("evaluated"), "checked": [{k: c[k] for k in ("users", "resources", "status")}
                                                               for c in details.get("checked", [])]}


@pytest.fixture(scope="module")
def pool():
    with executors.local(2) as pool:
        yield pool


def test_matrix_in_parallel_equals_one_after_another(pool, tmp_path):
    budget = {"candidates": 40, "rlimit": 2_000_000, "seed": 3, "time_limit": 600.0}
    alone = matrix(["asset", "ks"], 2, 2, write=False, store=tmp_path / "a", **budget)
    together = lab_sweeps.matrix(["asset", "ks"], 2, 2, executor=pool, write=False, store=tmp_path / "b", **budget)
    assert [_verdict(r) for r in together] == [_verdict(r) for r in alone]
    assert {r.status for r in together} >= {"violated", "holds"}  # the comparison covers decided cells


def test_catalogue_in_parallel_equals_one_after_another(pool):
    chosen = [catalogue.get_entry(i) for i in ("drf-si", "bmf-unique-three-resources", "ceei-sp")]
    alone = catalogue.run_catalogue(60, fast_only=True, entries=chosen)
    together = lab_sweeps.catalogue(60, fast_only=True, entries=chosen, executor=pool)
    assert [_verdict(r) for r in together] == [_verdict(r) for r in alone]
    assert [r.details["entry"] for r in together] == [e.id for e in chosen if e.fast]


def test_rediscover_in_parallel_equals_one_after_another(pool, tmp_path):
    chosen = [claims.get_claim(i) for i in ("thm1-asset-si", "thm2-asset-bf", "thm6-si-pe-rm")]
    alone = [claims.run_claim(c) for c in chosen]
    together = lab_sweeps.rediscover(chosen, executor=pool, store=None)
    assert [_verdict(r) for r in together] == [_verdict(r) for r in alone]
    assert all(r.status == "found" for r in together)


class _Recording:
    """An executor that remembers which cell it was handed, in order (then lets `inner` run it)."""

    def __init__(self, inner):
        self.inner, self.started = inner, []

    def submit(self, fn, description, *args, **kwargs):
        self.started.append(description["claim"])
        return self.inner.submit(fn, description, *args, **kwargs)


def test_rediscover_starts_the_costliest_claims_first_and_answers_in_the_claims_order(pool):
    costs = {"thm1-asset-si": 1.0, "thm2-asset-bf": 3.0, "thm6-si-pe-rm": 2.0}
    chosen = [dataclasses.replace(claims.get_claim(i), cost=c) for i, c in costs.items()]
    recording = _Recording(pool)
    results = lab_sweeps.rediscover(chosen, executor=recording, store=None)
    assert recording.started == ["thm2-asset-bf", "thm6-si-pe-rm", "thm1-asset-si"]
    assert [r.details["claim"] for r in results] == list(costs) and all(r.status == "found" for r in results)


def test_a_cell_past_its_hard_limit_is_unknown_not_a_verdict(pool, plugins):
    results = lab_sweeps.matrix([f"{plugins / 'ignores_alarms.py'}:never"], 2, 2, candidates=5, rlimit=1000,
                                seed=0, time_limit=0.5, executor=pool, write=False, grace=0.5)
    assert results and all(r.status == "unknown" and r.budget["stopped"] == "time" for r in results)
    assert all("killed after" in r.explanation for r in results)


def test_a_broken_plugin_ends_the_sweep_with_one_line(pool, plugins):
    with pytest.raises(InputError, match="not_numbers"):
        lab_sweeps.matrix([f"{plugins / 'unfair.py'}:not_numbers"], 2, 2, candidates=5, rlimit=1000, seed=0,
                          time_limit=5, executor=pool, write=False)


def test_a_plugin_that_answers_wrongly_gives_error_cells(pool, plugins):
    """A wrong answer (the wrong number of task counts) is a finding like a raise (issue 35)."""
    cells = lab_sweeps.matrix([f"{plugins / 'unfair.py'}:wrong_length"], 2, 2, candidates=5, rlimit=1000, seed=0,
                              time_limit=5, executor=pool, write=False)
    assert cells and all(c.status == "error" and "wrong answer" in c.explanation for c in cells)


def test_a_plugin_that_raises_gives_error_cells(pool, plugins):
    """A crash is a finding (issue 27), in the campaign's cells too."""
    cells = lab_sweeps.matrix([f"{plugins / 'unfair.py'}:raises"], 2, 2, candidates=5, rlimit=1000, seed=0,
                              time_limit=5, executor=pool, write=False)
    assert cells and all(c.status == "error" and "boom" in c.explanation for c in cells)


def test_matrix_out_keeps_each_cell_and_resumes(run_cli, tmp_path):
    out = tmp_path / "cells-kept"
    args = ["matrix", "--mechanism", "ks", "--candidates", "10", "--rlimit", "2000000", "--no-store", "-j", "2",
            "--out", str(out), "--format", "json"]
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    files = sorted((out / "cells").glob("*.json"))
    assert len(files) == len(properties.names("pool"))  # ks has no shipped violation: every property is one cell
    victim = files[0]
    victim.unlink()
    stamps = {f: f.stat().st_mtime_ns for f in files[1:]}
    second = run_cli(*args)
    assert second.returncode == 0, second.stderr
    assert victim.exists() and all(f.stat().st_mtime_ns == t for f, t in stamps.items())  # only the missing one ran
    again, before = json.loads(second.stdout)["results"], json.loads(first.stdout)["results"]
    assert [{k: r[k] for k in ("status", "instance", "witness")} for r in again] == \
        [{k: r[k] for k in ("status", "instance", "witness")} for r in before]
    assert [r for r in again if r["property"] != json.loads(victim.read_text())["cell"]["property"]] == \
        [r for r in before if r["property"] != json.loads(victim.read_text())["cell"]["property"]]


@pytest.mark.parametrize("args,words", [
    (["matrix", "-j", "0"], "--workers"),
    (["rediscover", "--workers", "-1"], "--workers"),
    (["prove", "drf", "si", "-j", "2"], "--catalogue"),
])
def test_bad_parallel_options_are_one_line(run_cli, args, words):
    out = run_cli(*args)
    assert out.returncode != 0 and words in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_a_plugin_already_running_in_the_driver_works_in_the_cells(plugins):
    """A plug-in worker started in the driver before the pool forks belongs to the driver; a cell
    (forked twice) starts its own instead of using the inherited one."""
    name = f"{plugins / 'half_drf.py'}:half_drf"
    mechanisms.get(name).allocate(Instance.resolve("drf-paper"))  # starts its worker here
    with executors.local(2) as pool:
        results = lab_sweeps.matrix([name], 2, 2, candidates=5, rlimit=1_000_000, seed=0, time_limit=30,
                                    executor=pool, write=False)
    assert results and all(r.status != "unknown" for r in results), [r.explanation for r in results]
