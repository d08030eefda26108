"""Reading a campaign folder back: every cell with its outcome, and the mechanism × property table."""

from __future__ import annotations

import json
from pathlib import Path

from fairlab.campaign.run import load_results
from fairlab.core.errors import InputError


def read(out: str | Path) -> tuple[dict, list[dict]]:
    """(``campaign.json``, the cells in the spec's order, each with its result document or None)."""
    out = Path(out)
    try:
        campaign = json.loads((out / "campaign.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise InputError(f"campaign folder {str(out)!r}: no readable campaign.json (run `fairlab campaign run` "
                         "first)") from None
    cells = campaign.get("cells") if isinstance(campaign, dict) else None
    if not isinstance(cells, list) or not all(isinstance(c, dict) and isinstance(c.get("id"), str)
                                              and isinstance(c.get("mechanism"), dict) for c in cells):
        raise InputError(f"campaign folder {str(out)!r}: campaign.json is not a campaign's (no list of cells); "
                         "run `fairlab campaign run` again")
    results = load_results(out)
    rows = []
    for cell in cells:
        document = results.get(cell["id"])
        rows.append({"id": cell["id"], "cell": cell, "outcome": document["outcome"] if document else "missing",
                     "status": document["status"] if document else None,
                     "seconds": document.get("seconds") if document else None,
                     "error": document.get("error") if document else None,
                     "result": document.get("result") if document else None,
                     "provenance": document.get("provenance") if document else None})
    return campaign, rows


def word(row: dict) -> str:
    """A cell's word in the table: its verdict, or what happened to it."""
    if row["outcome"] == "done":
        return row["status"] or "done"
    return row["outcome"]


def labels(row: dict) -> tuple[str, str]:
    """A cell's place in the table: (row label: mechanism and property, column label: size / seed /
    instance / loads, "—" when the verb sweeps none of them)."""
    c = row["cell"]
    left = " ".join(x for x in (c["mechanism"]["name"], c.get("property") or "") if x)
    top = " ".join(str(x) for x in (c.get("size"), None if c.get("seed") is None else f"seed {c['seed']}",
                                     (c.get("instance") or {}).get("name"), c.get("loads"),
                                     None if c.get("domain") is None else f"domain {c['domain']}") if x) or "—"
    return left, top


def table(rows: list[dict]) -> tuple[list[str], list[str], dict]:
    """(row labels: mechanism and property, column labels: size / seed / instance / loads, cells)."""
    grid: dict = {}
    lefts, tops = [], []
    for row in rows:
        left, top = labels(row)
        lefts += [left] if left not in lefts else []
        tops += [top] if top not in tops else []
        grid[(left, top)] = word(row)
    return lefts, tops, grid


def counts(rows: list[dict]) -> tuple[dict, dict]:
    """(cells per outcome — done, error, timeout, crashed, missing —, done cells per verdict), each in
    the order first met."""
    outcomes: dict = {}
    verdicts: dict = {}
    for row in rows:
        outcomes[row["outcome"]] = outcomes.get(row["outcome"], 0) + 1
        if row["outcome"] == "done":
            verdicts[word(row)] = verdicts.get(word(row), 0) + 1
    return outcomes, verdicts
