"""The ledger as text: a table, JSON, a markdown report, and the report's figures.

Figures (matplotlib `Figure` objects saved to PNG, never through pyplot, so the user's backend is
left alone; written only on request with ``--out DIR``):

* ``allocations-drf-asset-ceei.png`` — per-user resource shares under DRF, asset fairness and CEEI
  on the <9 CPU, 18 GB> example, in the style of Figures 3-4 of the DRF paper (one group of bars
  per mechanism, one bar per resource, stacked by user);
* ``bmf-family.png`` — Bonald & Roberts §2.4: the BMF allocations φ(x), x in [0, 1], with the
  endpoints the text prints (the values plotted are checked exactly by the ledger entry
  br-2.4-bmf-endpoints / br-2.4-bmf-family).
"""

from __future__ import annotations

import shutil
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Sequence

from fairlab.core.errors import InputError
from fairlab.core.results import Result
from fairlab.mechanisms import allocate
from fairlab.paper_checks.claims import EXAMPLE
from fairlab.paper_checks.claims_bonald_roberts import BMF_EXAMPLE, bmf_phi
from fairlab.paper_checks.ledger import claim_of, items, ok, status_words, summary_line

FIGURES = ("allocations-drf-asset-ceei.png", "bmf-family.png")
REPORT = "report.md"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def to_markdown(results: list[Result], figures: Sequence[str] = ()) -> str:
    lines = ["# Paper checks", "", summary_line(results), ""]
    if figures:
        lines += ["## Figures", ""] + [f"![{Path(f).stem}]({Path(f).name})" for f in figures] + [""]
    lines += ["## Summary", "", "| id | source | status | ok |", "|---|---|---|---|"]
    lines += [f"| {claim_of(r).id} | {_cell(claim_of(r).where)} | {_status(r)} | {'yes' if ok(r) else '**no**'} |"
              for r in results]
    lines.append("")
    for r in results:
        e = claim_of(r)
        lines += [f"## {e.id} — {_status(r)}{'' if ok(r) else ' (NOT AS EXPECTED: ' + e.expect + ')'}", "",
                  f"*Source:* {e.source}, {e.where}", "", f"*Claim as printed:* {e.claim}", "",
                  f"*Check:* {e.check}", ""]
        if e.reason:
            lines += [f"*Out of scope because:* {e.reason}", ""]
        if e.reading:
            lines += [f"*Lab finding about the lab's reading:* {e.reading}", ""]
        if e.paper_claims:
            lines += [f"*What the paper claims:* {e.paper_claims}", ""]
        if e.not_checked:
            lines += [f"*Not checked by the lab:* {e.not_checked}", ""]
        if items(r):
            lines += ["| quantity | printed | computed | agrees | note |", "|---|---|---|---|---|"]
            lines += [f"| {_cell(i.name)} | {_cell(i.printed)} | {_cell(i.computed)} |"
                      f" {'yes' if i.matches else '**no**'} | {_cell(i.note)} |" for i in items(r)]
            lines.append("")
        if r.status == "erratum":
            fixed = "; ".join(f"{i.name} = {i.computed}" for i in items(r) if not i.matches)
            lines += [f"*Corrected:* {fixed}", ""]
        if "error" in r.details:
            lines += [f"*Error:* {r.details['error']}", ""]
        elif r.explanation and r.explanation != e.reason:
            lines += [f"*How the lab knows:* {r.explanation}", ""]
    return "\n".join(lines)


def _status(r: Result) -> str:
    """The status as the ledger words it (`ledger.status_words`: "lab finding (reading: ...)"), "error" for
    a check that failed (its status is unknown)."""
    return "error" if "error" in r.details else status_words(r.status.value, claim_of(r).reading)


def to_rows(results: list[Result]) -> list[tuple[str, str, str, str]]:
    """(id, status, ok, first disagreement or the how) for the terminal table."""
    rows = []
    for r in results:
        bad = [i for i in items(r) if not i.matches]
        detail = ("; ".join(f"{i.name}: printed {i.printed}, lab {i.computed}" for i in bad[:2])
                  or r.details.get("error", ""))
        if r.status == "out-of-scope":
            detail = claim_of(r).reason
        elif r.status == "lab-finding" and not bad:
            detail = r.explanation or ""
        rows.append((claim_of(r).id, _status(r), "yes" if ok(r) else "NO", detail))
    return rows


# --------------------------------------------------------------------------- the --out directory
def check_out_dir(out_dir: Path) -> None:
    """Refuse (`InputError`) an --out directory whose report files cannot be replaced: checked
    before the ledger runs and again before anything is moved into place."""
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError(f"--out: {str(out_dir)!r} exists and is not a directory")
    for name in (REPORT, *FIGURES):
        target = out_dir / name
        if target.exists() and not target.is_file():
            raise InputError(f"--out: {str(target)!r} exists and is not a regular file")
    ancestor = next(p for p in (out_dir, *out_dir.parents) if p.exists() or p == p.parent)
    if not ancestor.is_dir():
        raise InputError(f"--out: {str(ancestor)!r} is not a directory")


def write_report(out_dir: Path, results: list[Result]) -> list[str]:
    """Write report.md and the figures into `out_dir` (created if missing), all or nothing: they are
    drawn in a temporary directory inside it and moved into place only once all are written.
    Returns the figures' final paths; an OSError becomes a one-line `InputError`."""
    check_out_dir(out_dir)
    created = [p for p in (out_dir, *out_dir.parents) if not p.exists()]
    stage, done = None, False
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=".paper-check-", dir=out_dir))
        figures = draw_figures(stage)
        (stage / REPORT).write_text(to_markdown(results, figures), encoding="utf-8")
        check_out_dir(out_dir)
        for name in (*FIGURES, REPORT):
            (stage / name).replace(out_dir / name)
        done = True
    except OSError as exc:
        raise InputError(f"--out: cannot write {str(out_dir)!r}: {exc.strerror or exc}") from None
    finally:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)
        for path in [] if done else created:  # deepest first; only the directories made here, now empty
            try:
                path.rmdir()
            except OSError:
                break
    return [str(out_dir / name) for name in FIGURES]


# --------------------------------------------------------------------------- figures
def draw_figures(out_dir: str | Path) -> list[str]:
    """Write the report's PNGs into `out_dir`; returns their paths."""
    from matplotlib.figure import Figure  # heavy and optional: loaded only when figures are drawn

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []

    # DRF paper Figures 3-4: shares of CPU and memory per user, for each mechanism.
    mechs = [("drf", "DRF"), ("asset", "Asset fairness"), ("ceei", "CEEI")]
    fig = Figure(figsize=(10, 3.6))
    axes = fig.subplots(1, 3, sharey=True)
    colours = {"A": "#4c72b0", "B": "#dd8452"}
    for ax, (name, title) in zip(axes, mechs):
        a = allocate(name, EXAMPLE)
        bottom = [0.0, 0.0]
        for i, user in enumerate(a.instance.users):
            shares = [float(s) for s in a.shares[i]]
            ax.bar(range(2), shares, bottom=bottom, color=colours[user], edgecolor="black", width=0.6,
                   label=(f"user {user} ({a.tasks[i]} tasks)" if name != "ceei"
                          else f"user {user} ({float(a.tasks[i]):.2f} tasks)"))
            for r, (s, b) in enumerate(zip(shares, bottom)):
                if s > 0.04:
                    ax.text(r, b + s / 2, f"{s:.0%}", ha="center", va="center", fontsize=8)
            bottom = [b + s for b, s in zip(bottom, shares)]
        ax.set_xticks(range(2), [f"{res}\n({c} total)" for res, c in zip(a.instance.resources, EXAMPLE["capacities"])])
        ax.set_ylim(0, 1.3)
        ax.set_title(title)
        ax.legend(fontsize=7, loc="upper center")
    axes[0].set_ylabel("share of the resource")
    fig.suptitle("<9 CPU, 18 GB>, A <1 CPU, 4 GB>, B <3 CPU, 1 GB> (DRF paper Figures 3-4)", fontsize=10)
    fig.tight_layout()
    path = out / FIGURES[0]
    fig.savefig(path, dpi=120)
    paths.append(str(path))

    # Bonald & Roberts §2.4: the BMF family.
    xs = [Fraction(k, 50) for k in range(51)]
    fig = Figure(figsize=(6, 3.6))
    ax = fig.subplots()
    labels = [f"φ{i + 1}, a{i + 1} = ({', '.join(map(str, row))})" for i, row in enumerate(BMF_EXAMPLE["demands"])]
    for i in range(3):
        ax.plot([float(x) for x in xs], [float(bmf_phi(x)[i]) for x in xs], label=labels[i],
                linestyle="-" if i < 2 else "--")
    for x in (Fraction(0), Fraction(1)):
        for v in set(bmf_phi(x)):
            ax.annotate(str(v), (float(x), float(v)), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.set_xlabel("x")
    ax.set_ylabel("allocation φ_i(x)")
    ax.set_title("BMF allocations φ(x) = (2/5 - x/15, 2/5 + 2x/45, 2/5 + 2x/45)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = out / FIGURES[1]
    fig.savefig(path, dpi=120)
    paths.append(str(path))
    return paths
