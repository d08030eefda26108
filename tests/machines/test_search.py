"""Search and prove in the machines setting, the CLI verbs on machines instances, a stored finding re-verified."""

import json

import pytest

from fairlab import mechanisms, properties
from fairlab.core.instance import Instance
from fairlab.properties.base import Violation
from fairlab.search import engines, proof
from fairlab.search import machines as msearch

DRF_MACHINES = mechanisms.get("drf-machines")


def test_search_finds_pe_violation_and_it_verifies():
    r = engines.search(DRF_MACHINES, "machines-pe", 2, 2, candidates=100, time_limit=60)
    assert r.status == "violated"
    assert Violation("machines-pe", DRF_MACHINES, r.instance, r.witness).verify()
    assert r.instance.setting == "machines"


def test_search_finds_thm7_continuous_violation():
    # the shrunk instance: A <2, 2> alone on <2, 5> and <5, 2> (see the found instance in the details): one task
    # per machine (each wastes almost a max-task), dominant share 4/7 against the pooled <7, 7>; continuous DRF
    # gives A everything, 1: 3/7 away, more than one max-task's 2/7.
    r = engines.search(DRF_MACHINES, "thm7-continuous", 2, 2, candidates=200, time_limit=60)
    assert r.status == "violated"
    assert Violation("thm7-continuous", DRF_MACHINES, r.instance, r.witness).verify()


def test_search_sp_violation():
    r = engines.search(DRF_MACHINES, "machines-sp", 2, 2, candidates=100, time_limit=60)
    assert r.status == "violated"
    assert Violation("machines-sp", DRF_MACHINES, r.instance, r.witness).verify()


def test_pairwise_bound_none_found_with_count():
    r = engines.search(DRF_MACHINES, "thm7-pairwise", 2, 2, candidates=120, time_limit=60)
    assert r.status == "none-found"
    assert sum(r.details["evaluated"].values()) + sum(r.details["declined"].values()) == 120
    assert "no violation among the" in r.explanation


def test_greedy_breaks_pairwise_bound_by_search():
    # found and shrunk: A <1, 2>, B <1, 3>, one machine <2, 4>: one task of A is dominant share 1/2, of B 3/4;
    # max-task <1, 3> (3/4). A (tie at 0, index) leaves <1, 2>, below the max-task; greedy: only A fits -> A.
    # A 2 tasks (1), B 0: 1 apart > 3/4. The literal reading never exceeds the bound (the proof of Theorem 7).
    # Theorem 7 is about unit weights: the search draws there (on `all` weight vectors dilute the 600)
    r = engines.search(DRF_MACHINES, "thm7-pairwise", 2, 2, candidates=600, time_limit=60, options={"fill": "greedy"},
                       domain="unweighted")
    assert r.status == "violated"
    assert Violation("thm7-pairwise", DRF_MACHINES, r.instance, r.witness, {"fill": "greedy"}).verify()


def test_grid_is_deterministic_and_cycles_machine_counts():
    first = [i.k for _, i in zip(range(6), msearch.grid(2, 2))]
    assert first == [1, 2, 3, 1, 2, 3]
    a = [i.to_dict() for _, i in zip(range(5), msearch.random_instances(2, 2, 7))]
    b = [i.to_dict() for _, i in zip(range(5), msearch.random_instances(2, 2, 7))]
    assert a == b


def test_prove_is_grid_none_found_or_refuted():
    r = proof.prove(DRF_MACHINES, "thm7-pairwise", 2, 1, time_limit=60)
    assert r.status == "none-found"  # never "proved": a finite grid
    assert "exhaustive over the" in r.explanation and "not a proof" in r.explanation
    r = proof.prove(DRF_MACHINES, "machines-pe", 2, 1, time_limit=60)
    assert r.status == "refuted"
    assert Violation("machines-pe", DRF_MACHINES, r.instance, r.witness).verify()


def test_cli_allocate_and_check(run_cli):
    out = run_cli("allocate", "drf-machines", "machines-two-servers")
    assert out.returncode == 0, out.stderr
    assert "placement (tasks per machine)" in out.stdout and "s1 <4, 8>" in out.stdout
    out = run_cli("allocate", "drf-machines", "machines-two-servers", "--format", "json")
    assert json.loads(out.stdout)["placement"] == [["1", "1"], ["1", "1"]]
    out = run_cli("check", "drf-machines", "machines-si", "machines-two-servers")
    assert out.returncode == 0 and "violated" in out.stdout


def test_cli_search_store_verify(run_cli, tmp_path):
    store = tmp_path / "store"
    out = run_cli("search", "drf-machines", "machines-pe", "-n", "2", "-m", "2", "--store", store)
    assert out.returncode == 0 and "violated" in out.stdout, out.stderr
    out = run_cli("store", "verify", "--store", store)
    assert out.returncode == 0 and "ok" in out.stdout, (out.stdout, out.stderr)


def test_cli_prove_and_matrix(run_cli):
    out = run_cli("prove", "drf-machines", "thm7-pairwise", "-n", "2", "-m", "1", "--no-store")
    assert out.returncode == 0 and "none-found" in out.stdout, out.stderr
    out = run_cli("matrix", "--setting", "machines", "--no-store", "--candidates", "20", "--property", "machines-pe",
                  "--property", "machines-sp")
    assert out.returncode == 0 and "drf-machines" in out.stdout, out.stderr


def test_examples_load():
    for name in ("machines-two-servers", "machines-wasted-max-task", "machines-three-servers"):
        assert Instance.load(name).setting == "machines"
    assert properties.check("drf-machines", "thm7-continuous", "machines-wasted-max-task").status == "violated"


def test_audit_views_of_machines_findings():
    from fairlab.audit.allocations import involved_allocations
    inst = Instance.build(demands=[[1, 1], [1, 1]], machines=[[2, 2]])
    views = involved_allocations(DRF_MACHINES, "machines-sp", inst, {"user": 0, "misreport": [2, 2]}, {})
    # truthful 1 + 1; A declaring <2, 2> takes the machine (tie at 0 goes to A): 1 task of <2, 2>, B 0
    assert [v["tasks"] for v in views] == [["1", "1"], ["1", "0"]]
    views = involved_allocations(DRF_MACHINES, "machines-pe", inst, {"improvement": [[2], [0]], "user": 0}, {})
    assert views[1]["tasks"] == ["2", "0"]


@pytest.mark.slow
def test_audit_runs_on_drf_machines(run_cli, tmp_path):
    out = run_cli("audit", "drf-machines", "-n", "2", "-m", "2", "--store", tmp_path / "store")
    assert out.returncode == 0, out.stderr
    assert "thm7-pairwise" in out.stdout and "violated at" in out.stdout


def test_three_servers_example():
    # D <2, 2, 9> fits no machine (GPU 9 > 8): no tasks, left out of the max-task <4, 4, 2>; A's cap is 3.
    a = DRF_MACHINES(Instance.load("machines-three-servers"))
    assert a.tasks[3] == 0 and a.tasks[0] <= 3
    results = {r.property: r.status.value for r in properties.check_all("drf-machines", "machines-three-servers")}
    assert results["thm7-pairwise"] == "n/a" and results["thm7-continuous"] == "n/a"  # A has a zero demand
