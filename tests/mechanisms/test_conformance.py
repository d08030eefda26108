"""Conformance of every registered mechanism's spec with its numeric allocator (seeded samples),
the two issue-14 reproducers it must catch, determinism, and the `fairlab conformance` verb."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairlab import mechanisms
from fairlab.cli import app
from fairlab.core.instance import Instance
from fairlab.core.solving import SolverBudget
from fairlab.mechanisms import conformance

PLUGINS = Path(__file__).parents[1] / "plugins"
CONTRADICTORY = f"{PLUGINS / 'asset_contradictory_spec.py'}:asset_contradictory"
DRF_SPEC_ON_ASSET = f"{PLUGINS / 'asset_with_drf_spec.py'}:asset_with_drf_spec"
WITH_SPEC = sorted(name for name, m in mechanisms.REGISTRY.items() if m.spec is not None)
runner = CliRunner()


def test_every_registered_mechanism_with_a_spec_is_covered():
    assert {"drf", "asset", "ceei", "bmf", "ks", "maxmin", "drf-tasks", "pdrf"} <= set(WITH_SPEC)


def _sizes_agree(name: str, sizes, samples: int, seed: int):
    """Each size: every checked instance agrees, or the allocator declines the whole size (maxmin
    is single-resource); at least one size checked."""
    mech = mechanisms.get(name)
    checked = 0
    for n, m in sizes:
        report = conformance.check_sample(mech, n, m, samples=samples, seed=seed)
        statuses = {r.status for r in conformance.results_of(report)}
        assert statuses <= {"agrees", "skipped"}, report.explanation
        if "agrees" in statuses:
            assert report.status == "agrees"
            checked += 1
    assert checked, f"{name}: no instance of {sizes} was checked"


@pytest.mark.parametrize("name", WITH_SPEC)
def test_spec_conforms_on_a_seeded_sample(name):
    _sizes_agree(name, [(2, 2), (3, 3), (3, 1)], samples=8, seed=0)


@pytest.mark.slow
@pytest.mark.parametrize("name", WITH_SPEC)
def test_spec_conforms_on_bigger_samples(name):
    # CEEI's default allocator is a certified float approximation at 4+ users with an irrational
    # optimum (not the exact optimum its spec describes): that path is checked with method=exact.
    sizes = [(4, 3), (3, 4), (5, 2), (6, 1)] if name != "ceei" else [(3, 4), (3, 2), (3, 1)]
    for seed in (1, 2):
        _sizes_agree(name, sizes, samples=20, seed=seed)


@pytest.mark.slow
def test_ceei_exact_path_conforms_at_four_users():
    report = conformance.check_sample(mechanisms.get("ceei"), 4, 3, samples=8, seed=1, options={"method": "exact"})
    assert report.status == "agrees", report.explanation


def test_ceei_float_path_is_reported_as_approximate_not_as_conforming():
    # An approximation neither agrees nor disagrees with the exact spec: unknown, which a proof gate refuses.
    inst = Instance.from_dict({"capacities": [1, 1, 1, 1],
                               "demands": [[4, 0, 4, 3], [3, 2, 3, 0], [0, 2, 0, 3], [1, 3, 2, 4]]})
    result = conformance.check(mechanisms.get("ceei"), inst)
    assert result.status == "unknown" and "approximate" in result.explanation


def test_the_sample_is_seeded_and_covers_the_proof_domain():
    a = conformance.sample(3, 2, samples=8, seed=5)
    assert [i.to_dict() for i in a] == [i.to_dict() for i in conformance.sample(3, 2, samples=8, seed=5)]
    assert [i.to_dict() for i in a] != [i.to_dict() for i in conformance.sample(3, 2, samples=8, seed=6)]
    assert all(inst.capacities == (1, 1) for inst in a[::2])  # the normalised domain of `prove`
    assert any(0 in row for inst in a for row in inst.demands)  # zero demands
    assert a[1].demands[0] == a[1].demands[1]  # a tie


def test_same_input_same_answer_and_the_same_resource_use():
    mech = mechanisms.get("ceei")
    first = conformance.check_sample(mech, 3, 2, samples=4, seed=3)
    conformance.check_sample(mechanisms.get("drf"), 4, 4, samples=3, seed=9)  # other queries in between
    second = conformance.check_sample(mech, 3, 2, samples=4, seed=3)
    assert [r.replace(seconds=0) for r in conformance.results_of(first)] == \
        [r.replace(seconds=0) for r in conformance.results_of(second)]
    assert conformance.spent(first) > 0


def test_the_resource_limit_decides_unknown():
    report = conformance.check_sample(mechanisms.get("ceei"), 3, 3, samples=2, seed=0, budget=SolverBudget(rlimit=50))
    assert report.status == "unknown"
    assert all("rlimit" in r.explanation for r in conformance.results_of(report)), report.explanation


# --------------------------------------------------------------------------- the reproducers
def test_a_contradictory_spec_is_caught_with_its_instance():
    report = conformance.check_sample(mechanisms.get(CONTRADICTORY), 2, 2)
    assert report.status == "disagrees"
    problem = conformance.first_problem(report)
    assert problem.instance is not None and problem.details["satisfies"] == "no"
    assert "admits no allocation at all" in problem.explanation
    assert "demands" in report.explanation


def test_another_mechanisms_spec_is_caught_with_its_instance():
    report = conformance.check_sample(mechanisms.get(DRF_SPEC_ON_ASSET), 2, 2)
    assert report.status == "disagrees"
    problem = conformance.first_problem(report)
    assert problem.details["satisfies"] == "no" and "other allocations" in problem.explanation
    # control: the same allocator with its own spec agrees on the same sample
    assert conformance.check_sample(mechanisms.get("asset"), 2, 2).status == "agrees"


def test_a_spec_missing_a_constraint_admits_another_allocation():
    from fairlab.mechanisms.base import Mechanism

    drf = mechanisms.get("drf")
    broken = Mechanism(name="drf-broken", summary="", source="", allocate=drf.allocate,
                       spec=lambda sym, tasks: drf.spec(sym, tasks)[:-1])
    result = conformance.check(broken, Instance.load("thm5-ceei-pm"))
    assert result.status == "disagrees" and result.details["unique"] == "no" and result.certificate["other"] is not None
    assert "also admits" in result.explanation


def test_an_allocator_that_declines_every_instance_is_not_agreement():
    report = conformance.check_sample(mechanisms.get("maxmin"), 2, 2)
    assert report.status == "unknown" and all(r.status == "skipped" for r in conformance.results_of(report))
    assert "nothing was checked" in report.explanation


# --------------------------------------------------------------------------- the verb
def test_cli_table_and_json():
    out = runner.invoke(app, ["conformance", "drf", "-n", "3", "-m", "2"])
    assert out.exit_code == 0, out.output
    assert "agrees" in out.stdout and "rlimit" in out.stdout
    out = runner.invoke(app, ["conformance", "bmf", "--samples", "3", "--seed", "4", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["schema_version"] == 1 and data["kind"] == "conformance"
    assert data["status"] == "agrees" and data["details"]["seed"] == 4 and len(data["details"]["results"]) == 3
    assert data["budget"]["rlimit"] == conformance.DEFAULT_RLIMIT and data["budget"]["rlimit_spent"] > 0


def test_cli_exit_1_names_the_instance_of_a_disagreement():
    out = runner.invoke(app, ["conformance", DRF_SPEC_ON_ASSET, "--format", "json"])
    assert out.exit_code == 1, out.output
    data = json.loads(out.stdout)
    assert data["status"] == "disagrees"
    bad = [r for r in data["details"]["results"] if r["status"] == "disagrees"]
    assert bad and bad[0]["instance"]["demands"] and bad[0]["certificate"]["allocation"]


def test_cli_one_instance():
    out = runner.invoke(app, ["conformance", "ceei", "--instance", "thm4-ceei-sp", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert [r["certificate"]["allocation"] for r in data["details"]["results"]] == [["100/31", "1500/31"]]


@pytest.mark.parametrize("args,needle", [
    (["conformance", "drf", "-n", "0"], "--users"),
    (["conformance", "drf", "--samples", "0"], "--samples"),
    (["conformance", "drf", "--rlimit", "0"], "--rlimit"),
    (["conformance", "drf", "--seed", "-1"], "--seed"),
    (["conformance", "drf", "--time-limit", "nan"], "--time-limit"),
    (["conformance", "drf", "-o", "x=1"], "option 'x'"),
    (["conformance", "nope"], "mechanism 'nope'"),
    (["conformance", f"{PLUGINS / 'with_spec.py'}:ceei_without_spec"], "no symbolic specification"),
    (["conformance", "maxmin", "--instance", "drf-paper"], "single-resource"),
    (["conformance", "drf", "--format", "xml"], "--format"),
])
def test_cli_bad_input_is_one_line_exit_2(args, needle):
    out = runner.invoke(app, args)
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.exit_code == 2, out.output
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], out.stderr
