"""`fairlab store path|list|verify`: the user's store of findings (see `fairlab.counterexamples.store`).

``verify`` re-verifies fixtures from scratch, exactly (`fairlab.search.verify`); a fixture of a
plug-in needs the plug-in's file (``--plugin PATH``, checked by sha256).
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from fairlab.cli.commands.search import STORE_HELP
from fairlab.cli.inputs import check_format, fail
from fairlab.cli.output import console, emit_json
from fairlab.core.errors import InputError
from fairlab.core.results import SCHEMA_VERSION, report
from fairlab.counterexamples import store as fixtures
from fairlab.counterexamples.store import Store
from fairlab.search.verify import verify_fixtures

store_app = typer.Typer(no_args_is_help=True, help="The store of your findings: where it is, what it holds, "
                                                   "re-verify it.")


def _listing(records) -> list[dict]:
    return [{"fixture": str(name), "kind": r.get("kind"), "mechanism": r.get("mechanism"),
             "property": r.get("property"), "claim": r.get("claim"), "found_at": r.get("found_at"),
             "plugin": r.get("plugin")} for name, r in records]


def register(app: typer.Typer) -> None:
    @store_app.command("path")
    def path_cmd(store: Optional[str] = typer.Option(None, "--store", metavar="DIR", help=STORE_HELP)):
        """Print the store's folder."""
        try:
            typer.echo(str(Store(store).path))
        except InputError as exc:
            fail(str(exc))

    @store_app.command("list")
    def list_cmd(
        store: Optional[str] = typer.Option(None, "--store", metavar="DIR", help=STORE_HELP),
        shipped: bool = typer.Option(False, "--shipped", help="the fixtures shipped with the lab instead"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
    ):
        """List the fixtures of the store (or the shipped ones)."""
        check_format(fmt)
        try:
            where = None if shipped else Store(store)
            records = fixtures.shipped() if where is None else [(p.name, r) for p, r in where.load_all()]
        except InputError as exc:
            fail(str(exc))
        items = _listing(records)
        if fmt == "json":
            emit_json({"schema_version": SCHEMA_VERSION, "kind": "fixtures", "items": items})
            return
        table = Table(title="shipped fixtures" if where is None else f"fixtures in {where.path}")
        for col in ("fixture", "kind", "mechanism", "property", "claim", "found at"):
            table.add_column(col, overflow="fold")
        for item in items:
            table.add_row(*(str(item[k] or "—") for k in ("fixture", "kind", "mechanism", "property", "claim",
                                                          "found_at")))
        console.print(table)

    @store_app.command("verify")
    def verify_cmd(
        files: Optional[List[Path]] = typer.Argument(None, metavar="[FIXTURE]...",
                                                     help="fixture files (default: the whole store)"),
        store: Optional[str] = typer.Option(None, "--store", metavar="DIR", help=STORE_HELP),
        plugin: Optional[List[Path]] = typer.Option(None, "--plugin", metavar="PATH",
                                                    help="a plug-in file a fixture names (repeatable)"),
        shipped: bool = typer.Option(False, "--shipped", help="the fixtures shipped with the lab instead"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
    ):
        """Re-verify fixtures from scratch, exactly (exit 1 if one does not re-verify)."""
        check_format(fmt)
        try:
            if files:
                records = [(str(f), fixtures.read(f)) for f in files]
            elif shipped:
                records = fixtures.shipped()
            else:
                records = [(str(p), r) for p, r in Store(store).load_all()]
            results = verify_fixtures(records, plugin or ())
        except InputError as exc:
            fail(str(exc))
        if fmt == "json":
            emit_json(report("fixture-verification", results))
        else:
            for r in results:
                mark = "ok " if r.status == "reproduced" else "BAD"
                console.print(f"{mark} {r.details['fixture']}: {r.explanation}", markup=False, highlight=False)
            if not results:
                console.print("no fixtures", markup=False)
        if any(r.status != "reproduced" for r in results):
            raise typer.Exit(1)

    app.add_typer(store_app, name="store")
