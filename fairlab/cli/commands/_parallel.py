"""Options every verb that runs cells in parallel shares (`campaign run`, `matrix`, `prove
--catalogue`, `rediscover`), and the executor they choose (`fairlab.campaign.executors`)."""

from __future__ import annotations

import contextlib
from typing import Iterator, Optional

import typer
from rich.markup import escape

from fairlab.campaign import executors
from fairlab.cli.commands import _params as params

WORKERS_HELP = "cells run at once, each in a process of its own (default: the cores available)"
OUT_HELP = "keep every cell's result in DIR/cells; the same command again runs only the missing ones"


def workers_option():
    return typer.Option(None, "--workers", "-j", show_default=False, help=WORKERS_HELP)


def out_option():
    return typer.Option(None, "--out", metavar="DIR", help=OUT_HELP)


def check(workers: Optional[int]) -> int:
    """The number of workers (default: the cores available), checked before any work."""
    count = executors.default_workers() if workers is None else workers
    params.integer(count, "--workers", 1, 256)
    return count


@contextlib.contextmanager
def executor(workers: int) -> Iterator:
    """The executor the cells run on; open it before a progress display starts its thread."""
    with executors.local(workers) as pool:
        yield pool


def bar_updater(bar, task):
    """A `run_cells` progress callback that moves a rich progress bar."""
    def update(finished: int, total: int, label: str) -> None:
        bar.update(task, completed=finished, total=total, description=escape(label))
    return update
