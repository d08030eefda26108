"""Numeric options and mechanism options of the verbs: bad values are one-line errors (exit 2)
before any work, with one rule per kind (time limits, sizes, seeds, ranges)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from fairlab import mechanisms
from fairlab.cli import app
from fairlab.cli.commands import _params as params
from fairlab.core.errors import InputError
from fairlab.search.proof import check_options

runner = CliRunner()
LOADS = ["--loads", "0.1,0.1,0.1"]


def one_line_error(args, needle):
    out = runner.invoke(app, args)
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.exit_code == 2, (out.exit_code, out.output)
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], out.stderr
    return lines[0]


@pytest.mark.parametrize("verb", [["prove", "drf", "si"], ["search", "drf", "si"], ["matrix", "--no-store"],
                                  ["rediscover", "--no-store"]])
@pytest.mark.parametrize("value", ["nan", "inf", "1e400", "0", "-1"])
def test_time_limit_is_a_finite_positive_number_for_every_verb(verb, value):
    one_line_error([*verb, "--time-limit", value], "--time-limit: expected a finite positive number of seconds")


@pytest.mark.parametrize("verb", [["prove", "drf", "si"], ["search", "drf", "si"], ["matrix", "--no-store"]])
@pytest.mark.parametrize("flag,value", [("-n", "0"), ("-n", "-1"), ("-n", "5000"), ("-n", "99999999999999999999"),
                                        ("-m", "0"), ("-m", "7")])
def test_sizes_are_bounded_up_front(verb, flag, value):
    field = "--users" if flag == "-n" else "--resources"
    line = one_line_error([*verb, flag, value, "--time-limit", "1"], f"{field}: expected an integer from 1 to")
    assert ("out of reach" in line) == (int(value) > 1)


def test_largest_sizes_are_accepted():
    params.size(params.MAX_USERS, params.MAX_RESOURCES)


@pytest.mark.parametrize("args,needle", [
    (["prove", "drf", "si", "-o", "x=1"], "option 'x': not an option of mechanism 'drf'"),
    (["prove", "bmf", "si", "-o", "x=1"], "option 'x'"),
    (["prove", "ks", "si", "-o", "x=1"], "option 'x'"),
    (["prove", "drf-tasks", "si", "-o", "x=1"], "option 'x'"),
    (["prove", "drf", "unique", "-o", "x=1"], "option 'x'"),
    (["prove", "drf", "same-as:ceei", "-o", "x=1"], "option 'x'"),
    (["prove", "ceei", "si", "-o", "x=1"], "option 'x'"),
    (["prove", "ceei", "si", "-o", "method=bogus"], "option method"),
    (["prove", "ceei", "si", "-o", "timeout=-1"], "option timeout"),
    (["search", "drf", "si", "-o", "x=1", "--time-limit", "1"], "option 'x'"),
    (["prove", "--catalogue", "drf"], "--catalogue"),
    (["prove", "--catalogue", "-o", "x=1"], "--catalogue"),
])
def test_mechanism_options_and_catalogue_arguments(args, needle):
    one_line_error(args, needle)


def test_valid_options_pass_the_check():
    check_options(mechanisms.get("ceei"), {"method": "exact", "timeout": 5})
    check_options(mechanisms.get("drf-tasks"), {"tie": "index"})
    with pytest.raises(InputError, match="option 'x'"):
        check_options(mechanisms.get("drf"), {"x": 1})


@pytest.mark.parametrize("args,needle", [
    (["--seed", "-1"], "--seed"),
    (["--demands", "1-99999999999999999999999"], "--demands: HI must be at most"),
    (["--reserves", "1-99999999999999999999999"], "--reserves: HI must be at most"),
    (["--users", "999999999999"], "--users: expected an integer from 1 to"),
    (["--resources", "99999999999"], "--resources: expected an integer from 1 to"),
    (["--jobs", "100000"], "--jobs: expected an integer from 1 to"),
    (["--runs", "0"], "--runs"),
])
def test_pdrf_tables_ranges(args, needle):
    one_line_error(["pdrf-tables", "--no-progress", *args], needle)


@pytest.mark.parametrize("args,needle", [
    (["rates", *LOADS, "--truncation", "100000"], "--truncation: N=100000 gives"),
    (["rates", *LOADS, "--truncation", "30", "-m", "ks"], "more than --max-states 3,000"),
    (["rates", *LOADS, "--max-states", "0"], "--max-states"),
    (["rates", *LOADS, "--max-states", "-1"], "--max-states"),
    (["rates", *LOADS, "--tol", "2"], "--tol: expected a number in (0, 1)"),
    (["figure", "1", "--tol", "0"], "--tol"),
    (["figure", "1", "--tol", "nan"], "--tol"),
    (["figure", "3", "--seed", "-1"], "--seed"),
    (["figure", "3", "--flows", "0"], "--flows"),
    (["figure", "3", "--window", "0"], "--window"),
    (["packets", *LOADS, "--seed", "-1"], "--seed"),
    (["packets", *LOADS, "--mean-size", "inf"], "--mean-size"),
    (["packets", *LOADS, "--flows", "99999999999"], "--flows"),
    (["cluster", "--capacities", "1e400,1000"], "capacities[0]: at most 10^15, got 1e400"),
    (["cluster", "--seed", "-1"], "--seed"),
    (["cluster", "--completions", "99999999999"], "--completions"),
    (["cluster", "--capacities", "1e9,1e9"], "at most 1,000,000 are simulated"),
    (["cluster", "--capacities", "1,2,3"], "expected 2 values (one per resource)"),
])
def test_dynamics_ranges(args, needle, tmp_path):
    if args[0] == "figure":
        args = [*args, "--out", str(tmp_path / "figs")]
    one_line_error(["dynamics", *args], needle)
    assert not (tmp_path / "figs").exists()


def test_figure_out_must_not_be_a_file(tmp_path):
    existing = tmp_path / "f"
    existing.write_text("keep")
    for out in (existing, existing / "sub"):
        one_line_error(["dynamics", "figure", "1", "--out", str(out)], "exists and is not a directory")
    assert existing.read_text() == "keep"


def test_rates_truncation_within_max_states_still_runs():
    out = runner.invoke(app, ["dynamics", "rates", *LOADS, "--truncation", "20", "--format", "json"])
    assert out.exit_code == 0, out.output


@pytest.mark.parametrize("limit", [float("nan"), float("inf"), 0.0])
def test_prove_library_call_refuses_a_time_limit_that_is_not_finite_positive(limit):
    """The same rule as the CLI's, at the library's own entry point."""
    from fairlab import mechanisms
    from fairlab.core.errors import InputError
    from fairlab.search import prove

    with pytest.raises(InputError, match="finite positive"):
        prove(mechanisms.get("drf"), "si", 2, 2, time_limit=limit)
