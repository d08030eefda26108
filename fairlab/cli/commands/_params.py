"""Checks of the verbs' numeric options, one rule per kind, each failing with a one-line `InputError`.

Bounds are checked before any work starts, so bad input never costs a long computation first.
"""

from __future__ import annotations

import math

from fairlab.core.errors import InputError

# Exact searches and proofs grow fast with the size (z3 encodings, grids of demand profiles): at
# 12 users × 6 resources `prove --time-limit 1` and `search --time-limit 2` still end about a second
# after their limit; at thousands of users building the problem alone outlasts any limit.
MAX_USERS = 12
MAX_RESOURCES = 6


def seconds(value: float | None, flag: str = "--time-limit") -> float | None:
    """A time limit: a finite positive number of seconds (the rule of `fairlab check`); None passes."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise InputError(f"{flag}: expected a finite positive number of seconds, got {value:g}")
    return value


def integer(value: int, flag: str, lo: int, hi: int | None = None, why: str = "") -> int:
    """An integer option within [lo, hi] (no upper bound if hi is None); `why` explains the upper bound."""
    if value < lo or (hi is not None and value > hi):
        bound = f"from {lo} to {hi}" if hi is not None else f"of at least {lo}"
        reason = f" ({why})" if why and value > lo else ""
        raise InputError(f"{flag}: expected an integer {bound}, got {value}{reason}")
    return value


def number(value: float, flag: str, lo: float, hi: float, open_lo: bool = False, open_hi: bool = False) -> float:
    """A finite real option within lo..hi (each end closed unless said open)."""
    low_ok = value > lo if open_lo else value >= lo
    high_ok = value < hi if open_hi else value <= hi
    if not (math.isfinite(value) and low_ok and high_ok):
        interval = f"{'(' if open_lo else '['}{lo:g}, {hi:g}{')' if open_hi else ']'}"
        raise InputError(f"{flag}: expected a number in {interval}, got {value:g}")
    return value


def seed(value: int, flag: str = "--seed") -> int:
    """A random seed: a non-negative integer (what numpy's generators accept)."""
    return integer(value, flag, 0)


def size(users: int, resources: int) -> None:
    """-n/-m of the exact searches and proofs."""
    why = "larger sizes are out of reach of exact search and z3"
    integer(users, "--users", 1, MAX_USERS, why)
    integer(resources, "--resources", 1, MAX_RESOURCES, why)


def setting(value: str, flag: str = "--setting", every: bool = True) -> str | None:
    """A setting name (`fairlab.core.instance.SETTINGS`), or None for ``all`` when `every` allows it."""
    from fairlab.core.instance import SETTINGS
    from fairlab.core.names import did_you_mean

    if every and value == "all":
        return None
    if value not in SETTINGS:
        known = ", ".join(SETTINGS + (("all",) if every else ()))
        raise InputError(f"{flag} {value!r}: unknown{did_you_mean(value, SETTINGS)} (known: {known})")
    return value


#: the help of every verb's --domain
#: (spaces around each "|" so that a narrow terminal wraps it between values, not inside a word)
DOMAIN_HELP = ("instance domain: a preset (all, drf-paper, weighted, bonald-roberts, pdrf, lecture, unweighted, "
               "fgp-2014) or "
               "key=value,... with demands = positive | nonnegative, weights = none | scalar | vector, "
               "caps = none | allowed, capacities = unit | arbitrary, departures = none | allowed; or NAME,key=value; "
               "default all")


def domain(value):
    """A --domain value (`fairlab.core.domain.parse`): a `Domain`; None passes as ``all``."""
    from fairlab.core.domain import parse

    return parse(value, "--domain")
