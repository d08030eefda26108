"""Options every verb that runs cells in parallel shares (`campaign run`, `matrix`, `prove
--catalogue`, `rediscover`), and the executor they choose (`fairlab.campaign.executors`)."""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Iterator, Optional

import typer

from fairlab.campaign import executors
from fairlab.cli.commands import _params as params
from fairlab.core.errors import InputError

WORKERS_HELP = "cells run at once, each in a process of its own (default: the cores available)"
OUT_HELP = "keep every cell's result in DIR/cells; the same command again runs only the missing ones"


def workers_option():
    return typer.Option(None, "--workers", "-j", show_default=False, help=WORKERS_HELP)


def out_option():
    return typer.Option(None, "--out", metavar="DIR", help=OUT_HELP)


SCHEDULER_HELP = "run the cells on the Dask cluster at ADDRESS, tcp://HOST:PORT (pip install 'fairlab\\[cluster]')"
CLUSTER_HELP = "run the cells on a local Dask cluster of N single-thread workers: local:N"


def scheduler_option():
    return typer.Option(None, "--scheduler", metavar="ADDRESS", help=SCHEDULER_HELP)


def cluster_option():
    return typer.Option(None, "--cluster", metavar="local:N", help=CLUSTER_HELP)


@dataclasses.dataclass(frozen=True)
class Where:
    """Where the cells run: a local pool of `workers`, or Dask (`scheduler` or `cluster` workers)."""

    workers: int
    scheduler: Optional[str] = None
    cluster: Optional[int] = None


def check(workers: Optional[int], scheduler: Optional[str] = None, cluster: Optional[str] = None) -> Where:
    """The options checked before any work (default: a local pool over the cores available)."""
    if sum(x is not None for x in (workers, scheduler, cluster)) > 1:
        raise InputError("give one of --workers, --scheduler and --cluster")
    count = executors.default_workers() if workers is None else workers
    params.integer(count, "--workers", 1, 256)
    if scheduler is not None and not scheduler.strip():
        raise InputError("--scheduler: expected tcp://HOST:PORT")
    return Where(count, scheduler, None if cluster is None else executors.parse_cluster(cluster))


@contextlib.contextmanager
def executor(where: Where) -> Iterator:
    """The executor the cells run on; open it before a progress display starts its thread."""
    with executors.interrupt_on_sigterm():
        if where.scheduler is None and where.cluster is None:
            with executors.local(where.workers) as pool:
                yield pool
        else:
            with executors.dask(where.scheduler, where.cluster) as pool:
                yield pool
