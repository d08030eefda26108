"""`fairlab examples`: the shipped example instances, usable wherever an INSTANCE is asked for."""

from __future__ import annotations

import typer

from fairlab.cli.inputs import check_format
from fairlab.cli.output import emit_json, listing
from fairlab.core.instance import Instance, examples


def register(app: typer.Typer) -> None:
    app.command("examples")(examples_cmd)


def examples_cmd(fmt: str = typer.Option("table", "--format", help="table | json")):
    """List the shipped example instances (usable wherever an INSTANCE is asked for)."""
    check_format(fmt)
    rows = [(name, Instance.resolve(name)) for name in examples()]
    if fmt == "json":
        emit_json(listing("examples", [{"name": name, "users": inst.n, "resources": inst.m} for name, inst in rows]))
        return
    for name, inst in rows:
        typer.echo(f"{name}: {inst.n} users × {inst.m} resources")
