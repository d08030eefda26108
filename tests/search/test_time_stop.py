"""A wall-clock stop after every candidate of the budget was evaluated does not make the verdict
``unknown`` (issue 26, audit finding 3: "stopped by the time limit after 30 of 30 candidates (30
evaluated)"); only work left undone can. The clock is a fake one that runs out exactly when the
test says, so these tests do not depend on the machine's speed."""

from __future__ import annotations

import itertools

import pytest

from fairlab.search import engines

CANDIDATES = 30


class Clock:
    """`time.monotonic` that jumps past every deadline once `after` candidates were classified."""

    def __init__(self, after: int):
        self.after, self.classified = after, 0

    def __call__(self) -> float:
        return 1000.0 + (10_000.0 if self.classified >= self.after else 0.0)


def _hunt(monkeypatch, after: int, outcome=lambda k: ("evaluated", None), symbolic=None):
    clock = Clock(after)
    monkeypatch.setattr(engines.time, "monotonic", clock)

    def classify(item):
        clock.classified += 1
        return outcome(clock.classified)

    pool = {"symbolic": symbolic if symbolic is not None else itertools.repeat(engines.WORKING),  # never done
            "grid": (f"g{k}" for k in itertools.count())}
    return engines.hunt(pool, classify, CANDIDATES, deadline=1005.0)


def test_a_stop_after_the_last_candidate_keeps_the_candidates_verdict(monkeypatch):
    result = _hunt(monkeypatch, after=CANDIDATES)  # the clock runs out exactly at the end
    assert result.status == "none-found", result.explanation
    assert "stopped" not in result.budget and result.budget["candidates_used"] == CANDIDATES
    assert sum(result.details["evaluated"].values()) == CANDIDATES
    assert any("could only have proved holds" in note for note in result.details["notes"])


def test_a_z3_question_stopped_by_time_after_the_last_candidate_too(monkeypatch):
    """The question under way answers TIME itself (its z3 timeout) rather than the hunt's clock."""
    symbolic = itertools.chain([engines.WORKING] * 1000, [engines.TIME])
    result = _hunt(monkeypatch, after=10**9, symbolic=symbolic)
    assert result.status == "none-found" and "stopped" not in result.budget, result.explanation


def test_a_stop_with_candidates_left_is_unknown(monkeypatch):
    result = _hunt(monkeypatch, after=CANDIDATES - 1)  # one candidate of the budget never taken
    assert result.status == "unknown" and result.budget["stopped"] == "time"
    assert f"after {CANDIDATES - 1} of {CANDIDATES} candidates" in result.explanation


@pytest.mark.parametrize("last", [True, False])
def test_a_candidate_whose_own_check_was_stopped_is_work_left_undone(monkeypatch, last):
    at = CANDIDATES if last else 5
    result = _hunt(monkeypatch, after=10**9, outcome=lambda k: ("stopped", "time") if k == at else ("evaluated", None))
    assert result.status == "unknown" and result.budget["stopped"] == "time", result.explanation
