"""The audit document as markdown: the property table to paste into a paper or a review, the
counterexamples with their instances, the reference profiles and how to reproduce."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from fairlab.audit.reference import REFERENCE_MECHANISMS
from fairlab.core.results import status_label
from fairlab.core.stdio import printable


def text(value) -> str:
    """Text safe in markdown prose: no HTML (names come from user files), no control characters."""
    plain = printable(value if value is not None else "")
    return plain.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def cell(value) -> str:
    """Text safe inside a markdown table cell: `text`, pipes escaped, one line."""
    return text(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def fenced(body: str, info: str = "") -> list[str]:
    """A code block whose fence is longer than any run of backticks in `body` (which cannot close it)."""
    body = printable(body)
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, body, fence]


def compact(value) -> str:
    """JSON without quotes around exact numbers: [[1, 1/8], [0, 1]]."""
    return json.dumps(value, ensure_ascii=False).replace('"', "")


def short_name(mechanism: str) -> str:
    """A column header for a mechanism: a plug-in ``path/to/file.py:function`` is its function."""
    return mechanism.rsplit(":", 1)[-1] if ":" in mechanism else mechanism


def how_found(row: Mapping[str, Any]) -> str:
    """How an audit row's counterexample was found, in words: the engine that found it, and, for one
    that started from a shipped example, whether it IS that example or was shrunk from it (then it
    is not one of the shipped examples). "" when the row says nothing."""
    found_by = row.get("found_by")
    given = row.get("origin")
    origin: Mapping[str, Any] = given if isinstance(given, dict) else {}
    steps, example = origin.get("shrink_steps"), origin.get("example")
    shrunk = f", then shrunk in {steps} step{'s' if steps != 1 else ''}" if isinstance(steps, int) and steps else ""
    if found_by == "example":
        if not example:  # an older document: which example, and whether it was shrunk, is not recorded
            return "starting from a shipped example (shrunk, if it could be)"
        if steps == 0:
            return f"among the shipped examples: it is the example {example}"
        return (f"by shrinking the shipped example {example} ({steps} step{'s' if steps != 1 else ''}; it is not "
                "itself a shipped example)" if isinstance(steps, int) else
                f"starting from the shipped example {example} (shrunk, if it could be)")
    if found_by == "search":
        engine = origin.get("engine")
        return (f"by the {engine} search engine" if engine else "by the search engines") + shrunk
    if found_by == "proof":
        return "from a model of spec ∧ ¬property, checked exactly" + shrunk
    if found_by == "proof+search":
        return "by the proof and the search"
    return str(found_by or "")


def sizes_span(sizes) -> str:
    """Sizes as a cell shows them: up to three listed ("2×2, 2×3"), more as their span and count
    ("2×2–4×4, 8 sizes"; the evidence beside the cell lists every one)."""
    listed = [f"{n}×{m}" for n, m in sizes]
    if len(listed) <= 3:
        return ", ".join(listed)
    ordered = sorted(sizes, key=lambda s: (s[0] * s[1], s[0]))
    return f"{ordered[0][0]}×{ordered[0][1]}–{ordered[-1][0]}×{ordered[-1][1]}, {len(listed)} sizes"


def reference_word(entry: dict | None) -> str:
    """A reference profile's cell: its status and the sizes its evidence covers ("proved 2×2, 2×3")."""
    if not entry or entry["status"] == "not established":
        return "—"
    status, sizes, notes = reference_parts(entry)
    word = f"{status} {sizes_span(sizes)}".strip()
    for note in notes:
        word += f"; {note}" if note.startswith("proved on") else f" ({note})"
    return word


def reference_parts(entry: dict) -> tuple[str, list[tuple[int, int]], list[str]]:
    """(status, sizes, notes) of an established reference profile: the words `reference_word` joins
    (the LaTeX table abbreviates the sizes and turns the notes into marks)."""
    sizes = [(n, m) for n, m in entry.get("sizes") or []]
    notes = []
    inst = entry.get("instance")
    if entry["status"] == "violated" and inst:
        special = [what for what, present in (
            ("a zero demand", any(str(d) == "0" for row in inst.get("demands", []) for d in row)),
            ("weights", inst.get("weights") is not None),
            ("a task cap", any(t is not None for t in inst.get("max_tasks") or []))) if present]
        if special:
            notes.append(f"with {' and '.join(special)}")
    restricted = [e.get("domain") for e in entry.get("evidence", []) if e.get("status") == "proved"
                  and e.get("restriction")]
    if entry["status"].startswith("proved") and restricted:
        notes.append(f"on {restricted[0]}")
    elif entry["status"] == "violated" and restricted:
        notes.append(f"proved on {restricted[0]}")
    return entry["status"], sizes, notes


def reference_columns(document: dict) -> list[str]:
    """The reference mechanisms shown beside the audited one (not itself again)."""
    ref = document["reference"]["mechanisms"]
    return [name for name in REFERENCE_MECHANISMS if name in ref and name != document["mechanism"]]


def sub_domain(row: dict) -> str | None:
    """The label of the sub-domain a row's evidence covers when it is less than the domain explored
    (a proof on unit weights, candidates the mechanism evaluated only unweighted), else None."""
    domain = row.get("domain") or {}
    if row.get("status") in ("proved", "none-found") and "sub-domain" in (domain.get("note") or ""):
        return str(domain.get("name"))
    return None


def status_word(row: dict) -> str:
    word = _status_word(row)
    less = sub_domain(row)
    if less:  # proved, or searched, on less than explored
        word += f" (on {less})"
    return word


def domain_words(document: dict) -> str:
    """What follows the report's domain name: the mechanism's declared domain where it narrows the
    asked one, and the properties whose evidence covers only a sub-domain ("" for none of these)."""
    domain = document.get("domain") or {}
    line = f" — {domain['note']}" if domain.get("note") else ""
    less = domain.get("sub_domains")
    if less:
        line += ("; the evidence of " + ", ".join(f"{prop} covers only {label}" for prop, label in less.items())
                 + " (marked in the table)")
    elif less is not None:
        line += "; every verdict covers all of it"
    return line


#: what "—" in a reference column means
DASH = "— (not established: the lab knows neither a counterexample in this domain nor a proof)"


def _status_word(row: dict) -> str:
    status = row["status"]
    if status == "proved":
        largest = row.get("largest_proved")
        if not row.get("proved_sizes"):
            return "proved (vacuous at every size)"
        if row.get("proved_everywhere") and largest:
            return f"proved up to {largest[0]}×{largest[1]}"
        counted = [s for s in row["sizes"] if s["status"] != "vacuous"]
        return f"proved at {len(row['proved_sizes'])} of {len(counted)} sizes"
    if status in ("violated", "error") and row.get("instance"):
        inst = row["instance"]
        return f"{status} at {len(inst['demands'])}×{len(inst['capacities'])}"
    if row.get("spec_proved_sizes"):
        return f"{status} (its spec proved at {len(row['spec_proved_sizes'])} sizes)"
    if status == "unknown" and any(s.get("stopped") == "time" for s in row.get("sizes") or ()):
        return status_label(status, {"stopped": "time"})  # unknown (wall-clock safety net)
    return status


def render(document: dict) -> str:
    """The whole report in markdown."""
    mech = document["mechanism"]
    ref = document["reference"]["mechanisms"]
    others = reference_columns(document)
    lines = [f"# fairlab audit: {cell(mech)}", "",
             f"Sizes up to {document['users']} users × {document['resources']} resources "
             f"({len(document['sizes'])} sizes), seed {document['seed']}, {document['seconds']:.1f} s"
             + (" — stopped by the wall-clock safety net" if document["budget"].get("stopped") else "") + ".", "",
             *([f"Instance domain: **{cell(document['domain']['name'])}**{cell(domain_words(document))}; reference "
                f"columns on {cell(document['reference'].get('domain', 'all'))}.", ""]
               if document.get("domain") else []),
             "| property | " + cell(short_name(mech)) + " | " + " | ".join(others) + " | summary |",
             "|---|---|" + "---|" * len(others) + "---|"]
    for row in document["properties"]:
        refs = " | ".join(cell(reference_word(ref[name].get(row["property"]))) for name in others)
        lines.append(f"| {row['property']} ({cell(row['title'])}) | **{cell(status_word(row))}** | {refs} | "
                     f"{cell(row['summary'])} |")
    lines += ["", f"Reference columns: {cell(document['reference']['note'])}. "
              "Statuses: violated (a verified counterexample), proved (for every demand profile at the sizes "
              "given), none-found (no violation among the candidates "
              "evaluated), n/a (the mechanism declined), unknown (the budget ran out), error (the mechanism raised or "
              "answered wrongly: its smallest such instance), (on D) (the evidence covers only the sub-domain D), "
              f"{DASH}."]
    crashed = [row for row in document["properties"] if row["status"] == "error"]
    if crashed:
        lines += ["", "## Errors (raises and wrong answers)"]
        for row in crashed:
            lines += ["", f"### {row['property']}: {cell(row['title'])}", "", text(row["explanation"]), "",
                      *fenced(json.dumps(row["instance"], ensure_ascii=False), "json")]
    found = [row for row in document["properties"] if row["status"] == "violated"]
    if found:
        lines += ["", "## Counterexamples"]
        for row in found:
            how = how_found(row)
            lines += ["", f"### {row['property']}: {cell(row['title'])}", "", text(row["explanation"]), "",
                      *([f"Found {text(how)}.", ""] if how else []),
                      *fenced(json.dumps(row["instance"], ensure_ascii=False), "json"), "",
                      *fenced(f"witness: {json.dumps(row['witness'], ensure_ascii=False)}"
                              + (f"\nstored as {row['fixture']}" if row.get("fixture") else ""))]
    lines += ["", "## Reproduce", "", *fenced(document["command"]), "",
              "Versions: " + ", ".join(f"{cell(k)} {cell(v)}" for k, v in document["provenance"].items() if v) + "."]
    return "\n".join(lines) + "\n"
