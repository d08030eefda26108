"""The audit document as markdown: the property table to paste into a paper or a review, the
counterexamples with their instances, the reference profiles and how to reproduce."""

from __future__ import annotations

import json

from fairlab.audit.reference import REFERENCE_MECHANISMS


def cell(text) -> str:
    """Text safe inside a markdown table cell (pipes escaped, one line)."""
    return str(text if text is not None else "").replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def compact(value) -> str:
    """JSON without quotes around exact numbers: [[1, 1/8], [0, 1]]."""
    return json.dumps(value, ensure_ascii=False).replace('"', "")


def short_name(mechanism: str) -> str:
    """A column header for a mechanism: a plug-in ``path/to/file.py:function`` is its function."""
    return mechanism.rsplit(":", 1)[-1] if ":" in mechanism else mechanism


def reference_word(entry: dict | None) -> str:
    if not entry:
        return "—"
    return {"not established": "—"}.get(entry["status"], entry["status"])


def status_word(row: dict) -> str:
    status = row["status"]
    if status == "proved":
        largest = row.get("largest_proved")
        if row.get("proved_everywhere") and largest:
            word = f"proved up to {largest[0]}×{largest[1]}"
        else:
            counted = [s for s in row["sizes"] if s["status"] != "vacuous"]
            word = f"proved at {len(row['proved_sizes'])} of {len(counted)} sizes"
        return word + (" (spec)" if row.get("scope") == "spec" else "")
    if status == "violated" and row.get("instance"):
        inst = row["instance"]
        return f"violated at {len(inst['demands'])}×{len(inst['capacities'])}"
    return status


def render(document: dict) -> str:
    """The whole report in markdown."""
    mech = document["mechanism"]
    ref = document["reference"]["mechanisms"]
    others = [name for name in REFERENCE_MECHANISMS if name in ref]
    lines = [f"# fairlab audit: {cell(mech)}", "",
             f"Sizes up to {document['users']} users × {document['resources']} resources "
             f"({len(document['sizes'])} sizes), seed {document['seed']}, {document['seconds']:.1f} s"
             + (" — stopped by the time limit" if document["budget"].get("stopped") else "") + ".", "",
             "| property | " + cell(short_name(mech)) + " | " + " | ".join(others) + " | summary |",
             "|---|---|" + "---|" * len(others) + "---|"]
    for row in document["properties"]:
        refs = " | ".join(cell(reference_word(ref[name].get(row["property"]))) for name in others)
        lines.append(f"| {row['property']} ({cell(row['title'])}) | **{cell(status_word(row))}** | {refs} | "
                     f"{cell(row['summary'])} |")
    lines += ["", f"Reference columns: {cell(document['reference']['note'])}. "
              "Statuses: violated (a verified counterexample), proved (for every demand profile at the sizes "
              "given; (spec): a plug-in's declared spec), none-found (no violation among the candidates "
              "evaluated), n/a (the mechanism declined), unknown (the budget ran out), — (not established)."]
    found = [row for row in document["properties"] if row["status"] == "violated"]
    if found:
        lines += ["", "## Counterexamples"]
        for row in found:
            lines += ["", f"### {row['property']}: {cell(row['title'])}", "", row["explanation"], "",
                      "```json", json.dumps(row["instance"]), "```",
                      f"witness: `{json.dumps(row['witness'])}`" + (f"; stored as `{row['fixture']}`"
                                                                   if row.get("fixture") else "")]
    lines += ["", "## Reproduce", "", "```", document["command"], "```", "",
              "Versions: " + ", ".join(f"{k} {v}" for k, v in document["provenance"].items() if v) + "."]
    return "\n".join(lines) + "\n"
