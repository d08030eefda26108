"""`fairlab audit MECHANISM`: the property profile of one mechanism in one command.

    fairlab audit drf
    fairlab audit my_mechanism.py:allocate --users 3 --resources 4 --out report.html
    fairlab audit asset --format json | python -c "import json, sys; json.load(sys.stdin)"
    fairlab audit drf --format latex --figures figures/   # for a paper

It calls `fairlab.audit.run.audit` and prints the profile (``--format table|json|markdown|latex``);
``--out FILE.html`` also writes the self-contained HTML report, ``--figures DIR`` each of its
figures as SVG and PDF (`fairlab.audit.figure_files`). Exit 0 whatever the verdicts, 2 on bad input
(checked before any work, the --out and --figures paths included).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from fairlab.audit import figure_files, html, latex, markdown
from fairlab.audit.run import AUDIT_CANDIDATES, AUDIT_TIME_LIMIT, audit
from fairlab.campaign import executors
from fairlab.cli import progress as progress_
from fairlab.cli.commands import _params as params
from fairlab.cli.inputs import check_format, fail, parse_options
from fairlab.cli.output import console, emit_json
from fairlab.core.errors import InputError
from fairlab.core.solving import DEFAULT_RLIMIT
from fairlab.counterexamples.store import Store
from fairlab.search.findings import writable_store

err_console = Console(stderr=True)

#: the terminal table's summary column is never narrower than this (characters)
SUMMARY_WIDTH = 40
COLOURS = {"violated": "red", "proved": "green", "none-found": "cyan", "n/a": "dim", "unknown": "yellow",
           "error": "magenta"}


def register(app: typer.Typer) -> None:
    app.command("audit")(audit_cmd)


def audit_cmd(
    mechanism: str = typer.Argument(..., metavar="MECHANISM",
                                    help="mechanism name, file.py:function or an entry-point plug-in"),
    users: int = typer.Option(3, "--users", "-n", help="largest number of users (sizes 1..N)"),
    resources: int = typer.Option(3, "--resources", "-m", help="largest number of resources (sizes 1..M)"),
    seed: int = typer.Option(0, "--seed", help="seed of the random engine and of the checks"),
    candidates: int = typer.Option(AUDIT_CANDIDATES, "--candidates",
                                   help="search candidates per size and property (deterministic budget)"),
    rlimit: int = typer.Option(DEFAULT_RLIMIT, "--rlimit", help="z3 resource units per symbolic search question"),
    time_limit: float = typer.Option(AUDIT_TIME_LIMIT, "--time-limit",
                                     help="wall-clock safety net of the whole audit in seconds (what it "
                                          "cuts: unknown (wall-clock safety net)); the counted budgets decide"),
    prop: Optional[List[str]] = typer.Option(None, "--property", help="only these properties (repeatable)"),
    option: Optional[List[str]] = typer.Option(None, "--option", "-o", help="mechanism option KEY=VALUE"),
    store: Optional[str] = typer.Option(None, "--store", metavar="DIR",
                                        help="folder of the fixture store (default: $FAIRLAB_STORE, else the "
                                             "per-user data folder)"),
    no_store: bool = typer.Option(False, "--no-store", help="do not store the counterexamples found"),
    domain: Optional[List[str]] = typer.Option(None, "--domain", help=params.DOMAIN_HELP + "; repeatable: one "
                                               "profile per domain"),
    fmt: str = typer.Option("table", "--format", help="table | json | markdown | latex (a booktabs table)"),
    out: Optional[Path] = typer.Option(None, "--out", metavar="FILE.html", help="also write the HTML report there"),
    figures: Optional[Path] = typer.Option(None, "--figures", metavar="DIR",
                                           help="also write each figure of the report there, as SVG and PDF "
                                                "(the folder is created if missing)"),
    progress: Optional[str] = progress_.option(),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", show_default=False,
                                       help="properties audited at once, each in a process of its own (default: the "
                                            "cores available; 1: one after another); the verdicts are the same"),
    prove_spec: bool = typer.Option(False, "--prove-spec",
                                    help="also prove a plug-in's declared spec at each size (a built-in's is always "
                                         "proved); such a proof is about the spec, not the plug-in's code"),
):
    """Audit MECHANISM against every property at every size up to N×M: the exact check of the shipped
    examples, the search portfolio and, where the mechanism has a spec, a proof per size.

    Per property: violated (the smallest counterexample, verified and stored), proved (at the sizes
    listed), none-found (with the candidates tried), n/a (declined) or unknown (budget ran out)."""
    check_format(fmt, ("table", "json", "markdown", "latex"))
    try:
        params.integer(users, "--users", 1, 6, "an audit goes up to 6×6")
        params.integer(resources, "--resources", 1, 6, "an audit goes up to 6×6")
        params.seconds(time_limit)
        params.integer(candidates, "--candidates", 1, 100_000)
        params.integer(rlimit, "--rlimit", 1)
        params.seed(seed)
        workers = executors.default_workers() if jobs is None else jobs
        params.integer(workers, "--jobs", 1, 256)
        progress = progress_.choose(progress)
        if out is not None:
            html.check_path(out)  # a bad --out: one line before any work
        if figures is not None:
            figure_files.check_folder(figures)
        asked_domains: list[str | None] = list(domain) if domain else [None]
        domains = [params.domain(d) for d in asked_domains]  # every --domain parsed before any work
        target = None if no_store else writable_store(Store(store))
        documents = []
        # the pool's workers come from the lab's fork server (`executors.local`), never a fork of this process
        with executors.local(workers) if workers > 1 else contextlib.nullcontext() as pool:
            for asked in domains:
                title = f"audit {markdown.short_name(mechanism)}" + (f" ({asked.label})" if len(domains) > 1 else "")
                with progress_.Reporter(progress, title) as shown:
                    report = audit(mechanism, users, resources, seed=seed, candidates=candidates, rlimit=rlimit,
                                   time_limit=time_limit, options=parse_options(option), store=target,
                                   properties_=prop or None, domain=asked, progress=shown, prove_spec=prove_spec,
                                   executor=pool)
                documents.append(report.to_dict())
        written = []
        if out is not None:
            for document in documents:
                path = out if len(documents) == 1 else out.with_suffix(f".{document['domain']['name']}.html".replace(
                    "=", "-").replace(",", "_"))
                html.write(document, path)
                written.append(path)
        drawn = figure_files.write(documents, figures) if figures is not None else []
    except InputError as exc:
        fail(str(exc))
    if fmt == "json":
        emit_json(documents[0] if len(documents) == 1 else
                  {"schema_version": 1, "kind": "audit-domains", "mechanism": documents[0]["mechanism"],
                   "profiles": documents})
    elif fmt == "latex":
        console.print(latex.render(documents), markup=False, highlight=False, soft_wrap=True, end="")
    elif fmt == "markdown":
        console.print("\n".join(markdown.render(d) for d in documents), markup=False, highlight=False,
                      soft_wrap=True)
    else:
        for document in documents:
            print_table(document)
    for path in written:
        err_console.print(f"report: {path}", markup=False, highlight=False)
    if figures is not None:
        err_console.print(f"figures: {len(drawn)} files in {figures}"
                          + ("" if drawn else " (no property is violated: the report draws no figure)"),
                          markup=False, highlight=False, soft_wrap=True)


def print_table(document: dict) -> None:
    ref = document["reference"]["mechanisms"]
    others = markdown.reference_columns(document)
    domain = document.get("domain") or {}
    table = Table(title=f"audit of {escape(document['mechanism'])} on the domain {escape(domain.get('name', 'all'))}"
                        f": sizes up to {document['users']}×"
                        f"{document['resources']}, seed {document['seed']}, {document['seconds']:.1f} s")
    # the whole width: the summary takes 3 parts of the room, each status column 1, and never less than
    # SUMMARY_WIDTH characters (statuses wrap instead)
    table.expand = True
    table.add_column("property", no_wrap=True)
    table.add_column(escape(markdown.short_name(document["mechanism"])), overflow="fold", ratio=1)
    for name in others:
        table.add_column(f"[dim]{name}[/dim]", overflow="fold", ratio=1)
    table.add_column("summary", overflow="fold", ratio=3, min_width=SUMMARY_WIDTH)
    for row in document["properties"]:
        colour = COLOURS.get(row["status"], "white")
        word = escape(markdown.status_word(row))
        refs = [f"[dim]{escape(markdown.reference_word(ref[name].get(row['property'])))}[/dim]" for name in others]
        table.add_row(row["property"], f"[{colour}]{word}[/{colour}]", *refs, escape(row["summary"]))
    wide = Console()
    wide.width = max(wide.width, 140)
    wide.print(table)
    if domain.get("note"):
        wide.print(f"domain: {domain['note']}", markup=False, highlight=False)
    for row in document["properties"]:
        if row["status"] == "error":
            wide.print(f"{row['property']}: crashed on {markdown.compact(row['instance'])}; {row['explanation']}",
                       markup=False, highlight=False)
        if row["status"] == "violated":
            wide.print(f"{row['property']}: instance {markdown.compact(row['instance'])}; "
                       f"witness {markdown.compact(row['witness'])}; found {markdown.how_found(row)}"
                       + (f"; stored as {row['fixture']}" if row.get("fixture") else ""), markup=False,
                       highlight=False)
    wide.print(f"reference columns: {document['reference']['note']}", markup=False, highlight=False)
    wide.print(f"reproduce: {document['command']}", markup=False, highlight=False)
