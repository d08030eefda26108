"""The event a long computation reports when one unit of its work ends (lab's design).

A unit is an audit's property at one size (`fairlab.audit.run.audit`) or a campaign's cell
(`fairlab.campaign.run.run_cells`). Each reports ``Unit(done, total, name, status, seconds)``
through its progress callback; ``done == 0`` announces the total before any unit ends. `total`
counts the units done plus those still planned, so it may shrink as work becomes unnecessary (a
property violated at a small size is not run at the larger ones). How the events are shown
(a line each, a bar, nothing) is the command line's business (`fairlab.cli.progress`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Unit:
    """The `done`-th unit of `total` ended: `name` with `status` after `seconds` (None: not known)."""

    done: int
    total: int
    name: str = ""
    status: str = ""
    seconds: float | None = None


__all__ = ["Unit"]
