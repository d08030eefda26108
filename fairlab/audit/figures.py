"""Hand-written SVG bar charts of allocations for the audit report (`fairlab.audit.html`).

In the style of Figures 3-4 of the DRF paper (Ghodsi et al., NSDI 2011): one stacked bar per
resource, its segments the users' shares of that resource's capacity, the y axis 0..100 %.
No matplotlib: the report stays fast and every label is real, selectable text.

An ALLOCATION is the dict of the audit document (see /work/HELPER16.md, "The audit document"):
``{"label", "instance": {"capacities", "demands", "users", "resources", ...}, "tasks": ["1", "8/7"],
"shares": [["1/3", "1/2"], ...], "user": 0, "equal_split": ["1/2", "1/2"] | None}``.

* Colour is never the only cue: every user has a colour AND a hatch pattern, its name and share
  are written on the segment when it is tall enough, and the exact share is the segment's
  ``<title>`` tooltip. The witness user's segments have a thick outline and its legend entry says
  "witness".
* Exact strings ("8/7") are converted to float only to compute coordinates; the text shows them as
  given.
* Every string that comes from the document (user and resource names, labels: they come from user
  files) is escaped; long names are shortened on the chart and given in full in a tooltip.
* Deterministic: the same input gives the same bytes (no random ids, coordinates with fixed
  decimals).
"""

from __future__ import annotations

import hashlib
import json
import re
from fractions import Fraction
from html import escape

#: Okabe & Ito's colour-blind-safe palette (Color Universal Design), darkest text colour per entry
COLOURS = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999")

#: hatch patterns drawn over the colour, one per user (cycled with a period prime to the colours')
HATCHES = (
    "",                                              # plain
    "M-2,2 l4,-4 M0,8 l8,-8 M6,10 l4,-4",            # diagonal /
    "M2,2 h0.01 M6,6 h0.01",                         # dots (round caps)
    "M0,2 h8 M0,6 h8",                               # horizontal lines
    "M-2,2 l4,-4 M0,8 l8,-8 M6,10 l4,-4 M-2,6 l4,4 M0,0 l8,8 M6,-2 l4,4",  # cross-hatch
    "M-2,6 l4,4 M0,0 l8,8 M6,-2 l4,4",               # diagonal \
    "M2,0 v8 M6,0 v8",                               # vertical lines
)

FONT = 12            # px, the chart's text
CHAR = 7.0           # px, estimated width of one character at FONT (sans-serif average, generous)
LEFT = 46            # px, room for the y axis labels
TOP = 40             # px, the title above the plot
PLOT = 170           # px, height of the 0..100 % axis
BAR = 64             # px, width of one bar
SLOT = 116           # px, at least this much horizontal room per resource
LEGEND_LINE = 20     # px per legend entry
MAX_NAME = 18        # characters of a name shown on the chart (the full name is in a tooltip)
PANEL_GAP = 24       # px between panels
SCALE = 1.0          # the drawn size over the viewBox size (text at 12 px, the report's small print 13 px)


def _number(text) -> float | None:
    """A float for drawing from an exact JSON value (int, "p/q", or an irrational's decimal)."""
    if isinstance(text, bool):
        return None
    if isinstance(text, (int, float)):
        return float(text)
    try:
        return float(Fraction(str(text).strip()))
    except (ValueError, ZeroDivisionError):
        match = re.search(r"-?\d+(\.\d+)?", str(text))
        return float(match.group(0)) if match else None


def _exact_text(value) -> str:
    return "?" if value is None else str(value)


def _short(name: str, limit: int = MAX_NAME) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


def _width(text: str, size: float = FONT) -> float:
    return len(text) * CHAR * size / FONT


def _f(x: float) -> str:
    """A coordinate with fixed decimals (deterministic bytes, no '-0.00')."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _names(allocation: dict, key: str, count: int, prefix: str) -> list[str]:
    names = (allocation.get("instance") or {}).get(key) or []
    return [str(names[i]) if i < len(names) else f"{prefix}{i + 1}" for i in range(count)]


def _index(value, n: int) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < n else None


def _tasks_word(tasks: str) -> str:
    return f"{tasks} task" if tasks == "1" else f"{tasks} tasks"


def _defs(prefix: str, styles: list[int]) -> str:
    """One <pattern> per style index used: the colour underneath, the hatch over it."""
    out = []
    for k in styles:
        colour, hatch = COLOURS[k % len(COLOURS)], HATCHES[k % len(HATCHES)]
        lines = ""
        if hatch:
            width = "2.6" if "h0.01" in hatch else "1.4"
            lines = (f'<path d="{hatch}" stroke="#000" stroke-opacity="0.45" stroke-width="{width}" '
                     f'stroke-linecap="round" fill="none"/>')
        out.append(f'<pattern id="{prefix}-s{k}" patternUnits="userSpaceOnUse" width="8" height="8">'
                   f'<rect width="8" height="8" fill="{colour}"/>{lines}</pattern>')
    return f"<defs>{''.join(out)}</defs>"


class Canvas:
    """What a panel draws with, in the SVG's user units (y down, text `y` its baseline): the
    report's inline SVG (`SvgCanvas`) and the standalone SVG/PDF files (`fairlab.audit.figure_files`)
    implement it, so both come from the same drawing code (`_Panel`). A user's fill is its `style`
    index (its colour and hatch); tooltips (`title`) and groups exist in SVG only."""

    def begin(self, cls: str | None = None, data: dict | None = None, title: str | None = None,
              transform: tuple[float, float] | None = None) -> None:
        pass

    def end(self) -> None:
        pass

    def text(self, x: float, y: float, text: str, *, anchor: str = "middle", size: float = FONT,
             weight: str = "", fill: str = "#111", halo: bool = False, title: str | None = None,
             rotate: bool = False) -> None:
        raise NotImplementedError

    def line(self, x1: float, y1: float, x2: float, y2: float, *, stroke: str, width: float = 1.0,
             dash: tuple[float, float] | None = None) -> None:
        raise NotImplementedError

    def rect(self, x: float, y: float, width: float, height: float, *, style: int | None = None,
             stroke: str = "none", stroke_width: float = 1.0, dash: tuple[float, float] | None = None,
             cls: str | None = None, data: dict | None = None, title: str | None = None) -> None:
        raise NotImplementedError


class SvgCanvas(Canvas):
    """SVG elements as text (escaped; coordinates with fixed decimals: deterministic bytes)."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.out: list[str] = []

    @staticmethod
    def _attrs(cls: str | None, data: dict | None) -> str:
        return (f' class="{cls}"' if cls else "") + "".join(f' data-{k}="{escape(str(v))}"'
                                                             for k, v in (data or {}).items())

    def begin(self, cls=None, data=None, title=None, transform=None) -> None:
        move = f' transform="translate({_f(transform[0])} {_f(transform[1])})"' if transform else ""
        self.out.append(f"<g{self._attrs(cls, data)}{move}>" + (f"<title>{escape(title)}</title>" if title else ""))

    def end(self) -> None:
        self.out.append("</g>")

    def text(self, x, y, text, *, anchor="middle", size=FONT, weight="", fill="#111", halo=False, title=None,
             rotate=False) -> None:
        bold = f' font-weight="{weight}"' if weight else ""
        turn = f' transform="rotate(-90 {_f(x)} {_f(y)})"' if rotate else ""
        paint = ' stroke="#fff" stroke-width="3" stroke-linejoin="round" paint-order="stroke"' if halo else ""
        tip = f"<title>{escape(title)}</title>" if title else ""
        self.out.append(f'<text x="{_f(x)}" y="{_f(y)}" text-anchor="{anchor}" font-size="{_f(size)}"{bold} '
                        f'fill="{fill}"{paint}{turn}>{escape(text)}{tip}</text>')

    def line(self, x1, y1, x2, y2, *, stroke, width=1.0, dash=None) -> None:
        extra = (f' stroke-width="{_f(width)}"' if width != 1.0 else "") + \
            (f' stroke-dasharray="{_f(dash[0])} {_f(dash[1])}"' if dash else "")
        self.out.append(f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}" stroke="{stroke}"{extra}/>')

    def rect(self, x, y, width, height, *, style=None, stroke="none", stroke_width=1.0, dash=None, cls=None,
             data=None, title=None) -> None:
        fill = f"url(#{self.prefix}-s{style})" if style is not None else "none"
        dashes = f' stroke-dasharray="{_f(dash[0])} {_f(dash[1])}"' if dash else ""
        tip = f"<title>{escape(title)}</title>" if title else ""
        self.out.append(f'<rect{self._attrs(cls, data)} x="{_f(x)}" y="{_f(y)}" width="{_f(width)}" '
                        f'height="{_f(height)}" fill="{fill}" stroke="{stroke}" stroke-width="{_f(stroke_width)}"'
                        f"{dashes}>{tip}</rect>")


class _Panel:
    """One allocation drawn at the origin; `width`/`height` for placing it beside others."""

    def __init__(self, allocation: dict, title: str, style_of: dict[str, int]):
        shares = allocation.get("shares") or []
        tasks = allocation.get("tasks") or []
        n = max(len(shares), len(tasks))
        m = max([len(row) for row in shares] + [len((allocation.get("instance") or {}).get("capacities") or [])] + [0])
        self.users = _names(allocation, "users", n, "u")
        self.resources = _names(allocation, "resources", m, "r")
        self.capacities = list((allocation.get("instance") or {}).get("capacities") or [])
        self.shares, self.tasks, self.title = shares, tasks, str(title)
        self.witness = _index(allocation.get("user"), n)
        self.other = _index(allocation.get("other"), n)  # e.g. the envied user of an ef witness
        self.equal_split = allocation.get("equal_split")
        self.style_of = style_of
        self.slot = max([SLOT] + [_width(self._resource_label(r)) + 16 for r in range(m)]
                        + [_width(self._capacity_label(r)) + 16 for r in range(m)])
        if self.equal_split:  # room right of each bar for its "1/n = ..." label
            widest = max([_width(self._split_label(r), 10) for r in range(m)] + [0])
            self.slot = max(self.slot, BAR + 2 * (widest + 16))
        self.legend = [self._legend_text(i) for i in range(n)]
        if self.equal_split:
            self.legend.append("equal split (1/n of each resource)")
        plot_right = LEFT + m * self.slot + 8
        self.width = max(plot_right, _width(_short(self.title, 60), FONT + 1) + 16,
                         max([_width(t) + 40 for t in self.legend] + [0]))
        self.legend_top = TOP + PLOT + 58
        self.height = self.legend_top + len(self.legend) * LEGEND_LINE + 6

    # ---------------------------------------------------------------- labels
    def _resource_label(self, r: int) -> str:
        return _short(self.resources[r])

    def _capacity_label(self, r: int) -> str:
        return f"capacity {_short(_exact_text(self.capacities[r]), 14)}" if r < len(self.capacities) else ""

    def _split_label(self, r: int) -> str:
        split = self.equal_split or []
        return f"1/n = {_short(_exact_text(split[r]), 14)}" if r < len(split) else ""

    def _legend_text(self, i: int) -> str:
        tasks = _exact_text(self.tasks[i]) if i < len(self.tasks) else "?"
        text = f"{_short(self.users[i])} ({_tasks_word(tasks)})"
        if i == self.witness:
            return text + "  ◀ witness"
        return text + ("  ◀ the other user of the witness" if i == self.other else "")

    def _share(self, i: int, r: int):
        row = self.shares[i] if i < len(self.shares) else []
        return row[r] if r < len(row) else None

    # ---------------------------------------------------------------- drawing
    def draw(self, c: Canvas) -> None:
        long = len(self.title) > 60
        if long:
            c.begin(title=self.title)
        c.text(0, 16, _short(self.title, 60), anchor="start", size=FONT + 1, weight="bold", halo=True)
        if long:
            c.end()
        self._axes(c)
        for r in range(len(self.resources)):
            self._bar(c, r)
        for r in range(len(self.resources)):  # on top of every bar
            self._equal_split_line(c, r)
        self._legend(c)

    def _y(self, share: float) -> float:
        return TOP + PLOT * (1 - min(max(share, 0.0), 1.0))

    def _axes(self, c: Canvas) -> None:
        right = LEFT + len(self.resources) * self.slot
        c.begin("axes")
        for pct in (0, 25, 50, 75, 100):
            y = self._y(pct / 100)
            c.line(LEFT, y, right, y, stroke="#ddd")
            c.text(LEFT - 6, y + 4, f"{pct}%", anchor="end", size=11, fill="#333")
        c.line(LEFT, TOP, LEFT, TOP + PLOT, stroke="#333")
        c.line(LEFT, TOP + PLOT, right, TOP + PLOT, stroke="#333")
        c.text(12, TOP + PLOT / 2, "share of capacity", size=11, fill="#333", rotate=True)
        c.end()

    def _bar(self, c: Canvas, r: int) -> None:
        x = self._bar_left(r)
        resource = self.resources[r]
        c.begin("bar", {"resource": resource})
        bottom, outlines = 0.0, []
        for i, user in enumerate(self.users):
            exact = self._share(i, r)
            value = _number(exact)
            if value is None or value <= 0:
                continue
            top = min(bottom + value, 1.0)
            y0, y1 = self._y(top), self._y(bottom)
            height = y1 - y0
            if height <= 0:
                bottom = top
                continue
            tip = f"{user} on {resource}: {_exact_text(exact)} of the capacity"
            c.rect(x, y0, BAR, height, style=self.style_of[user], stroke="#fff", stroke_width=0.75, cls="segment",
                   data={"user": user}, title=tip)
            if i in (self.witness, self.other):
                role = "witness" if i == self.witness else "other"
                outlines.append((role, y0, height, tip))
            label = f"{_short(user, 6)} {_exact_text(exact)}"
            if height >= FONT + 4:
                if _width(label) > BAR - 4:
                    label = _exact_text(exact)
                if _width(label) <= BAR - 4:
                    c.text(x + BAR / 2, self._label_y(r, y0, y1) + FONT / 3, label, halo=True)
            bottom = top
        for role, y0, height, tip in outlines:
            c.rect(x + 1.5, y0 + 1.5, BAR - 3, max(height - 3, 0.5), stroke="#111", stroke_width=3,
                   dash=None if role == "witness" else (5, 3), cls=role, title=f"{tip} (the {role} user)")
        cx = x + BAR / 2
        c.text(cx, TOP + PLOT + 17, self._resource_label(r), weight="bold", title=resource)
        if self._capacity_label(r):
            c.text(cx, TOP + PLOT + 32, self._capacity_label(r), size=11, fill="#444")
        c.end()

    def _label_y(self, r: int, top: float, bottom: float) -> float:
        """The middle of a segment, or of its taller part when the equal-split line would cross
        the label."""
        middle = (top + bottom) / 2
        split = _number(self.equal_split[r]) if self.equal_split and r < len(self.equal_split) else None
        if split is None or abs(self._y(split) - middle) >= FONT:
            return middle
        line = self._y(split)
        upper, lower = line - top, bottom - line
        if max(upper, lower) < FONT + 6:
            return middle
        return (top + line) / 2 if upper >= lower else (line + bottom) / 2

    def _bar_left(self, r: int) -> float:
        return LEFT + r * self.slot + (self.slot - BAR) / 2

    def _equal_split_line(self, c: Canvas, r: int) -> None:
        """A dashed line across bar `r` at the equal split, its value written just above it."""
        x = self._bar_left(r)
        if not self.equal_split or r >= len(self.equal_split):
            return
        exact = self.equal_split[r]
        value = _number(exact)
        if value is None:
            return
        y = self._y(value)
        c.begin("equal-split", title=f"equal split on {self.resources[r]}: {_exact_text(exact)} of the capacity")
        c.line(x - 8, y, x + BAR + 8, y, stroke="#111", width=2, dash=(6, 4))
        c.text(x + BAR + 12, y + 3.5, self._split_label(r), anchor="start", size=10, halo=True)
        c.end()

    def _legend(self, c: Canvas) -> None:
        c.begin("legend")
        y = self.legend_top
        for i, user in enumerate(self.users):
            stroke, width, dash = "#666", 0.75, None
            if i in (self.witness, self.other):
                stroke, width, dash = "#111", 3, (None if i == self.witness else (5, 3))
            c.rect(0, y, 28, 14, style=self.style_of[user], stroke=stroke, stroke_width=width, dash=dash, title=user)
            c.text(36, y + 11, self.legend[i], anchor="start", weight="bold" if i == self.witness else "",
                   title=user)
            y += LEGEND_LINE
        if self.equal_split:
            c.line(0, y + 7, 28, y + 7, stroke="#111", width=2, dash=(6, 4))
            c.text(36, y + 11, self.legend[-1], anchor="start")
        c.end()


def layout(allocations: list[dict], titles: list[str] | None = None) -> tuple[list[_Panel], float, float, str]:
    """The panels of `allocations` side by side, titled by each ``label`` unless `titles` are given:
    (panels, width, height, accessible label); draw them with `draw`."""
    titles = [str(t) for t in titles] if titles else [str(a.get("label") or "allocation") for a in allocations]
    style_of = _styles(allocations)
    panels = [_Panel(a, t, style_of) for a, t in zip(allocations, titles)]
    width = sum(p.width for p in panels) + PANEL_GAP * (len(panels) - 1)
    height = max(p.height for p in panels)
    label = "allocation: " + " | ".join(titles) if len(titles) == 1 else "allocations: " + " | ".join(titles)
    return panels, width, height, label


def draw(panels: list[_Panel], canvas: Canvas) -> None:
    """Every panel onto `canvas`, left to right."""
    x = 0.0
    for p in panels:
        canvas.begin("panel", transform=(x, 0))
        p.draw(_Shifted(canvas, x) if not isinstance(canvas, SvgCanvas) else canvas)
        canvas.end()
        x += p.width + PANEL_GAP


class _Shifted(Canvas):
    """A canvas whose origin is moved right by `dx` (SVG moves a panel with a transform instead)."""

    def __init__(self, inner: Canvas, dx: float):
        self.inner, self.dx = inner, dx

    def begin(self, cls=None, data=None, title=None, transform=None) -> None:
        self.inner.begin(cls, data, title, None)

    def end(self) -> None:
        self.inner.end()

    def text(self, x, y, text, **keywords) -> None:
        self.inner.text(x + self.dx, y, text, **keywords)

    def line(self, x1, y1, x2, y2, **keywords) -> None:
        self.inner.line(x1 + self.dx, y1, x2 + self.dx, y2, **keywords)

    def rect(self, x, y, width, height, **keywords) -> None:
        self.inner.rect(x + self.dx, y, width, height, **keywords)


def _prefix(allocations: list[dict], titles: list[str]) -> str:
    """A deterministic id prefix for the patterns, distinct for distinct figures on one page."""
    text = json.dumps([allocations, titles], sort_keys=True, default=str)
    return "fl" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def _svg(panels: list[_Panel], width: float, height: float, prefix: str, label: str) -> str:
    styles = sorted({s for p in panels for s in p.style_of.values()})
    canvas = SvgCanvas(prefix)
    draw(panels, canvas)
    return "".join([f'<svg xmlns="http://www.w3.org/2000/svg" class="allocation-chart" role="img" '
                    f'aria-label="{escape(label)}" width="{_f(SCALE * (width + 8))}" '
                    f'height="{_f(SCALE * (height + 8))}" viewBox="-4 -4 {_f(width + 8)} {_f(height + 8)}" '
                    f'font-family="system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif">',
                    f"<title>{escape(label)}</title>", _defs(prefix, styles), *canvas.out, "</svg>"])


def _styles(allocations: list[dict]) -> dict[str, int]:
    """One style (colour + hatch) per user NAME, in order of first appearance, so a user keeps its
    look across panels (after a user leaves, the others keep theirs)."""
    style_of: dict[str, int] = {}
    for a in allocations:
        shares, tasks = a.get("shares") or [], a.get("tasks") or []
        for name in _names(a, "users", max(len(shares), len(tasks)), "u"):
            style_of.setdefault(name, len(style_of))
    return style_of


def allocation_svg(allocation: dict, title: str, id_prefix: str | None = None) -> str:
    """One allocation as a stacked bar chart (an ``<svg>`` element, self-contained)."""
    return panels_svg([allocation], titles=[title], id_prefix=id_prefix)


def panels_svg(allocations: list[dict], titles: list[str] | None = None, id_prefix: str | None = None) -> str:
    """Several allocations side by side in one ``<svg>`` (truthful vs misreport, before vs after),
    each titled by its ``label`` unless `titles` are given. An empty list gives ``""``."""
    if not allocations:
        return ""
    panels, width, height, label = layout(allocations, titles)
    prefix = id_prefix or _prefix(allocations, [p.title for p in panels])
    return _svg(panels, width, height, prefix, label)
