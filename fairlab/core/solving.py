"""Counted z3 budgets: a resource limit decides a verdict, a wall-clock safety net only stops a run.

z3's ``rlimit`` counts solver work (not seconds), so the same query with the same seed and the
same ``rlimit`` gives the same answer on a quiet laptop and on a loaded CI machine. Every solver
the lab uses to reach a verdict is made by `new_solver` with a `SolverBudget`; the wall-clock
``seconds`` is a safety net only, set far above what the counted budget costs (`safety_seconds`),
and when it fires the answer is ``unknown`` with reason ``"time"`` (never a verdict; results say
``unknown (wall-clock safety net)``). `check` says which limit stopped an ``unknown``:

* ``"rlimit"`` — the deterministic budget was spent (same input, same outcome);
* ``"time"`` — the wall-clock safety net fired first (work z3 does not charge to its resource
  limit, or an overloaded machine; raise the time limit);
* anything else — z3's own reason (e.g. "incomplete quantifiers").

The rlimit of a z3 solver is per ``check()`` call (relative to the work done so far), so a
solver reused for several checks gets the full budget on each.

z3's search also depends on the history of its context (the order in which terms were created)
and on the names of the constants, so a query that must not depend on what ran before in the
process is posed in a fresh context (``new_solver(..., ctx=...)``; see `fairlab.core.isolated`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import z3

#: z3 resource units per check when a caller names none; on this lab's 2-core reference machine
#: roughly 5-20 million units are one second of nonlinear real arithmetic when it is idle.
DEFAULT_RLIMIT = 50_000_000
#: the slowest rate at which z3 was seen to spend resource units: a 2-core machine shared by eight
#: busy processes (load average about 20), nonlinear real arithmetic (3x3 resource monotonicity of
#: DRF: 10 million units in 30-40 s). Wall-clock safety nets tied to a counted z3 budget are sized
#: from it (`safety_seconds`).
SLOWEST_UNITS_PER_SECOND = 250_000


def safety_seconds(rlimit: int, factor: float = 1.0) -> float:
    """Seconds `rlimit` z3 resource units take at the slowest rate seen, times `factor`: a wall-clock
    safety net at least this long never stops work that its counted budget would have ended."""
    return factor * rlimit / SLOWEST_UNITS_PER_SECOND


@dataclass(frozen=True)
class SolverBudget:
    """What one z3 check may spend: ``rlimit`` decides, ``seconds`` is the wall-clock safety net."""

    rlimit: int = DEFAULT_RLIMIT
    seconds: float | None = None
    seed: int = 0

    def __post_init__(self):
        if isinstance(self.rlimit, bool) or not isinstance(self.rlimit, int) or self.rlimit < 1:
            raise ValueError(f"rlimit: expected a positive integer, got {self.rlimit!r}")
        if self.seconds is not None and not (math.isfinite(self.seconds) and self.seconds > 0):
            raise ValueError(f"seconds: expected a finite positive number, got {self.seconds!r}")

    def scaled(self, factor: float) -> SolverBudget:
        """The same budget with ``factor`` times the resource limit (e.g. doubling restarts)."""
        return replace(self, rlimit=max(1, int(self.rlimit * factor)))

    def with_seconds(self, seconds: float | None) -> SolverBudget:
        return replace(self, seconds=seconds)

    def to_dict(self) -> dict:
        return {"rlimit": self.rlimit, "seconds": self.seconds, "seed": self.seed}


def new_solver(budget: SolverBudget, *, unsat_core: bool = False, minimize_core: bool = False,
               ctx: z3.Context | None = None) -> z3.Solver:
    """A z3 solver bound by ``budget`` (resource limit, seed, and the wall-clock outer stop), in
    ``ctx`` (default: z3's main context)."""
    solver = z3.Solver(ctx=ctx)
    solver._fairlab_budget = budget  # lets `check` tell the two limits apart (see _reason)
    solver.set("rlimit", budget.rlimit)
    solver.set("random_seed", budget.seed)
    if budget.seconds is not None:
        solver.set("timeout", max(1, int(budget.seconds * 1000)))
    if unsat_core:
        solver.set("unsat_core", True)
        if minimize_core:
            solver.set("core.minimize", True)
    return solver


def check(solver: z3.Solver, *assumptions) -> tuple[str, str]:
    """("sat" | "unsat" | "unknown", reason): reason is "" unless unknown (see module docstring)."""
    start = time.monotonic()
    result = solver.check(*assumptions)
    if result == z3.sat:
        return "sat", ""
    if result == z3.unsat:
        return "unsat", ""
    return "unknown", _reason(solver, time.monotonic() - start)


def _reason(solver: z3.Solver, elapsed: float) -> str:
    """z3 says "canceled" for either limit when it solves with assumptions or unsat cores
    (measured: rlimit 10,000 on a tracked query gives "canceled" at once). For a solver made by
    `new_solver`, "canceled" is the resource limit when the wall-clock stop cannot have fired
    yet and the solver's resource count reached the limit; otherwise it stays "time"."""
    text = solver.reason_unknown()
    reason = unknown_reason(text)
    budget = getattr(solver, "_fairlab_budget", None)
    if reason == "time" and budget is not None and "cancel" in text.lower():
        timer_may_have_fired = budget.seconds is not None and elapsed >= 0.95 * budget.seconds
        stats = solver.statistics()
        count = stats.get_key_value("rlimit count") if "rlimit count" in stats.keys() else 0  # noqa: SIM118 (z3 Statistics has keys() but no __contains__)
        if not timer_may_have_fired and count >= budget.rlimit:
            return "rlimit"
    return reason


def unknown_reason(text: str) -> str:
    """Map z3's reason_unknown() onto "rlimit", "time" or z3's own words."""
    low = text.lower()
    if "resource limit" in low or "rlimit" in low:
        return "rlimit"
    if "timeout" in low or "canceled" in low or "cancelled" in low:
        return "time"
    return text or "unknown"
