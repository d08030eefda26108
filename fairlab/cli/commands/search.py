"""`fairlab search`, `fairlab rediscover` and `fairlab matrix`: counterexample hunting from the CLI.

Each verb parses its options, calls one function of `fairlab.search` and prints the answer: a
`Result` (``--format json``: `to_json`) or a `report` of several. New findings go to the user's
store (``--store DIR``, else ``$FAIRLAB_STORE``, else the per-user default of
`fairlab.counterexamples.store.location`), never into the package; ``--no-store`` writes nothing.
"""

from __future__ import annotations

import json
import time
from typing import List, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from fairlab import mechanisms
from fairlab.audit.markdown import short_name
from fairlab.campaign import lab_sweeps
from fairlab.cli import progress as progress_
from fairlab.cli.commands import _parallel as parallel
from fairlab.cli.commands import _params as params
from fairlab.cli.inputs import check_format, fail, parse_options
from fairlab.cli.output import console, emit_json, model_line
from fairlab.core.errors import InputError
from fairlab.core.results import domain_text, report, to_json
from fairlab.core.solving import DEFAULT_RLIMIT
from fairlab.counterexamples.store import Store
from fairlab.mechanisms import plugin
from fairlab.search import engines, run_search
from fairlab.search import rediscover as claims
from fairlab.search.budgets import (
    DEFAULT_CANDIDATES,
    MATRIX_CANDIDATES,
    MATRIX_TIME_LIMIT,
    MAX_CANDIDATES,
    SEARCH_TIME_LIMIT,
)
from fairlab.search.findings import writable_store

err_console = Console(stderr=True)

STORE_HELP = "folder of the fixture store (default: $FAIRLAB_STORE, else the per-user data folder)"


def register(app: typer.Typer) -> None:
    @app.command("search")
    def search_cmd(
        mechanism: str = typer.Argument(..., metavar="MECHANISM", help="mechanism name or file.py:function"),
        prop: str = typer.Argument(..., metavar="PROPERTY", help="property name (see `fairlab properties`)"),
        users: int = typer.Option(2, "--users", "-n", help="number of users"),
        resources: int = typer.Option(2, "--resources", "-m", help="number of resources"),
        engine: Optional[List[str]] = typer.Option(None, "--engine",
                                                   help="symbolic | grid | random (repeatable; default all)"),
        candidates: int = typer.Option(DEFAULT_CANDIDATES, "--candidates", "--evaluations",
                                       help="candidate instances to decide (all engines; the deterministic budget)"),
        rlimit: int = typer.Option(DEFAULT_RLIMIT, "--rlimit", help="z3 resource units per symbolic question"),
        time_limit: float = typer.Option(SEARCH_TIME_LIMIT, "--time-limit",
                                         help="wall-clock safety net in seconds (then: unknown (wall-clock "
                                              "safety net)); --candidates, --rlimit and --seed decide"),
        seed: int = typer.Option(0, "--seed", help="seed of the random engine and of the checks"),
        option: Optional[List[str]] = typer.Option(None, "--option", "-o", help="mechanism option KEY=VALUE"),
        store: Optional[str] = typer.Option(None, "--store", metavar="DIR", help=STORE_HELP),
        no_store: bool = typer.Option(False, "--no-store", help="do not write a fixture"),
        domain: Optional[str] = typer.Option(None, "--domain", help=params.DOMAIN_HELP),
        fmt: str = typer.Option("table", "--format", help="table | json"),
        progress: Optional[str] = progress_.option(),
    ):
        """Hunt a violation of PROPERTY by MECHANISM; shrink, verify exactly and store it as a fixture.

        Verdict: violated, holds (z3: none at this size), none-found, n/a (declined), unknown."""
        check_format(fmt)
        try:
            params.size(users, resources)
            params.seconds(time_limit)
            params.integer(candidates, "--candidates", 1, MAX_CANDIDATES)
            params.integer(rlimit, "--rlimit", 1)
            params.seed(seed)
            progress = progress_.choose(progress)
            asked = params.domain(domain)
            target = None if no_store else writable_store(Store(store))  # a bad store: one line, before the search
            shown = progress_.Reporter(progress, f"search {short_name(mechanism)}")
            with plugin.time_limit(time_limit), shown:
                shown(progress_.Unit(0, 1))
                result = run_search(
                    mechanism, prop, users, resources, store=target,
                    engines=engine or engines.ENGINES, time_limit=time_limit, seed=seed, options=parse_options(option),
                    candidates=candidates, rlimit=rlimit, domain=asked,
                    progress=lambda name, k: shown.step(f"{prop} {users}×{resources}: {k} candidates ({name})"),
                )
                shown(progress_.Unit(1, 1, f"{prop} {users}×{resources}", str(result.status), result.seconds))
        except InputError as exc:
            fail(str(exc))
        if fmt == "json":
            emit_json(to_json(result))
            return
        print_search(result)

    @app.command("rediscover")
    def rediscover_cmd(
        claim: Optional[List[str]] = typer.Option(None, "--claim", help="only these claim ids (repeatable)"),
        time_limit: Optional[float] = typer.Option(
            None, "--time-limit",
            help="wall-clock safety net per claim in seconds (default: the claim's; then: unknown (wall-clock safety "
                 "net))"),
        seed: int = typer.Option(0, "--seed"),
        store: Optional[str] = typer.Option(None, "--store", metavar="DIR", help=STORE_HELP),
        no_store: bool = typer.Option(False, "--no-store", help="do not write fixtures"),
        workers: Optional[int] = parallel.workers_option(),
        scheduler: Optional[str] = parallel.scheduler_option(),
        cluster: Optional[str] = parallel.cluster_option(),
        out: Optional[str] = parallel.out_option(),
        domain: Optional[str] = typer.Option(None, "--domain", help=params.DOMAIN_HELP + "; a claim whose "
                                             "counterexample lies outside it is not found there"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
        progress: Optional[str] = progress_.option(),
    ):
        """Rediscover every counterexample of the sources from scratch, claims in parallel.

        Exit 1 if one is not found."""
        check_format(fmt)
        start = time.monotonic()
        try:
            params.seconds(time_limit)
            asked = params.domain(domain)
            chosen = [claims.get_claim(c) for c in claim] if claim else list(claims.CLAIMS)
            target = None if no_store else writable_store(Store(store))  # a bad store: one line, before any claim
            where = parallel.check(workers, scheduler, cluster)
            progress = progress_.choose(progress)
            with parallel.executor(where) as pool, progress_.Reporter(progress, "rediscover") as shown:
                outcomes = lab_sweeps.rediscover(chosen, seed=seed, time_limit=time_limit, executor=pool,
                                                 store=target, out=out, progress=shown, domain=asked)
        except InputError as exc:  # a bad option, or e.g. the store became unwritable: one line
            fail(str(exc))
        if fmt == "json":
            emit_json(report("rediscovery", outcomes, store=None if target is None else str(target.path)))
        else:
            print_rediscovery(outcomes, time.monotonic() - start, target)
        if any(o.status != "found" for o in outcomes):
            raise typer.Exit(1)

    @app.command("matrix")
    def matrix_cmd(
        time_limit: float = typer.Option(MATRIX_TIME_LIMIT, "--time-limit",
                                         help="wall-clock safety net per cell in seconds (then: unknown (wall-clock "
                                              "safety net))"),
        users: int = typer.Option(2, "--users", "-n"),
        resources: int = typer.Option(2, "--resources", "-m"),
        candidates: int = typer.Option(MATRIX_CANDIDATES, "--candidates", "--evaluations",
                                       help="candidate instances per cell without a fixture (deterministic budget)"),
        rlimit: int = typer.Option(DEFAULT_RLIMIT, "--rlimit", help="z3 resource units per symbolic question"),
        seed: int = typer.Option(0, "--seed"),
        mechanism: Optional[List[str]] = typer.Option(None, "--mechanism", help="restrict to these (repeatable)"),
        property_: Optional[List[str]] = typer.Option(None, "--property",
                                                      help="these properties, plug-ins file.py:NAME too (repeatable)"),
        setting: str = typer.Option("pool", "--setting",
                                    help="pool | machines | dynamic: the mechanisms and properties of one setting"),
        store: Optional[str] = typer.Option(None, "--store", metavar="DIR", help=STORE_HELP),
        no_store: bool = typer.Option(False, "--no-store", help="do not write fixtures for new violations"),
        domain: Optional[str] = typer.Option(None, "--domain", help=params.DOMAIN_HELP),
        workers: Optional[int] = parallel.workers_option(),
        scheduler: Optional[str] = parallel.scheduler_option(),
        cluster: Optional[str] = parallel.cluster_option(),
        out: Optional[str] = parallel.out_option(),
        fmt: str = typer.Option("table", "--format", help="table | json"),
        progress: Optional[str] = progress_.option(),
    ):
        """The mechanism × property table, cells in parallel.

        Each cell: violated (fixture), holds, none found, n/a or unknown."""
        check_format(fmt)
        try:
            params.seconds(time_limit)
            params.size(users, resources)
            params.integer(candidates, "--candidates", 1, MAX_CANDIDATES)
            params.integer(rlimit, "--rlimit", 1)
            params.seed(seed)
            where = parallel.check(workers, scheduler, cluster)
            progress = progress_.choose(progress)
            asked = params.domain(domain)
            user_store = Store(store)
            if not no_store:
                user_store.check_writable()  # a bad store: one line, before any cell
            names = mechanism or mechanisms.names(params.setting(setting, every=False))
            with plugin.time_limit(time_limit):
                mechs = [mechanisms.get(m) for m in names]
            with parallel.executor(where) as pool, progress_.Reporter(progress, "matrix") as shown:
                cells = lab_sweeps.matrix(names, users, resources, candidates=candidates, rlimit=rlimit, seed=seed,
                                          time_limit=time_limit, executor=pool, store=user_store,
                                          write=not no_store, out=out, domain=asked, property_names=property_,
                                          progress=shown)
        except InputError as exc:  # a broken plug-in, a bad option: the table would lie
            fail(str(exc))
        if fmt == "json":
            emit_json(report("matrix", cells, users=users, resources=resources, candidates=candidates, seed=seed,
                             rlimit=rlimit, time_limit=time_limit, domain=asked.to_dict()))
            return
        print_matrix(cells, mechs, users, resources, candidates, seed, rlimit, time_limit, asked)


# --------------------------------------------------------------------------- printing
def print_search(result) -> None:
    d, b = result.details, result.budget
    size = f"{d['users']}×{d['resources']}"
    headline = f"holds at {size}" if result.status == "holds" else engines.summary(result)
    console.print(f"[bold]{escape(result.mechanism)}[/bold] vs [bold]{result.property}[/bold] at {size}: "
                  f"{escape(headline)} in {result.seconds:.2f} s", highlight=False)
    if result.status == "holds":
        console.print(f"why: {result.explanation}", markup=False)
    if result.domain:
        console.print(f"domain: {domain_text(result.domain)}", markup=False)
    if model_line(result.details):
        console.print(model_line(result.details), markup=False)
    searched = (f", of which searched within their budget {d['searched']}"
                if any((d.get("searched") or {}).values()) else "")
    console.print(f"candidates: evaluated {d['evaluated']}{searched}, declined {d['declined']}, "
                  f"undecided {d['undecided']}", markup=False, highlight=False)
    if result.instance is not None:
        console.print(f"instance: {_compact(to_json(result.instance, versioned=False))}", markup=False)
        if result.status == "error":  # a crash: nothing is stored
            where = (result.certificate or {}).get("where")
            console.print(f"crash: {result.explanation}{'' if where else ' (no frame of the plug-in found)'}",
                          markup=False)
        else:
            console.print(f"witness: {_compact(to_json(result.witness, versioned=False))}", markup=False)
            console.print(f"why: {result.explanation}", markup=False)
            console.print(f"fixture: {d.get('fixture') or '(not stored)'}", markup=False)
    if result.certificate and result.certificate.get("core"):
        console.print(f"unsat core: {', '.join(result.certificate['core'])}", markup=False)
    console.print(f"budget: {b['candidates']} candidates (schedule {b['schedule']}), seed {b['seed']}, "
                  f"rlimit {b['rlimit']}, each check {b['check']['evaluations']} evaluations / rlimit "
                  f"{b['check']['rlimit']}; time limit {b['time_limit']:g} s (outer stop)", markup=False)
    for note in d["notes"]:
        console.print(f"note: {note}", markup=False)


def print_rediscovery(outcomes, total: float, target: Store | None) -> None:
    table = Table(title=f"rediscovery of the sources' counterexamples ({total:.1f} s)")
    for col in ("claim", "verdict", "shrunk instance", "witness", "s", "fixture"):
        table.add_column(col, overflow="fold")
    for o in outcomes:
        d = o.details
        inst = to_json(o.instance, versioned=False) if o.instance is not None else None
        shown = "—"
        if inst:
            where = (f"machines {_compact(inst['machines'])}" if inst.get("machines")
                     else f"capacities {_compact(inst['capacities'])}")
            shown = f"{where}\ndemands {_compact(inst['demands'])}"
            if inst.get("arrivals"):
                shown += f"\narrivals {_compact(inst['arrivals'])}"
        if d["claim_kind"] != "impossibility":
            witness = _compact(to_json(o.witness, versioned=False))
        else:
            witness = (f"family {', '.join(o.witness['family'])}\ncore: {len(o.witness['core'])} constraints"
                       if o.witness else "—")
        verdict = ("[green]found[/green]" if o.status == "found" else "[red]not found[/red]" if o.status == "not-found"
                   else f"[yellow]{escape(o.label())}[/yellow]")
        fixture = d["fixture"].replace("\\", "/").rsplit("/", 1)[-1] if d.get("fixture") else "—"
        label = f"{d['claim']}\n[dim]{d['source']}[/dim]"
        if d.get("reading"):
            label += f"\n[dim]lab finding (reading: {escape(d['reading'])})[/dim]"
        table.add_row(label, verdict, shown, witness, f"{o.seconds:.2f}", fixture)
    console = Console()
    console.width = max(console.width, 150)
    console.print(table)
    if target is not None:
        console.print(f"fixtures in {target.path}; re-verified by `fairlab store verify`", markup=False)


def print_matrix(cells, mechs, users, resources, candidates, seed, rlimit, time_limit, domain=None) -> None:
    where = f", domain {domain.label}" if domain is not None else ""
    table = Table(title=f"mechanism × property at {users} users × {resources} resources{where}")
    table.add_column("mechanism")
    props = list(dict.fromkeys(c.property for c in cells))  # the matrix's properties, in its order
    for prop in props:
        table.add_column(prop)
    for mech in mechs:
        row = []
        for prop in props:
            cell = next(c for c in cells if c.mechanism == mech.name and c.property == prop)
            row.append(_cell_text(cell))
        table.add_row(mech.name, *row)
    console.print(table)
    declined = sorted({c.explanation for c in cells if c.status == "n/a"})
    for reason in declined:
        console.print(f"n/a: {reason}", markup=False)
    console.print(f"violated = a verified fixture (shipped, or in the store); holds = z3 proved no violation at "
                  f"{users}×{resources} (spec checked against the allocator); none found = no violation among the "
                  f"candidates evaluated ({candidates} per cell, seed {seed}, rlimit {rlimit}); n/a = the mechanism "
                  f"declined every candidate; unknown = nothing decided (time: the {time_limit:g} s outer stop fired)",
                  markup=False)


def _cell_text(cell) -> str:
    status = cell.status
    if status == "violated":
        return "[red]violated[/red]"
    if status == "holds":
        return "[green]holds[/green]"
    if status == "error":
        return "[magenta]error[/magenta]"
    if status == "none-found":
        return f"none found ({sum(cell.details['evaluated'].values())})"
    if status == "unknown":
        return escape(cell.label())
    return status.value


def _compact(value) -> str:
    """JSON-ish text without quotes around exact numbers: [[1, 1/8], [0, 1]]."""
    return json.dumps(value, ensure_ascii=False).replace('"', "")
