"""Test plug-ins that never return: a busy loop, a sleep, and one that swallows every exception."""

import time


def f(instance):
    """Never returns (a pure busy loop)."""
    while True:
        pass


def sleeps(instance):
    time.sleep(10_000)


def stubborn(instance):
    """Catches everything, including the lab's alarm, and keeps looping."""
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass


def slow_spec(instance):
    return [0] * instance.n


def _spec_never_returns(sym, tasks):
    while True:
        pass


slow_spec.spec = _spec_never_returns


_calls = {"n": 0}


def first_then_hangs(instance):
    """Returns an allocation (DRF's) on its first call in a worker, then never again: a plug-in that
    is known to return, stopped while running at the time limit (a search reads that as time)."""
    from fairlab import mechanisms
    _calls["n"] += 1
    if _calls["n"] > 1:
        while True:
            pass
    return mechanisms.allocate("drf", instance).tasks


def slow(instance):
    """DRF, a quarter of a second per call: correct but slow."""
    from fairlab import mechanisms
    time.sleep(0.25)
    return mechanisms.allocate("drf", instance).tasks
