"""`fairlab search`, `fairlab rediscover` and `fairlab matrix`: counterexample hunting from the CLI."""

from __future__ import annotations

import time
from typing import List, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from fairlab.commands import _params as params
from fairlab.errors import InputError, OptionError, PluginError

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
        time_limit: float = typer.Option(30.0, "--time-limit", help="seconds for the whole portfolio"),
        seed: int = typer.Option(0, "--seed", help="seed of the random engine"),
        option: Optional[List[str]] = typer.Option(None, "--option", "-o", help="mechanism option KEY=VALUE"),
        no_store: bool = typer.Option(False, "--no-store", help="do not write a fixture"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
    ):
        """Hunt a violation of PROPERTY by MECHANISM; shrink, verify exactly and store it as a fixture."""
        import mechanisms
        import properties
        from counterexamples import store
        from search import engines
        from search.prove import check_options
        from search.rediscover import violation_record

        check_format(fmt)
        try:
            params.size(users, resources)
            params.seconds(time_limit)
            mech = mechanisms.get(mechanism)
            properties.get(prop)
            options = parse_options(option)
            check_options(mech, options)
            with _progress(fmt == "table") as bar:
                task = bar.add_task(f"{mech.name} vs {prop}", total=None)
                hunt = engines.search(
                    mech, prop, users, resources, engines=engine or engines.ENGINES, time_limit=time_limit,
                    seed=seed, options=options,
                    progress=lambda name, k: bar.update(task, description=f"{mech.name} vs {prop}: {k} candidates ({name})"),
                )
        except InputError as exc:
            fail(str(exc))
        fixture = None
        if hunt.status == "violated" and not no_store:
            path, written = store.save(violation_record(mech.name, prop, hunt, seed, options, None))
            fixture = str(path)
        out = {
            "mechanism": mech.name,
            "property": prop,
            "verdict": hunt.status,
            "instance": hunt.instance.to_dict() if hunt.instance else None,
            "witness": hunt.verdict.witness if hunt.verdict else None,
            "explanation": hunt.verdict.explanation if hunt.verdict else None,
            "engine": hunt.engine,
            "fixture": fixture,
            "seconds": round(hunt.seconds, 3),
            "evaluated": hunt.evaluated,
            "budget": {"time_limit": time_limit, "users": users, "resources": resources, "seed": seed},
            "notes": hunt.notes,
        }
        if fmt == "json":
            emit_json(out)
            return
        console = Console()
        console.print(f"[bold]{mech.name}[/bold] vs [bold]{prop}[/bold]: {hunt.status} in {hunt.seconds:.2f} s "
                      f"(candidates: {hunt.evaluated})")
        if hunt.instance is not None:
            console.print(f"instance: {out['instance']}")
            console.print(f"witness: {out['witness']}")
            console.print(f"why: {out['explanation']}")
            console.print(f"fixture: {fixture or '(not stored)'}")
        for note in hunt.notes:
            console.print(f"note: {note}")

    @app.command("rediscover")
    def rediscover_cmd(
        claim: Optional[List[str]] = typer.Option(None, "--claim", help="only these claim ids (repeatable)"),
        time_limit: Optional[float] = typer.Option(None, "--time-limit", help="seconds per claim (default: per claim)"),
        seed: int = typer.Option(0, "--seed"),
        no_store: bool = typer.Option(False, "--no-store", help="do not write fixtures"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
    ):
        """Rediscover every counterexample of the sources from scratch (exit 1 if one is not found)."""
        from search import rediscover as R

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
            emit_json([o.to_dict() for o in outcomes])
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
            console.print("fixtures in counterexamples/fixtures/; re-verified by `python -m pytest tests/test_fixtures.py`")
        if any(o.status != "found" for o in outcomes):
            raise typer.Exit(1)

    @app.command("matrix")
    def matrix_cmd(
        time_limit: float = typer.Option(3.0, "--time-limit", help="search seconds per cell without a fixture"),
        users: int = typer.Option(2, "--users", "-n"),
        resources: int = typer.Option(2, "--resources", "-m"),
        mechanism: Optional[List[str]] = typer.Option(None, "--mechanism", help="restrict to these (repeatable)"),
        no_store: bool = typer.Option(False, "--no-store", help="do not write fixtures for new violations"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
    ):
        """The mechanism × property table: violated (fixture) or none found within the stated budget."""
        import mechanisms
        import properties
        from counterexamples import store
        from search import engines

        check_format(fmt)
        try:
            params.seconds(time_limit)
            params.size(users, resources)
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
                    else:
                        try:
                            hunt = engines.search(mech, prop, users, resources, time_limit=time_limit,
                                                  shrink_seconds=2.0)
                        except (PluginError, OptionError) as exc:  # a broken mechanism: not "n/a"
                            fail(str(exc))
                        except InputError as exc:
                            cells.append({"mechanism": mech.name, "property": prop, "status": "n/a",
                                          "note": str(exc)})
                            bar.advance(task)
                            continue
                        cell = {"mechanism": mech.name, "property": prop, "status": hunt.status,
                                "budget": f"{time_limit:g} s at {users}×{resources}",
                                "notes": hunt.notes}
                        if hunt.status == "violated":
                            cell["witness"] = hunt.verdict.witness
                            if not no_store:
                                path, _ = store.save(violation_record_for(mech.name, prop, hunt))
                                cell["fixture"] = path.name
                        cells.append(cell)
                    bar.advance(task)
        if fmt == "json":
            emit_json(cells)
            return
        table = Table(title="mechanism × property")
        table.add_column("mechanism")
        for prop in properties.names():
            table.add_column(prop)
        for mech in mechs:
            row = []
            for prop in properties.names():
                cell = next(c for c in cells if c["mechanism"] == mech.name and c["property"] == prop)
                row.append({"violated": "[red]violated[/red]", "none-found": "none found", "n/a": "n/a"}.get(
                    cell["status"], cell["status"]))
            table.add_row(mech.name, *row)
        Console().print(table)
        Console().print(f"none found = no violation within {time_limit:g} s at {users} users × {resources} resources; "
                        "violated cells have a fixture in counterexamples/fixtures/")


def _compact(value) -> str:
    """JSON-ish text without quotes around exact numbers: [[1, 1/8], [0, 1]]."""
    import json

    return json.dumps(value, ensure_ascii=False).replace('"', "")


def violation_record_for(mechanism: str, prop: str, hunt):
    from search.rediscover import violation_record

    return violation_record(mechanism, prop, hunt, 0, {}, None)
