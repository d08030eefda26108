"""The wall-clock safety net stopping a search is ``unknown (wall-clock safety net)`` whenever it cut
counted work short — a candidate of the budget, or a z3 question still under way after the last
candidate, whose unsat would have said holds: the clock must not choose between holds and
none-found (issue 35; issue 26 had kept none-found there). The explanation says how far it got.
The clock is a fake one that runs out exactly when the test says, so these tests do not depend on
the machine's speed."""

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


def test_a_stop_after_the_last_candidate_is_the_safety_net_not_a_verdict(monkeypatch):
    result = _hunt(monkeypatch, after=CANDIDATES)  # the clock runs out exactly at the end
    assert result.status == "unknown" and result.budget["stopped"] == "time", result.explanation
    assert result.label() == "unknown (wall-clock safety net)"
    assert result.budget["candidates_used"] == CANDIDATES and sum(result.details["evaluated"].values()) == CANDIDATES
    assert f"after all {CANDIDATES} candidates ({CANDIDATES} evaluated, none violates)" in result.explanation


def test_a_question_that_ends_by_itself_after_the_last_candidate_leaves_the_candidates_verdict(monkeypatch):
    """The negative twin: the question under way gives up on its own (counted work), no clock involved."""
    symbolic = itertools.chain([engines.WORKING] * 1000)  # then exhausted: z3 gave up within its rlimit
    result = _hunt(monkeypatch, after=10**9, symbolic=symbolic)
    assert result.status == "none-found" and "stopped" not in result.budget, result.explanation


def test_a_z3_question_stopped_by_time_after_the_last_candidate_too(monkeypatch):
    """The question under way answers TIME itself (its z3 timeout) rather than the hunt's clock."""
    symbolic = itertools.chain([engines.WORKING] * 1000, [engines.TIME])
    result = _hunt(monkeypatch, after=10**9, symbolic=symbolic)
    assert result.status == "unknown" and result.budget["stopped"] == "time", result.explanation


def test_a_stop_with_candidates_left_is_unknown(monkeypatch):
    result = _hunt(monkeypatch, after=CANDIDATES - 1)  # one candidate of the budget never taken
    assert result.status == "unknown" and result.budget["stopped"] == "time"
    assert f"after {CANDIDATES - 1} of {CANDIDATES} candidates" in result.explanation


@pytest.mark.parametrize("last", [True, False])
def test_a_candidate_whose_own_check_was_stopped_is_work_left_undone(monkeypatch, last):
    at = CANDIDATES if last else 5
    result = _hunt(monkeypatch, after=10**9, outcome=lambda k: ("stopped", "time") if k == at else ("evaluated", None))
    assert result.status == "unknown" and result.budget["stopped"] == "time", result.explanation
