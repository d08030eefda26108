"""What every verb prints: rich tables on the console, or one JSON document on stdout.

JSON documents (see ``fairlab schema``) are built by the domain layers — a `Result` by
`fairlab.core.results.to_json`, several results by `fairlab.core.results.report` — or, for the
documents that are not results, by `listing` and `allocation_document` here. Each carries
``schema_version`` and (results, reports, allocations) the ``provenance`` of the run once.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Iterable

import typer
from rich.console import Console

from fairlab.core.results import SCHEMA_VERSION, provenance, to_json

# Wider than rich's 80-column default when the output is not a terminal (pipes, CI logs), and a
# printed line is never broken there (soft wrap), so a long plug-in path keeps its verdict on its line.
console = Console(width=None if sys.stdout.isatty() else 132, soft_wrap=not sys.stdout.isatty())


def model_line(details) -> str | None:
    """The ``model:`` line of a machines-setting result (its valuation model, `details["model"]`), or None."""
    model = (details or {}).get("model")
    if not isinstance(model, dict) or "name" not in model:
        return None
    how = (f"asked; the mechanism declares {model.get('declared')}" if model.get("asked")
           else "the one the mechanism declares")
    note = f"; {model['note']}" if model.get("note") else ""
    return f"model: {model['name']} ({how}) — {model.get('words', '')}{note}"


def emit_json(document: Any, result: bool = False) -> None:
    """Print one JSON document on stdout: a `Result` as `to_json` writes it (with schema_version and
    provenance), anything else (a `report`, `listing` or `allocation_document`) as it is, exact
    numbers as ints or ``"p/q"``.

    ``result=True`` is the stamp of verbs not yet printing `to_json` / `report` documents: it adds
    the run's ``provenance`` to a dict (or to each dict of a list) that has none. Remove it once no
    verb passes it."""
    doc = to_json(document)
    if result:
        if isinstance(doc, dict) and "provenance" not in doc:
            doc = {**doc, "provenance": provenance()}
        elif isinstance(doc, list):
            doc = [{**item, "provenance": provenance()} if isinstance(item, dict) and "provenance" not in item else item
                   for item in doc]
    typer.echo(json.dumps(doc, indent=2, ensure_ascii=False))


def listing(kind: str, items: Iterable) -> dict:
    """The JSON document of a catalogue (``fairlab mechanisms``, ``properties``, ``examples``,
    ``schema``): ``{"schema_version", "kind", "items": [...]}`` (schema ``listing``)."""
    return {"schema_version": SCHEMA_VERSION, "kind": kind, "items": to_json(list(items), versioned=False)}


def allocation_document(allocation) -> dict:
    """The JSON document of ``fairlab allocate``: the allocation's fields (`Allocation.to_dict`) with
    ``schema_version`` first and the run's ``provenance`` last (schema ``allocation``)."""
    return {"schema_version": SCHEMA_VERSION, **to_json(allocation, versioned=False), "provenance": provenance()}
