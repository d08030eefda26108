"""Dynamic demand (Bonald & Roberts §3-§4): class-level allocators against the exact registered
mechanisms, the Markov model against closed forms, truncation, stability (8), packet and cluster
schedulers against the fluid model, the paper's orderings, and the CLI."""

from __future__ import annotations

import json
import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from fairlab import mechanisms
from fairlab.cli import app
from fairlab.core.errors import InputError
from fairlab.dynamics import allocators, cluster, figures, markov, packets
from fairlab.mechanisms.base import ALIASES

PAPER_REQ = figures.REQUIREMENTS  # a1 = (.1, 1), a2 = (1, .1), a3 = (1, 1)
PAPER_A = np.array([[float(x) for x in row] for row in PAPER_REQ])
SAMPLE_STATES = [[1, 1, 1], [3, 1, 2], [0, 2, 5], [4, 0, 1], [2, 3, 0], [1, 0, 0], [5, 5, 1], [0, 0, 3], [7, 2, 4]]


def _has(name):
    return name in mechanisms.REGISTRY or name in ALIASES


# ----------------------------------------------------------------------------------- allocators
@pytest.mark.parametrize(
    "fast, exact",
    [("drf", "drf"), ("pf", "ceei"), ("bmf", "bmf")],
)
def test_fast_allocators_match_exact_registry_on_paper_states(fast, exact):
    """Float class-level allocators vs the exact registered mechanism applied per transaction."""
    if not _has(exact):
        pytest.skip(f"registered mechanism {exact!r} not available yet: cross-check of fast {fast} skipped")
    got = allocators.FAST_ALLOCATORS[fast](PAPER_A, SAMPLE_STATES)
    want = allocators.registry_rates(exact, PAPER_REQ, SAMPLE_STATES)
    assert np.allclose(got, want, rtol=1e-9, atol=1e-12), (got, want)


small_vec = st.lists(st.sampled_from([F(0), F(1, 10), F(1, 4), F(1, 2), F(3, 4), F(1)]), min_size=2, max_size=2)


@settings(max_examples=25, deadline=None)
@given(
    req=st.lists(small_vec.filter(lambda r: any(r)), min_size=2, max_size=3),
    state=st.lists(st.integers(0, 3), min_size=3, max_size=3),
)
def test_fast_allocators_match_exact_on_random_two_resource_states(req, state):
    """DRF, PF (ceei) and BMF on random 2-resource classes: BMF is unique for J = 2 (§2.4)."""
    state = state[: len(req)]
    if sum(state) == 0 or sum(state) > 6:
        return
    A = np.array([[float(x) for x in row] for row in req])
    for fast, exact in (("drf", "drf"), ("pf", "ceei"), ("bmf", "bmf")):
        if not _has(exact):
            continue
        got = allocators.FAST_ALLOCATORS[fast](A, [state])
        want = allocators.registry_rates(exact, req, [state])
        assert np.allclose(got, want, rtol=1e-8, atol=1e-12), (fast, req, state, got, want)


vec3 = st.lists(st.sampled_from([F(0), F(1, 4), F(1, 2), F(3, 4), F(1)]), min_size=3, max_size=3)


@settings(max_examples=20, deadline=None)
@given(req=st.lists(vec3.filter(lambda r: any(r)), min_size=2, max_size=3),
       state=st.lists(st.integers(0, 2), min_size=3, max_size=3))
def test_fast_bmf_is_in_the_exact_bmf_set_on_three_resources(req, state):
    """J = 3: BMF need not be unique, so check membership (fairlab.mechanisms.bmf.is_bmf, exact) of our
    class-symmetric choice, read back as exact rationals."""
    if not _has("bmf"):
        pytest.skip("registered mechanism 'bmf' not available yet")
    from fairlab.core.instance import Instance
    from fairlab.mechanisms import bmf

    state = state[: len(req)]
    if sum(state) == 0:
        return
    A = np.array([[float(x) for x in row] for row in req])
    phi = allocators.bmf_rates(A, [state])[0]
    owners = [k for k, c in enumerate(state) for _ in range(c)]
    inst = Instance.from_dict({"capacities": [1, 1, 1], "demands": [req[k] for k in owners]})
    tasks = [F(float(phi[k])).limit_denominator(10**6) for k in owners]
    check = bmf.is_bmf(inst, tasks)
    assert check.holds, (req, state, phi, check.reason)


def test_pf_paper_examples():
    """§2.3: a1 = (1/2, 1), a2 = (1, 1/2) -> (2/3, 2/3); declaring (2/3, 1) -> (3/4, 1/2);
    §4.2: with two transactions like the second, the false declaration gives φ1 = 1/2."""
    A = np.array([[0.5, 1], [1, 0.5]])
    assert np.allclose(allocators.pf_rates(A, [[1, 1]]), [[2 / 3, 2 / 3]])
    lie = np.array([[2 / 3, 1], [1, 0.5]])
    assert np.allclose(allocators.pf_rates(lie, [[1, 1]]), [[3 / 4, 1 / 2]])
    assert np.allclose(allocators.pf_rates(lie, [[1, 2]])[0, 0], 1 / 2)
    # ... and (1, 1) declared -> (1/2, 1/2)
    assert np.allclose(allocators.pf_rates(np.array([[1, 1], [1, 0.5]]), [[1, 1]]), [[1 / 2, 1 / 2]])


def test_bmf_three_resource_example_is_in_the_bmf_set():
    """§2.4: requirements (1,1,1), (1,1/2,3/4), (1/2,1,3/4); our choice is φ(0) = (2/5, 2/5, 2/5)."""
    B = np.array([[1, 1, 1], [1, 0.5, 0.75], [0.5, 1, 0.75]])
    got = allocators.bmf_rates(B, [[1, 1, 1]])[0]
    assert np.allclose(got, [0.4, 0.4, 0.4])
    if _has("bmf"):
        from fairlab.mechanisms import bmf

        inst = {"capacities": [1, 1, 1], "demands": [[1, 1, 1], [1, F(1, 2), F(3, 4)], [F(1, 2), 1, F(3, 4)]]}
        from fairlab.core.instance import Instance

        exact = [F(x).limit_denominator(1000) for x in got]
        assert exact == [F(2, 5)] * 3
        check = bmf.is_bmf(Instance.from_dict(inst), exact)
        assert check.holds, check.reason
        # and the other end of the §2.4 continuum, φ(1) = (1/3, 4/9, 4/9), is BMF too (a different point)
        assert bmf.is_bmf(Instance.from_dict(inst), [F(1, 3), F(4, 9), F(4, 9)]).holds


def test_absent_classes_get_zero_rate_and_empty_state():
    for f in allocators.FAST_ALLOCATORS.values():
        out = f(PAPER_A, [[0, 0, 0], [0, 4, 0]])
        assert out[0].tolist() == [0, 0, 0]
        assert out[1, 0] == 0 and out[1, 2] == 0
        assert math.isclose(out[1, 1], 1 / 4)  # 4 class-2 transactions share resource 1


# ----------------------------------------------------------------------------------- Markov
@pytest.mark.parametrize("mech", ["drf", "pf", "bmf"])
def test_single_resource_is_processor_sharing(mech):
    """One resource: every mechanism shares it equally (single-resource fairness, §2.1), so the
    chain is an M/M/1 processor-sharing queue and γ_k = 1 - ρ for every class."""
    req = [[F(1)], [F(1, 2)]]
    loads = [F(3, 10), F(4, 5)]  # resource load 0.3 + 0.4 = 0.7
    res = markov.solve(mech, req, loads, tol=1e-9)
    assert res.boundary_mass <= 1e-9
    # each of n transactions gets 1/n of the resource, rate 1/(n a_k): a class-k job is a PS job
    # of size a_k/μ_k, E(T_k) = (a_k/μ_k)/(1 - 0.7), so γ_k = (1/μ_k)/E(T_k) = 0.3 / a_k
    assert res.gamma == pytest.approx([0.3 / 1, 0.3 / 0.5], rel=1e-6)


def test_state_space_prefix_and_size():
    s = markov.simplex_states(3, 5)
    assert len(s) == math.comb(8, 3) == 56
    assert (s[: math.comb(6, 3)] == markov.simplex_states(3, 3)).all()
    assert (s.sum(axis=1)[:-1] <= s.sum(axis=1)[1:]).all()


def test_given_truncation_and_boundary_mass_reported():
    res = markov.solve("drf", PAPER_REQ, [F(1, 5)] * 3, truncation=8)
    assert res.truncation == 8 and res.states == math.comb(11, 3)
    assert 0 < res.boundary_mass < 1e-2
    finer = markov.solve("drf", PAPER_REQ, [F(1, 5)] * 3, tol=1e-8)
    assert finer.boundary_mass <= 1e-8 and finer.truncation > 8
    assert finer.gamma == pytest.approx(res.gamma, rel=50 * res.boundary_mass)


def test_stability_condition_8_is_exact():
    """ρ a_j summing to exactly 1 is unstable (strict inequality (8)), read exactly from decimals."""
    # resource 2: 0.95 * 1 + 0.5 * 0.1 = 1 exactly; resource 1: 0.095 + 0.5 < 1
    with pytest.raises(InputError, match=r"loads: unstable, resource 2 has load 1 >= 1"):
        markov.solve("drf", [[F(1, 10), F(1)], [F(1), F(1, 10)]], ["0.95", "0.5"])
    with pytest.raises(InputError, match=r"resource 1"):
        markov.check_stable(PAPER_REQ, [F(1, 2)] * 3)
    assert markov.check_stable(PAPER_REQ, [F(1, 10)] * 3) == [F(21, 100), F(21, 100)]


@pytest.mark.parametrize(
    "text, message",
    [("0.1,1;1", "ragged"), ("0.1,x", "requirements\\[0\\]\\[1\\]"), ("0,0;1,1", "all zero"), ("", "requirements")],
)
def test_bad_requirements(text, message):
    with pytest.raises(InputError, match=message):
        markov.parse_requirements(text)


def test_any_registered_mechanism_through_registry_matches_fast_path():
    """The exact registry path (asset fairness here, and drf forced through it) on a small truncation."""
    req = PAPER_REQ
    states = markov.simplex_states(3, 4)
    assert np.allclose(allocators.registry_rates("drf", req, states), allocators.drf_rates(PAPER_A, states))
    res = markov.solve("asset", req, [F(1, 20)] * 3, truncation=5)
    assert res.gamma[0] == pytest.approx(res.gamma[1], rel=1e-12)  # classes 1, 2 mirror each other
    with pytest.raises(InputError, match="mechanism 'nope'"):
        markov.solve("nope", req, [F(1, 20)] * 3, truncation=3)


# ----------------------------------------------------------------------------------- packets
def test_packet_schedulers_agree_with_fluid_model():
    """§4.4 in small: unbalanced load at resource-2 load 1/2, 20000 flows of mean 20 packets, W = 4.
    Tolerance 15% per class (statistical error of a run this size is ~5-10% on the rarer classes),
    and the packet runs must reproduce the fluid model's separation: γ2 under PF and BMF at least
    10% above DRF's (fluid: +24% and +22%)."""
    loads = figures.class_loads("unbalanced", F(1, 2))
    got = {}
    for s in packets.SCHEDULERS:
        fluid = markov.solve(s, PAPER_REQ, loads).gamma
        res = packets.simulate(s, PAPER_REQ, loads, flows=20000, mean_size=20, window=4, seed=0)
        got[s] = res.gamma
        for k in range(3):
            assert abs(res.gamma[k] - fluid[k]) / fluid[k] < 0.15, (s, k, res.gamma, fluid)
    assert got["pf"][1] > 1.10 * got["drf"][1]
    assert got["bmf"][1] > 1.10 * got["drf"][1]


def test_packet_simulation_is_seeded_and_checks_input():
    loads = [F(1, 5), F(1, 10), F(1, 10)]
    a = packets.simulate("bmf", PAPER_REQ, loads, flows=200, mean_size=10, window=3, seed=7)
    b = packets.simulate("bmf", PAPER_REQ, loads, flows=200, mean_size=10, window=3, seed=7)
    assert a.gamma == b.gamma and a.packets == b.packets > 0
    with pytest.raises(InputError, match="scheduler 'wfq'"):
        packets.simulate("wfq", PAPER_REQ, loads)
    with pytest.raises(InputError, match="window"):
        packets.simulate("pf", PAPER_REQ, loads, window=0)
    with pytest.raises(InputError, match="unstable"):
        packets.simulate("pf", PAPER_REQ, [1, 1, 1])


def test_single_flow_gets_its_dominant_rate_with_a_window():
    """A lone flow with W >= 2 pipelines through both resources at rate 1 / max_j a_j (§3.1)."""
    res = packets.simulate("drf", [[0.5, 1.0]], [0.001], flows=20, mean_size=2000, window=2, seed=1)
    # at load 0.001 flows never overlap; a flow of s packets takes s + 1/2 packet times (pipeline
    # fill), so mean size / mean completion time is within 1e-3 of 1
    assert res.gamma_completed[0] == pytest.approx(1.0, abs=1e-3)
    one = packets.simulate("drf", [[0.5, 1.0]], [0.001], flows=20, mean_size=2000, window=1, seed=1)
    # with W = 1 nothing pipelines: a packet takes 0.5 + 1 time units, rate 2/3
    assert one.gamma_completed[0] == pytest.approx(2 / 3, abs=1e-3)


# ----------------------------------------------------------------------------------- cluster
@pytest.mark.parametrize("scheduler", cluster.SCHEDULERS)
def test_cluster_long_run_shares_approach_fluid(scheduler):
    """Most-deprived-job schedulers on 1000-unit pools; fluid DRF (32.26 each), PF (34.1, 34.1,
    68.2, 25) and BMF (31.25, 31.25, 62.5, 31.25) all differ here. Tolerance 5% per job."""
    demands = [[1, 10], [1, 10], [10, 1], [10, 10]]
    res = cluster.simulate(scheduler, demands, [1000, 1000], completions=12000, seed=0)
    assert max(res.relative_errors()) < 0.05, (res.mean_tasks, res.fluid_tasks)


def test_cluster_fluid_allocations_differ_between_mechanisms():
    demands = [[1, 10], [1, 10], [10, 1], [10, 10]]
    fl = {s: cluster.fluid_tasks(s, demands, [1000, 1000]) for s in cluster.SCHEDULERS}
    assert fl["drf"] == pytest.approx([1000 / 31] * 4)
    assert fl["bmf"] == pytest.approx([31.25, 31.25, 62.5, 31.25])
    assert fl["pf"][2] > 2 * fl["pf"][3]


# ----------------------------------------------------------------------------------- orderings
def test_paper_orderings_on_a_small_load_grid():
    """The statements of §4.3 checked on loads 0.3 and 0.7 (the ledger's default uses 0.2-0.8)."""
    loads = (F(3, 10), F(7, 10))
    claims = figures.orderings_from("unbalanced", figures.curves("unbalanced", loads=loads), loads)
    claims += figures.orderings_from("balanced", figures.curves("balanced", loads=loads), loads)
    assert len(claims) == 6
    assert all(set(c) == {"figure", "source", "claim", "holds", "detail"} for c in claims)
    failing = [c for c in claims if not c["holds"]]
    assert not failing, failing


def test_orderings_detect_a_violation():
    """Fed curves where class 3 beats class 1, the Figure 2 ordering check must fail."""
    loads = (F(1, 2),)
    data = figures.curves("unbalanced", loads=loads)
    for m in data:
        data[m][0].gamma = [0.3, 0.8, 0.5]
    claims = figures.orderings_from("unbalanced", data, loads)
    assert claims[0]["holds"] is False


@pytest.mark.slow
def test_paper_orderings_default_grid():
    claims = figures.paper_orderings()
    assert all(c["holds"] for c in claims), [c for c in claims if not c["holds"]]


# ----------------------------------------------------------------------------------- CLI
runner = CliRunner()


def test_cli_rates_json():
    out = runner.invoke(app, ["dynamics", "rates", "--mechanism", "bmf", "--requirements", "0.1,1;1,0.1;1,1",
                              "--loads", "0.2,0.05,0.05", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert len(data["gamma"]) == 3
    g = data["gamma"]
    assert g[1] > g[0] > g[2]
    assert data["resource_loads"] == ["3/25", "51/200"]  # 0.2*0.1 + 0.05 + 0.05; 0.2 + 0.005 + 0.05
    assert data["kind"] == "dynamics-rates" and data["schema_version"] == 1
    assert data["boundary_mass"] <= 1e-5 and data["truncation"] > 0 and data["states"] > 0
    assert any("BMF choice" in n for n in data["notes"])


@pytest.mark.parametrize(
    "args, message",
    [
        (["--loads", "0.5,0.5,0.5"], "unstable"),
        (["--loads", "0.1,0.1"], "loads: expected 3"),
        (["--loads", "0.1,-0.1,0.1"], "loads\\[1\\]"),
        (["--loads", "0.1,0.1,0.1", "-m", "nope"], "mechanism 'nope'"),
        (["--loads", "0.1,0.1,0.1", "--format", "xml"], "--format"),
    ],
)
def test_cli_rates_errors_are_one_line_exit_2(args, message):
    import re

    out = runner.invoke(app, ["dynamics", "rates", *args])
    assert out.exit_code == 2
    err = out.stderr if hasattr(out, "stderr") and out.stderr else out.output
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and re.search(message, lines[0]), err


def test_cli_figure_two_points(tmp_path):
    out = runner.invoke(app, ["dynamics", "figure", "2", "--out", str(tmp_path), "--loads", "0.3,0.6", "--no-progress"])
    assert out.exit_code == 0, out.output
    png = tmp_path / "figure2.png"
    assert png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "[holds] Figure 2: for each allocation γ2 > γ1 > γ3" in out.output


def test_cli_cluster_and_packets_json():
    out = runner.invoke(app, ["dynamics", "cluster", "-s", "pf", "--completions", "2000", "--format", "json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["runs"][0]["fluid_tasks"] == pytest.approx([6000 / 99, 6000 / 99, 100 / 3])
    out = runner.invoke(app, ["dynamics", "packets", "-s", "drf", "--loads", "0.2,0.05,0.05", "--flows", "300",
                              "--mean-size", "10", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)["runs"][0]
    assert data["scheduler"] == "drf" and len(data["fluid_gamma"]) == 3 and data["packets"] > 0


def test_figure_leaves_the_matplotlib_backend_alone(tmp_path):
    import matplotlib

    before = matplotlib.get_backend()
    matplotlib.use("svg")
    try:
        figures.draw(1, tmp_path, loads=(F(3, 10),), tol=0.01, progress=False)
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use(before)
    assert (tmp_path / "figure1.png").read_bytes()[:4] == b"\x89PNG"
