"""Campaign test plug-in: DRF, whose spec kills the process it runs in (a crash no Python handler
sees), so a proof cell of it ends without an answer."""

import os
import signal

from fairlab import mechanisms


def crashes(instance):
    return mechanisms.allocate("drf", instance).tasks


def _spec(sym, tasks, **options):
    os.kill(os.getpid(), signal.SIGKILL)


crashes.spec = _spec
