"""`fairlab schema`: the JSON Schemas (draft 2020-12) of the documents the lab reads and writes.

    fairlab schema              the list (instance, allocation, result, report, listing, fixture)
    fairlab schema result       one schema, as JSON on stdout

Every ``--format json`` output validates against one of them (tests/cli/test_schemas.py).
"""

from __future__ import annotations

import json
from typing import Optional

import typer

from fairlab.cli.inputs import check_format, fail
from fairlab.cli.output import emit_json, listing
from fairlab.core import schemas
from fairlab.core.errors import InputError


def register(app: typer.Typer) -> None:
    app.command("schema")(schema_cmd)


def schema_cmd(
    name: Optional[str] = typer.Argument(None, metavar="[NAME]", help="a schema's name; without it, the list"),
    fmt: str = typer.Option("table", "--format", help="table | json (of the list; a schema is always JSON)"),
):
    """Print the JSON Schema NAME, or list the shipped schemas."""
    check_format(fmt)
    try:
        if name is not None:
            typer.echo(json.dumps(schemas.load(name), indent=2, ensure_ascii=False))
            return
        rows = [{"name": n, "title": schemas.load(n).get("title", "")} for n in schemas.names()]
    except InputError as exc:
        fail(str(exc))
    if fmt == "json":
        emit_json(listing("schemas", rows))
        return
    for row in rows:
        typer.echo(f"{row['name']}: {row['title']}")
