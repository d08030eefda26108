"""`fairlab paper-check`: the ledger of every numeric claim in the sources, checked by the lab.

    fairlab paper-check                       # table with statuses and a summary line
    fairlab paper-check --format json         # a report: one claim Result per entry, and a summary
    fairlab paper-check --format markdown --out report/   # report.md with figures

Progress (a line per entry as it ends, or a bar on a terminal) goes to stderr: ``--progress``.

Exit code 1 if any entry does not come out as the ledger expects (an entry meant to reproduce
that does not, or an erratum that is no longer one), 2 on bad input. See paper_checks/ledger.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from fairlab.cli import progress as progress_
from fairlab.cli.inputs import check_format, fail
from fairlab.cli.output import console, emit_json
from fairlab.core.errors import InputError
from fairlab.core.names import did_you_mean
from fairlab.core.results import report as report_document
from fairlab.paper_checks import ledger, report

FORMATS = ("table", "json", "markdown")


def register(app: typer.Typer) -> None:
    @app.command("paper-check")
    def paper_check_cmd(
        fmt: str = typer.Option("table", "--format", help="table | json | markdown"),
        out: Optional[str] = typer.Option(None, "--out", help="directory: write report.md (markdown) and figures"),
        only: Optional[List[str]] = typer.Option(None, "--only", help="entry id, repeatable"),
        quick: bool = typer.Option(False, "--quick", help="skip the slow entries (PDRF tables, dynamics, proofs)"),
        runs: int = typer.Option(1000, "--runs", help="runs per PDRF table row (the paper's 1000)"),
        progress: Optional[str] = progress_.option(),
    ):
        """Check every numeric claim of the five sources with the lab: reproduced / erratum / lab finding (about
        the lab's reading of a source) / out-of-scope."""
        check_format(fmt, FORMATS)
        try:
            progress = progress_.choose(progress)
        except InputError as exc:
            fail(str(exc))
        if runs < 1:
            fail(f"--runs: must be at least 1, got {runs}")
        known = {c.id for c in ledger.CLAIMS}
        for name in only or []:
            if name not in known:
                fail(f"--only: unknown entry {name!r}{did_you_mean(name, sorted(known))} "
                     "(see fairlab paper-check --format json)")
        out_dir = None if out is None else Path(out)
        if out is not None and not out.strip():
            fail("--out: the directory name is empty")
        if out_dir is not None:
            try:
                report.check_out_dir(out_dir)  # fail before the (slow) ledger runs
            except InputError as exc:
                fail(str(exc))
        with progress_.Reporter(progress, "paper-check") as shown:  # a line per entry on stderr
            results = ledger.run(ledger.Context(runs=runs), include_slow=not quick, only=list(only or []),
                                 progress=shown)
        try:
            figures = report.write_report(out_dir, results) if out_dir is not None else []
        except InputError as exc:
            fail(str(exc))
        if fmt == "json":
            emit_json(report_document("paper-check", results, summary=ledger.summary(results)))
        elif fmt == "markdown":
            if out_dir is None:
                typer.echo(report.to_markdown(results))
        else:
            grid = Table(title="paper checks")
            for col in ("id", "status", "ok", "detail"):
                grid.add_column(col, overflow="fold")
            for row in report.to_rows(results):
                grid.add_row(*row)
            console.print(grid)
        if out_dir is not None and fmt != "json":
            typer.echo(f"wrote {out_dir / report.REPORT} and {len(figures)} figures")
        if fmt != "json":
            typer.echo(ledger.summary_line(results))
        if not all(ledger.ok(r) for r in results):
            raise typer.Exit(1)
