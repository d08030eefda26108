"""``--progress plain|bar|none``: how the long verbs (audit, search, campaign run, prove --catalogue,
matrix, rediscover) show their progress, on stderr only (stdout stays what was asked).

* ``plain`` (the default off a terminal: CI logs, ``nohup``, a notebook): one line per finished
  unit of work (an audit's property at one size, a campaign's cell), written and flushed as it
  ends, e.g. ``[3/14] audit drf: sp 3x3 violated (2.1 s, ~25 s left)``;
* ``bar`` (the default when stderr is a terminal): a rich progress bar with the units done, the
  time elapsed and an estimate of the time left, cleared at the end;
* ``none``: nothing.

The engines report `fairlab.core.progress.Unit` events (and, from the audit and the search, a text
as each step starts); `Reporter` is the callback every verb passes them. The estimate of the time
left is the wall-clock time per unit so far times the units still planned (parallel cells
included); it is only shown, never used to decide anything.
"""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from fairlab.core.errors import InputError
from fairlab.core.progress import Unit
from fairlab.core.stdio import printable

MODES = ("plain", "bar", "none")
HELP = ("progress on stderr: plain (a line per finished unit), bar, or none (default: bar when stderr is a "
        "terminal, else plain)")


def option():
    """The ``--progress`` option every long verb takes (None: chosen by `choose`)."""
    return typer.Option(None, "--progress", metavar="MODE", show_default=False, help=HELP)


def choose(mode: Optional[str], stream: Optional[TextIO] = None) -> str:
    """The mode asked for, or (None) ``bar`` when `stream` (default: stderr) is a terminal, else ``plain``."""
    if mode is None:
        stream = sys.stderr if stream is None else stream
        try:
            return "bar" if stream.isatty() else "plain"
        except (AttributeError, ValueError):  # no stream, or a closed one
            return "plain"
    if mode not in MODES:
        raise InputError(f"--progress: expected plain, bar or none, got {mode!r}")
    return mode


def duration(seconds: float) -> str:
    """``2.1 s``, ``25 s``, ``3.5 min``, ``2.0 h``: short, for a progress line."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 100:
        return f"{seconds:.0f} s"
    if seconds < 6000:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def line(title: str, unit: Unit, left: Optional[float]) -> str:
    """The plain line of a finished unit: ``[3/14] TITLE: NAME STATUS (2.1 s, ~25 s left)``; a name
    that starts with the title's verb (a rediscover cell: ``rediscover CLAIM``) does not repeat it."""
    verb, _, rest = unit.name.partition(" ")
    name = rest if rest and verb == title.partition(" ")[0] else unit.name
    what = " ".join(part for part in (name, unit.status) if part)
    timing = [duration(unit.seconds)] if unit.seconds is not None else []
    if left is not None and unit.done < unit.total:
        timing.append(f"~{duration(left)} left")
    tail = f" ({', '.join(timing)})" if timing else ""
    return printable(f"[{unit.done}/{unit.total}] {title}: {what}{tail}").replace("\n", " ")


class Reporter:
    """The progress callback of one verb run, shown as `mode` (``plain``, ``bar`` or ``none``) on
    stderr. Call it with a `Unit` when a unit ends (``Unit(0, total)`` announces the total) or with
    a text when a step starts (shown in the bar only). Use it as a context manager: the bar is
    drawn inside and cleared at the end."""

    def __init__(self, mode: str, title: str, stream: Optional[TextIO] = None):
        self.mode, self.title, self._stream = choose(mode), title, stream
        self._start = time.monotonic()
        self._bar: Optional[Progress] = None
        self._task: Optional[TaskID] = None

    def __enter__(self) -> Reporter:
        self._start = time.monotonic()
        if self.mode == "bar":
            console = Console(file=self._stream, stderr=self._stream is None)
            self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(), console=console,
                                 transient=True)
            self._bar.start()
            self._task = self._bar.add_task(escape(self.title), total=None)
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __call__(self, event) -> None:
        if isinstance(event, Unit):
            self.unit(event)
        else:
            self.step(str(event))

    def step(self, text: str) -> None:
        """A step started: the bar's description shows it."""
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, description=escape(printable(f"{self.title}: {text}")))

    def engine(self, name: str, candidates: int) -> None:
        """The search engines' callback (`fairlab.search.engines.search`): candidates so far."""
        self.step(f"{candidates} candidates ({name})")

    def unit(self, unit: Unit) -> None:
        """A unit ended (or, ``done == 0``, the total is known)."""
        if self._bar is not None and self._task is not None:
            description = f"{self.title}: {unit.name} {unit.status}" if unit.done else self.title
            self._bar.update(self._task, completed=unit.done, total=unit.total,
                             description=escape(printable(description)))
        elif self.mode == "plain" and unit.done:
            stream = self._stream if self._stream is not None else sys.stderr
            print(line(self.title, unit, self.left(unit)), file=stream, flush=True)

    def left(self, unit: Unit) -> Optional[float]:
        """Seconds left at the pace so far (wall clock per unit done), or None before any unit."""
        if unit.done <= 0:
            return None
        return (time.monotonic() - self._start) / unit.done * max(unit.total - unit.done, 0)


__all__ = ["MODES", "Reporter", "Unit", "choose", "duration", "line", "option"]
