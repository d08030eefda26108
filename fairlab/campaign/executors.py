"""Where a campaign's cells run: any `concurrent.futures.Executor`, opened and closed here.

`local(workers)` is the default, a standard-library process pool. Each cell still runs in a
process of its own (`fairlab.campaign.cell.run_isolated`), so a pool worker is only the place
that waits for it.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import os
from typing import Iterator


def default_workers() -> int:
    """The cores this process may use (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@contextlib.contextmanager
def local(workers: int) -> Iterator[concurrent.futures.Executor]:
    """A process pool of `workers` (fork: the lab is imported once). Its workers are forked at
    once, before the caller starts a progress display's thread (forking a process with threads
    can copy a lock another thread holds). Interrupted, it cancels what has not started."""
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"))
    try:
        pool.submit(os.getpid).result()  # with fork, the first task starts every worker
        yield pool
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
