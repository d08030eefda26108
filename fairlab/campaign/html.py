"""A campaign folder as one self-contained HTML5 page (`fairlab campaign report DIR --out report.html`).

`render(campaign, rows, folder)` turns what `fairlab.campaign.report.read` gives back into a page
built from the audit report's pieces (`fairlab.audit.html`: its style sheet, badges, instance
table and page shell), so a campaign looks like an audit: inline CSS and inline SVG only, no
scripts, nothing fetched. Sections, in order:

1. the header: the verb, the folder, the sweep and budget, the lab's version, the cells per
   outcome (done, error, timeout, crashed, missing) and per verdict;
2. the mechanism × property table (columns: size / seed / instance / loads, as in
   `report.table`), each cell a status badge linking to its detail;
3. one article per cell, in the spec's order: what it ran, its verdict and time; the error text of
   an error, timeout or crash; the counterexample (instance, witness) of a search, check or proof
   that found one; for an audit cell, the audit report's own sections as `fairlab audit --out`
   renders them (`fairlab.audit.html.sections`, figures included, ids prefixed by the cell's); a
   cell with no result file (an interrupted campaign) is shown as missing;
4. how to reproduce: the recorded spec and the `fairlab campaign run` command line, shell-quoted.

Every string taken from the folder is HTML-escaped (mechanism names, plug-in paths and error texts
come from user files). Stable hooks for tests: ``table#grid`` with rows ``tr[data-row]`` and links
``a.cell-link[data-cell][data-outcome]``, ``article.cell#cell-<id>[data-outcome][data-status]``,
``section.audit-report[data-cell]``, ``section#reproduce``. The output is deterministic.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

from fairlab import __version__
from fairlab.audit import html as audit_html
from fairlab.audit.html import anchor, badge, esc, instance_table, json_text, seconds_text
from fairlab.campaign import report
from fairlab.core.errors import InputError

#: outcome of a cell that did not finish -> (mark, what it means); the order of the legend
OUTCOMES = {
    "error": ("!", "bad input, a broken plug-in or an internal error: the cell's one-line error"),
    "timeout": ("!", "killed at its hard time limit (its time_limit + 10 s)"),
    "crashed": ("!", "its process died without an answer"),
    "missing": ("…", "no result file yet: the campaign was interrupted before this cell finished"),
}
#: verdicts whose result carries a counterexample worth showing (the instance and the witness)
WITH_COUNTEREXAMPLE = ("violated", "refuted", "disagrees")

CSS = audit_html.CSS + """
.outcome-error, .outcome-crashed { background: #ffebe9; color: #82071e; border-color: #cf222e; border-style: dashed; }
.outcome-timeout { background: #fff1e5; color: #953800; border-color: #fb8f44; border-style: dashed; }
.outcome-missing { background: #ffffff; color: #57606a; border-color: #8c959f; border-style: dashed; }
table#grid td { white-space: nowrap; } table#grid td a.cell-link { text-decoration: none; margin-right: 4px; }
table#grid th:first-child { white-space: nowrap; }
article.cell { border-left: 6px solid #afb8c1; }
article.cell[data-outcome="error"], article.cell[data-outcome="crashed"] { border-left-color: #cf222e; }
article.cell[data-outcome="timeout"] { border-left-color: #fb8f44; }
article.cell[data-outcome="missing"] { border-left-style: dashed; }
table.facts th { font-weight: 600; white-space: nowrap; } table.facts td { overflow-wrap: anywhere; }
ul.facts { display: flex; flex-wrap: wrap; gap: 2px 18px; margin: 4px 0 8px; padding: 0; list-style: none;
           font-size: 14px; } ul.facts li { overflow-wrap: anywhere; } ul.facts span { color: var(--muted); }
pre.error { background: #ffebe9; border-color: #ff8182; }
section.audit-report { margin: 12px 0 0; padding: 0 0 0 12px; border-left: 3px solid var(--line); }
section.audit-report h1 { font-size: 20px; } section.audit-report h2 { font-size: 17px; margin-top: 24px; }
section.audit-report h3 { font-size: 15px; }
section.audit-report table[id$="-properties"] td:first-child { white-space: nowrap; }
section.audit-report table[id$="-reference"] { table-layout: fixed; width: 100%; min-width: 900px; }
section.audit-report table[id$="-reference"] th:first-child { width: 190px; overflow-wrap: anywhere; }
section.audit-report table[id$="-reference"] td { text-align: center; padding: 4px 3px; vertical-align: middle; }
section.audit-report table[id$="-reference"] .badge { white-space: normal; font-size: 12px; padding: 1px 6px; }
section.audit-report table[id$="-reference"] tr.audited td,
section.audit-report table[id$="-reference"] tr.audited th { background: #fff8e6; font-weight: 600; }
"""


# ------------------------------------------------------------------------------------------ pieces
def outcome_badge(outcome) -> str:
    """An unfinished cell's outcome (error, timeout, crashed, missing) as a badge with its word."""
    word = str(outcome)
    mark = OUTCOMES.get(word, ("!", ""))[0]
    return f'<span class="badge outcome-{anchor(word)}">{esc(mark)}&nbsp;{esc(word)}</span>'


def verdict_badges(row: dict) -> str:
    """A cell's verdict as badges: an outcome badge when it did not finish; for an audit of several
    properties, one badge per status with its count ("2 violated"); else its status."""
    if row["outcome"] != "done":
        return outcome_badge(row["outcome"])
    given = row.get("result")
    result = given if isinstance(given, dict) else {}
    props = [p for p in result.get("properties") or [] if isinstance(p, dict)]
    if result.get("kind") == "audit" and len(props) > 1:
        words = [p.get("status") for p in props]
        return " ".join(badge(w, label=f"{words.count(w)} {w}") for w in dict.fromkeys(words))
    return badge(row.get("status") or "done")


def _cell_id(row: dict) -> str:
    return f"cell-{anchor(row['id'])}"


def _label(row: dict) -> str:
    left, top = report.labels(row)
    return f"{left} · {top}"


def _header(campaign: dict, rows: list[dict], folder: str) -> str:
    given = campaign.get("spec")
    spec = given if isinstance(given, dict) else {}
    outcomes, verdicts = report.counts(rows)
    labs = sorted({str(r["cell"].get("lab")) for r in rows if r["cell"].get("lab")})
    done = " ".join(badge(w, label=f"{n} {w}") for w, n in verdicts.items())
    unfinished = " ".join(f'{outcome_badge(o)}&nbsp;{n}' for o, n in outcomes.items() if o != "done")
    facts = [("verb", esc(spec.get("verb"))), ("folder", f"<code>{esc(folder)}</code>")]
    for key, value in (spec.get("sweep") or {}).items():
        facts.append((key, esc(", ".join(json_text(v) if not isinstance(v, str) else v for v in value)
                               if isinstance(value, list) else json_text(value))))
    for part in ("budget", "options"):
        if spec.get(part):
            facts.append((part, f"<code>{esc(json_text(spec[part]))}</code>"))
    facts.append(("cells computed with", esc(", ".join(f"fairlab {v}" for v in labs) or "?")))
    table = "".join(f"<tr><th>{esc(k)}</th><td>{v}</td></tr>" for k, v in facts)
    return (f"<header><h1>fairlab campaign: <code>{esc(spec.get('verb', '?'))}</code> over {len(rows)} "
            f"cell{'s' if len(rows) != 1 else ''}</h1>"
            f'<p class="summary" id="tally">{outcomes.get("done", 0)} done{": " + done if done else ""}'
            f'{" · not finished: " + unfinished if unfinished else ""}</p>'
            f'<table class="facts" id="spec">{table}</table>'
            '<nav><a href="#grid">table</a><a href="#cells">cells</a><a href="#reproduce">reproduce</a></nav></header>')


def _grid(rows: list[dict]) -> str:
    lefts: list[str] = []
    tops: list[str] = []
    places: dict = {}
    for row in rows:
        left, top = report.labels(row)
        lefts += [left] if left not in lefts else []
        tops += [top] if top not in tops else []
        places.setdefault((left, top), []).append(row)
    head = "".join(f"<th>{esc(t)}</th>" for t in tops)
    body = []
    for left in lefts:
        cells = []
        for top in tops:
            links = "".join(f'<a class="cell-link" href="#{_cell_id(r)}" data-cell="{esc(r["id"])}" '
                            f'data-outcome="{esc(r["outcome"])}" data-status="{esc(r.get("status") or "")}">'
                            f"{verdict_badges(r)}</a>" for r in places.get((left, top), []))
            cells.append(f"<td>{links}</td>")
        body.append(f'<tr data-row="{esc(left)}"><th>{esc(left)}</th>{"".join(cells)}</tr>')
    legend = "".join(f"<li>{badge(s)} {esc(meaning)}</li>" for s, (_, meaning) in audit_html.STATUSES.items())
    legend += "".join(f"<li>{outcome_badge(o)} {esc(meaning)}</li>" for o, (_, meaning) in OUTCOMES.items())
    return ('<section id="table"><h2>Mechanism × property</h2>'
            '<p class="muted">Each badge links to its cell below.</p>'
            f'<div class="scroll"><table id="grid"><thead><tr><th></th>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div><ul class="legend">{legend}</ul></section>')


def _facts(row: dict) -> str:
    """What the cell ran: its id, mechanism (a plug-in's path and hash), the swept values, budget."""
    c = row["cell"]
    mech = c.get("mechanism") or {}
    items = [("cell", f"<code>{esc(row['id'])}</code>"), ("verb", esc(c.get("verb"))),
             ("mechanism", f"<code>{esc(mech.get('name'))}</code>")]
    for key in ("path", "sha256", "distribution", "version"):
        if mech.get(key):
            items.append((f"mechanism {key}", f"<code>{esc(mech[key])}</code>"))
    for key in ("property", "size", "seed", "loads", "requirements", "domain"):
        if c.get(key) is not None:
            items.append((key, esc(c[key])))
    instance = c.get("instance") or {}
    if instance:
        items.append(("instance", f"<code>{esc(instance.get('path') or instance.get('name'))}</code>"))
    for key in ("options", "budget"):
        if c.get(key):
            items.append((key, f"<code>{esc(json_text(c[key]))}</code>"))
    if row.get("seconds") is not None:
        items.append(("time", esc(seconds_text(row["seconds"]))))
    return '<ul class="facts">' + "".join(f"<li><span>{esc(k)}</span> {v}</li>" for k, v in items) + "</ul>"


def _evidence(row: dict) -> str:
    """A finished non-audit cell: its explanation, and the counterexample of a violated, refuted or
    disagreeing result (the instance as a table, the witness as JSON)."""
    result = row["result"] if isinstance(row.get("result"), dict) else {}
    out = []
    if result.get("explanation"):
        out.append(f'<p class="explanation">{esc(result["explanation"])}</p>')
    if str(result.get("status")) in WITH_COUNTEREXAMPLE:
        if isinstance(result.get("instance"), dict):
            out.append("<p>The instance: the capacities, and what one task of each user needs:</p>")
            out.append(instance_table(result["instance"]))
        if result.get("witness") is not None:
            out.append(f'<p>Witness: <code class="witness">{esc(json_text(result["witness"]))}</code></p>')
    if result.get("budget"):
        out.append(f'<details><summary>budget used</summary><code>{esc(json_text(result["budget"]))}</code>'
                   "</details>")
    return "".join(out)


def _cell(row: dict) -> str:
    ident = _cell_id(row)
    outcome, status = row["outcome"], row.get("status")
    out = [f'<article class="cell" id="{ident}" data-cell="{esc(row["id"])}" data-outcome="{esc(outcome)}" '
           f'data-status="{esc(status or "")}"><h3>{esc(_label(row))}: {verdict_badges(row)}</h3>', _facts(row)]
    result = row.get("result")
    if outcome == "missing":
        out.append('<p class="muted">No result file: the campaign stopped before this cell finished. The same '
                   "<code>fairlab campaign run</code> command runs it (and only the other missing cells).</p>")
    elif outcome != "done":
        out.append(f'<pre class="error"><code>{esc(row.get("error") or outcome)}</code></pre>')
    elif isinstance(result, dict) and result.get("kind") == "audit":
        out.append(f'<section class="audit-report" data-cell="{esc(row["id"])}">'
                   f'{audit_html.sections(result, ids=f"{ident}-")}</section>')
    else:
        out.append(_evidence(row))
    out.append("</article>")
    return "".join(out)


def _reproduce(campaign: dict, rows: list[dict], folder: str) -> str:
    given = campaign.get("spec")
    spec = given if isinstance(given, dict) else {}
    quoted = shlex.quote(folder)
    provenance: dict = next((r["provenance"] for r in rows if isinstance(r.get("provenance"), dict)), {})
    versions = "".join(f"<tr><th>{esc(k)}</th><td><code>{esc(v)}</code></td></tr>" for k, v in provenance.items())
    return ('<section id="reproduce"><h2>How to reproduce</h2>'
            "<p>The spec as the campaign recorded it (JSON). Saved as <code>spec.json</code> in the folder of the "
            "original spec (its relative paths are read from there):</p>"
            f'<pre><code class="spec">{esc(json.dumps(spec, indent=2, ensure_ascii=False))}</code></pre>'
            f'<pre><code class="command">fairlab campaign run spec.json --out {esc(quoted)}\n'
            f"fairlab campaign report {esc(quoted)} --out report.html</code></pre>"
            "<p>Budgets are counted in candidates and solver resource units, so the same spec with the same "
            "versions gives the same verdicts; a time limit only stops a cell. Run again, the command runs only "
            "the missing cells; <code>--retry error,timeout,crashed</code> runs those again too.</p>"
            + (f'<table class="versions"><caption class="muted">versions (of the first cell with a result)'
               f"</caption><tbody>{versions}</tbody></table>" if versions else "")
            + "</section>")


def render(campaign: dict, rows: list[dict], folder: str) -> str:
    """The campaign in `folder` (`report.read(folder)` -> `campaign`, `rows`) as one self-contained
    HTML5 page (a str; deterministic)."""
    campaign = campaign if isinstance(campaign, dict) else {}
    cells = "".join(_cell(row) for row in rows) or '<p class="muted">The spec has no cells.</p>'
    body = "".join([_header(campaign, rows, folder), _grid(rows),
                    f'<section id="cells"><h2>Cells</h2>{cells}</section>', _reproduce(campaign, rows, folder)])
    footer = (f'<footer class="muted"><p>Written by fairlab {esc(__version__)} (<code>fairlab campaign report '
              "--out</code>); a self-contained file: no network, no scripts.</p></footer>")
    return audit_html.page(f"fairlab campaign: {folder}", body, footer, css=CSS)


# ------------------------------------------------------------------------------------------ writing
def check_path(path: str | os.PathLike, folder: str | os.PathLike) -> None:
    """Refuse (`InputError`, one line naming --out) a report path the audit's `check_path` refuses,
    or one that would replace the campaign's own files (its ``campaign.json`` or anything in
    ``cells/``). Nothing is created; a command calls it before reading the folder."""
    audit_html.check_path(path)
    target = Path(os.path.abspath(path)).resolve()
    base = Path(os.path.abspath(folder)).resolve()
    cells = (base / "cells").resolve()  # a symbolic link to the results folder included
    if target in (base / "campaign.json", cells) or cells in target.parents:
        raise InputError(f"--out: {os.fspath(path)!r} would replace the campaign's own results; write the report "
                         "elsewhere (e.g. DIR/report.html)")


def write(campaign: dict, rows: list[dict], folder: str, path: str | os.PathLike) -> None:
    """Write ``render(campaign, rows, folder)`` to `path` atomically (`fairlab.audit.html.write_page`);
    bad paths are refused before anything is written (`check_path`)."""
    check_path(path, folder)
    audit_html.write_page(render(campaign, rows, folder), path)
