""""Did you mean ...?" for a name that is not known: the one rule behind every registry's refusal
(mechanisms, properties, examples, domain presets, engines, settings).

    >>> unknown("property", "envy-free", ["si", "ef"], also={"envy-freeness": "ef"})
    "property 'envy-free': unknown; did you mean 'ef'? (known: si, ef)"
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

#: how close a name must be to be suggested (difflib's ratio; its own default 0.6)
CUTOFF = 0.6


#: a name this long that begins a known spelling is suggested however short it is beside it
PREFIX = 4


#: how close the start of a longer spelling must be to `name` for a typo in a prefix ("paretto")
TYPO = 0.8


#: names this much less close than the closest one are not suggested beside it
MARGIN = 0.05


def close(name: str, choices: Iterable[str], also: Mapping[str, str] | None = None, n: int = 3) -> list[str]:
    """The known names closest to `name`, matched case-insensitively against `choices` and against the
    other spellings of `also` (alias or long name -> the name to suggest), a spelling `name` begins
    (at least `PREFIX` characters, a typo in it allowed) and a name one character off a known one of
    the same length counting as close: the closest one, and those
    about as close (within `MARGIN`), at most `n`, best first, ties in the order of `choices`."""
    spellings: dict[str, str] = {}
    for choice in choices:
        spellings.setdefault(str(choice).lower(), choice)
    for other, target in (also or {}).items():
        spellings.setdefault(str(other).lower(), target)
    query = str(name).lower()
    scored = []
    for k, (spelling, target) in enumerate(spellings.items()):
        ratio = difflib.SequenceMatcher(None, query, spelling).ratio()
        if len(query) >= PREFIX and len(spelling) > len(query):
            # a spelling `name` begins ("pareto" for "pareto efficiency"), or begins with a typo in it
            # ("paretto"): close as the start of the spelling is, the shorter spelling first
            start = difflib.SequenceMatcher(None, query, spelling[:len(query)]).ratio()
            if start >= TYPO:
                ratio = max(ratio, CUTOFF + 0.1 * start * len(query) / len(spelling))
        if len(query) == len(spelling) >= 2 and sum(a != b for a, b in zip(query, spelling)) == 1:
            ratio = max(ratio, CUTOFF)  # one character off a short name ("s1" for "si")
        if ratio >= CUTOFF:
            scored.append((-ratio, k, target))
    scored.sort()
    out: list[str] = []
    for neg, _, target in scored:
        if -neg >= -scored[0][0] - MARGIN and target not in out:
            out.append(target)
    return out[:n]


def did_you_mean(name: str, choices: Iterable[str], also: Mapping[str, str] | None = None) -> str:
    """``"; did you mean 'x'?"`` (or ``'x' or 'y'``) for the closest known names, or "" if none is close."""
    hits = close(name, choices, also)
    if not hits:
        return ""
    return "; did you mean " + " or ".join(repr(h) for h in hits) + "?"


def unknown(kind: str, name: str, choices: Iterable[str], also: Mapping[str, str] | None = None,
            tail: str = "") -> str:
    """The one-line message for an unknown `name` of `kind`: ``KIND 'NAME': unknown; did you mean
    'X'? (known: A, B, ...TAIL)``; `tail` adds to the list of known names (e.g. "; or a plug-in ...")."""
    choices = list(choices)
    return f"{kind} {name!r}: unknown{did_you_mean(name, choices, also)} (known: {', '.join(choices)}{tail})"
