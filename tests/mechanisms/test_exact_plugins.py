"""Exact on every plug-in path (issue 35): an LP plug-in is solved on the model its author wrote (the
instance's numbers stay exact through pulp), a float anywhere in a plug-in's answer never decides, a
wrong answer is a finding like a raise, LP ties are broken by the lab (and the derived spec says so),
and `fairlab allocate` stops a plug-in that hangs or changes its answer."""

import json
from fractions import Fraction as F
from pathlib import Path

import pytest

pytest.importorskip("pulp")

from typer.testing import CliRunner

import fairlab
from fairlab import mechanisms, properties
from fairlab.audit import markdown
from fairlab.audit.html import render as render_html
from fairlab.audit.run import audit
from fairlab.cli.app import app
from fairlab.core.errors import PluginBadAnswer
from fairlab.core.instance import Instance
from fairlab.core.schemas import validate
from fairlab.mechanisms.plugin_numbers import ExactNumber, exact_view

PLUGINS = Path(__file__).parents[1] / "plugins"
LP = PLUGINS / "lp_exact.py"
THIRD = Instance.build(["1/3", "1"], [[1, 1]])


def line_of(path: Path, name: str) -> int:
    """The line of ``def name`` in `path`."""
    return next(k for k, text in enumerate(path.read_text().splitlines(), start=1) if text.startswith(f"def {name}("))


# --------------------------------------------------------------------------- exact numbers through pulp
def pulp_floats_sums() -> bool:
    """Whether this pulp keeps the constant of ``lpSum`` as a float (pulp 3.x: yes; pulp 2.7: no)."""
    import pulp

    problem = pulp.LpProblem("probe", pulp.LpMaximize)
    make = getattr(problem, "add_variable", None) or pulp.LpVariable
    return isinstance((pulp.lpSum([make("x", 0)]) <= F(1, 3)).constant, float)


def test_exact_numbers_stay_exact_through_pulp_where_plain_fractions_become_floats():
    import pulp

    problem = pulp.LpProblem("p", pulp.LpMaximize)
    make = getattr(problem, "add_variable", None) or pulp.LpVariable  # pulp 3.3 deprecates a bare LpVariable
    x, y = make("x", 0), make("y", 0)
    exact = pulp.lpSum([x * ExactNumber(1, 7), y]) <= ExactNumber(1, 3)
    assert exact.constant == F(-1, 3) and isinstance(exact.constant, F)
    assert isinstance(0.0 - ExactNumber(1, 3), ExactNumber) and F(1, 2) * ExactNumber(2, 3) == F(1, 3)
    assert isinstance(F(1, 2) * ExactNumber(2, 3), ExactNumber)
    # the twin: pulp 3.x keeps a plain Fraction added to a sum as a float (what the lab must never read as 1/3)
    floated = pulp.lpSum([x * F(1, 7), y]) <= F(1, 3)
    if pulp_floats_sums():
        assert isinstance(floated.constant, float) and floated.constant != F(-1, 3)
    # a float that is not an integer gives a float, never an exact number
    assert isinstance(ExactNumber(1, 3) + 0.5, float) and isinstance(0.1 * ExactNumber(1, 3), float)


def test_a_plugin_is_given_the_instance_in_exact_numbers():
    view = exact_view(THIRD)
    assert view == THIRD and all(isinstance(c, ExactNumber) for c in view.capacities)
    assert mechanisms.allocate(lambda inst: [inst.capacities[0] * 1], THIRD).tasks == (F(1, 3),)


# --------------------------------------------------------------------------- the LP how-to's pattern
def test_the_how_to_lp_on_one_third_gives_exactly_one_third_and_pe_holds():
    a = mechanisms.allocate(f"{LP}:equal_tasks", THIRD)
    assert a.tasks == (F(1, 3),) and a.exactness == "rational" and type(a.tasks[0]) is F
    verdict = properties.check(f"{LP}:equal_tasks", "pe", THIRD)
    assert verdict.status == "holds", verdict.explanation


def test_an_lp_constant_pulp_turned_into_a_float_is_not_exact_and_decides_nothing():
    a = mechanisms.allocate(f"{LP}:own_fraction_bound", THIRD)
    verdict = properties.check(f"{LP}:own_fraction_bound", "pe", THIRD)
    if pulp_floats_sums():  # pulp 3.x: the constant 1/3 is the float -0.333...: not exact, no verdict
        assert a.exactness == "approximate" and "float" in a.notes[0] and "-0.333" in a.notes[0]
        assert verdict.status == "unknown" and "float" in verdict.explanation
    else:  # pulp 2.7 keeps the Fraction: exact, and right
        assert a.exactness == "rational" and a.tasks == (F(1, 3),) and verdict.status == "holds"
    b = mechanisms.allocate(f"{LP}:float_coefficient", THIRD)  # a float the author wrote: never exact
    assert b.exactness == "approximate" and "0.1" in b.notes[0]
    assert properties.check(f"{LP}:float_coefficient", "pe", THIRD).status == "unknown"


def test_cli_allocate_prints_one_third_and_check_finds_no_violation(tmp_path):
    inst = tmp_path / "third.json"
    inst.write_text('{"capacities": ["1/3", "1"], "demands": [[1, 1]]}')
    runner = CliRunner()
    out = runner.invoke(app, ["allocate", f"{LP}:equal_tasks", str(inst), "--format", "json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc["tasks"] == ["1/3"] and doc["exactness"] == "rational"
    out = runner.invoke(app, ["check", f"{LP}:equal_tasks", "pe", str(inst), "--format", "json"])
    assert out.exit_code == 0 and json.loads(out.stdout)["status"] == "holds"
    out = runner.invoke(app, ["check", f"{LP}:float_coefficient", "pe", str(inst), "--format", "json"])
    assert out.exit_code == 0 and json.loads(out.stdout)["status"] == "unknown"


def test_a_plain_plugin_returning_floats_is_approximate():
    inst = Instance.build([1, 1], [[3, 1], [1, 7]])
    a = mechanisms.allocate(f"{LP}:returns_floats", inst)
    assert a.exactness == "approximate" and "tasks[0] = " in a.notes[0]
    assert properties.check(f"{LP}:returns_floats", "si", inst).status == "unknown"
    # the twin: the same split in exact numbers decides
    exact = mechanisms.allocate(lambda i: [min(c / i.n / d for c, d in zip(i.capacities, row)) for row in i.demands],
                                inst)
    assert exact.exactness == "rational"


# --------------------------------------------------------------------------- a researcher's LP
def test_a_researchers_lp_on_sevenths_is_exact_and_feasible():
    inst = Instance.build(["234/7", 10], [["7/3", 1], [1, "1/7"]], resources=["CPU", "GB"])
    a = mechanisms.allocate(f"{LP}:weighted_floor", inst)
    assert a.exactness == "rational"
    used = [sum(t * inst.demands[i][r] for i, t in enumerate(a.tasks)) for r in range(2)]
    assert all(u <= c for u, c in zip(used, inst.capacities)) and any(u == c for u, c in zip(used, inst.capacities))
    verdict = properties.check(f"{LP}:weighted_floor", "pe", inst)
    assert verdict.status in ("holds", "violated", "none-found"), verdict.explanation


def test_a_researchers_lp_audits(tmp_path):
    report = audit(f"{LP}:weighted_floor", 2, 2, properties_=["pe"], candidates=5, time_limit=600,
                   store=tmp_path / "store")
    assert all(r.status.value in ("proved", "none-found", "violated", "unknown") for r in report.results), \
        [r.explanation for r in report.results]


# --------------------------------------------------------------------------- ties
def test_a_tied_lp_gets_the_lexicographically_greatest_optimum():
    inst = Instance.build([1, 1], [[4, 0], [4, 3]])  # 4 t0 + 4 t1 <= 1: every split of 1/4 is optimal
    a = mechanisms.allocate(f"{LP}:utilitarian", inst)
    assert a.tasks == (F(1, 4), 0) and any("lexicographically greatest" in note for note in a.notes)
    swapped = Instance.build([1, 1], [[4, 3], [4, 0]])
    assert mechanisms.allocate(f"{LP}:utilitarian", swapped).tasks == (F(1, 4), 0)


def test_a_tied_lp_proves_pe_and_its_proof_can_fail():
    proved = fairlab.prove(f"{LP}:utilitarian", "pe", 2, 2, time_limit=300)
    assert proved.status == "proved", proved.explanation
    assert proved.details["gates"]["conformance"] == "passed"
    refuted = fairlab.prove(f"{LP}:utilitarian", "si", 2, 2, time_limit=300)  # maximising the total starves users
    assert refuted.status == "refuted", refuted.explanation


def test_lexicographic_max_takes_bounds():
    from fairlab.core.lp import OPTIMAL, UNBOUNDED, lexicographic_max

    # x0 + x1 <= 1 with x0 in [-1, 1/2], x1 free below: x0 = 1/2, then x1 = 1/2
    status, x = lexicographic_max(2, [[1, 1]], [1], lower=[-1, None], upper=[F(1, 2), None])
    assert status == OPTIMAL and x == [F(1, 2), F(1, 2)]
    status, x = lexicographic_max(2, [[1, 1]], [1], lower=[-1, None], upper=[None, None])
    assert status == UNBOUNDED and x is None  # x0 has no greatest value once x1 may go to -infinity


# --------------------------------------------------------------------------- wrong answers are findings
@pytest.mark.parametrize("fn, needle", [
    ("triple_at_two", "wrong answer: infeasible, resource r"),
    ("negative_at_two", "wrong answer: user 1 gets a negative number of tasks -1"),
    ("one_short_at_two", "wrong answer: returned 1 task counts for 2 users"),
])
def test_a_wrong_answer_is_a_finding_at_the_plugins_line(fn, needle):
    inst = Instance.build([4, 4], [[1, 2], [2, 1]])
    with pytest.raises(PluginBadAnswer, match=needle) as caught:
        mechanisms.allocate(f"{LP}:{fn}", inst)
    assert caught.value.where == f"{LP}:{line_of(LP, fn)}"
    one = Instance.build([4, 4], [[1, 2]])  # its answer at one user is right
    assert mechanisms.allocate(f"{LP}:{fn}", one).exactness == "rational"


def test_an_answer_that_changes_is_a_finding_in_a_check():
    inst = Instance.build([4, 4], [[1, 2], [2, 1]])
    verdicts = []
    for _ in range(2):
        try:
            verdicts.append(properties.check(f"{LP}:alternates", "pe", inst).status)
        except PluginBadAnswer as exc:
            assert "not a deterministic mechanism" in str(exc) and exc.where.endswith(f":{line_of(LP, 'alternates')}")
            verdicts.append("error")
    assert "error" in verdicts


def test_an_infeasible_plugin_is_an_error_row_and_the_report_is_whole(tmp_path):
    report = audit(f"{LP}:triple_at_two", 2, 1, properties_=["si", "pe", "ef"], candidates=10,
                   store=tmp_path / "store")
    rows = {r.property: r for r in report.results}
    for prop in ("si", "pe", "ef"):
        row = rows[prop]
        assert row.status.value == "error", row.explanation
        assert "wrong answer: infeasible" in row.explanation and row.instance.n == 2 and row.instance.m == 1
        assert row.certificate["where"] == f"{LP}:{line_of(LP, 'triple_at_two')}"
    document = json.loads(json.dumps(report.to_dict()))
    validate(document, "audit")
    text = markdown.render(document)
    assert "## Errors (raises and wrong answers)" in text and "wrong answer: infeasible" in text
    page = render_html(document)
    assert "wrong answer: infeasible" in page and "answered wrongly" in page
    # the twin: a well-behaved split at n = 2 is no error
    fine = audit(f"{LP}:returns_floats", 2, 1, properties_=["si"], candidates=5, store=tmp_path / "store2")
    assert fine.results[0].status.value != "error"


def test_cli_audit_of_an_infeasible_plugin_exits_0_with_its_report(tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRLAB_STORE", str(tmp_path / "store"))
    out = CliRunner().invoke(app, ["audit", f"{LP}:triple_at_two", "-n", "2", "-m", "1", "--property", "pe",
                                   "--candidates", "5", "--format", "json", "--progress", "none", "-j", "1",
                                   "--out", str(tmp_path / "report.html")])
    assert out.exit_code == 0, out.output
    document = json.loads(out.stdout)
    validate(document, "audit")
    assert document["properties"][0]["status"] == "error"
    assert "wrong answer: infeasible" in (tmp_path / "report.html").read_text()


# --------------------------------------------------------------------------- fairlab allocate
def test_cli_allocate_stops_a_sleeping_plugin_with_one_line(tmp_path):
    from fairlab.cli.commands.mechanisms import ALLOCATE_SECONDS

    assert 0 < ALLOCATE_SECONDS < float("inf")  # there is a default limit
    out = CliRunner().invoke(app, ["allocate", f"{PLUGINS / 'hangs.py'}:sleeps", "drf-paper", "--time-limit", "1"])
    assert out.exit_code == 2 and "did not return within 1 s" in out.output
    assert len(out.output.strip().splitlines()) == 1


def test_cli_allocate_notices_an_answer_that_changes():
    out = CliRunner().invoke(app, ["allocate", f"{LP}:alternates", "drf-paper"])
    assert out.exit_code == 2 and "not a deterministic mechanism" in out.output
    assert len(out.output.strip().splitlines()) == 1
    fine = CliRunner().invoke(app, ["allocate", f"{LP}:triple_at_two", "thm1-asset-si"])
    assert fine.exit_code == 2 and "wrong answer: infeasible" in fine.output


# --------------------------------------------------------------------------- the shipped LP DRF audits like DRF
FILLING = Path(__file__).parents[2] / "examples" / "lp" / "filling.py"


def _agree(lp_rows, builtin_rows):
    """On every property both decide, the same answer: a violation for both or for neither."""
    for prop, mine in lp_rows.items():
        theirs = builtin_rows[prop]
        assert mine != "error", prop
        if "violated" in (mine, theirs) and {mine, theirs} <= {"violated", "proved", "none-found"}:
            assert mine == theirs, (prop, mine, theirs)


@pytest.mark.slow  # two audits: minutes; on a loaded machine the audit's wall clock may cut it
def test_the_shipped_lp_drf_audits_at_two_by_two_with_drfs_statuses(tmp_path):
    props = ["pe", "rm", "njc"]
    lp = audit(f"{FILLING}:drf", 2, 2, properties_=props, candidates=10, time_limit=900, store=tmp_path / "a")
    builtin = audit("drf", 2, 2, properties_=props, candidates=10, time_limit=900, store=tmp_path / "b")
    lp_rows = {r.property: r.status.value for r in lp.results}
    builtin_rows = {r.property: r.status.value for r in builtin.results}
    _agree(lp_rows, builtin_rows)
    assert lp_rows["rm"] == builtin_rows["rm"] == "violated"  # the DRF paper's resource monotonicity failure
    assert lp_rows["pe"] in ("none-found", "unknown")  # never violated, never an error (a wall clock may cut it)


@pytest.mark.slow
@pytest.mark.parametrize("size", [2, 3])
def test_the_shipped_lp_drf_has_drfs_whole_profile(size, tmp_path):
    lp = audit(f"{FILLING}:drf", size, size, time_limit=3600, store=tmp_path / "a")
    builtin = audit("drf", size, size, time_limit=3600, store=tmp_path / "b")
    _agree({r.property: r.status.value for r in lp.results}, {r.property: r.status.value for r in builtin.results})


def test_a_hand_made_mechanism_whose_allocation_holds_floats_decides_nothing():
    from fairlab.mechanisms.base import Allocation, Mechanism

    def floats(instance, **options):
        return Allocation("floats", instance, (0.25,) * instance.n)

    def exact(instance, **options):
        return Allocation("exact", instance, (F(1, 4),) * instance.n)

    inst = Instance.build([1, 1], [[1, 1], [1, 1]])
    made = Mechanism(name="hand-made floats", summary="", source="test", allocate=floats)
    assert properties.check(made, "pe", inst).status.value == "unknown"
    twin = Mechanism(name="hand-made exact", summary="", source="test", allocate=exact)
    assert properties.check(twin, "pe", inst).status.value == "violated"  # 1/4 each leaves half of everything
