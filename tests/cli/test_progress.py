"""``--progress plain|bar|none`` (issue 28): off a terminal one line per finished unit on stderr, on a
terminal a bar, ``none`` silent; stdout stays the JSON asked for. No timing is asserted."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import select
import subprocess
import sys

import pytest

from fairlab.campaign import run
from fairlab.cli import progress
from fairlab.core.errors import InputError
from fairlab.core.progress import Unit

#: a plain line: [done/total] TITLE: NAME STATUS (SECONDS, ~LEFT left); the parentheses are optional
LINE = re.compile(r"\[(\d+)/(\d+)\] (.+?): (.+?)(?: \(((?:\d+(?:\.\d)? (?:s|min|h))?(?:, )?(?:~.+ left)?)\))?")

SPEC = """verb = "search"
[sweep]
mechanisms = ["drf", "asset"]
properties = ["si"]
sizes = [[2, 2]]
seeds = [0]
[budget]
candidates = 10
time_limit = 30
"""


class Stream(io.StringIO):
    """A text stream that is (or is not) a terminal."""

    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


# --------------------------------------------------------------------------- the rule, written once
def test_the_line_format():
    assert progress.line("audit drf", Unit(3, 14, "sp 3×3", "violated", 2.1), 25.0) == \
        "[3/14] audit drf: sp 3×3 violated (2.1 s, ~25 s left)"
    assert progress.line("audit drf", Unit(14, 14, "njc 3×3", "none-found", 12.3), 0.0) == \
        "[14/14] audit drf: njc 3×3 none-found (12 s)"  # the last unit: nothing left to estimate
    assert progress.line("matrix", Unit(2, 9, "search ks si 2×2 seed 0", "holds", None), 130.0) == \
        "[2/9] matrix: search ks si 2×2 seed 0 holds (~2.2 min left)"
    assert progress.line("rediscover", Unit(1, 11, "rediscover pf-sp", "found", 0.04), None) == \
        "[1/11] rediscover: pf-sp found (0.0 s)"  # the verb is not repeated
    assert progress.line("search x", Unit(1, 1, "si\n2×2\x1b", "unknown", 7200.0), None) == \
        "[1/1] search x: si 2×2 unknown (2.0 h)"  # what a plug-in's name carries reaches no terminal
    assert LINE.fullmatch(progress.line("audit drf", Unit(3, 14, "sp 3×3", "violated", 2.1), 25.0))


def test_the_default_is_chosen_by_isatty():
    assert progress.choose(None, Stream(tty=True)) == "bar"
    assert progress.choose(None, Stream(tty=False)) == "plain"
    assert [progress.choose(mode, Stream(tty=True)) for mode in progress.MODES] == list(progress.MODES)
    with pytest.raises(InputError, match="--progress: expected plain, bar or none"):
        progress.choose("fancy")


def test_plain_writes_a_line_per_finished_unit_none_writes_nothing():
    shown = {}
    for mode in ("plain", "none"):
        stream = Stream(tty=False)
        with progress.Reporter(mode, "campaign c.toml", stream) as report:
            report(Unit(0, 2))  # the total: no line
            report("si at 2×2: search")  # a step starting: no line
            report(Unit(1, 2, "search drf si", "holds", 1.0))
            report(Unit(2, 2, "search asset si", "error", None))
        shown[mode] = stream.getvalue()
    lines = shown["plain"].splitlines()
    assert len(lines) == 2 and re.fullmatch(r"\[1/2\] campaign c\.toml: search drf si holds \(1\.0 s, ~.+ left\)",
                                            lines[0])
    assert lines[1] == "[2/2] campaign c.toml: search asset si error"
    assert shown["none"] == ""


def test_bar_draws_on_a_terminal_and_writes_no_line():
    stream = Stream(tty=True)
    with progress.Reporter("bar", "matrix", stream) as report:
        report(Unit(0, 2))
        report(Unit(1, 2, "search drf si", "holds", 1.0))
    drawn = stream.getvalue()
    assert "matrix" in drawn and "[1/2]" not in drawn and "1/2" in drawn  # rich's "1/2" column, no plain line


# --------------------------------------------------------------------------- the engines' events
def test_the_audit_reports_every_unit_it_runs(run_cli):
    out = run_cli("audit", "drf", "-n", "1", "-m", "2", "--property", "si", "--property", "sp", "--no-store",
                  "--format", "json")  # stderr is a pipe: plain by default
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    matches = [LINE.fullmatch(line) for line in out.stderr.splitlines()]
    assert matches and all(matches), out.stderr
    assert [int(m[1]) for m in matches] == list(range(1, len(matches) + 1))
    assert int(matches[-1][2]) == len(matches) and {m[3] for m in matches} == {"audit drf"}
    assert matches[0][4] in ("examples none violated", "examples violated si", "examples violated sp",
                             "examples violated si, sp")
    ran = [f"{row['property']} {size['users']}×{size['resources']} {size['status']}"
           for row in document["properties"] for size in row["sizes"]]
    assert sorted(m[4] for m in matches[1:]) == sorted(ran)  # one line per property and size run


def test_run_cells_reports_the_total_then_each_cell(tmp_path):
    spec = tmp_path / "c.toml"
    spec.write_text(SPEC)
    events = []
    summary = run.run(spec, tmp_path / "out", workers=1, progress=events.append)
    assert events[0] == Unit(0, 2) and [e.done for e in events] == [0, 1, 2] and {e.total for e in events} == {2}
    assert sorted(e.name for e in events[1:]) == ["search asset si 2×2 seed 0", "search drf si 2×2 seed 0"]
    assert sorted(e.status for e in events[1:]) == sorted(k for k, v in summary["outcomes"].items() for _ in range(v))
    again = []
    run.run(spec, tmp_path / "out", workers=1, progress=again.append)
    assert again == [Unit(0, 0)]  # resumed: nothing left to run


# --------------------------------------------------------------------------- the verbs
def test_campaign_plain_lines_and_json_on_stdout(run_cli, tmp_path):
    spec = tmp_path / "c.toml"
    spec.write_text(SPEC)
    out = run_cli("campaign", "run", spec, "--out", tmp_path / "out", "--no-store", "-j", "2", "--format", "json",
                  "--progress", "plain")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["kind"] == "campaign-run"
    matches = [LINE.fullmatch(line) for line in out.stderr.splitlines()]
    assert len(matches) == 2 and all(matches), out.stderr
    assert sorted((m[1], m[2], m[3]) for m in matches) == [("1", "2", "campaign c.toml"), ("2", "2", "campaign c.toml")]
    lines = sorted(m[4] for m in matches)
    assert lines[0].startswith("search asset si 2×2 seed 0 ") and lines[1].startswith("search drf si 2×2 seed 0 ")


def test_search_plain_none_and_a_bad_mode(run_cli, assert_one_line_error):
    args = ["search", "drf", "si", "-n", "2", "-m", "2", "--candidates", "5", "--no-store", "--format", "json"]
    plain = run_cli(*args, "--progress", "plain")
    assert plain.returncode == 0, plain.stderr
    status = json.loads(plain.stdout)["status"]
    [line] = plain.stderr.splitlines()
    assert re.fullmatch(rf"\[1/1\] search drf: si 2×2 {re.escape(status)} \(\d+(\.\d)? s\)", line), line
    silent = run_cli(*args, "--progress", "none")
    assert silent.returncode == 0 and silent.stderr == "" and json.loads(silent.stdout)["status"] == status
    assert_one_line_error(run_cli(*args, "--progress", "fancy"), "--progress", "fancy")


def test_on_a_terminal_the_default_is_the_bar(tmp_path):
    """stderr on a pseudo-terminal, stdout a pipe: a bar (no plain line) on the terminal, JSON on stdout."""
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM", "COLUMNS")}
    process = subprocess.Popen([sys.executable, "-m", "fairlab", "search", "drf", "si", "-n", "2", "-m", "2",
                                "--candidates", "5", "--no-store", "--format", "json"], stdout=subprocess.PIPE,
                               stderr=slave, stdin=subprocess.DEVNULL, env={**env, "TERM": "xterm"})
    os.close(slave)
    drawn = b""
    while True:
        ready, _, _ = select.select([master], [], [], 120)
        if not ready:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        drawn += chunk
    stdout, _ = process.communicate(timeout=120)
    os.close(master)
    assert process.returncode == 0, drawn
    assert json.loads(stdout)["kind"] == "search"
    text = drawn.decode("utf-8", "replace")
    assert "search drf" in text and "[1/1]" not in text, text
