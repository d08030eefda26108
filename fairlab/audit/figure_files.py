"""The audit report's figures as standalone files for a paper (`fairlab audit ... --figures DIR`).

Every figure the HTML report draws (one per violated property: the allocations its witness
involves, `fairlab.audit.figures`) is written as ``DIR/NAME.svg`` and ``DIR/NAME.pdf`` by
matplotlib from the same drawing code as the report's inline SVG (`fairlab.audit.figures.draw`
onto `MatplotlibCanvas`): the same panels, bars, hatches, labels and witness outlines. One unit of
the report's SVG is 1/96 inch (text of 12 units is 9 pt), so a one-panel figure is about 3 inches
wide, as it would be in a column.

Reproducible files: DejaVu Sans (shipped with matplotlib, so the glyphs do not depend on the
machine's fonts), no date in the metadata (``metadata={"Date": None}`` / ``{"CreationDate": None}``),
a fixed ``svg.hashsalt`` for the SVG's ids, TrueType fonts in the PDF (``pdf.fonttype`` 42: no
Type 3 fonts, which some publishers refuse). Matplotlib's settings are changed only inside
``rc_context`` and no pyplot is used: the caller's backend and settings are left alone.

Names (`figure_names`): ``MECHANISM-PROPERTY`` (``-DOMAIN`` appended when an audit has several
domains), letters, digits, ``-`` and ``_`` only. Nothing is written outside the folder asked for
(`check_folder` refuses a path that is a file, a link, or inside the installed package).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from fairlab.audit.figures import COLOURS, FONT, Canvas, draw, layout
from fairlab.audit.markdown import short_name
from fairlab.core.errors import InputError
from fairlab.counterexamples.store import check_outside_package

#: points per unit of the report's SVG (a CSS pixel is 0.75 pt)
PT = 0.75
#: the SVG's hatches (fairlab.audit.figures.HATCHES, by index) in matplotlib's hatch language
MPL_HATCHES = ("", "///", "..", "---", "xxx", "\\\\\\", "|||")
#: matplotlib settings of every figure file (inside rc_context only)
RC: dict[str, Any] = {"font.family": "DejaVu Sans", "svg.hashsalt": "fairlab", "svg.fonttype": "path",
                      "pdf.fonttype": 42, "hatch.color": (0, 0, 0, 0.45), "hatch.linewidth": 1.0}
FORMATS = ("svg", "pdf")
_ANCHOR = {"start": "left", "middle": "center", "end": "right"}


class MatplotlibCanvas(Canvas):
    """Draws a figure's panels into a matplotlib `Axes` whose data units are the SVG's (y down)."""

    def __init__(self, axes):
        self.axes, self.order = axes, 0

    def _z(self) -> float:
        """The next z-order: later primitives over earlier ones, as in SVG (matplotlib would draw
        every patch below every line and text)."""
        self.order += 1
        return float(self.order)

    def text(self, x, y, text, *, anchor="middle", size=FONT, weight="", fill="#111", halo=False, title=None,
             rotate=False) -> None:
        from matplotlib import patheffects

        effects = [patheffects.withStroke(linewidth=3 * PT, foreground="#fff")] if halo else None
        self.axes.text(x, y, text, ha=_ANCHOR.get(anchor, "center"), va="baseline", fontsize=size * PT,
                       fontweight="bold" if weight else "normal", color=fill, path_effects=effects,
                       rotation=90 if rotate else 0, rotation_mode="anchor", clip_on=False, zorder=self._z())

    def line(self, x1, y1, x2, y2, *, stroke, width=1.0, dash=None) -> None:
        from matplotlib.lines import Line2D

        line = Line2D([x1, x2], [y1, y2], color=stroke, linewidth=width * PT, solid_capstyle="butt", zorder=self._z())
        if dash:
            line.set_dashes([d / width for d in dash])  # matplotlib scales dashes by the line width
        self.axes.add_line(line)

    def rect(self, x, y, width, height, *, style=None, stroke="none", stroke_width=1.0, dash=None, cls=None,
             data=None, title=None) -> None:
        from matplotlib.patches import Rectangle

        if style is not None:  # the user's colour, its hatch over it
            self.axes.add_patch(Rectangle((x, y), width, height, facecolor=COLOURS[style % len(COLOURS)],
                                          edgecolor="none", linewidth=0, zorder=self._z()))
            hatch = MPL_HATCHES[style % len(MPL_HATCHES)]
            if hatch:
                self.axes.add_patch(Rectangle((x, y), width, height, fill=False, hatch=hatch,
                                              edgecolor=RC["hatch.color"], linewidth=0, zorder=self._z()))
        if stroke != "none":
            outline = Rectangle((x, y), width, height, fill=False, edgecolor=stroke, linewidth=stroke_width * PT,
                                joinstyle="miter", zorder=self._z())
            if dash:
                outline.set_linestyle((0, tuple(d / stroke_width for d in dash)))
            self.axes.add_patch(outline)


def figure(allocations: list[dict], titles: list[str] | None = None):
    """The allocations' panels as a matplotlib `Figure` (no pyplot), sized as the report draws them;
    draw it inside ``matplotlib.rc_context(RC)`` for the files' fonts and hatches."""
    from matplotlib.figure import Figure

    if not allocations:
        raise ValueError("no allocation to draw (only a violated property's row has allocations)")
    panels, width, height, _ = layout(allocations, titles)
    full_width, full_height = width + 8, height + 8
    fig = Figure(figsize=(full_width / 96, full_height / 96))
    axes = fig.add_axes((0, 0, 1, 1))
    axes.set_xlim(-4, width + 4)
    axes.set_ylim(height + 4, -4)  # y down, as in SVG
    axes.set_axis_off()
    draw(panels, MatplotlibCanvas(axes))
    return fig


def save(allocations: list[dict], stem: Path, titles: list[str] | None = None) -> list[Path]:
    """`stem`.svg and `stem`.pdf of the allocations' figure (reproducible bytes); their paths."""
    import matplotlib

    written = []
    with matplotlib.rc_context(RC):  # type: ignore[arg-type]  # matplotlib types keys as literals
        fig = figure(allocations, titles)
        for fmt in FORMATS:
            path = stem.with_name(f"{stem.name}.{fmt}")
            metadata = {"Date": None} if fmt == "svg" else {"CreationDate": None, "ModDate": None}
            fig.savefig(path, format=fmt, metadata=metadata)
            written.append(path)
    return written


def _slug(text) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", str(text)).strip("-") or "x"


def figure_names(documents: list[dict]) -> list[tuple[str, dict, dict]]:
    """(file stem, document, property row) of every figure the reports of `documents` draw, in
    order: ``MECHANISM-PROPERTY`` (``-DOMAIN`` appended when there are several documents)."""
    out = []
    for document in documents:
        mechanism = _slug(short_name(str(document.get("mechanism", "audit"))))
        domain = _slug((document.get("domain") or {}).get("name", "all"))
        for row in document.get("properties") or []:
            allocations = [a for a in row.get("allocations") or [] if isinstance(a, dict)]
            if row.get("status") == "violated" and allocations:
                stem = f"{mechanism}-{_slug(row.get('property'))}" + (f"-{domain}" if len(documents) > 1 else "")
                out.append((stem, document, row))
    return out


def check_folder(folder: str | os.PathLike) -> Path:
    """Refuse (`InputError`, one line naming --figures) a folder the figures cannot go to: an empty
    name, a path that is a file or a link, a missing parent, a place that is not writable or inside
    the installed package. Nothing is created."""
    if not os.fspath(folder):
        raise InputError("--figures: the folder name is empty")
    path = Path(os.fspath(folder))
    if path.is_symlink():
        raise InputError(f"--figures: {str(path)!r} is a symbolic link (give a folder)")
    if path.exists() and not path.is_dir():
        raise InputError(f"--figures: {str(path)!r} is a file, not a folder")
    existing = path if path.exists() else path.parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise InputError(f"--figures: {str(existing)!r} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"--figures: {str(existing)!r} is not writable")
    check_outside_package(path, "--figures", "the figures")
    return path


def write(documents: list[dict], folder: str | os.PathLike) -> list[Path]:
    """Every figure of the reports of `documents` into `folder` (created if missing) as SVG and
    PDF; the paths written, in order. A folder that cannot hold them: a one-line `InputError`."""
    path = check_folder(folder)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--figures: cannot create {str(path)!r}: {exc.strerror or exc}") from None
    written = []
    for stem, _, row in figure_names(documents):
        allocations = [a for a in row["allocations"] if isinstance(a, dict)]
        try:
            written += save(allocations, path / stem)
        except OSError as exc:
            raise InputError(f"--figures: cannot write into {str(path)!r}: {exc.strerror or exc}") from None
    return written
