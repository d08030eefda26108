"""The audit report as one self-contained HTML5 page (`fairlab audit MECHANISM --out report.html`).

`render(document)` turns an audit document (``AuditReport.to_dict()``, schema ``audit``) into a
page with inline CSS and inline SVG only: no network, no external fonts, no scripts. `write`
writes it atomically. Sections, in order: the summary line; the property table (statuses as
coloured badges that carry the word) with the reference profiles of drf, ceei, bmf and asset in
columns beside the audited mechanism's status, their evidence folded below it; one article per
violated property (the witness in words, its instance beside the allocations involved drawn by
`fairlab.audit.figures`, the stored fixture); the proofs, one folded ``<details>`` each (sizes,
scope, unsat core); the properties with no verdict either way; how to reproduce (command, seed;
versions and budget folded). Every per-size record is folded too, so a 2×2 audit stays a few
screens long.

Every string taken from the document is HTML-escaped: mechanism, user and resource names come
from user files. Stable hooks for tests: ``table#properties`` with rows ``tr[data-property]
[data-status]`` and reference cells ``td.reference[data-mechanism]``, ``table#reference-evidence``,
``figure.allocation-figure[data-property]``, ``details.proof[data-property]``, ``section#reproduce``.
The output is deterministic (same document, same bytes).

Shared with the campaign report (`fairlab.campaign.html`), which embeds each audit cell's
`sections` under an id prefix: the style sheet `CSS`, the page shell `page`, the escaping and
formatting helpers (`esc`, `anchor`, `badge`, `size_text`, `number_text`, `json_text`,
`seconds_text`, `instance_table`), `check_path` and the atomic `write_page`.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from html import escape
from pathlib import Path

from fairlab.audit import markdown
from fairlab.audit.figures import panels_svg
from fairlab.audit.markdown import how_found
from fairlab.audit.reference import REFERENCE_MECHANISMS
from fairlab.core.errors import InputError
from fairlab.counterexamples.store import check_outside_package

#: status -> (mark shown before the word, what it means); the order of the legend
STATUSES = {
    "violated": ("✗", "a counterexample was found, shrunk and re-verified exactly"),
    "proved": ("✓", "proved for every demand profile at each size listed (the largest is named)"),
    "none-found": ("○", "no counterexample among the candidates tried; not a proof"),
    "n/a": ("–", "the mechanism declines instances of this kind"),
    "unknown": ("?", "the budget ran out before a verdict"),
    "error": ("!", "the mechanism raised or answered wrongly (infeasible, negative, wrong length, not "
              "deterministic) on an instance: the smallest one found, what was wrong and file:line"),
}
#: per-size and reference statuses beyond the five above, each drawn like the closest one
_LIKE = {"holds": "proved", "refuted": "violated", "vacuous": "n/a", "declined": "n/a", "skipped": "n/a",
         "undecided": "unknown", "not established": "unknown"}

CSS = """
:root { --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #ffffff; --soft: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
       color: var(--fg); background: var(--bg); margin: 0 auto; max-width: 1200px; padding: 24px 32px 64px; }
h1 { font-size: 26px; margin: 0 0 4px; } h2 { font-size: 20px; margin: 24px 0 8px;
     border-bottom: 1px solid var(--line); padding-bottom: 4px; } h3 { font-size: 16px; margin: 24px 0 8px; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 13px; }
pre { background: var(--soft); border: 1px solid var(--line); padding: 10px 12px; overflow-x: auto;
      white-space: pre-wrap; word-break: break-all; }
.summary, .muted { color: var(--muted); } .summary { margin: 0 0 4px; }
table { border-collapse: collapse; margin: 8px 0 12px; }
th, td { border: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
table#properties td:first-child { white-space: nowrap; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 13px; font-weight: 600;
         white-space: nowrap; border: 1px solid; }
.status-violated { background: #ffebe9; color: #a40e26; border-color: #ff8182; }
.status-proved { background: #dafbe1; color: #116329; border-color: #4ac26b; }
.status-none-found { background: #ddf4ff; color: #0550ae; border-color: #80ccff; }
.status-na { background: #eaeef2; color: #424a53; border-color: #afb8c1; }
.status-unknown { background: #fff8c5; color: #7d4e00; border-color: #d4a72c; }
.status-error { background: #fbefff; color: #6e2b8b; border-color: #c297d8; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 4px 0 0; padding: 0; list-style: none;
          font-size: 12px; color: var(--muted); }
article { border: 1px solid var(--line); border-radius: 6px; padding: 2px 16px 6px; margin: 8px 0; }
article.violated { border-left: 6px solid #cf222e; } article.proved { border-left: 6px solid #1a7f37; }
article.partial { border-left: 6px solid #afb8c1; }
figure.allocation-figure { margin: 4px 0; overflow-x: auto; max-width: 100%; }
figure.allocation-figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 13px; color: var(--muted); }
ul.core { columns: 2 280px; margin: 4px 0; } ul.core li { break-inside: avoid; }
table#properties { width: 100%; } table#properties td.summary { font-size: 13px; min-width: 260px; }
table#properties th.reference, table#properties td.reference { text-align: center; background: #fbfcfd; }
table#properties td.reference { padding: 4px 3px; } table#properties th.group { text-align: center; }
table#properties td.reference .badge { white-space: normal; font-size: 12px; padding: 1px 6px; }
.cx { display: flex; flex-wrap: wrap; gap: 4px 24px; align-items: flex-start; }
.cx > .facts { flex: 1 1 300px; min-width: 0; } .cx > .facts > h3 { margin-top: 12px; }
.cx > .facts p { margin: 6px 0; } .cx p.found { font-size: 14px; } .cx table.instance { margin: 4px 0; }
.cx table.instance th, .cx table.instance td { padding: 2px 10px; } .cx > figure { flex: 0 1 auto; margin: 0; }
details.proof { border: 1px solid var(--line); border-left: 6px solid #1a7f37; border-radius: 6px;
                padding: 4px 12px; margin: 8px 0; } details.proof.partial { border-left-color: #afb8c1; }
details.proof > summary { color: var(--fg); }
table.undecided { width: 100%; } table.undecided th { white-space: nowrap; font-weight: 600; background: none; }
table.undecided details { margin: 2px 0 0; }
caption { text-align: left; white-space: nowrap; }
.scroll { overflow-x: auto; max-width: 100%; }
details { margin: 8px 0; } summary { cursor: pointer; color: var(--muted); }
.warning { background: #fff8c5; border: 1px solid #d4a72c; padding: 6px 10px; border-radius: 6px; }
nav { font-size: 14px; margin: 8px 0 0; } nav a { margin-right: 14px; }
@media print { body { max-width: none; padding: 0; } nav { display: none; } article { break-inside: avoid; } }
"""


# ------------------------------------------------------------------------------------------ helpers
def esc(value) -> str:
    """Any document value as escaped text (None as an empty string)."""
    return "" if value is None else escape(str(value), quote=True)


def anchor(text) -> str:
    """A safe id fragment for a property name (which is escaped wherever it is shown)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", str(text)) or "_"


def status_class(status) -> str:
    """The badge's CSS class of a status word (a word beyond the five drawn like the closest one)."""
    word = _LIKE.get(str(status), str(status))
    return {"n/a": "status-na"}.get(word, f"status-{anchor(word)}" if word in STATUSES else "status-unknown")


def badge(status, title: str | None = None, label: str | None = None) -> str:
    """A status as a coloured badge carrying its mark and its word (or `label`, e.g. "2 violated")."""
    word = str(status) if status is not None else "unknown"
    mark = STATUSES.get(_LIKE.get(word, word), ("", ""))[0]
    tip = f' title="{esc(title)}"' if title else ""
    mark = f"{esc(mark)}&nbsp;" if mark else ""  # the mark never wraps away from its word
    return f'<span class="badge {status_class(word)}"{tip}>{mark}{esc(word if label is None else label)}</span>'


def size_text(size) -> str:
    try:
        n, m = size
        return f"{int(n)}×{int(m)}"
    except (TypeError, ValueError):
        return esc(size)


def sizes_text(sizes) -> str:
    return ", ".join(size_text(s) for s in sizes or [])


def number_text(value) -> str:
    """An exact JSON number as text: ints and "p/q" as given; a list as <a, b>; null as ∞."""
    if value is None:
        return "∞"
    if isinstance(value, list):
        return "<" + ", ".join(number_text(v) for v in value) + ">"
    return str(value)


def json_text(value) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))


def seconds_text(value) -> str:
    try:
        return f"{float(value):.1f} s"
    except (TypeError, ValueError):
        return "? s"


def _names(instance: dict, key: str, count: int, prefix: str) -> list[str]:
    names = instance.get(key) or []
    return [str(names[i]) if i < len(names) else f"{prefix}{i + 1}" for i in range(count)]


# ------------------------------------------------------------------------------------------ sections
def _header(doc: dict, ids: str) -> str:
    mech = doc.get("mechanism", "?")
    props = doc.get("properties") or []
    counts: dict[str, int] = {}
    for p in props:
        counts[p.get("status")] = counts.get(p.get("status"), 0) + 1
    tally = " · ".join(f"{counts[s]} {s}" for s in STATUSES if counts.get(s))
    sizes = doc.get("sizes") or []
    line = (f"sizes up to {esc(doc.get('users', '?'))}×{esc(doc.get('resources', '?'))} "
            f"({len(sizes)} size{'s' if len(sizes) != 1 else ''}: {sizes_text(sizes)}), seed {esc(doc.get('seed'))}, "
            f"{esc(seconds_text(doc.get('seconds')))}")
    about = doc.get("about") or {}
    out = [f"<header><h1>fairlab audit: <code>{esc(mech)}</code></h1>", f'<p class="summary">{line}</p>']
    domain = doc.get("domain") or {}
    if domain:
        out.append(f'<p class="summary" id="{ids}domain">Instance domain: <b>{esc(domain.get("name"))}</b>'
                   f"{esc(markdown.domain_words(doc))}</p>")
    if tally:
        out.append(f'<p class="summary">{len(props)} properties: {esc(tally)}</p>')
    if about.get("title"):
        out.append(f'<p class="muted">{esc(about.get("title"))}</p>')
    stopped = (doc.get("budget") or {}).get("stopped")
    if stopped:
        out.append(f'<p class="warning">The audit was stopped early ({esc(stopped)} limit): properties without a '
                   "verdict at a size are marked unknown there.</p>")
    out.append(f'<nav><a href="#{ids}properties">properties</a><a href="#{ids}counterexamples">counterexamples</a>'
               f'<a href="#{ids}proofs">proofs</a><a href="#{ids}undecided">no verdict</a>'
               f'<a href="#{ids}reference">reference</a><a href="#{ids}reproduce">reproduce</a></nav></header>')
    return "".join(out)


def _reference_columns(doc: dict) -> list[str]:
    """The reference mechanisms shown beside the audited one (drf, ceei, bmf, asset; not itself)."""
    mechanisms = (doc.get("reference") or {}).get("mechanisms") or {}
    return [name for name in REFERENCE_MECHANISMS if name in mechanisms and name != doc.get("mechanism")]


def _reference_cell(entry) -> str:
    """A reference status as a badge with its evidence as a tooltip; "not established" (nothing is
    claimed) as a muted dash, its meaning in the tooltip."""
    if not isinstance(entry, dict):
        return ""
    if entry.get("status") == "not established":
        return ('<span class="muted" title="not established: the lab knows neither a counterexample in this domain '
                'nor a proof">—</span>')
    return badge(entry.get("status"), _evidence_tooltip(entry), label=markdown.reference_word(entry))


def _property_table(doc: dict, props: list[dict], ids: str) -> str:
    """The property table: each property's status, the reference profiles' statuses beside it (each
    with its evidence as a tooltip), the summary; the reference evidence folded below."""
    others = _reference_columns(doc)
    mechanisms = (doc.get("reference") or {}).get("mechanisms") or {}
    rows = []
    for p in props:
        name, status = p.get("property", "?"), p.get("status", "unknown")
        link = f'<a href="#{ids}p-{anchor(name)}">{esc(name)}</a>'
        refs = []
        for mech in others:
            entry = (mechanisms.get(mech) or {}).get(name)
            cell = _reference_cell(entry)
            refs.append(f'<td class="reference" data-mechanism="{esc(mech)}">{cell}</td>')
        less = markdown.sub_domain(p)
        qualifier = (f' <span class="muted sub-domain" title="the evidence covers only this sub-domain of the one '
                     f'explored">on {esc(less)}</span>') if less else ""
        rows.append(f'<tr data-property="{esc(name)}" data-status="{esc(status)}"><td>{link} '
                    f'<span class="muted">{esc(p.get("title"))}</span></td><td>{badge(status)}{qualifier}</td>'
                    f'{"".join(refs)}<td class="summary">{esc(p.get("summary"))}</td></tr>')
    legend = "".join(f"<li>{badge(s)} {esc(meaning)}</li>" for s, (_, meaning) in STATUSES.items())
    legend += ('<li><span class="muted">on D</span> the evidence covers only the sub-domain D of the domain '
               "explored</li>")
    if others:
        legend += ('<li><span class="muted">—</span> (reference columns) not established: the lab knows neither a '
                   "counterexample in this domain nor a proof</li>")
    group = (f'<tr><th colspan="2"></th><th class="group reference" colspan="{len(others)}">reference profiles'
             "</th><th></th></tr>") if others else ""
    head = "".join(f'<th class="reference">{esc(m)}</th>' for m in others)
    return (f'<section id="{ids}profile"><h2>Property profile</h2>'
            f'<div class="scroll"><table id="{ids}properties"><thead>{group}<tr><th>property</th>'
            f"<th><code>{esc(markdown.short_name(str(doc.get('mechanism', '?'))))}</code></th>{head}"
            f'<th>summary</th></tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
            f'<ul class="legend" id="{ids}status-legend">{legend}</ul>{_reference(doc, ids)}</section>')


def instance_table(instance: dict | None) -> str:
    if not isinstance(instance, dict):
        return ""
    caps = instance.get("capacities") or []
    demands = instance.get("demands") or []
    users = _names(instance, "users", len(demands), "u")
    resources = _names(instance, "resources", len(caps), "r")
    weights, caps_per_user = instance.get("weights"), instance.get("max_tasks")
    head = "".join(f"<th class=num>{esc(r)}</th>" for r in resources)
    extra_head = ("<th class=num>weight</th>" if weights else "") + ("<th class=num>max tasks</th>" if caps_per_user
                                                                      else "")
    rows = [f'<tr><th>capacity</th>{"".join(f"<td class=num>{esc(number_text(c))}</td>" for c in caps)}'
            f'{"<td></td>" if weights else ""}{"<td></td>" if caps_per_user else ""}</tr>']
    for i, user in enumerate(users):
        cells = "".join(f"<td class=num>{esc(number_text(v))}</td>" for v in demands[i])
        if weights:
            cells += f"<td class=num>{esc(number_text(weights[i]) if i < len(weights) else '')}</td>"
        if caps_per_user:
            cells += f"<td class=num>{esc(number_text(caps_per_user[i]) if i < len(caps_per_user) else '')}</td>"
        rows.append(f"<tr><th>{esc(user)}</th>{cells}</tr>")
    return (f'<div class="scroll"><table class="instance">'
            f"<thead><tr><th></th>{head}{extra_head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")


def _counterexamples(props: list[dict], ids: str) -> str:
    violated = [(k, p) for k, p in enumerate(props) if p.get("status") == "violated"]
    out = [f'<section id="{ids}counterexamples"><h2>Counterexamples</h2>']
    if not violated:
        out.append('<p class="muted">No property is violated at the sizes audited.</p>')
    else:
        out.append('<p class="muted">In each figure a bar is one resource, its segments the users\' shares of its '
                   "capacity (hover a segment for the exact value); the witness user is outlined, the other user of "
                   "a witness dashed.</p>")
    for k, p in violated:
        name = p.get("property", "?")
        out.append(f'<article class="violated" id="{ids}p-{anchor(name)}" data-property="{esc(name)}">')
        facts = [f"<h3>{esc(name)} — {esc(p.get('title'))}: {badge('violated')}</h3>",
                 f'<p class="witness"><strong>{esc(p.get("explanation") or p.get("summary"))}</strong></p>']
        instance = p.get("instance")
        if isinstance(instance, dict):
            n, m = len(instance.get("demands") or []), len(instance.get("capacities") or [])
            how = how_found(p)
            facts.append(f'<p class="found">The smallest counterexample found: {n}×{m}'
                         f"{', ' + esc(how) if how else ''}. The capacities, and what one task of each user needs:</p>")
            facts.append(instance_table(instance))
        if p.get("witness") is not None:
            facts.append(f"<p>Witness: <code>{esc(json_text(p.get('witness')))}</code></p>")
        if p.get("fixture"):
            facts.append(f'<p class="muted">Stored as <code>{esc(p.get("fixture"))}</code></p>')
        facts.append(_trail(p, open_=False))
        figure = ""
        allocations = [a for a in p.get("allocations") or [] if isinstance(a, dict)]
        if allocations:
            svg = panels_svg(allocations, id_prefix=f"{ids}fig{k}")
            figure = f'<figure class="allocation-figure" data-property="{esc(name)}">{svg}</figure>'
        out.append(f'<div class="cx"><div class="facts">{"".join(facts)}</div>{figure}</div></article>')
    out.append("</section>")
    return "".join(out)


def _core_list(core: list) -> str:
    return f'<ul class="core">{"".join(f"<li><code>{esc(c)}</code></li>" for c in core)}</ul>'


def _proofs(props: list[dict], ids: str) -> str:
    """Every property proved at some size, one folded ``<details>`` each: its summary line says what
    was proved where; inside, the scope, the unsat core and each size's record."""
    proved = [p for p in props if p.get("proved_sizes") or p.get("status") == "proved" or p.get("spec_proved_sizes")]
    out = [f'<section id="{ids}proofs"><h2>Proofs</h2>']
    if not proved:
        out.append('<p class="muted">No property was proved at any size (the mechanism may have no spec).</p>')
    else:
        out.append('<p class="muted">Each proof is folded: open it for its scope, its unsat core and each size.</p>')
    for p in proved:
        name, status, core = p.get("property", "?"), p.get("status"), p.get("core") or []
        title = f"<strong>{esc(name)}</strong> — {esc(p.get('title'))}: "
        cores = f"; unsat core of {len(core)} constraint{'s' if len(core) != 1 else ''}" if core else ""
        if status == "proved":
            head = (f'<details class="proof" id="{ids}p-{anchor(name)}" data-property="{esc(name)}"><summary>'
                    f"{title}{badge(status)} at {sizes_text(p.get('proved_sizes'))}{cores}</summary>")
        elif not p.get("proved_sizes"):  # only a plug-in's declared spec is proved
            out.append(f'<details class="proof partial" data-property="{esc(name)}"><summary>{title}its declared '
                       f"spec proved at {sizes_text(p.get('spec_proved_sizes'))}; {badge(status)}{cores}</summary>"
                       f"<p>The plug-in's declared spec is proved for every demand profile at "
                       f"{sizes_text(p.get('spec_proved_sizes'))}: a proof about the spec, not the plug-in's code, "
                       "whose agreement with the spec was only sampled; the status rests on the search of the "
                       f"allocator.</p>{_core_list(core) if core else ''}</details>")
            continue
        else:  # proved at the smaller sizes only
            head = (f'<details class="proof partial" data-property="{esc(name)}"><summary>{title}proved up to '
                    f"{size_text(p.get('largest_proved'))}, then {badge(status)}{cores}</summary>")
        out.append(head)
        scope = p.get("scope")
        scope_words = {"mechanism": "the mechanism itself (its spec passed conformance)",
                       "spec": "the plug-in's declared spec (not its code)"}.get(scope or "", scope)
        largest = p.get("largest_proved")
        out.append(f"<p>Proved for every demand profile at {sizes_text(p.get('proved_sizes'))}"
                   f"{'; the largest ' + size_text(largest) if largest else ''}."
                   f"{' Scope: ' + esc(scope_words) + '.' if scope else ''}"
                   f"{' The counterexample is at a larger size (above).' if status == 'violated' else ''}"
                   f"{' Beyond it: ' + esc(p.get('summary')) if status not in ('proved', 'violated') else ''}</p>")
        if status == "proved" and p.get("summary"):
            out.append(f'<p class="muted">{esc(p.get("summary"))}</p>')
        if core:
            out.append(f"<p>Unsat core at {size_text(largest)} ({len(core)} constraints: spec ∧ ¬{esc(name)} is "
                       f"unsatisfiable with these alone):</p>{_core_list(core)}")
        if status == "proved":
            out.append(_trail(p, open_=False))
        out.append("</details>")
    out.append("</section>")
    return "".join(out)


def _per_size_table(sizes: list[dict]) -> str:
    rows = "".join(
        f"<tr><td>{esc(s.get('users'))}×{esc(s.get('resources'))}</td><td>{badge(s.get('status'))}</td>"
        f"<td>{esc(s.get('how'))}</td><td class=num>{esc(s.get('candidates'))}</td>"
        f"<td class=num>{esc(seconds_text(s.get('seconds')))}</td><td>{esc(s.get('explanation'))}</td></tr>"
        for s in sizes if isinstance(s, dict))
    if not rows:
        return ""
    return ('<div class="scroll"><table class="sizes"><thead><tr><th>size</th><th>status</th><th>how</th>'
            '<th class=num>candidates</th><th class=num>time</th><th>explanation</th></tr></thead>'
            f"<tbody>{rows}</tbody></table></div>")


def _examples_table(examples: list[dict]) -> str:
    rows = "".join(f"<tr><td>{esc(x.get('example'))}</td><td>{esc(x.get('users'))}×{esc(x.get('resources'))}</td>"
                   f"<td>{badge(x.get('status'))}</td><td>{esc(x.get('explanation'))}</td></tr>"
                   for x in examples if isinstance(x, dict))
    if not rows:
        return ""
    return ('<div class="scroll"><table class="examples"><caption class="muted">the shipped examples up to the '
            "audited size, checked exactly</caption><thead><tr><th>example</th><th>size</th><th>status</th>"
            f"<th>explanation</th></tr></thead><tbody>{rows}</tbody></table></div>")


def _trail(p: dict, open_: bool) -> str:
    """How the verdict was reached: notes, the candidates, each size's outcome, the shipped examples
    (folded away under violated and proved properties, whose evidence is above)."""
    notes = "".join(f"<li>{esc(n)}</li>" for n in p.get("notes") or [])
    body = (f'<ul class="notes">{notes}</ul>' if notes else "") + \
        f'<p class="muted">{esc(p.get("candidates", 0))} candidate instances checked exactly in all.</p>' + \
        _per_size_table(p.get("sizes") or []) + _examples_table(p.get("examples") or [])
    return f"<details{' open' if open_ else ''}><summary>each size, and the shipped examples</summary>{body}</details>"


def _undecided(props: list[dict], ids: str) -> str:
    rest = [p for p in props if p.get("status") not in ("violated", "proved")]
    out = [f'<section id="{ids}undecided"><h2>No counterexample, not applicable, unknown</h2>']
    if not rest:
        out.append('<p class="muted">Every property is violated or proved.</p>')
    rows = [f'<tr class="undecided" id="{ids}p-{anchor(name)}" data-property="{esc(name)}"><th>{esc(name)} '
            f'<span class="muted">{esc(p.get("title"))}</span></th><td>{badge(p.get("status"))}</td>'
            f"<td>{esc(p.get('explanation') or p.get('summary'))}{_trail(p, open_=False)}</td></tr>"
            for p in rest for name in [p.get("property", "?")]]
    if rows:
        out.append(f'<table class="undecided"><tbody>{"".join(rows)}</tbody></table>')
    out.append("</section>")
    return "".join(out)


def _evidence_items(entry: dict) -> list[dict]:
    """A reference entry's evidence as a list of records (the engine gives a list; a plain string,
    as an older or hand-written document may have, is one record)."""
    evidence = entry.get("evidence")
    if isinstance(evidence, list):
        return [e for e in evidence if isinstance(e, dict)]
    if evidence:
        return [{"status": entry.get("status"), "evidence": evidence, "source": entry.get("source")}]
    return []


def _evidence_text(item: dict) -> str:
    parts = [str(item.get("evidence") or item.get("source") or "")]
    if item.get("source") and item.get("source") != item.get("evidence"):
        parts.append(f"source: {item['source']}")
    if item.get("restriction"):
        parts.append(f"restricted to {item['restriction']}")
    return "; ".join(p for p in parts if p)


def _evidence_tooltip(entry: dict) -> str:
    items = _evidence_items(entry)
    return " | ".join(f"{i.get('status')}: {_evidence_text(i)}" for i in items) or "no theorem and no fixture"


def _evidence_rows(mech: str, prop: str, entry: dict) -> str:
    rows = []
    for item in _evidence_items(entry):
        text = esc(_evidence_text(item))
        if item.get("explanation"):
            text += "<br>" + esc(item.get("explanation"))
        rows.append(f"<tr><td>{esc(mech)}</td><td>{esc(prop)}</td><td>{badge(item.get('status'))}</td>"
                    f"<td>{sizes_text(item.get('sizes'))}</td><td>{text}</td></tr>")
    return "".join(rows)


def _reference(doc: dict, ids: str) -> str:
    """Where the reference columns come from, and every reference entry's evidence (folded)."""
    ref = doc.get("reference") or {}
    mechanisms = ref.get("mechanisms") or {}
    audited = [p.get("property", "?") for p in doc.get("properties") or [] if isinstance(p, dict)]
    notes = []
    for name in _reference_columns(doc):
        profile = mechanisms.get(name) or {}
        for prop in audited + [q for q in profile if q not in audited]:
            if isinstance(profile.get(prop), dict):
                notes.append(_evidence_rows(name, prop, profile[prop]))
    note = str(ref.get("note") or "")
    note += "" if not note or note.endswith(".") else "."
    domain = f" On the domain {ref['domain']}." if ref.get("domain") else ""
    return (f'<details id="{ids}reference"><summary>Reference profiles: where they come from, and the evidence '
            f'for each entry</summary><p class="muted">{esc(note)}{esc(domain)} Hover a status for its evidence.</p>'
            '<div class="scroll"><table class="evidence" id="' + ids + 'reference-evidence"><thead><tr><th>mechanism'
            '</th><th>property</th><th>status</th><th>sizes</th><th>evidence</th></tr></thead>'
            f'<tbody>{"".join(notes)}</tbody></table></div></details>')


def _reproduce(doc: dict, ids: str) -> str:
    prov = doc.get("provenance") or {}
    budget = doc.get("budget") or {}
    about = doc.get("about") or {}
    plugin = about.get("plugin") or {}
    rows = "".join(f"<tr><th>{esc(k)}</th><td><code>{esc(v)}</code></td></tr>" for k, v in prov.items())
    budget_rows = "".join(f"<tr><th>{esc(k)}</th><td><code>{esc(v)}</code></td></tr>" for k, v in budget.items())
    out = [f'<section id="{ids}reproduce"><h2>How to reproduce</h2>',
           f"<pre><code>{esc(doc.get('command'))}</code></pre>",
           f"<p>Seed <code>{esc(doc.get('seed'))}</code>, fairlab <code>{esc(prov.get('lab'))}</code>. Budgets are "
           "counted in candidates and solver resource units, so the same command with the same versions gives "
           "the same verdicts; the time limit only stops a run (its properties become unknown).</p>"]
    if plugin:
        out.append(f"<p>Plug-in <code>{esc(plugin.get('name'))}</code>, sha256 <code>{esc(plugin.get('sha256'))}"
                   "</code>.</p>")
    budget_table = (f'<table class="budget"><caption class="muted">budget</caption><tbody>{budget_rows}</tbody>'
                    "</table>") if budget_rows else ""
    out.append('<details><summary>versions and budget</summary><div class="cx">'
               f'<table class="versions"><caption class="muted">versions</caption><tbody>{rows}</tbody></table>'
               f"{budget_table}</div></details>")
    out.append("</section>")
    return "".join(out)


def sections(document: dict, ids: str = "") -> str:
    """The audit `document`'s sections (header to reproduction) as an HTML fragment; every id and
    fragment link in it starts with `ids`, so several audits can share one page (a campaign's
    report embeds one per audit cell, `fairlab.campaign.html`)."""
    doc = document if isinstance(document, dict) else {}
    props = [p for p in doc.get("properties") or [] if isinstance(p, dict)]
    return "".join([_header(doc, ids), _property_table(doc, props, ids), _counterexamples(props, ids),
                    _proofs(props, ids), _undecided(props, ids), _reproduce(doc, ids)])


def scoped_css(scope: str, css: str = CSS) -> str:
    """`css` with every rule limited to elements inside `scope` (a notebook cell must not restyle the
    notebook): ``:root`` and ``body`` become the scope itself, ``@media`` blocks are dropped."""
    css = re.sub(r"@media[^{]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}", "", css)
    out = []
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        scoped = []
        for sel in selectors.split(","):
            sel = sel.strip()
            if sel in (":root", "body"):
                scoped.append(scope)
            elif sel:
                scoped.append(f"{scope} {sel}")
        out.append(f"{', '.join(scoped)} {{{body}}}")
    return "\n".join(out)


def page(title: str, body: str, footer: str, css: str = CSS) -> str:
    """A self-contained HTML5 page: `title` (escaped here), `body` and `footer` (HTML already), the
    inline style sheet `css`; no scripts, nothing fetched."""
    return ("<!DOCTYPE html>\n"
            f'<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)}</title><style>{css}</style></head>\n"
            f"<body>{body}{footer}</body></html>\n")


def render(document: dict) -> str:
    """The audit `document` as one self-contained HTML5 page (a str; deterministic)."""
    doc = document if isinstance(document, dict) else {}
    footer = (f'<footer class="muted"><p>Written by fairlab {esc((doc.get("provenance") or {}).get("lab"))} '
              "(<code>fairlab audit --out</code>); a self-contained file: no network, no scripts.</p></footer>")
    return page(f"fairlab audit: {doc.get('mechanism', '?')}", sections(doc), footer)


# ------------------------------------------------------------------------------------------ writing
def check_path(path: str | os.PathLike) -> None:
    """Refuse (`InputError`, one line naming --out) a report path that cannot be written: an empty
    name, a symbolic link, a directory or other non-regular file, a missing or non-directory parent,
    a parent that is not writable, or a place inside the installed package. Nothing is created. `write` calls it;
    a command calls it too before any work, so a bad --out costs one line, not an audit."""
    if not os.fspath(path):
        raise InputError("--out: the file name is empty")
    if os.fspath(path).endswith(("/", os.sep)):
        raise InputError(f"--out: {os.fspath(path)!r} names a directory (give a file name, e.g. report.html)")
    path = Path(os.fspath(path))
    if path.is_symlink():  # replacing it would replace the link itself (e.g. /dev/stdout), not its target
        raise InputError(f"--out: {str(path)!r} is a symbolic link (give the path of a regular file)")
    if path.is_dir():
        raise InputError(f"--out: {str(path)!r} is a directory (give a file name, e.g. report.html)")
    if os.path.lexists(path) and path.exists() and not path.is_file():
        raise InputError(f"--out: {str(path)!r} exists and is not a regular file")
    parent = path.parent
    if not parent.exists():
        raise InputError(f"--out: {str(parent)!r} does not exist")
    if not parent.is_dir():
        raise InputError(f"--out: {str(parent)!r} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"--out: {str(parent)!r} is not writable")
    check_outside_package(path, "--out", "the report")


def write(document: dict, path) -> None:
    """Write ``render(document)`` to `path` atomically (`write_page`); bad paths are refused before
    anything is written (`check_path`)."""
    check_path(path)
    write_page(render(document), path)


def write_page(text: str, path) -> None:
    """Write the page `text` to `path` atomically: a temporary file in the same directory, then
    `os.replace`, so `path` holds the old content or the whole new page, never part of one. An
    OSError becomes a one-line `InputError` ``--out: cannot write ...`` and the temporary file is
    removed. The caller has refused a bad path (`check_path`) before any work."""
    path = Path(os.fspath(path))
    data = text.encode("utf-8")
    tmp = None
    try:
        mask = os.umask(0)
        os.umask(mask)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise InputError(f"--out: cannot write {str(path)!r}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
