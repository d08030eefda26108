"""`fairlab audit` and `fairlab check MECHANISM all INSTANCE` from the command line: the three output
formats, the HTML report, bad input refused in one line before any work, a misbehaving plug-in."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from fairlab import properties
from fairlab.core.schemas import validate

ROOT = Path(__file__).resolve().parents[2]


def test_audit_json_markdown_and_table(run_cli, tmp_path):
    args = ["audit", "asset", "-n", "2", "-m", "1", "--property", "sp", "--property", "srf", "--property", "rm",
            "--store", tmp_path / "store"]
    out = run_cli(*args, "--format", "json")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    validate(document, "audit")
    assert document["mechanism"] == "asset" and document["sizes"] == [[1, 1], [2, 1]]
    statuses = {row["property"]: row["status"] for row in document["properties"]}
    assert statuses["sp"] == "proved" and statuses["srf"] == "proved"
    md = run_cli(*args, "--format", "markdown")
    assert md.returncode == 0 and md.stdout.startswith("# fairlab audit: asset")
    # the proof covers asset's whole declared domain (one weight per user): nothing to qualify
    assert "| sp (strategyproofness) | **proved up to 2×1** |" in md.stdout
    table = run_cli(*args)
    assert table.returncode == 0 and "proved up to 2×1" in table.stdout
    assert "reproduce: fairlab audit asset" in table.stdout


def test_audit_writes_the_html_report(run_cli, tmp_path):
    report = tmp_path / "report.html"
    out = run_cli("audit", "asset", "-n", "2", "-m", "2", "--property", "si", "--property", "sp", "--no-store",
                  "--out", report)
    assert out.returncode == 0, out.stderr
    page = report.read_text(encoding="utf-8")
    assert "fairlab audit" in page and 'data-property="si"' in page and "<svg" in page
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")


@pytest.mark.parametrize("args,words", [
    (["audit", "nope"], ["nope", "unknown"]),
    (["audit", "drf", "--users", "0"], ["--users"]),
    (["audit", "drf", "--users", "7"], ["--users"]),
    (["audit", "drf", "--resources", "9"], ["--resources"]),
    (["audit", "drf", "--time-limit", "nan"], ["--time-limit"]),
    (["audit", "drf", "--time-limit", "-1"], ["--time-limit"]),
    (["audit", "drf", "--candidates", "0"], ["--candidates"]),
    (["audit", "drf", "--jobs", "0"], ["--jobs"]),
    (["audit", "drf", "--property", "fairness"], ["fairness"]),
    (["audit", "drf", "--format", "xml"], ["--format"]),
    (["audit", "drf", "--option", "tie=nonsense"], ["tie"]),
    (["check", "drf", "everything", "drf-paper"], ["everything"]),
])
def test_bad_input_is_one_line(run_cli, assert_one_line_error, args, words):
    assert_one_line_error(run_cli(*args, timeout=60), *words)


def test_bad_out_path_is_refused_before_any_work(run_cli, assert_one_line_error, tmp_path):
    start = time.monotonic()
    out = run_cli("audit", "drf", "--out", tmp_path, timeout=60)  # a directory
    assert_one_line_error(out, "--out")
    assert time.monotonic() - start < 30
    out = run_cli("audit", "drf", "--out", tmp_path / "missing" / "deeper" / "r.html", timeout=60)
    assert out.returncode == 2 or (tmp_path / "missing" / "deeper" / "r.html").exists()


def test_plugin_that_raises_or_hangs(run_cli, assert_one_line_error, plugins, tmp_path):
    report = tmp_path / "r.html"
    out = run_cli("audit", f"{plugins / 'unfair.py'}:raises", "-n", "1", "-m", "1", "--no-store", "--out", report,
                  timeout=120)
    assert out.returncode == 0, out.stderr  # a crash is a finding (issue 27): error rows, the report written
    assert "error at 1×1" in out.stdout and "boom" in out.stdout and report.exists()
    start = time.monotonic()
    # a net of 15 s: the audit's own start (imports, on a loaded machine seconds) must leave the plug-in a call
    out = run_cli("audit", f"{plugins / 'hangs.py'}:f", "-n", "1", "-m", "1", "--no-store", "--time-limit", "15",
                  timeout=120)
    errors = [line for line in out.stderr.strip().splitlines() if not re.match(r"\[\d+/\d+\] ", line)]  # progress
    assert out.returncode == 2 and out.stdout == "" and len(errors) == 1, out.stderr
    assert time.monotonic() - start < 60


def test_check_all(run_cli):
    out = run_cli("check", "asset", "all", "thm1-asset-si", "--format", "json")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    validate(document, "report")
    assert document["kind"] == "check-all"
    got = {r["property"]: r["status"] for r in document["results"]}
    assert got["si"] == "violated" and len(got) == len(properties.names("pool"))
    table = run_cli("check", "asset", "all", "thm1-asset-si")
    assert table.returncode == 0 and "violated" in table.stdout


def _verdicts(document: dict) -> list:
    return [(row["property"], row["status"], row["instance"], row["witness"], row["found_by"], row["proved_sizes"],
             row["candidates_by_size"], [(s["users"], s["resources"], s["status"]) for s in row["sizes"]])
            for row in document["properties"]]


SERIAL_DICTATORSHIP = f"{ROOT / 'examples/plugins/serial_dictatorship.py'}:serial_dictatorship"


@pytest.mark.parametrize("mechanism", ["drf", SERIAL_DICTATORSHIP])
def test_audit_jobs_gives_the_serial_verdicts_in_the_same_order(run_cli, mechanism):
    """--jobs 2 runs each property in a process of its own: the same statuses, instances, witnesses
    and candidates as --jobs 1, in the same order (a plug-in's own process ends with its worker)."""
    # four properties, enough to see the order kept and a violation among the verdicts (asserted
    # below); every property's own verdicts are tested elsewhere
    chosen = [arg for name in ("rm", "si", "ef", "njc") for arg in ("--property", name)]
    args = ["audit", mechanism, "-n", "2", "-m", "2", "--candidates", "15", *chosen, "--no-store", "--format",
            "json", "--progress", "plain"]
    serial, parallel = run_cli(*args, "--jobs", "1", timeout=240), run_cli(*args, "--jobs", "2", timeout=240)
    assert serial.returncode == 0 and parallel.returncode == 0, (serial.stderr, parallel.stderr)
    one, two = json.loads(serial.stdout), json.loads(parallel.stdout)
    assert _verdicts(one) == _verdicts(two)
    assert {row["status"] for row in two["properties"]} - {"proved", "none-found"}  # something violated too
    finished = [line for line in parallel.stderr.splitlines() if re.match(r"\[\d+/\d+\] ", line)]
    assert finished[0].startswith("[1/") and "examples" in finished[0]  # the examples' check first
    assert len(finished) == 1 + sum(len(row["sizes"]) for row in two["properties"])  # then one per property and size


def test_audit_latex_table_and_figures(run_cli, tmp_path):
    """--format latex prints only the booktabs table; --figures writes the report's figure as SVG and
    PDF into the folder (created) and says so on stderr."""
    folder = tmp_path / "figs"
    out = run_cli("audit", "drf", "-n", "2", "-m", "2", "--property", "rm", "--no-store", "--format", "latex",
                  "--figures", folder, "--progress", "none")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("% fairlab audit drf") and r"\toprule" in out.stdout
    assert out.stdout.rstrip().endswith(r"\end{table}")
    assert sorted(p.name for p in folder.iterdir()) == ["drf-rm.pdf", "drf-rm.svg"]
    assert f"figures: 2 files in {folder}" in out.stderr


def test_a_figures_path_that_is_a_file_is_refused_before_any_work(run_cli, assert_one_line_error, tmp_path):
    afile = tmp_path / "figs"
    afile.write_text("keep me")
    start = time.monotonic()
    out = run_cli("audit", "drf", "--figures", afile, timeout=60)
    assert_one_line_error(out, "--figures", "is a file")
    assert time.monotonic() - start < 30 and afile.read_text() == "keep me"
    assert_one_line_error(run_cli("audit", "drf", "--format", "tex", timeout=60), "--format")
