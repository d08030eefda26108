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
