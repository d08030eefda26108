"""`fairlab search`, `fairlab rediscover` and `fairlab matrix`: counterexample hunting from the CLI."""

from __future__ import annotations

import time
from typing import List, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from fairlab.cli.commands import _params as params
from fairlab.core.errors import InputError
from fairlab.core.solving import DEFAULT_RLIMIT
from fairlab.search.budgets import (
    DEFAULT_CANDIDATES, MATRIX_CANDIDATES, MATRIX_TIME_LIMIT, MAX_CANDIDATES, SEARCH_TIME_LIMIT,
)

err_console = Console(stderr=True)


def _progress(enabled: bool):
    return Progress(
        SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(),
        console=err_console, transient=True, disable=not (enabled and err_console.is_terminal),
    )


def register(app: typer.Typer) -> None:
    from fairlab.cli import check_format, emit_json, fail, parse_options

    @app.command("search")
    def search_cmd(
        mechanism: str = typer.Argument(..., help="mechanism name or file.py:function"),
        prop: str = typer.Argument(..., metavar="PROPERTY", help="property name (see `fairlab properties`)"),
        users: int = typer.Option(2, "--users", "-n", help="number of users"),
        resources: int = typer.Option(2, "--resources", "-m", help="number of resources"),
        engine: Optional[List[str]] = typer.Option(None, "--engine", help="symbolic | grid | random (repeatable; default all)"),
        candidates: int = typer.Option(DEFAULT_CANDIDATES, "--candidates", "--evaluations",
                                       help="candidate instances to decide (all engines; the deterministic budget)"),
        rlimit: int = typer.Option(DEFAULT_RLIMIT, "--rlimit", help="z3 resource units per symbolic question"),
        time_limit: float = typer.Option(SEARCH_TIME_LIMIT, "--time-limit", help="outer stop in seconds (then: unknown)"),
        seed: int = typer.Option(0, "--seed", help="seed of the random engine and of the checks"),
        option: Optional[List[str]] = typer.Option(None, "--option", "-o", help="mechanism option KEY=VALUE"),
        no_store: bool = typer.Option(False, "--no-store", help="do not write a fixture"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
    ):
        """Hunt a violation of PROPERTY by MECHANISM; shrink, verify exactly and store it as a fixture.

        Verdict: violated, holds (z3: none at this size), none-found, n/a (declined), unknown."""
        from fairlab import mechanisms
        from fairlab import properties
        from fairlab.counterexamples import store
        from fairlab.mechanisms import plugin
        from fairlab.search import engines
        from fairlab.search.prove import check_options
        from fairlab.search.rediscover import violation_record

        check_format(fmt)
        try:
            params.size(users, resources)
            params.seconds(time_limit)
            params.integer(candidates, "--candidates", 1, MAX_CANDIDATES)
            params.integer(rlimit, "--rlimit", 1)
            params.seed(seed)
            with plugin.time_limit(time_limit):
                mech = mechanisms.get(mechanism)
                properties.get(prop)
                options = parse_options(option)
                check_options(mech, options)
                with _progress(fmt == "table") as bar:
                    task = bar.add_task(f"{mech.name} vs {prop}", total=None)
                    hunt = engines.search(
                        mech, prop, users, resources, engines=engine or engines.ENGINES, time_limit=time_limit,
                        seed=seed, options=options, candidates=candidates, rlimit=rlimit,
                        progress=lambda name, k: bar.update(task, description=f"{mech.name} vs {prop}: {k} candidates ({name})"),
                    )
        except InputError as exc:
            fail(str(exc))
        fixture = None
        if hunt.status == "violated" and not no_store:
            path, written = store.save(violation_record(mech.name, prop, hunt, seed, options, None))
            fixture = str(path)
        out = hunt_record(mech.name, prop, hunt)
        out["fixture"] = fixture
        if fmt == "json":
            emit_json(out, result=True)
            return
        from fairlab.cli import console

        headline = f"holds at {users}×{resources}" if hunt.status == "holds" else hunt.summary()
        console.print(f"[bold]{mech.name}[/bold] vs [bold]{prop}[/bold] at {users}×{resources}: "
                      f"{escape(headline)} in {hunt.seconds:.2f} s", highlight=False)
        if hunt.status == "holds":
            console.print(f"why: {hunt.reason}", markup=False)
        console.print(f"candidates: evaluated {hunt.evaluated}, declined {hunt.declined}, undecided {hunt.undecided}",
                      markup=False, highlight=False)
        if hunt.instance is not None:
            console.print(f"instance: {out['instance']}", markup=False)
            console.print(f"witness: {out['witness']}", markup=False)
            console.print(f"why: {out['explanation']}", markup=False)
            console.print(f"fixture: {fixture or '(not stored)'}", markup=False)
        if hunt.core:
            console.print(f"unsat core: {', '.join(hunt.core)}", markup=False)
        b = hunt.budget
        console.print(f"budget: {b['candidates']} candidates (schedule {b['schedule']}), seed {b['seed']}, "
                      f"rlimit {b['rlimit']}, each check {b['check']['evaluations']} evaluations / rlimit "
                      f"{b['check']['rlimit']}; time limit {b['time_limit']:g} s (outer stop)", markup=False)
        for note in hunt.notes:
            console.print(f"note: {note}", markup=False)

    @app.command("rediscover")
    def rediscover_cmd(
        claim: Optional[List[str]] = typer.Option(None, "--claim", help="only these claim ids (repeatable)"),
        time_limit: Optional[float] = typer.Option(None, "--time-limit", help="seconds per claim (default: per claim)"),
        seed: int = typer.Option(0, "--seed"),
        no_store: bool = typer.Option(False, "--no-store", help="do not write fixtures"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
    ):
        """Rediscover every counterexample of the sources from scratch (exit 1 if one is not found)."""
        from fairlab.search import rediscover as R

        check_format(fmt)
        try:
            params.seconds(time_limit)
            claims = [R.get_claim(c) for c in claim] if claim else list(R.CLAIMS)
        except InputError as exc:
            fail(str(exc))
        outcomes = []
        start = time.monotonic()
        with _progress(fmt == "table") as bar:
            overall = bar.add_task("claims", total=len(claims))
            for c in claims:
                bar.update(overall, description=f"{c.id}")
                outcomes.append(R.run_claim(c, seed=seed, time_limit=time_limit, write=not no_store,
                                            progress=lambda name, k, c=c: bar.update(overall, description=f"{c.id}: {k} candidates ({name})")))
                bar.advance(overall)
        total = time.monotonic() - start
        if fmt == "json":
            emit_json([o.to_dict() for o in outcomes], result=True)
        else:
            table = Table(title=f"rediscovery of the sources' counterexamples ({total:.1f} s)")
            for col in ("claim", "verdict", "shrunk instance", "witness", "s", "fixture"):
                table.add_column(col, overflow="fold")
            for o in outcomes:
                inst = o.instance
                shown = f"capacities {_compact(inst['capacities'])}\ndemands {_compact(inst['demands'])}" if inst else "—"
                witness = _compact(o.witness) if o.claim.kind != "impossibility" else (
                    f"family {', '.join(o.witness['family'])}\ncore: {len(o.witness['core'])} constraints" if o.witness else "—")
                verdict = "[green]found[/green]" if o.status == "found" else "[red]not found[/red]"
                fixture = o.fixture.rsplit("/", 1)[-1] if o.fixture else "—"
                table.add_row(f"{o.claim.id}\n[dim]{o.claim.source}[/dim]", verdict, shown, witness,
                              f"{o.seconds:.2f}", fixture)
            console = Console()
            console.width = max(console.width, 150)
            console.print(table)
            console.print("fixtures in counterexamples/fixtures/; re-verified by `python -m pytest tests/counterexamples/test_fixtures.py`")
        if any(o.status != "found" for o in outcomes):
            raise typer.Exit(1)

    @app.command("matrix")
    def matrix_cmd(
        time_limit: float = typer.Option(MATRIX_TIME_LIMIT, "--time-limit", help="outer stop in seconds per cell (then: unknown)"),
        users: int = typer.Option(2, "--users", "-n"),
        resources: int = typer.Option(2, "--resources", "-m"),
        candidates: int = typer.Option(MATRIX_CANDIDATES, "--candidates", "--evaluations",
                                       help="candidate instances per cell without a fixture (deterministic budget)"),
        rlimit: int = typer.Option(DEFAULT_RLIMIT, "--rlimit", help="z3 resource units per symbolic question"),
        seed: int = typer.Option(0, "--seed"),
        mechanism: Optional[List[str]] = typer.Option(None, "--mechanism", help="restrict to these (repeatable)"),
        no_store: bool = typer.Option(False, "--no-store", help="do not write fixtures for new violations"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
    ):
        """The mechanism × property table: violated (fixture), holds, none found, n/a or unknown per cell."""
        from fairlab import mechanisms
        from fairlab import properties
        from fairlab.counterexamples import store
        from fairlab.mechanisms import plugin
        from fairlab.search import engines

        check_format(fmt)
        try:
            params.seconds(time_limit)
            params.size(users, resources)
            params.integer(candidates, "--candidates", 1, MAX_CANDIDATES)
            params.integer(rlimit, "--rlimit", 1)
            params.seed(seed)
            with plugin.time_limit(time_limit):
                mechs = [mechanisms.get(m) for m in (mechanism or mechanisms.names())]
        except InputError as exc:
            fail(str(exc))
        fixtures = store.load_all()
        cells = []
        with _progress(fmt == "table") as bar:
            task = bar.add_task("matrix", total=len(mechs) * len(properties.names()))
            for mech in mechs:
                for prop in properties.names():
                    bar.update(task, description=f"{mech.name} × {prop}")
                    found = [p for p, rec in fixtures if rec.get("kind") == "violation"
                             and rec.get("mechanism") == mech.name and rec.get("property") == prop]
                    if found:
                        cells.append({"mechanism": mech.name, "property": prop, "status": "violated",
                                      "fixture": str(found[0].name)})
                        bar.advance(task)
                        continue
                    try:
                        hunt = engines.search(mech, prop, users, resources, time_limit=time_limit, seed=seed,
                                              candidates=candidates, rlimit=rlimit)
                    except InputError as exc:  # a broken plug-in, a bad option: the table would lie
                        fail(str(exc))
                    cell = {"mechanism": mech.name, "property": prop, **hunt_record(mech.name, prop, hunt)}
                    cell["status"] = cell.pop("verdict")
                    if hunt.status == "violated" and not no_store:
                        path, _ = store.save(violation_record_for(mech.name, prop, hunt, seed))
                        cell["fixture"] = path.name
                    cells.append(cell)
                    bar.advance(task)
        if fmt == "json":
            emit_json(cells, result=True)
            return
        table = Table(title=f"mechanism × property at {users} users × {resources} resources")
        table.add_column("mechanism")
        for prop in properties.names():
            table.add_column(prop)
        for mech in mechs:
            row = []
            for prop in properties.names():
                cell = next(c for c in cells if c["mechanism"] == mech.name and c["property"] == prop)
                row.append(_cell_text(cell, users, resources))
            table.add_row(mech.name, *row)
        from fairlab.cli import console

        console.print(table)
        declined = sorted({c["reason"] for c in cells if c["status"] == "n/a"})
        for reason in declined:
            console.print(f"n/a: {reason}", markup=False)
        console.print(f"violated = a verified fixture in counterexamples/fixtures/; holds = z3 proved no violation at "
                      f"{users}×{resources} (spec checked against the allocator); none found = no violation among the "
                      f"candidates evaluated ({candidates} per cell, seed {seed}, rlimit {rlimit}); n/a = the mechanism "
                      f"declined every candidate; unknown = nothing decided (time: the {time_limit:g} s outer stop fired)",
                      markup=False)


def hunt_record(mechanism: str, prop: str, hunt) -> dict:
    """The JSON of a search result: verdict, what it rests on, and the budget used."""
    return {
        "mechanism": mechanism,
        "property": prop,
        "verdict": hunt.status,
        "reason": hunt.reason,
        "summary": hunt.summary(),
        "instance": hunt.instance.to_dict() if hunt.instance else None,
        "witness": hunt.verdict.witness.to_dict() if hunt.verdict is not None else None,
        "explanation": hunt.verdict.explanation if hunt.verdict is not None else None,
        "engine": hunt.engine,
        "core": hunt.core,
        "control": hunt.control,
        "seconds": round(hunt.seconds, 3),
        "evaluated": hunt.evaluated,
        "declined": hunt.declined,
        "undecided": hunt.undecided,
        "stopped": hunt.stopped,
        "budget": hunt.budget,
        "notes": hunt.notes,
    }


def _cell_text(cell: dict, users: int, resources: int) -> str:
    status = cell["status"]
    if status == "violated":
        return "[red]violated[/red]"
    if status == "holds":
        return "[green]holds[/green]"
    if status == "none-found":
        return f"none found ({sum(cell['evaluated'].values())})"
    if status == "unknown":
        return "unknown (time)" if cell.get("stopped") == "time" else "unknown"
    return status


def _compact(value) -> str:
    """JSON-ish text without quotes around exact numbers: [[1, 1/8], [0, 1]]."""
    import json

    return json.dumps(value, ensure_ascii=False).replace('"', "")


def violation_record_for(mechanism: str, prop: str, hunt, seed: int = 0):
    from fairlab.search.rediscover import violation_record

    return violation_record(mechanism, prop, hunt, seed, {}, None)
