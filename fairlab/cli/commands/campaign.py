"""`fairlab campaign run|report|cells`: many cells from a spec file, in parallel, resumable.

    fairlab campaign cells sweep.toml                 # the cells a spec expands into
    fairlab campaign run sweep.toml --out results/    # run them (again: only the missing ones)
    fairlab campaign run sweep.toml --out results/ --retry unknown,timeout
    fairlab campaign run sweep.toml --out results/ --cluster local:2       # on Dask (fairlab[cluster])
    fairlab campaign report results/ --format jsonl
    fairlab campaign report results/ --out report.html   # the HTML report (nothing on stdout)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from fairlab.campaign import html as campaign_html
from fairlab.campaign import report as reports
from fairlab.campaign import run as runs
from fairlab.campaign import spec as specs
from fairlab.cli import progress as progress_
from fairlab.cli.commands import _parallel as parallel
from fairlab.cli.inputs import check_format, fail
from fairlab.cli.output import console, emit_json
from fairlab.core.errors import InputError
from fairlab.core.results import SCHEMA_VERSION
from fairlab.counterexamples.store import Store
from fairlab.search.findings import writable_store

err_console = Console(stderr=True)
campaign_app = typer.Typer(help="Searches, checks, proofs and audits over many cells (a spec file), resumable.",
                           no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(campaign_app, name="campaign")


@campaign_app.command("cells")
def cells_cmd(spec: Path = typer.Argument(..., metavar="SPEC", help="campaign spec (TOML, or JSON for *.json)"),
              fmt: str = typer.Option("table", "--format", help="table | json")):
    """List the cells SPEC expands into, with their ids."""
    check_format(fmt)
    try:
        cells = specs.expand(specs.load(spec), spec.parent)
    except InputError as exc:
        fail(str(exc))
    if fmt == "json":
        emit_json({"schema_version": SCHEMA_VERSION, "kind": "campaign-cells",
                   "items": [{"id": c.id, **c.description} for c in cells]})
        return
    for c in cells:
        console.print(f"{c.id}  {c.label()}", markup=False, highlight=False)
    console.print(f"{len(cells)} cells", markup=False, highlight=False)


@campaign_app.command("run")
def run_cmd(
    spec: Path = typer.Argument(..., metavar="SPEC", help="campaign spec (TOML, or JSON for *.json)"),
    out: Path = typer.Option(..., "--out", metavar="DIR", help="folder of the results (one file per cell)"),
    workers: Optional[int] = parallel.workers_option(),
    scheduler: Optional[str] = parallel.scheduler_option(),
    cluster: Optional[str] = parallel.cluster_option(),
    retry: str = typer.Option("", "--retry", help="run these again: e.g. unknown,error,timeout,crashed"),
    store: Optional[str] = typer.Option(None, "--store", metavar="DIR", help="folder of the fixture store"),
    no_store: bool = typer.Option(False, "--no-store", help="do not store findings"),
    fmt: str = typer.Option("table", "--format", help="table | json"),
    progress: Optional[str] = progress_.option(),
):
    """Run every cell of SPEC that has no result in --out yet, in parallel (a local process pool,
    or Dask with --scheduler/--cluster); each cell in its own process under a hard time limit (its
    budget's time_limit + 10 s). Ctrl-C leaves only complete result files: the same command resumes."""
    check_format(fmt)
    try:
        where = parallel.check(workers, scheduler, cluster)
        progress = progress_.choose(progress)
        target = None if no_store else writable_store(Store(store))
        runs.check_out_dir(out)
        specs.expand(specs.load(spec), spec.parent)  # a bad spec: one line before any worker starts
        with parallel.executor(where) as pool, progress_.Reporter(progress, f"campaign {spec.name}") as shown:
            summary = runs.run(spec, out, executor=pool, retry=[r for r in retry.split(",") if r], store=target,
                               progress=shown)
    except InputError as exc:
        fail(str(exc))
    if fmt == "json":
        emit_json({"schema_version": SCHEMA_VERSION, "kind": "campaign-run", **summary})
        return
    console.print(f"{summary['cells']} cells: ran {summary['ran']}, already done {summary['reused']}; "
                  + ", ".join(f"{k} {v}" for k, v in sorted(summary["outcomes"].items()))
                  + f"; results in {summary['out']}", markup=False, highlight=False)


@campaign_app.command("report")
def report_cmd(out: Path = typer.Argument(..., metavar="DIR", help="a campaign's --out folder"),
               fmt: Optional[str] = typer.Option(None, "--format",
                                                 help="table | json | jsonl (default: table; none with --out)"),
               html_out: Optional[Path] = typer.Option(None, "--out", metavar="FILE.html",
                                                       help="write the self-contained HTML report there")):
    """The mechanism × property table of a campaign folder; jsonl: one line per cell. --out writes
    the HTML report (the table, every cell's detail, each audit cell's audit report, how to
    reproduce) and prints nothing on stdout unless --format is given too."""
    check_format(fmt or "table", ("table", "json", "jsonl"))
    try:
        if html_out is not None:
            campaign_html.check_path(html_out, out)  # a bad --out: one line before any work
        campaign, rows = reports.read(out)
        if html_out is not None:
            campaign_html.write(campaign, rows, str(out), html_out)
    except InputError as exc:
        fail(str(exc))
    if html_out is not None:
        err_console.print(f"report: {html_out}", markup=False, highlight=False, soft_wrap=True)
        if fmt is None:
            return
    if fmt == "jsonl":
        for row in rows:
            console.print(json.dumps(row, ensure_ascii=False), markup=False, highlight=False, soft_wrap=True)
        return
    if fmt == "json":
        emit_json({"schema_version": SCHEMA_VERSION, "kind": "campaign-report", "spec": campaign.get("spec"),
                   "cells": rows})
        return
    lefts, tops, grid = reports.table(rows)
    table = Table(title=f"campaign {escape(str(out))}: {len(rows)} cells")
    table.add_column("")
    for top in tops:
        table.add_column(escape(top))
    for left in lefts:
        table.add_row(escape(left), *[escape(grid.get((left, top), "")) for top in tops])
    console.print(table)
