"""Where a campaign's cells run: any `concurrent.futures.Executor`, opened and closed here.

`local(workers)` is the default, a standard-library process pool; `dask(scheduler=...)` or
`dask(local_workers=N)` runs the same cells on Dask distributed (the optional ``cluster``
extra). Each cell still runs in a process of its own (`fairlab.campaign.cell.run_isolated`),
so a pool worker is only the place that waits for it.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import signal
from typing import Iterator

from fairlab.campaign.cell import kill_running_cell
from fairlab.core import processes
from fairlab.core.errors import InputError
from fairlab.core.lifetime import die_with_parent
from fairlab.mechanisms import registry


def default_workers() -> int:
    """The cores this process may use (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _pool_worker_start() -> None:
    """A pool worker leaves Ctrl-C to the driver and dies with it (with the fork server, which
    dies with the driver); SIGTERM from the driver kills the cell it is running (the worker then
    returns, and stops at the pool's shutdown). It imports every built-in mechanism once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda signum, frame: kill_running_cell())
    die_with_parent()
    if not processes.parent_alive():
        os._exit(1)
    registry.load_all()


@contextlib.contextmanager
def local(workers: int) -> Iterator[concurrent.futures.Executor]:
    """A process pool of `workers`, started from the lab's fork server (`fairlab.core.processes`,
    which imports the lab once for all of them; never a fork of this process, which may have
    threads: a progress display's, HiGHS's). Interrupted (Ctrl-C, or SIGTERM made one by the
    caller), it starts nothing more and stops the cells that are running."""
    before = {p.pid for p in multiprocessing.active_children()}
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=processes.context(lab=True),
                                                  initializer=_pool_worker_start)
    try:
        yield pool
    except BaseException:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not stop the cleanup
        try:
            pool.shutdown(wait=False, cancel_futures=True)
            pool_workers = [p for p in multiprocessing.active_children() if p.pid not in before]
            for process in pool_workers:
                process.terminate()  # SIGTERM: the worker kills its running cell
            for process in pool_workers:
                process.join(5)
                if process.is_alive():
                    process.kill()
        finally:
            signal.signal(signal.SIGINT, previous)
        raise
    pool.shutdown(wait=True)


@contextlib.contextmanager
def interrupt_on_sigterm() -> Iterator[None]:
    """While inside: SIGTERM (``kill``) interrupts like Ctrl-C, so the same cleanup runs."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _dask():
    try:
        from dask import config
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise InputError("--scheduler and --cluster need Dask distributed: pip install 'fairlab[cluster]'") from None
    return config, Client, LocalCluster


def parse_cluster(text: str) -> int:
    """``local:N`` -> N (the number of single-thread worker processes)."""
    kind, _, count = text.partition(":")
    if kind != "local" or not (count.isascii() and count.isdigit()) or not 1 <= int(count) <= 256:
        raise InputError(f"--cluster: expected local:N with N in 1..256, got {text!r}")
    return int(count)


@contextlib.contextmanager
def dask(scheduler: str | None = None, local_workers: int | None = None,
         connect_seconds: float = 30.0) -> Iterator[concurrent.futures.Executor]:
    """Dask distributed's executor (``Client.get_executor()``, a standard `Executor`): on the
    cluster at `scheduler` (``tcp://HOST:PORT``), or on a local cluster of `local_workers`
    worker processes with one thread each (z3 is not thread-safe; each cell runs in a process of
    its own anyway), started by ``spawn``. Workers need the same fairlab version (it is in every cell's id), and
    plug-in, instance and store paths that exist on them (a shared file system)."""
    if (scheduler is None) == (local_workers is None):
        raise InputError("give one of --scheduler tcp://HOST:PORT and --cluster local:N")
    config, Client, LocalCluster = _dask()
    cluster = None
    with config.set({"distributed.worker.daemon": False, "distributed.admin.tick.limit": "1h",
                     "distributed.worker.multiprocessing-method": "spawn"}):
        try:
            if scheduler is not None:
                client = Client(scheduler, timeout=connect_seconds, set_as_default=False)
            else:
                cluster = LocalCluster(n_workers=local_workers, threads_per_worker=1, processes=True,
                                       dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR)
                client = Client(cluster, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            if cluster is not None:
                cluster.close()
            where = scheduler or f"local:{local_workers}"
            raise InputError(f"--scheduler: cannot reach the Dask scheduler at {where!r} "
                             f"({' '.join(str(exc).split()) or type(exc).__name__})") from None
        try:
            yield client.get_executor(pure=False)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
