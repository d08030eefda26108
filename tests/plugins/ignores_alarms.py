"""Campaign test plug-in: DRF, whose spec ignores SIGALRM and never returns, so no in-process time
limit can stop a proof of it; only killing the cell's process does (a cell's hard time limit)."""

import signal

from fairlab import mechanisms


def never(instance):
    return mechanisms.allocate("drf", instance).tasks


def _spec(sym, tasks, **options):
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    while True:
        pass


never.spec = _spec
