"""A plug-in's time limits (`fairlab.mechanisms.plugin`): `time_limit` bounds every plug-in call
made inside it (the earliest of nested limits applies); `_guard` stops Python code of the plug-in
running in this process (its import, its spec) with SIGALRM; a call stopped is a `PluginTimeout`."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from dataclasses import dataclass

from fairlab.core.errors import PluginError


class PluginTimeout(PluginError):
    """A plug-in call did not return before the time limit ran out (the call was stopped).

    `returned_before` counts the plug-in's calls that did return within the same `time_limit`: a
    plug-in that had returned before may just be slow, and a search may read the stop as its
    outer time limit (verdict unknown) instead of a failure; one that never returned is broken."""

    def __init__(self, message: str, returned_before: int = 0):
        super().__init__(message)
        self.returned_before = returned_before


@dataclass
class _Limit:
    deadline: float  # time.monotonic() at which calls are stopped
    seconds: float  # the limit as the user gave it, for messages
    returned: int = 0  # plug-in calls that returned inside this limit


_LIMITS: list[_Limit] = []


@contextlib.contextmanager
def time_limit(seconds: float | None):
    """Plug-in calls made inside stop when `seconds` have passed (None: no limit); the earliest of
    nested limits applies."""
    if seconds is None or not seconds < 1e8:  # no limit (NaN and infinity included)
        yield None
        return
    seconds = max(float(seconds), 0.0)
    limit = _Limit(time.monotonic() + seconds, seconds)
    _LIMITS.append(limit)
    try:
        yield limit
    finally:
        _LIMITS.remove(limit)


def _active() -> _Limit | None:
    return min(_LIMITS, key=lambda x: x.deadline) if _LIMITS else None


def _timeout(name: str, limit: _Limit, counted: bool = True, kind: str = "mechanism") -> PluginTimeout:
    returned = max(x.returned for x in _LIMITS) if counted and _LIMITS else 0
    # name the limit the user gave: the outermost one ending (about) when the call was stopped
    # (a search gives each candidate's check what is left of its own limit)
    given = next((x for x in _LIMITS if x.deadline <= limit.deadline + 0.05), limit)
    return PluginTimeout(f"{kind} {name!r}: did not return within {given.seconds:g} s", returned)


#: called with True when the lab begins to start a process for a plug-in and with False when it
#: is up (`starting`): a campaign cell tells its parent, whose hard limit stops meanwhile
ON_STARTING: list = []


@contextlib.contextmanager
def starting():
    """The lab starts a process for a plug-in inside (its worker, its probe import: a fork server
    starting, the plug-in's file imported again), which is not the plug-in's own time: every
    active limit moves by as long as it took (a slow start on a loaded machine is never a hang)."""
    begun = time.monotonic()
    for hook in ON_STARTING:
        hook(True)
    try:
        yield
    finally:
        took = time.monotonic() - begun
        for limit in _LIMITS:
            limit.deadline += took
        for hook in ON_STARTING:
            hook(False)


def _returned() -> None:
    for limit in _LIMITS:
        limit.returned += 1


class _Alarm(BaseException):
    """Raised by the SIGALRM guard (a BaseException, so a plug-in's `except Exception` cannot eat it)."""


@contextlib.contextmanager
def _guard(name: str, kind: str = "mechanism"):
    """Stop Python code of the plug-in running in this process (its import, its spec) at the active
    time limit: SIGALRM, re-fired every 0.1 s until the code gives up. Main thread only."""
    limit = _active()
    if limit is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def ring(signum, frame):
        raise _Alarm()

    previous = signal.signal(signal.SIGALRM, ring)
    try:
        signal.setitimer(signal.ITIMER_REAL, max(limit.deadline - time.monotonic(), 0.001), 0.1)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _Alarm:  # its import or spec: code that should be quick; never read as a slow run
        raise _timeout(name, limit, counted=False, kind=kind) from None
    finally:
        signal.signal(signal.SIGALRM, previous)

