"""The processes the lab starts: one explicit start method, never a fork of the lab's own process.

Up to Python 3.13, multiprocessing starts a child on Linux by ``fork()``: a copy of a process
whose other threads (HiGHS's, OpenBLAS's, a progress display's, a Dask worker's) may hold a lock
at that moment, so the child can deadlock. Python 3.12 warns about it ("This process is
multi-threaded, use of fork() may lead to deadlocks") and 3.14 no longer forks by default. Every
process the lab starts — a plug-in's worker and the probe import of a plug-in file
(`fairlab.mechanisms.plugin`), a campaign cell (`fairlab.campaign.cell`), the process pools of
audits, campaigns and sweeps — comes from `context()`: the ``forkserver`` start method (``spawn``
where the platform has none), which is what Python 3.14 does by default.

A fork server is a fresh interpreter started by ``exec`` that imports a few modules once
(`preload`) and then forks each child from itself: it never runs a solver, so it has one thread,
and a child starts without importing the lab again. Its first module, `fairlab.core.server_setup`,
keeps it single-threaded (one BLAS thread: numpy's OpenBLAS would start a pool at import) and
makes it die with the lab's process; each child calls `fairlab.core.lifetime.die_with_parent`,
so the whole tree ends with the lab. A child rebuilds what it needs from its arguments (a
plug-in's worker imports the plug-in's file again by path, with the parent's ``sys.path`` and
working folder, which multiprocessing passes on): nothing is inherited by copying memory.

As with any multiprocessing code under ``forkserver`` or ``spawn``, a script that runs a plug-in,
a campaign or a parallel audit from Python must keep its top-level work under
``if __name__ == "__main__":`` (Python imports the main module again in each child).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import sys
from typing import Iterable, cast

#: imported first in the fork server: one BLAS thread, and the server dies with the lab's process
SERVER_SETUP = "fairlab.core.server_setup"
#: what every child may need: a plug-in's worker loop (z3, the lab's exact numbers) and the quick
#: built-in mechanisms a plug-in is likely to call (``mechanisms.get("drf")``); the others import
#: numpy or HiGHS, slower to load than a plug-in's first call should wait for
BASE_PRELOAD = ("fairlab.mechanisms._plugin_worker", "fairlab.mechanisms.drf", "fairlab.mechanisms.asset")
#: what the workers of an audit's or a campaign's process pool need (asked by `context(lab=True)`)
LAB_PRELOAD = ("fairlab.mechanisms.builtins", "fairlab.properties", "fairlab.search.engines",
               "fairlab.audit.schedule", "fairlab.campaign.cell")

_PRELOAD_SET = False


def start_method() -> str:
    """``forkserver`` where the platform has it (Linux, macOS), else ``spawn``."""
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


#: what `context` returns: a fork server's context, or spawn's where there is none
Context = multiprocessing.context.ForkServerContext | multiprocessing.context.SpawnContext


def context(lab: bool = False) -> Context:
    """The multiprocessing context every process of the lab is started from (module docstring).

    The first call in a process chooses what its fork server imports once: the plug-in worker's
    modules, the CLI's when this process runs it (a child imports the main module again), and with
    `lab` the properties, searches and built-in mechanisms a pool worker runs. A later call cannot
    change it (the server is already running): its children then import what they need themselves."""
    method = start_method()
    ctx = cast(Context, multiprocessing.get_context(method))
    global _PRELOAD_SET
    if method == "forkserver" and not _PRELOAD_SET:
        ctx.set_forkserver_preload(list(preload(lab)))
        _PRELOAD_SET = True
    return ctx


def preload(lab: bool = False) -> Iterable[str]:
    """The modules the fork server imports, in order (`context`)."""
    yield SERVER_SETUP
    yield from BASE_PRELOAD
    if "fairlab.cli" in sys.modules:  # this process runs the CLI: each child runs its script again
        yield "fairlab.cli"
    if lab:
        yield from LAB_PRELOAD


def parent_alive() -> bool:
    """In a child started from `context()`: is the process that asked for it still running?"""
    parent = multiprocessing.parent_process()
    return parent is None or parent.is_alive()
