"""Audit plug-in (non-deterministic mechanism): alternates between a dictator (everything to user 0)
and DRF, call by call. Each behaviour alone is strategyproof and resource monotone on drf-paper, yet
comparing one call with the next once gave false `violated` verdicts for sp and rm; `run` now runs
a plug-in twice per instance and refuses a mechanism that answers differently (PluginError)."""

import itertools

from fairlab import mechanisms

_calls = itertools.count()


def flip(instance):
    """A dictator on even calls, DRF on odd calls."""
    if next(_calls) % 2 == 0:
        return [instance.solo_tasks(0)] + [0] * (instance.n - 1)
    return mechanisms.allocate("drf", instance).tasks
