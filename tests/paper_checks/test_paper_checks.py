"""The paper-check ledger: every fast entry runs and comes out as expected, the errata carry the
lab's exact corrected values, the judges can fail, and the `fairlab paper-check` command."""

import json
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from fairlab.cli import app
from fairlab.core.exact import Algebraic
from fairlab.core.results import to_dict
from fairlab.mechanisms import allocate
from fairlab.paper_checks import claims, ledger

runner = CliRunner()
FAST = [e for e in ledger.CLAIMS if not e.slow]
SLOW = [e for e in ledger.CLAIMS if e.slow]


def _result(entry_id, ctx=None):
    entry = next(e for e in ledger.CLAIMS if e.id == entry_id)
    return ledger.check_claim(entry, ctx or ledger.Context())


# --------------------------------------------------------------------------- the ledger itself
def test_every_entry_is_transcribed_with_source_claim_and_check():
    ids = [e.id for e in ledger.CLAIMS]
    assert len(ids) == len(set(ids)) >= 45
    sources = {e.source for e in ledger.CLAIMS}
    assert sources == {ledger.DRF, ledger.NOTES, ledger.LECTURE, ledger.BR, ledger.PDRF}
    for e in ledger.CLAIMS:
        assert e.where and e.claim and e.check and e.expect in ledger.STATUSES
        assert (e.expect == "out-of-scope") == bool(e.reason), e.id
        assert (e.expect == "lab-finding") == bool(e.reading), e.id


#: the lecture's entries about a paper it cites: each names what the paper claims and what the lab does not check
CITING = ["lecture-indivisible", "lecture-beyond-drf-zero-weights", "lecture-multiple-machines-randomized",
          "lecture-dynamic-no-reallocation", "lecture-dynamic-disruptions", "lecture-fairness-ratio",
          "lecture-sequential-minmax", "lecture-drfh-properties", "lecture-drfh-bestfit-example",
          "lecture-controlled-disruptions", "lecture-ks-lottery", "lecture-random-dictatorship"]


def test_the_lecture_entries_name_what_their_paper_claims_and_what_is_not_checked():
    entries = {e.id: e for e in ledger.CLAIMS}
    for name in CITING:
        assert entries[name].paper_claims and entries[name].not_checked, name
    assert "service isolation" in entries["lecture-drfh-properties"].not_checked
    assert "Wang, Li & Liang" in entries["lecture-drfh-properties"].claim


def test_the_wording_rule_statuses_of_the_readings():
    """One mechanism's sp failure on the lab's reading does not reproduce an impossibility over all mechanisms; the
    notes' own arithmetic is not a source's statement; the lab's own rules and readings are lab findings."""
    expect = {e.id: e.expect for e in ledger.CLAIMS}
    for name in ("lecture-sequential-minmax", "lecture-random-dictatorship", "lecture-drfh-properties",
                 "lecture-ks-lottery", "lecture-controlled-disruptions", "lecture-drfh-bestfit-example",
                 "drf-thm7-machines-continuous", "drf-appendix-pm-zero-demands", "rediscover-lab-readings"):
        assert expect[name] == "lab-finding", name
    assert expect["lecture-indivisible"] == "reproduced"  # the impossibility itself, over every allocation
    assert expect["drf-appendix-pm"] == "reproduced"  # proved on the paper's domain (positive demands)
    entry = next(e for e in ledger.CLAIMS if e.id == "lecture-sequential-minmax")
    assert entry.words.startswith("lab finding (reading: SequentialMinMax")
    assert set(ledger.WORDING) == set(ledger.STATUSES)


def test_claim_refuses_an_entry_that_breaks_the_wording_rule():
    with pytest.raises(ValueError, match="names its reading"):
        ledger.claim("x", ledger.DRF, "w", "c", "k", "lab-finding")
    with pytest.raises(ValueError, match="names its reading"):
        ledger.claim("x", ledger.DRF, "w", "c", "k", "reproduced", reading="mine")
    with pytest.raises(ValueError, match="gives its reason"):
        ledger.claim("x", ledger.DRF, "w", "c", "k", "lab-finding", reason="r", reading="mine")
    assert ledger.status_words("lab-finding", "mine") == "lab finding (reading: mine)"
    assert ledger.status_words("reproduced", "mine") == "reproduced"


def test_a_lab_finding_whose_item_fails_is_not_ok():
    good = ledger.Evidence([ledger.same("x", "1", 1)])
    bad = ledger.Evidence([ledger.same("x", "1", 2)])
    for evidence, ok in ((good, True), (bad, False), (ledger.Evidence([]), False)):
        entry = ledger.Claim("f", ledger.LECTURE, "w", "c", "k", "lab-finding", lambda ctx, e=evidence: e,
                             reading="mine")
        result = ledger.check_claim(entry)
        assert result.status == "lab-finding" and ledger.ok(result) is ok
        assert result.details["words"] == "lab finding (reading: mine)"


@pytest.mark.parametrize("entry", FAST, ids=[e.id for e in FAST])
def test_fast_entry_comes_out_as_expected(entry):
    result = ledger.check_claim(entry)
    assert "error" not in result.details, result.details
    assert result.kind == "claim"
    assert result.status == entry.expect, [(i.name, i.printed, i.computed)
                                           for i in ledger.items(result) if not i.matches]
    assert ledger.ok(result)
    if entry.expect != "out-of-scope":
        assert ledger.items(result)  # something was compared


@pytest.mark.slow
@pytest.mark.parametrize("entry", SLOW, ids=[e.id for e in SLOW])
def test_slow_entry_comes_out_as_expected(entry):
    result = ledger.check_claim(entry, ledger.Context(runs=1000))
    assert "error" not in result.details and result.status == entry.expect and ledger.ok(result)


# --------------------------------------------------------------------------- the errata, exactly
def _computed(result):
    return {i.name: i.computed for i in ledger.items(result)}


def test_theorem_4_capacity_erratum_exact_values():
    result = _result("drf-thm4-capacity")
    assert result.status == "erratum"
    assert _computed(result) == {"user 1 tasks": "25/8", "user 2 tasks": "50"}
    assert allocate("ceei", {"capacities": [100, 100], "demands": [[16, 1], [1, 2]]}).tasks == (Fraction(100, 31),
                                                                                              Fraction(1500, 31))
    assert "user 2" in _computed(_result("drf-thm4-who-loses"))["who loses"]


def test_theorem_4_decimals_corrected():
    bad = {i.name: i.computed for i in ledger.items(_result("drf-thm4-misreport")) if not i.matches}
    assert bad == {"25/6": "4.2 (25/6)", "100/3": "33.3 (100/3)"}
    bad = {i.name: i.computed for i in ledger.items(_result("drf-thm4-decimals")) if not i.matches}
    assert bad == {"1500/31": "48.4 (1500/31)"}


def test_pdrf_6_1_cycle_corrected_counts():
    c = _computed(_result("pdrf-6.1-cycle"))
    assert c["per cycle (A, B, C)"] == "<5, 2, 1>" and c["consumed"] == "28" and c["left"] == "7"
    assert allocate("pdrf", {"capacities": [35], "demands": [[2], [4], [10]]}).tasks == (5, 2, 1)


def test_pdrf_3_3_ratio_and_table_2_sums():
    assert _computed(_result("pdrf-3.3-cycle-example"))["ds* / ds_A"] == "3/2"
    c = _computed(_result("pdrf-table2-sums"))
    assert c == {"1-100 over Avg.": "50.757 (50757/1000)", "1-1000 over Avg.": "84.049 (84049/1000)"}


def test_drf_population_monotonicity_fails_with_a_zero_demand():
    before = allocate("drf", {"capacities": [1, 1, 2], "demands": [[0, 0, 1], [1, 0, 0], [1, 0, 1]]}).tasks
    after = allocate("drf", {"capacities": [1, 1, 2], "demands": [[0, 0, 1], [1, 0, 1]]}).tasks
    assert (before[0], after[0]) == (Fraction(3, 2), Fraction(4, 3))


def test_lecture_ceei_one_bundle_is_off_by_one():
    bad = [i for i in ledger.items(_result("lecture-ceei")) if not i.matches]
    assert [i.name for i in bad] == ["agent 2 bundle ≈"]


def test_pdrf_tables_small_configuration():
    """With 60 runs per row the sampling bands are wider but still separate the 1-1000 row."""
    ctx = ledger.Context(runs=60)
    assert _result("pdrf-table1", ctx).status == "reproduced"
    gap = _result("pdrf-table2-1-1000", ctx)
    averages = [i for i in ledger.items(gap) if i.name.endswith("avg")]
    assert gap.status == "erratum" and len(averages) == 2 and not any(i.matches for i in averages)


# --------------------------------------------------------------------------- the judges can fail
def test_judges():
    assert ledger.exact("x", "100/31", Fraction(100, 31)).matches
    assert not ledger.exact("x", "3", Fraction(301, 100)).matches
    assert ledger.rounded("x", "48.3", Fraction(1500, 31)).matches  # truncated
    assert ledger.rounded("x", "48.4", Fraction(1500, 31)).matches  # rounded
    assert not ledger.rounded("x", "48.8", Fraction(1500, 31)).matches
    alg = allocate("ceei", {"capacities": [100, 100], "demands": [[4, 1], [1, 16], [16, 1]]}).tasks[0]
    assert isinstance(alg, Algebraic)
    assert ledger.rounded("x", "11.3", alg).matches and not ledger.exact("x", "11", alg).matches
    assert ledger.statistical("m", 10.0, 10.5, 5.0, 100).matches
    assert not ledger.statistical("m", 10.0, 20.0, 5.0, 100).matches


def test_a_wrong_transcription_is_not_ok():
    entry = ledger.Claim("fake", ledger.DRF, "§4.1", "A gets 4 tasks", "drf", "reproduced",
                         lambda ctx: ledger.Evidence(
                             [ledger.exact("A", "4", allocate("drf", claims.EXAMPLE).tasks[0])]))
    result = ledger.check_claim(entry)
    assert result.status == "erratum" and not ledger.ok(result)
    assert to_dict(result)["certificate"]["corrected"] == {"A": "3"}


def test_a_crashing_check_is_an_error_not_a_pass():
    def boom(ctx):
        raise RuntimeError("no")

    result = ledger.check_claim(ledger.Claim("boom", ledger.DRF, "x", "y", "z", "reproduced", boom))
    assert result.status == "unknown" and "RuntimeError: no" in result.details["error"] and not ledger.ok(result)


@pytest.mark.parametrize("status", ["proved", "unknown", "proved-by-lemma"])
def test_the_all_size_entry_is_reproduced_only_from_plain_proofs(monkeypatch, status):
    """An undecided all-size proof (or one resting on a hand lemma) leaves the entry unknown — never
    an erratum of the paper, never reproduced; four plain proofs reproduce it, certificates attached."""
    from fairlab.core.results import Result

    def fake(mech, prop, *args, **kwargs):
        assert kwargs.get("all_sizes") and kwargs.get("domain") == "drf-paper"
        return Result("proof", status, mechanism="drf", property=prop, explanation=f"{status} (stand-in)",
                      details={"steps": [], "lemmas": []}, budget={"rlimit_spent": 1})

    monkeypatch.setattr(claims, "prove", fake)
    result = _result("drf-appendix-all-sizes")
    if status == "proved":
        assert result.status == "reproduced" and ledger.ok(result)
        assert set(to_dict(result)["certificate"]["all_size_proofs"]) == {"si", "ef", "pe", "sp"}
    else:
        assert result.status == "unknown" and not ledger.ok(result)
        assert f"is {status}, not proved" in result.details["error"]


# --------------------------------------------------------------------------- the command
#: entries of the summary test: a reproduction, an erratum with a corrected value, a lab finding
SUMMARY_ENTRIES = ("drf-4.1-example", "drf-thm4-capacity", "lecture-sequential-minmax")


def test_command_json_entries_and_summary():
    """The JSON document and its summary counts (each fast entry's own outcome is
    `test_fast_entry_comes_out_as_expected`; here three of them, so the set is computed once per suite)."""
    only = [arg for entry in SUMMARY_ENTRIES for arg in ("--only", entry)]
    result = runner.invoke(app, ["paper-check", "--quick", *only, "--format", "json", "--progress", "none"])
    out = json.loads(result.output)
    assert out["schema_version"] == 1 and out["kind"] == "paper-check"
    assert result.exit_code == 0, [(e["details"]["id"], e["certificate"])
                                   for e in out["results"] if not e["details"]["ok"]]
    for e in out["results"]:
        assert e["kind"] == "claim" and {"id", "source", "claim", "check", "expected", "ok"} <= set(e["details"])
        assert all({"name", "printed", "computed", "matches"} <= set(i) for i in e["certificate"]["items"])
    counts = out["summary"]
    assert counts["not-ok"] == 0
    assert (counts["reproduced"] + counts["erratum"] + counts["lab-finding"] + counts["out-of-scope"]
            == counts["entries"] == len(SUMMARY_ENTRIES))
    assert [e["details"]["id"] for e in out["results"]] == [e.id for e in FAST if e.id in SUMMARY_ENTRIES]
    smm = next(e for e in out["results"] if e["details"]["id"] == "lecture-sequential-minmax")
    assert smm["status"] == "lab-finding" and smm["details"]["words"].startswith("lab finding (reading: ")
    thm4 = next(e for e in out["results"] if e["details"]["id"] == "drf-thm4-capacity")
    assert thm4["status"] == "erratum"
    assert thm4["certificate"]["corrected"] == {"user 1 tasks": "25/8", "user 2 tasks": "50"}


def test_command_table_summary_line_and_markdown_with_figures(tmp_path):
    result = runner.invoke(app, ["paper-check", "--only", "drf-thm4-capacity", "--only", "drf-7.3-facebook"])
    assert result.exit_code == 0, result.output
    assert "reproduced" in result.output.splitlines()[-1] and "erratum" in result.output.splitlines()[-1]
    result = runner.invoke(app, ["paper-check", "--only", "drf-4.1-example", "--only", "pdrf-6.1-cycle",
                                 "--format", "markdown", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    report = (tmp_path / "report.md").read_text()
    assert "pdrf-6.1-cycle — erratum" in report and "*Corrected:*" in report
    result = runner.invoke(app, ["paper-check", "--only", "lecture-sequential-minmax", "--format", "markdown"])
    assert result.exit_code == 0, result.output
    assert "lecture-sequential-minmax — lab finding (reading: SequentialMinMax" in result.output
    assert "*What the paper claims:*" in result.output and "*Not checked by the lab:*" in result.output
    assert (tmp_path / "allocations-drf-asset-ceei.png").stat().st_size > 10_000
    assert (tmp_path / "bmf-family.png").stat().st_size > 10_000


def test_command_exits_1_when_an_entry_is_not_as_expected(monkeypatch):
    entry = next(e for e in ledger.CLAIMS if e.id == "drf-4.1-example")
    monkeypatch.setattr(entry, "expect", "erratum")
    result = runner.invoke(app, ["paper-check", "--only", "drf-4.1-example"])
    assert result.exit_code == 1


@pytest.mark.parametrize("args,field", [(["--format", "xml"], "--format"), (["--only", "nope"], "--only"),
                                        (["--runs", "0"], "--runs")])
def test_command_bad_input_one_line_exit_2(args, field):
    result = runner.invoke(app, ["paper-check", *args])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {field}")


def test_figures_leave_the_matplotlib_backend_alone(tmp_path):
    """The report's figures are drawn on `Figure` objects: the user's backend is not switched."""
    import matplotlib

    from fairlab.paper_checks import report

    before = matplotlib.get_backend()
    matplotlib.use("svg")
    try:
        report.draw_figures(tmp_path)
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use(before)
    assert (tmp_path / report.FIGURES[0]).stat().st_size > 10_000


def test_thm7_continuous_reading_is_a_lab_finding_not_an_erratum():
    # audit 19m F7: the paper states Theorem 7 pairwise (reproduced); the per-user reading against
    # continuous DRF is issue 19's, so it is a lab finding about that reading, its items holding: it fails on
    # machines-wasted-max-task (B 5/14 away > 2/7) and on the found instance (A 4/13 away > 3/13)
    from fairlab.paper_checks import ledger
    cont, pair = ledger.run(only=["drf-thm7-machines-continuous", "drf-thm7-machines-pairwise"])
    assert {c.id: c.expect for c in ledger.CLAIMS if c.id.startswith("drf-thm7-machines")} == {
        "drf-thm7-machines-continuous": "lab-finding", "drf-thm7-machines-pairwise": "reproduced"}
    results = {r.details["id"]: r for r in (cont, pair)}
    c = results["drf-thm7-machines-continuous"]
    assert c.status == "lab-finding" and ledger.ok(c)
    assert [i.computed for i in ledger.items(c)] == ["violated", "holds", "violated", "holds"]
    assert "5/14" in ledger.items(c)[0].note and "4/13" in ledger.items(c)[2].note
    assert results["drf-thm7-machines-pairwise"].status == "reproduced"
    assert not any(r.status == "erratum" for r in (cont, pair))


def test_command_reports_progress_on_stderr_only(run_cli):
    out = run_cli("paper-check", "--only", "drf-4.1-example", "--only", "drf-thm4-capacity", "--format", "json",
                  "--progress", "plain")
    assert out.returncode == 0, out.stderr
    assert [r["details"]["id"] for r in json.loads(out.stdout)["results"]] == ["drf-4.1-example", "drf-thm4-capacity"]
    lines = out.stderr.strip().splitlines()
    assert lines[0].startswith("[1/2] paper-check: drf-4.1-example reproduced (")
    assert lines[1].startswith("[2/2] paper-check: drf-thm4-capacity erratum (")
    quiet = run_cli("paper-check", "--only", "drf-4.1-example", "--format", "json", "--progress", "none")
    assert quiet.returncode == 0 and quiet.stderr == ""  # negative twin: asked for no progress, none shown
    assert json.loads(quiet.stdout)["results"][0]["status"] == "reproduced"


def test_ledger_run_tells_each_entry_as_it_ends():
    events = []
    results = ledger.run(only=["drf-4.1-example", "drf-thm4-capacity"], progress=events.append)
    assert [(e.done, e.total, e.name, e.status) for e in events] == [
        (0, 2, "", ""), (1, 2, "drf-4.1-example", "reproduced"), (2, 2, "drf-thm4-capacity", "erratum")]
    assert [r.status for r in results] == ["reproduced", "erratum"]
