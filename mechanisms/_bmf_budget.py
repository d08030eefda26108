"""The budget and progress display of a BMF computation (`fairlab.mechanisms.bmf`, Bonald &
Roberts, "Multi-resource fairness" §2.4 and §3.3): moved out of ``bmf.py``, which re-exports the
public names (`SolverUndecided`, `BMFBudgetExceeded`, the defaults).

Every computation runs under a budget that never turns into an answer: ``max_checks`` (solver
calls: z3 checks plus LPs, a counted limit: the same instance stops at the same point on any
machine), each z3 check bound by the counted resource limit `CHECK_RLIMIT`, and ``timeout``
(seconds of wall-clock time for the whole call: only a safety net). `_Run` counts and stops; a
call that takes longer than `PROGRESS_AFTER` shows a progress display on stderr when stderr is a
terminal.
"""

from __future__ import annotations

import math
import sys
import time
from fractions import Fraction
from typing import Optional

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from fairlab.core.errors import InputError, OptionError
from fairlab.core.exact import format_exact
from fairlab.core.solving import SolverBudget

DEFAULT_TIMEOUT = 600.0  # seconds of wall-clock time per call: the safety net
#: solver calls per call (counted): random 6 × 6 instances need about 40
DEFAULT_MAX_CHECKS = 5_000
PROGRESS_AFTER = 1.0  # seconds before a progress display appears (quick calls never flicker)
#: z3 resource units per enumeration check (counted): a check of a random 6 × 6 instance spends at
#: most 0.75 million; on the slowest machine seen 20 million take 80 s, far below the safety net
CHECK_RLIMIT = 20_000_000
_MAX_MS = 2**31 - 1  # z3's timeout parameter is an unsigned 32-bit count of milliseconds


class SolverUndecided(InputError):
    """z3 or the LP helper returned "unknown": the enumeration is incomplete and nothing is claimed.

    An `InputError` (this instance is beyond what the budget decides): the CLI prints one line and
    exits 2, and a search skips the instance instead of counting it."""


class BMFBudgetExceeded(SolverUndecided):
    """The call ran out of its ``timeout`` (wall clock) or ``max_checks`` (solver calls) budget."""


# --------------------------------------------------------------------------- budget and progress
class _Run:
    """What one BMF computation may spend and has spent; `charge` stops it when a limit is reached."""

    def __init__(self, timeout=DEFAULT_TIMEOUT, max_checks=DEFAULT_MAX_CHECKS):
        self.timeout = _read_timeout(timeout)
        self.max_checks = _read_max_checks(max_checks)
        self.started = time.monotonic()
        self.checks = 0  # z3 checks and LP solves so far
        self.stage = "starting"
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._progress_failed = False

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def seconds_left(self) -> Optional[float]:
        return None if self.timeout is None else self.timeout - self.elapsed()

    def budget(self) -> SolverBudget:
        """The z3 budget of the next check: the deterministic rlimit, the time left as the outer stop."""
        ms = self.ms_left()
        return SolverBudget(rlimit=CHECK_RLIMIT, seconds=None if ms is None else ms / 1000)

    def ms_left(self) -> Optional[int]:
        """Milliseconds left for a solver's own timeout (at least 1, at most what z3 accepts)."""
        left = self.seconds_left()
        return None if left is None else min(_MAX_MS, max(1, int(left * 1000)))

    def charge(self, stage: str) -> None:
        """Account for one more solver call in `stage`; raise if a budget is spent."""
        self.stage = stage
        if self.max_checks is not None and self.checks >= self.max_checks:
            raise BMFBudgetExceeded(
                f"bmf: did not finish within {self.max_checks} solver calls (option max_checks={self.max_checks}): "
                f"stopped after {self.elapsed():.1f} s while {stage}; raise it with -o max_checks=N"
            )
        left = self.seconds_left()
        if left is not None and left <= 0:
            raise self._out_of_time()
        self.checks += 1
        self._show()

    def _out_of_time(self) -> BMFBudgetExceeded:
        return BMFBudgetExceeded(
            f"bmf: did not finish within {self.timeout:g} s (option timeout={self.timeout:g}): stopped after "
            f"{self.elapsed():.1f} s while {self.stage}, {self.checks} solver calls made "
            f"(a z3 check reacts to the stop within seconds); raise it with -o timeout=SECONDS"
        )

    def undecided(self, what: str, reason: str = "") -> SolverUndecided:
        """The exception for a solver "unknown": out of time if the clock says so, else undecided."""
        left = self.seconds_left()
        if reason == "time" or (left is not None and left <= 0):
            return self._out_of_time()
        why = f" ({reason})" if reason else ""
        return SolverUndecided(f"bmf: solver returned unknown{why} while {what}")

    # progress: stderr only, only on a terminal, only once the call has run for a second
    def _show(self) -> None:
        if self._progress_failed or (self._progress is None and self.elapsed() < PROGRESS_AFTER):
            return
        try:
            if self._progress is None or self._task is None:
                if not sys.stderr.isatty():
                    self._progress_failed = True
                    return
                total = self.timeout if self.timeout is not None else None
                self._progress = Progress(
                    TextColumn("bmf"), BarColumn(bar_width=20), TimeElapsedColumn(),
                    TextColumn("of {task.fields[limit]} · {task.fields[calls]} solver calls · {task.description}"),
                    console=Console(stderr=True), transient=True,
                )
                self._progress.start()
                limit = f"{self.timeout:g} s" if self.timeout is not None else "no time limit"
                self._task = self._progress.add_task("", total=total, limit=limit, calls=0)
            self._progress.update(
                self._task, completed=self.elapsed() if self.timeout is not None else None,
                description=self.stage, calls=self.checks,
            )
        except Exception:  # a display problem (another live display, a closed terminal) never stops the run
            self._progress_failed = True
            self.close()

    def close(self) -> None:
        if self._progress is not None:
            try:
                self._progress.stop()
            except Exception:
                pass
            self._progress = None


def _read_timeout(value) -> Optional[float]:
    if value is None:
        return None
    try:
        if isinstance(value, bool):
            raise TypeError
        seconds = float(value)
    except (TypeError, ValueError, OverflowError):
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise OptionError(f"option timeout: expected a finite positive number of seconds, got {_shown(value)}")
    return seconds


def _read_max_checks(value) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, Fraction) and value.denominator == 1:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise OptionError(f"option max_checks: expected a positive integer, got {_shown(value)}")
    return value


def _shown(value) -> str:
    return format_exact(value) if isinstance(value, Fraction) else repr(value)
