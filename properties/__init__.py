"""Fairness properties: the eight of the DRF paper (§3) and no-justified-complaints (Bonald & Roberts §2.4).

    >>> from fairlab import properties
    >>> properties.check("si", "asset", {"capacities": [30, 30], "demands": [[1, 3], [1, 1]]}).verdict
    'violated'

One property per module (si, ef, pe, sp, pm, rm, bf, srf, njc); each exposes its definition
and source, an exact `check` returning a typed `Verdict` with a re-verifiable witness, and a z3
`encode` that is satisfiable iff the property is violated (see `fairlab.properties.base`). Every module
in this package defining ``NAME`` is loaded on import, so adding a property is adding a file.
"""

from __future__ import annotations

import importlib
import pkgutil
import time
from types import ModuleType

from fairlab.core.errors import InputError
from fairlab.properties.base import Encoding, Verdict, Violation, exact_verdicts

PROPERTIES: dict[str, ModuleType] = {}

for _info in pkgutil.iter_modules(__path__):
    if _info.name.startswith("_") or _info.name in ("base", "leontief"):
        continue
    _module = importlib.import_module(f"{__name__}.{_info.name}")
    if hasattr(_module, "NAME"):
        # Every check decides on exact allocations only (approximate ones: `unknown`, with why).
        _module.check = exact_verdicts(_module.NAME, _module.check)
        PROPERTIES[_module.NAME] = _module

# The order of the DRF paper §3 (the four required, then the four nice-to-have), then njc.
ORDER = ("si", "sp", "ef", "pe", "srf", "bf", "pm", "rm", "njc")


def names() -> list[str]:
    return [n for n in ORDER if n in PROPERTIES] + sorted(n for n in PROPERTIES if n not in ORDER)


def get(name: str) -> ModuleType:
    """The property module called `name` (e.g. "si")."""
    if not isinstance(name, str) or name not in PROPERTIES:
        raise InputError(f"property {name!r}: unknown (known: {', '.join(names())})")
    return PROPERTIES[name]


def check(property: str, mechanism, instance, **budget) -> Verdict:
    """Check `property` of `mechanism` (name, plug-in ``file.py:function`` or Mechanism) on `instance`.

    Budget keywords: ``evaluations`` (mechanism runs a deviation search may spend, default 300),
    ``seed``, ``rlimit`` (z3 resource units per solver check), ``options`` (mechanism options),
    ``symbolic`` (use z3 when the mechanism has a spec, default True) decide the verdict;
    ``time_limit`` (seconds, default 30) is only the outer stop (verdict unknown, and a plug-in
    call still running then is stopped: `fairlab.mechanisms.plugin.time_limit`)."""
    from fairlab.mechanisms import plugin
    from fairlab.properties.base import DEFAULT_BUDGET

    limit = budget.get("time_limit")
    try:
        seconds = float(DEFAULT_BUDGET["time_limit"] if limit is None else limit)
    except (TypeError, ValueError):
        seconds = None  # not a number: parse_budget reports it
    if seconds is not None and not 0 < seconds < 1e8:  # NaN, infinite: no plug-in limit
        seconds = None
    module = get(property)
    started = time.monotonic()
    with plugin.time_limit(seconds):
        try:
            return module.check(mechanism, instance, **budget)
        except plugin.PluginTimeout as exc:
            if not exc.returned_before:
                raise  # it never returned at all: a broken plug-in, not a verdict
            return _stopped(module.NAME, mechanism, exc, budget, time.monotonic() - started)


def _stopped(name: str, mechanism, exc, budget: dict, seconds: float) -> Verdict:
    """The verdict of a check whose plug-in, known to return, was still running at the time limit."""
    from fairlab.properties.base import parse_budget

    b = parse_budget(budget)
    mech = mechanism if isinstance(mechanism, str) else mechanism.name
    return Verdict(name, mech, "unknown", None, b.used(stopped="time"), seconds,
                   f"stopped by the time limit while the mechanism was running ({exc}); no verdict")


__all__ = ["check", "get", "names", "PROPERTIES", "Verdict", "Violation", "Encoding"]
