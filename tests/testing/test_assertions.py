"""`fairlab.testing`: each engine status becomes the pass or the failure its docstring promises,
and a failure's message is the counterexample with the commands that reproduce it.

The engine is replaced by `fake_engine` (canned `Result`s of each status); test_plugin.py runs the
real one through pytest.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest

from fairlab.core.instance import Instance
from fairlab.core.results import Result, Status
from fairlab.properties.property import UserWitness
from fairlab.testing import (
    Budget,
    PropertyAssertionError,
    assert_satisfies,
    assert_violates,
    current_budget,
    use_budget,
)

THM1 = Instance.from_dict({"capacities": [30, 30], "demands": [[1, 3], [1, 1]], "users": ["u1", "u2"],
                           "resources": ["CPU", "GB"]})
SIZES = [{"users": 1, "resources": 1, "status": "proved", "how": "proof", "candidates": 0},
         {"users": 2, "resources": 1, "status": "none-found", "how": "search", "candidates": 20},
         {"users": 2, "resources": 2, "status": "violated", "how": "search", "candidates": 7}]


def audit_result(status, **fields) -> Result:
    details = {"summary": fields.pop("summary", f"{status}: ..."), "sizes": fields.pop("sizes", SIZES),
               "candidates": fields.pop("candidates", 27), "proved_sizes": fields.pop("proved_sizes", []),
               "scope": fields.pop("scope", None), "found_by": fields.pop("found_by", None),
               "origin": fields.pop("origin", None)}
    return Result("audit", status, mechanism="asset", property="si", details=details,
                  budget=fields.pop("budget", {"seed": 0, "candidates": 20}), **fields)


VIOLATED = audit_result(
    Status.VIOLATED, instance=THM1, witness=UserWitness(user=1), found_by="search",
    origin={"engine": "random", "example": None, "shrink_steps": 2},
    explanation="user u2 runs 12 tasks but its equal-split bundle <15, 15> runs 15",
    summary="violated at 2×2: user u2 runs 12 tasks but its equal-split bundle <15, 15> runs 15")


def failure(assertion, *args, **keywords) -> PropertyAssertionError:
    with pytest.raises(PropertyAssertionError) as caught:
        assertion(*args, **keywords)
    assert isinstance(caught.value, AssertionError)
    return caught.value


def test_satisfies_passes_on_proved_and_none_found(fake_engine):
    for status in (Status.PROVED, Status.NONE_FOUND):
        fake_engine.result = audit_result(status)
        assert assert_satisfies("drf", "si", up_to=(2, 2)) is fake_engine.result


def test_a_proof_is_required_only_when_asked(fake_engine):
    fake_engine.result = audit_result(Status.NONE_FOUND, summary="none-found: none found at 2×2 (20 candidates)")
    err = failure(assert_satisfies, "ceei", "si", (2, 2), require="proof")
    assert "not proved up to 2×2" in str(err) and "20 candidates" in str(err) and "no size was proved" in str(err)
    every_size = [{"users": n, "resources": m, "status": "proved", "how": "proof", "candidates": 0}
                  for n, m in ((1, 1), (2, 1), (2, 2))]
    fake_engine.result = audit_result(Status.PROVED, sizes=every_size)
    assert_satisfies("drf", "si", (2, 2), require="proof")
    # proved at some sizes only (the others searched): not a proof up to 2×2
    fake_engine.result = audit_result(Status.PROVED, sizes=[*every_size[:2], {**every_size[2], "status": "none-found"}])
    err = failure(assert_satisfies, "drf", "si", (2, 2), require="proof")
    assert "not proved at 2×2" in str(err)
    with pytest.raises(ValueError, match="require"):
        assert_satisfies("drf", "si", require="always")


def test_a_violation_fails_with_the_counterexample_and_how_to_reproduce_it(fake_engine):
    fake_engine.result = VIOLATED
    err = failure(assert_satisfies, "asset", "si", up_to=(2, 2), seed=3)
    text = str(err)
    assert err.result is VIOLATED
    assert text.startswith("asset does not satisfy si up to 2×2: violated")
    for words in ("capacities: CPU 30, GB 30", "u1 demands <1, 3>", "u2 demands <1, 1>",
                  "witness: user u2 runs 12 tasks but its equal-split bundle <15, 15> runs 15",
                  '"user": 1', "found by the random search engine, then shrunk in 2 steps",
                  "sizes tried: 1×1 proved (proof), 2×1 none-found (search, "
                  "20 candidates), 2×2 violated (search, 7 candidates)", "fairlab check asset si instance.json",
                  "fairlab audit asset --property si --users 2 --resources 2 --seed 0"):
        assert words in text, (words, text)
    assert "found by: " not in text and "shipped example" not in text
    # the instance printed inline is the shell-quoted JSON of the counterexample
    echo = next(line for line in text.splitlines() if line.strip().startswith("echo "))
    written = json.loads(shlex.split(echo.strip())[1])
    assert Instance.from_dict(written) == THM1


def test_the_reproduce_commands_carry_options_and_the_candidate_budget(fake_engine):
    fake_engine.result = VIOLATED
    text = str(failure(assert_satisfies, "my file.py:alloc", "si", (2, 2), candidates=20, options={"k": 2}))
    assert "fairlab check 'my file.py:alloc' si instance.json -o k=2" in text
    assert ("fairlab audit 'my file.py:alloc' --property si --users 2 --resources 2 --seed 0 --candidates 20 "
            "-o k=2") in text


def test_a_callable_has_no_command_but_is_named(fake_engine):
    fake_engine.result = VIOLATED

    def my_alloc(instance):
        return [0] * instance.n

    text = str(failure(assert_satisfies, my_alloc, "si", (2, 2)))
    assert text.startswith("asset does not satisfy si") and "put it in a file" in text


def test_unknown_says_which_budget_to_raise(fake_engine):
    fake_engine.result = audit_result(Status.UNKNOWN, budget={"seed": 0, "stopped": "time"},
                                      explanation="undecided at 2×2 (the audit's time limit)")
    text = str(failure(assert_satisfies, "drf", "si", (2, 2)))
    assert "unknown" in text and "time_limit=" in text and "--fairlab-time-limit" in text
    assert "undecided at 2×2" in text
    fake_engine.result = audit_result(Status.UNKNOWN, explanation="undecided at 2×2")
    text = str(failure(assert_violates, "drf", "si", (2, 2)))
    assert "rlimit=" in text and "candidates=" in text


def test_not_applicable_says_nothing_was_tested(fake_engine):
    fake_engine.result = audit_result(Status.NOT_APPLICABLE, explanation="declined at 2×2 (weights: not supported)")
    for assertion in (assert_satisfies, assert_violates):
        text = str(failure(assertion, "x.py:f", "si", (2, 2)))
        assert "nothing was tested" in text and "weights: not supported" in text


def test_violates_passes_only_on_a_violation(fake_engine):
    fake_engine.result = VIOLATED
    assert assert_violates("asset", "si") is VIOLATED
    fake_engine.result = audit_result(Status.PROVED, summary="proved for every demand profile at 1×1, 2×1, 2×2")
    text = str(failure(assert_violates, "drf", "si"))
    assert "expected to violate si up to 2×2, but it is proved: proved for every demand profile at 1×1" in text
    fake_engine.result = audit_result(Status.NONE_FOUND, summary="none-found: 27 candidates")
    text = str(failure(assert_violates, "drf", "si"))
    assert "no counterexample was found: none-found: 27 candidates" in text and "not a proof" in text


def test_only_keywords_someone_set_reach_the_engine(fake_engine):
    fake_engine.result = audit_result(Status.PROVED)
    assert_satisfies("drf", "si", (2, 3))
    # the engine keeps its defaults (seed 0); a plug-in's declared spec is proved too
    assert fake_engine.calls[-1] == (("drf", "si", 2, 3), {"prove_spec": True})
    previous = use_budget(Budget(seed=5, candidates=9, time_limit=30.0, store="/tmp/s"))
    try:
        assert_satisfies("drf", "si", 2)
        assert fake_engine.calls[-1] == (("drf", "si", 2, 2),
                                         {"seed": 5, "candidates": 9, "time_limit": 30.0, "store": "/tmp/s",
                                          "prove_spec": True})
        fake_engine.result = VIOLATED
        assert_violates("drf", "si", seed=1, candidates=3, rlimit=7, options={"a": 1})
        assert fake_engine.calls[-1][1] == {"seed": 1, "candidates": 3, "time_limit": 30.0, "rlimit": 7,
                                            "options": {"a": 1}, "store": "/tmp/s", "prove_spec": True}
    finally:
        use_budget(previous)
    assert current_budget() == previous


@pytest.mark.parametrize("up_to", [(0, 2), (2,), "2x2", (2, 2.0), True])
def test_a_bad_size_is_refused_before_the_engine_runs(fake_engine, up_to):
    with pytest.raises(ValueError, match="up_to"):
        assert_satisfies("drf", "si", up_to)
    assert fake_engine.calls == []


def test_importing_it_loads_neither_pytest_nor_the_engine():
    code = ("import sys; sys.modules['pytest'] = None; import fairlab.testing, fairlab.testing as t; "
            "heavy = [m for m in ('z3', 'numpy', 'fairlab.search', 'fairlab.audit.run') if m in sys.modules]; "
            "assert not heavy, heavy; print(t.Budget().describe())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "engine defaults", out.stderr


@pytest.mark.parametrize("origin, words, absent", [
    ({"engine": "example", "example": "thm1-asset-si", "shrink_steps": 0},
     "found among the shipped examples: it is the example thm1-asset-si", "shrink"),
    ({"engine": "example", "example": "thm1-asset-si", "shrink_steps": 3},
     "found by shrinking the shipped example thm1-asset-si (3 steps; it is not itself a shipped example)",
     "among the shipped examples"),
])
def test_the_failure_says_whether_the_counterexample_is_a_shipped_example(fake_engine, origin, words, absent):
    fake_engine.result = audit_result(
        Status.VIOLATED, instance=THM1, witness=UserWitness(user=1), found_by="example", origin=origin,
        explanation="user u2 runs 12 tasks", summary="violated at 2×2: user u2 runs 12 tasks")
    text = str(failure(assert_satisfies, "asset", "si", up_to=(2, 2)))
    assert words in text and absent not in text, text
