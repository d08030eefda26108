"""Keeping stdout for results: C libraries that write to file descriptor 1 behind Python's back.

Three guards about fd 1 (what C code writes to); only `output_to_stderr` also moves Python's ``sys.stdout``:

* `c_stdout_silenced()` points fd 1 at /dev/null around one call. HiGHS (highspy 1.16) prints a
  banner when the first ``highspy.Highs()`` is constructed, before any option can be set, so
  ``output_flag=False`` alone cannot stop it; `fairlab.core.lp.new_highs` constructs under this guard.
* `output_to_stderr()` sends both Python's `sys.stdout` and fd 1 to stderr around a computation
  (a plug-in's ``print`` included); a verb prints its result after it.
* `results_only_on_stdout()` is the CLI's belt and braces for a whole verb: fd 1 points at stderr
  while `sys.stdout` keeps writing to the real stdout, so whatever any library prints at the C
  level lands on stderr and ``--format json`` output always parses.

C stdio buffers are flushed before fd 1 is restored, so nothing written inside leaks out later.
fd 1 is process-wide, so the guards take turns (a lock): two overlapping redirections could
otherwise restore each other's target and lose stdout for good.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import io
import os
import re
import sys
import threading

_FD1_LOCK = threading.RLock()


@functools.lru_cache(maxsize=1)
def _libc():
    try:
        return ctypes.CDLL(None)
    except (OSError, TypeError):  # no handle on the C library (e.g. Windows): C code must flush itself
        return None


def flush_c_stdio() -> None:
    """fflush(NULL): write out what C code has buffered in its stdio streams."""
    libc = _libc()
    if libc is not None and hasattr(libc, "fflush"):
        try:
            libc.fflush(None)
        except Exception:
            pass


def _flush_python_stdout() -> None:
    try:
        sys.stdout.flush()
    except (AttributeError, OSError, ValueError):  # no usable sys.stdout: nothing to keep in order
        pass


@contextlib.contextmanager
def c_stdout_silenced():
    """fd 1 points at /dev/null for the duration (C-level writes only; `sys.stdout` is untouched
    unless it is fd 1 itself, in which case it is flushed first so its text is not lost)."""
    with _FD1_LOCK:
        _flush_python_stdout()
        try:
            saved = os.dup(1)
        except OSError:  # no fd 1 at all: nothing can reach stdout anyway
            saved = None
        if saved is None:
            yield
            return
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, 1)
            finally:
                os.close(null)
            yield
        finally:
            flush_c_stdio()
            os.dup2(saved, 1)
            os.close(saved)


@contextlib.contextmanager
def output_to_stderr():
    """While a verb computes, whatever is written to standard output — a plug-in's ``print``
    (Python's `sys.stdout`) or a C library's banner (fd 1) — goes to stderr, so stdout carries the
    result only and ``--format json`` parses; the verb prints its result after the block. Nests
    inside `results_only_on_stdout` (which already points fd 1 at stderr for the whole verb).

    The lock is held only while fd 1 is switched, not during the body: the body may wait on a
    thread (a plug-in under a time limit) that itself silences fd 1 around a HiGHS call."""
    _flush_python_stdout()
    with _FD1_LOCK:
        try:
            saved = os.dup(1)
        except OSError:  # no fd 1: nothing to guard at the C level
            saved = None
        if saved is not None:
            os.dup2(2, 1)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if saved is not None:
            with _FD1_LOCK:
                flush_c_stdio()  # what C code buffered goes out to stderr, not later to stdout
                os.dup2(saved, 1)
            os.close(saved)


def _results_stream():
    """(a text stream on a duplicate of fd 1, its fd), or None if stdout is not the process's fd 1."""
    original = sys.stdout
    try:
        if original is not sys.__stdout__ or original is None or original.fileno() != 1:
            return None
        original.flush()
        real = os.dup(1)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None
    try:
        stream = io.TextIOWrapper(
            io.BufferedWriter(io.FileIO(real, "w", closefd=False)),
            encoding=original.encoding, errors=original.errors, line_buffering=original.line_buffering,
        )
    except (OSError, ValueError, LookupError):
        os.close(real)
        return None
    return stream, real


@contextlib.contextmanager
def results_only_on_stdout():
    """While the body runs, fd 1 points at stderr and `sys.stdout` at the real stdout.

    Skipped (a no-op) when `sys.stdout` is not the process's own fd 1, e.g. under a test harness
    that captured it.
    """
    made = _results_stream()
    if made is None:
        yield
        return
    stream, real = made
    original = sys.stdout
    with _FD1_LOCK:
        try:
            os.dup2(2, 1)
        except OSError:
            os.close(real)
            made = None
    if made is None:
        yield
        return
    sys.stdout = stream
    try:
        yield
    finally:
        sys.stdout = original
        try:
            stream.flush()
        finally:
            with _FD1_LOCK:
                flush_c_stdio()  # what C code buffered so far belongs to stderr
                os.dup2(real, 1)
            try:
                stream.close()  # never flushed again later, onto an fd number that may be reused
            except (OSError, ValueError):
                pass
            os.close(real)


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text) -> str:
    """`text` without control characters (ESC sequences, BEL, ...) except newline and tab: what a
    plug-in's message may carry must not reach a terminal, a report or a table as commands."""
    return _CONTROL.sub("", str(text))

