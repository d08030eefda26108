"""Issue 14 §1: approximate allocations never decide a verdict.

An allocation says what it is (exact rational / exact algebraic / approximate with a certified
error bound); property checks, searches and stored fixtures decide on exact allocations only
(`fairlab.properties.base.run`): an approximate one is replaced by the exact one within the budget, or
the answer is `unknown` with the reason. CEEI's exact path honours its time limit.
"""

import json
import subprocess
import sys
import textwrap
import time
from fractions import Fraction as F
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairlab import properties
from fairlab.cli import app
from fairlab.core.errors import ExactTimeout, InexactAllocation
from fairlab.core.exact import Algebraic, deadline
from fairlab.core.instance import Instance
from fairlab.counterexamples import store
from fairlab.mechanisms import allocate, ceei
from fairlab.mechanisms.base import Allocation, Mechanism
from fairlab.properties.base import Violation, run
from fairlab.search.verify import reverify

# The reproducers of the issue: CEEI's default method answered with its certified float path
# (irrational optimum, 4 distinct users) and the checks read it as the exact allocation.
PE_CASE = {"capacities": [7, 2], "demands": [[3, 4], [1, 6], [4, 1], [1, 0]]}
NJC_CASE = {"capacities": [1, 1], "demands": [[1, 0], [0, 1], [0, 2], [1, 2]]}
SP_CASE = {"capacities": [12, 1], "demands": [[2, 0], [1, 0], [2, 1], [0, 2]]}
# Ten distinct users on two saturated resources: the prices are a root of a degree-10 polynomial
# and z3 takes minutes to evaluate the tasks at it (it used to hang in z3.simplify).
TEN_USERS = {
    "capacities": [403, 150],
    "demands": [[9, 4], [5, 8], [1, 7], [3, 1], [2, 1], [5, 7], [3, 6], [8, 1], [9, 3], [1, 3]],
    "weights": [2, 2, 1, 2, 1, 1, 1, 3, 3, 2],
    "max_tasks": [None, None, 2, None, 2, 3, None, None, 2, None],
}

runner = CliRunner()


def cli_json(*args):
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output[result.output.index("{"):])  # past any library banner


@pytest.fixture
def instance_file(tmp_path):
    def write(data, name="instance.json"):
        path = tmp_path / name
        path.write_text(json.dumps(data))
        return str(path)

    return write


@pytest.fixture
def no_exact_ceei(monkeypatch):
    """CEEI's exact optimum never finishes (as on a big instance or a loaded machine)."""
    monkeypatch.setattr(ceei, "_exact", lambda *args, **kwargs: None)


# --------------------------------------------------------------------------- the allocation says what it is
def test_float_path_allocation_is_labelled_approximate():
    a = allocate("ceei", PE_CASE, method="float")
    assert all(isinstance(t, F) for t in a.tasks)  # plain Fractions, yet not the exact allocation
    assert not a.is_exact_rational() and not a.is_exact()
    assert a.exactness == "approximate" and a.error_bound is not None and float(a.error_bound) <= 1e-9
    d = a.to_dict()
    assert d["exactness"] == d["exact"] == "approximate" and d["error_bound"] == a.error_bound
    assert "approximate" in a.describe_exactness() and a.error_bound in a.describe_exactness()


def test_exact_allocations_are_labelled_exact():
    rational = allocate("ceei", {"capacities": [9, 18], "demands": [[1, 4], [3, 1]]})
    assert rational.is_exact_rational() and rational.exactness == "rational"
    assert rational.to_dict()["exactness"] == "rational" and rational.to_dict()["error_bound"] is None
    algebraic = allocate("ceei", PE_CASE, method="exact")
    assert algebraic.is_exact() and not algebraic.is_exact_rational() and algebraic.exactness == "algebraic"
    assert allocate("drf", PE_CASE).exactness == "rational"


def test_an_allocation_cannot_claim_more_exactness_than_its_numbers():
    inst = Instance.from_dict(PE_CASE)
    irrational = allocate("ceei", inst, method="exact").tasks
    with pytest.raises(ValueError, match="contradicts"):
        Allocation("x", inst, irrational, exactness="rational")
    with pytest.raises(ValueError, match="error_bound"):
        Allocation("x", inst, (F(0),) * 4, error_bound="1e-9")
    assert Allocation("x", inst, (F(0),) * 4, exactness="approximate").is_exact_rational() is False


def test_cli_allocate_json_and_table_say_approximate(instance_file):
    path = instance_file(PE_CASE)
    out = cli_json("allocate", "ceei", path, "-o", "method=float")
    assert out["exactness"] == "approximate" and out["exact"] == "approximate"
    assert out["error_bound"] and float(out["error_bound"]) <= 1e-9
    # auto: the irrational optimum with 4 distinct users goes to the float path, labelled
    auto = cli_json("allocate", "ceei", path)
    assert auto["exactness"] == "approximate" and auto["status"] == "certified"
    exact = cli_json("allocate", "ceei", path, "-o", "method=exact")
    assert exact["exactness"] == "algebraic" and exact["error_bound"] is None
    table = runner.invoke(app, ["allocate", "ceei", path, "-o", "method=float"])
    assert table.exit_code == 0 and "approximate (certified relative error" in table.output
    assert "exact (rational)" in runner.invoke(app, ["allocate", "ceei", "drf-paper"]).output


# --------------------------------------------------------------------------- the reproducers
@pytest.mark.parametrize("prop,case", [("pe", PE_CASE), ("njc", NJC_CASE)], ids=["pe", "njc"])
def test_check_reproducers_are_not_violated(prop, case, instance_file):
    """`fairlab check ceei pe|njc` used to read the float path's 25-digit tasks as exact: u4
    "gained 9/10^25 tasks"; u1 had a "justified complaint" (nothing saturated, by 10^-25)."""
    out = cli_json("check", "ceei", prop, instance_file(case))
    assert out["status"] in ("holds", "unknown")
    assert out["status"] == "holds"  # the exact optimum takes milliseconds here
    for method in ("exact", "float", "auto"):  # whatever the method, the exact allocation decides
        assert properties.check("ceei", prop, case, options={"method": method}).status == "holds"


def test_check_sp_reproducer_is_not_violated(instance_file):
    """The truthful side was approximate and the misreport side exact, so an error of 10^-20
    read as a gain (user 1 declaring <1, 0>: the same demand, scaled, so exactly no gain)."""
    out = cli_json("check", "ceei", "sp", instance_file(SP_CASE), "--evaluations", "30", "--no-z3")
    assert out["status"] in ("none-found", "unknown") and out["witness"] is None
    old_witness = Violation("sp", ceei.MECHANISM, Instance.from_dict(SP_CASE), {"user": 0, "misreport": [1, 0]})
    assert not old_witness.verify() and old_witness.inexact is None  # decided exactly: no gain


def test_old_false_witnesses_do_not_verify():
    inst = Instance.from_dict(PE_CASE)
    approx = allocate("ceei", inst, method="float").tasks
    grown = list(approx)
    grown[3] += F(9, 10**25)
    fake = Violation("pe", ceei.MECHANISM, inst, {"improvement": [str(x) for x in grown], "user": 3})
    assert fake.explain() is None
    assert not Violation("njc", ceei.MECHANISM, Instance.from_dict(NJC_CASE), {"user": 0}).verify()


def test_unknown_when_the_exact_allocation_cannot_be_had(no_exact_ceei):
    """Control: without the exact optimum nothing is decided, whatever the property."""
    for prop, case in (("pe", PE_CASE), ("njc", NJC_CASE), ("si", PE_CASE), ("pm", PE_CASE)):
        v = properties.check("ceei", prop, case, time_limit=5)
        assert v.status == "unknown", (prop, v.explanation)
        assert "approximate" in v.explanation and "did not finish" in v.explanation
    sp = properties.check("ceei", "sp", SP_CASE, time_limit=5, evaluations=5, symbolic=False)
    assert sp.status == "unknown"
    with pytest.raises(InexactAllocation, match="certified relative error"):
        run(ceei.MECHANISM, Instance.from_dict(PE_CASE), {})
    # exact mechanisms are not affected
    assert properties.check("drf", "pe", PE_CASE).status == "holds"


def test_cli_check_reports_unknown_with_the_reason(no_exact_ceei, instance_file):
    out = cli_json("check", "ceei", "pe", instance_file(PE_CASE))
    assert out["status"] == "unknown" and "approximate" in out["explanation"]


def test_the_exact_re_solve_gets_the_checks_time_limit():
    seen = []
    original = ceei.exact_options

    def spy(options, seconds):
        seen.append(seconds)
        return original(options, seconds)

    object.__setattr__(ceei.MECHANISM, "exact_options", spy)
    try:
        assert properties.check("ceei", "pe", PE_CASE, time_limit=7).status == "holds"
    finally:
        object.__setattr__(ceei.MECHANISM, "exact_options", original)
    assert seen and all(0 < s <= 7 for s in seen)


# --------------------------------------------------------------------------- searches and fixtures
@pytest.mark.parametrize("prop", ["pe", "njc"])
def test_search_reproducers_store_no_fixture(prop, tmp_path, monkeypatch):
    """`fairlab search ceei pe|njc -n 4 -m 2` stored "CEEI violates pe/njc" fixtures (the grid met
    a 4-user irrational optimum within its first 20 candidates)."""
    shipped = sorted(p.name for p in store.FIXTURES.glob("*.json"))
    monkeypatch.setenv("FAIRLAB_STORE", str(tmp_path))
    out = cli_json("search", "ceei", prop, "--users", "4", "--resources", "2", "--engine", "grid",
                   "--time-limit", "4")
    assert out["status"] != "violated" and out["details"]["fixture"] is None
    assert list(tmp_path.iterdir()) == []
    assert sorted(p.name for p in Path(store.__file__).with_name("fixtures").glob("*.json")) == shipped


@pytest.mark.slow
@pytest.mark.parametrize("prop", ["pe", "njc"])
def test_search_reproducers_full_commands(prop, tmp_path, monkeypatch):
    """The issue's commands as written (every engine, the default 30 s)."""
    monkeypatch.setenv("FAIRLAB_STORE", str(tmp_path))
    out = cli_json("search", "ceei", prop, "--users", "4", "--resources", "2")
    assert out["status"] != "violated" and out["details"]["fixture"] is None and list(tmp_path.iterdir()) == []


def _approximate_mechanism(approximate=lambda instance: True):
    """A test mechanism with no exact path: each user gets 1/(2n) of its solo tasks, labelled
    approximate on the instances where `approximate(instance)` holds."""

    def alloc(instance, **_):
        tasks = tuple(instance.solo_tasks(i) / (2 * instance.n) for i in range(instance.n))
        if approximate(instance):
            return Allocation("approx", instance, tasks, exactness="approximate", error_bound="1e-9")
        return Allocation("approx", instance, tasks)

    return Mechanism("approx", "test: approximate allocations", "tests", alloc)


def test_search_counts_undecided_candidates_apart(tmp_path, monkeypatch):
    from fairlab.search import engines

    hunt = engines.search(_approximate_mechanism(), "si", 2, 2, engines=["grid"], time_limit=2)
    assert hunt.status == "unknown"  # not "none-found": no candidate was decided
    said = " ".join(hunt.details["notes"]) + hunt.explanation
    assert "undecided" in said
    # exact everywhere: the same search decides its candidates (1/(2n) of solo tasks violates si)
    exact = engines.search(_approximate_mechanism(lambda inst: False), "si", 2, 2, engines=["grid"], time_limit=2)
    assert exact.status == "violated"


def test_pm_with_undecided_departures_is_unknown():
    three = {"capacities": [6, 6], "demands": [[1, 1]] * 3}
    v = properties.check(_approximate_mechanism(lambda inst: False), "pm", three)
    assert v.status == "holds"  # every departure decided exactly: nobody loses
    v = properties.check(_approximate_mechanism(), "pm", three)
    assert v.status == "unknown" and "no exact path" in v.explanation  # the truthful allocation
    v = properties.check(_approximate_mechanism(lambda inst: inst.n < 3), "pm", three)
    assert v.status == "unknown" and "3 of 3 departures could not be checked exactly" in v.explanation


def test_sp_with_only_undecided_misreports_is_unknown():
    inst = {"capacities": [6, 6], "demands": [[1, 2], [2, 1]]}
    truth = Instance.from_dict(inst)
    only_truth_exact = _approximate_mechanism(lambda i: i.demands != truth.demands)
    v = properties.check(only_truth_exact, "sp", inst, evaluations=10)
    assert v.status == "unknown" and "undecided" in v.explanation


def test_store_refuses_a_violation_that_needs_an_approximation(tmp_path, no_exact_ceei):
    inst = Instance.from_dict(NJC_CASE)
    record = {
        "kind": "violation", "claim": None, "mechanism": "ceei", "options": {}, "property": "njc",
        "instance": inst.to_dict(), "witness": {"user": 0},
        "canonical_hash": store.canonical_hash("ceei", "njc", inst),
    }
    verified = reverify(record)
    assert not verified.ok and "approximate" in verified.message
    with pytest.raises(store.FixtureRefused, match="approximate"):
        store.Store(tmp_path).save(record, verified)
    assert list(tmp_path.iterdir()) == []


def test_shipped_ceei_fixtures_verify_on_exact_allocations():
    """The fixture test re-verifies with exact allocations only: the shipped CEEI/PF ones do."""
    for path, record in store.load_all():
        if record.get("mechanism") in ("ceei", "pf", "nash"):
            inst = Instance.from_dict(record["instance"])
            assert allocate(record["mechanism"], inst, **(record.get("options") or {})).is_exact(), path.name
            assert reverify(record).ok, path.name


def test_a_plug_in_returning_an_approximate_allocation_stays_approximate(tmp_path):
    plugin = tmp_path / "wrapped.py"
    plugin.write_text("from fairlab.mechanisms import allocate\n\n"
                      "def ceei_float(instance):\n    return allocate('ceei', instance, method='float')\n")
    name = f"{plugin}:ceei_float"
    from fairlab.mechanisms import get

    a = get(name)(Instance.from_dict(PE_CASE))
    assert a.exactness == "approximate" and a.error_bound is not None
    v = properties.check(name, "pe", PE_CASE)
    assert v.status == "unknown" and "approximate" in v.explanation


def test_conformance_does_not_judge_an_approximation():
    from fairlab.mechanisms import conformance

    result = conformance.check(ceei.MECHANISM, Instance.from_dict(PE_CASE), method="float")
    assert result.status == "unknown" and result.details["satisfies"] == "unknown"
    assert conformance.check(ceei.MECHANISM, Instance.from_dict(PE_CASE), method="exact").details["satisfies"] == "yes"


def test_paper_check_ledger_compares_exact_values_only(no_exact_ceei):
    from fairlab.paper_checks import ledger

    (result,) = ledger.run(only=["drf-5.2-ceei"])
    assert result.status == "unknown" and "approximate" in result.details["error"]


# --------------------------------------------------------------------------- time limits
def test_algebraic_arithmetic_honours_the_deadline():
    a = allocate("ceei", PE_CASE, method="exact").tasks
    with deadline(time.monotonic() - 1):
        with pytest.raises(ExactTimeout):
            a[0] + a[1]
        with pytest.raises(ExactTimeout):
            a[0] < a[1]  # noqa: B015 (the comparison itself must raise)
    assert (a[0] < a[1]) is False  # no deadline: decided as before


def test_auto_does_not_build_an_irrational_optimum_it_would_discard(monkeypatch):
    built = []
    original = Algebraic.of

    def counting(ref):
        value = original(ref)
        built.append(value)
        return value

    monkeypatch.setattr(Algebraic, "of", staticmethod(counting))
    auto = allocate("ceei", PE_CASE)
    assert auto.exactness == "approximate" and "irrational" in auto.notes[0]
    assert built == []  # decided at the prices' root, before any algebraic task was built
    assert allocate("ceei", PE_CASE, method="exact").exactness == "algebraic" and built


def test_exact_ceei_at_ten_users_honours_its_timeout():
    """Ten distinct users, method=exact, timeout=5: returns the exact optimum or says cleanly that
    it did not finish (it used to run for minutes in z3.simplify). Run in a subprocess with a
    generous hang guard; no assertion on wall time."""
    script = textwrap.dedent(f"""
        import json
        from fairlab.core.errors import ExactTimeout
        from fairlab.mechanisms import allocate
        from fairlab import properties
        inst = {TEN_USERS!r}
        out = {{}}
        try:
            a = allocate("ceei", inst, method="exact", timeout=5)
            out["exact"] = a.exactness
        except ExactTimeout as exc:
            out["exact"] = "did not finish: " + str(exc)
        out["auto"] = allocate("ceei", inst, timeout=5).exactness
        out["check"] = properties.check("ceei", "pe", inst, time_limit=5).status
        print(json.dumps(out))
    """)
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=180, cwd=root,
                          env={**__import__("os").environ, "PYTHONPATH": str(root)})
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["exact"] in ("rational", "algebraic") or out["exact"].startswith("did not finish: the exact CEEI")
    assert out["auto"] in ("rational", "algebraic", "approximate")
    assert out["check"] in ("holds", "unknown")
