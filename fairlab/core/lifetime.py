"""Processes the lab starts die with the process that started them (Linux; best effort elsewhere)."""

from __future__ import annotations

import ctypes
import os
import signal

PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int | None = None) -> None:
    """Ask the kernel to SIGKILL this process when its parent ends (PR_SET_PDEATHSIG), then exit
    at once if `parent_pid` is given and the parent already ended before the request (the race
    the man page warns about)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except Exception:  # noqa: BLE001 - not Linux, or no libc: the pipe's EOF is the fallback
        return
    if parent_pid is not None and os.getppid() != parent_pid:
        os._exit(1)
