"""Statuses are decided by counted budgets (evaluations, candidates, z3 resource units, seeds): a
machine running slower or faster — simulated by a clock that runs fast or slow — gives the same
statuses, and when the wall-clock safety net does stop a run, the result says so apart from an
``unknown`` its budget decided. No timings here: the clock is the test's own."""

from __future__ import annotations

import time

import pytest

import fairlab
from fairlab import mechanisms
from fairlab.core.results import SAFETY_NET, Result, status_label
from fairlab.search import prove

#: (mechanism, property, instance): checks decided by their counted budget — violated by a
#: candidate, holds by z3 (unsat within its rlimit), none-found after z3 ran out of its rlimit
CHECKS = [
    ("asset", "rm", {"capacities": [77, 77], "demands": [[4, 2], [1, 1]]}),
    ("drf", "rm", {"capacities": [19, 3], "demands": [[5, 2], [8, 8], [8, 7]]}),
    ("drf", "sp", {"capacities": [9, 18], "demands": [[1, 4], [3, 1]]}),
    ("drf", "rm", {"capacities": [7, 14, 1], "demands": [[9, 4, 8], [8, 9, 4], [6, 4, 4]]}),
]
#: a small resource limit keeps the last check quick: z3 runs out of it (counted), then the
#: random candidates decide
BUDGET = {"rlimit": 600_000, "evaluations": 40}


def _scaled_clock(monkeypatch, factor: float) -> None:
    """`time.monotonic` runs `factor` times as fast as the real one (a machine `factor` times slower)."""
    real = time.monotonic
    origin = real()
    monkeypatch.setattr(time, "monotonic", lambda: origin + (real() - origin) * factor)


def _statuses() -> list[tuple[str, dict]]:
    return [(r.status.value, dict(r.budget)) for r in
            (fairlab.check(mech, prop, inst, **BUDGET) for mech, prop, inst in CHECKS)]


def test_the_checks_are_decided_by_their_counted_budget():
    got = [status for status, _ in _statuses()]
    assert got == ["violated", "holds", "holds", "none-found"]  # the cases the other tests rely on


@pytest.mark.parametrize("factor", [0.25, 4.0])
def test_a_slower_or_faster_clock_changes_no_status(monkeypatch, factor):
    baseline = _statuses()
    _scaled_clock(monkeypatch, factor)
    scaled = _statuses()
    assert [s for s, _ in scaled] == [s for s, _ in baseline]
    # the counted work is the same: candidates evaluated and z3's answer
    assert [(b.get("evaluations"), b.get("z3")) for _, b in scaled] == [(b.get("evaluations"), b.get("z3"))
                                                                          for _, b in baseline]


def test_the_safety_net_firing_is_said_apart_from_a_budget_decided_unknown(monkeypatch):
    _scaled_clock(monkeypatch, 1e6)  # 600 s of the safety net pass in less than a millisecond
    mech, prop, inst = CHECKS[3]
    stopped = fairlab.check(mech, prop, inst, **BUDGET)
    assert stopped.status == "unknown" and stopped.stopped_by_safety_net()
    assert stopped.label() == f"unknown ({SAFETY_NET})" and SAFETY_NET in stopped.explanation
    assert SAFETY_NET in str(stopped)


def test_an_unknown_the_budget_decided_is_not_labelled_as_the_safety_net():
    counted = prove(mechanisms.get("drf"), "sp", 2, 2, rlimit=1, attempts=1)  # z3 ran out of its rlimit
    assert counted.status == "unknown" and not counted.stopped_by_safety_net()
    assert counted.label() == "unknown" and "rlimit" in counted.explanation
    netted = prove(mechanisms.get("drf"), "sp", 2, 2, time_limit=1e-9)
    assert netted.status == "unknown" and netted.stopped_by_safety_net()
    assert netted.label() == f"unknown ({SAFETY_NET})"


def test_the_label_of_every_other_status_is_the_status():
    assert status_label("violated", {"stopped": "time"}) == "violated"
    assert status_label("unknown", {}) == "unknown"
    assert status_label("unknown", {"stopped": "time"}) == f"unknown ({SAFETY_NET})"
    assert Result("check", "none-found", budget={"stopped": "time"}).label() == "none-found"
