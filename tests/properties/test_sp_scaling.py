"""The per-instance z3 step of sp asks each user whose encoding has the scaling symmetry with its
tasks fixed (`fairlab.core.scaling`), and every other user as before; verdicts stay exact."""

from __future__ import annotations

from fractions import Fraction as F

import z3

from fairlab import mechanisms, properties
from fairlab.core.instance import Instance
from fairlab.mechanisms.base import Allocation, Constraint, Mechanism, SymbolicInstance
from fairlab.properties import _search
from fairlab.properties.base import Budget

DEMANDS = [[1, 4, 2], [3, 1, 1], [2, 2, 5]]
THM4 = Instance.build([100, 100], [[16, 1], [1, 2]])  # Theorem 4 of the DRF paper (lecture numbers)


def test_uncapped_users_are_asked_with_their_tasks_fixed_and_decided():
    """drf at 3 x 3: before, this question used its whole rlimit without an answer (measured)."""
    for weights in (None, [1, 2, 3]):
        v = properties.check("drf", "sp", Instance.build([9, 12, 10], DEMANDS, weights=weights), evaluations=1)
        assert v.status == "holds" and v.budget["z3"] == "unsat" and v.budget["z3_scaled"] == [0, 1, 2]
        assert "scaling symmetry" in v.explanation


def test_a_capped_user_is_split_at_its_cap():
    """DRF's cap enters its spec only as T <= cap and T == cap: the user is asked at its cap and
    below it (above it T <= cap is false), `fairlab.core.scaling.threshold_cases`."""
    inst = Instance.build([9, 12, 10], DEMANDS, max_tasks=[1, None, None])
    labels = [q.label for q in properties.get("sp").questions(
        SymbolicInstance.from_instance(inst), lambda s, t: mechanisms.get("drf").spec(s, t))
        if isinstance(q, _search.Question)]
    assert [lab.split(", ")[1] for lab in labels[:4]] == ["sp.lie0.t0=cap", "sp.lie0.t0<cap,1", "sp.lie0.t0<cap,0",
                                                          "sp.lie0.t0<cap,-1"]
    v = properties.check("drf", "sp", inst, evaluations=1)
    assert v.status == "holds" and v.budget["z3_scaled"] == [0, 1, 2] and "at its cap" in v.explanation


def test_a_cap_that_is_not_all_that_breaks_the_symmetry_is_asked_as_before():
    """CEEI prices a cap (a multiplier times cap - T): its capped user is asked whole."""
    inst = Instance.build([9, 12], [[1, 4], [3, 1], [2, 2]], max_tasks=[1, None, None])
    v = properties.check("ceei", "sp", inst, evaluations=1)
    assert v.budget["z3_scaled"] == [1, 2]


def test_a_violation_from_a_fixed_case_is_confirmed_by_a_fresh_run():
    v = properties.check("ceei", "sp", THM4, evaluations=1)  # z3 must find it: one numeric candidate only
    assert v.status == "violated" and v.budget["z3"] == "sat" and v.budget["z3_scaled"] == [0, 1]
    assert properties.get("sp").confirm("ceei", THM4, v.witness, {}) is not None


def _capped_equal_split() -> Mechanism:
    """Each user gets min(1, 1 / (n * dominant share of one task)) tasks: declaring a larger demand
    pays once the cap of 1 binds, and the spec's ``t_i = 1`` has no scaling symmetry."""

    def allocate(inst):
        n = inst.n
        shares = [max(d / c for d, c in zip(row, inst.capacities)) for row in inst.demands]
        return Allocation("capped-split", inst, tuple(min(F(1), 1 / (n * s)) for s in shares))

    def spec(sym, t):
        out = []
        for i, row in enumerate(sym.demands):
            share = z3.Real(f"capped.share{i}")
            out.append(Constraint(f"capped.share{i}", z3.And(
                [share >= d / c for d, c in zip(row, sym.capacities)]
                + [z3.Or([share == d / c for d, c in zip(row, sym.capacities)])])))
            out.append(Constraint(f"capped.t{i}", z3.Or(
                z3.And(t[i] == 1, sym.n * share <= 1), z3.And(t[i] * sym.n * share == 1, sym.n * share >= 1))))
        return out

    return Mechanism("capped-split", "equal split capped at one task (test)", "test", allocate, spec=spec)


def test_a_spec_without_the_symmetry_is_asked_whole():
    inst = Instance.build([10, 10], [[1, 2], [2, 1]])
    v = properties.check(_capped_equal_split(), "sp", inst, evaluations=1)
    assert v.status == "violated" and v.budget["z3"] == "sat" and "z3_scaled" not in v.budget


def test_the_questions_share_one_rlimit_in_order(monkeypatch):
    """The split questions share half the rlimit, each at most an even part of what they left; when
    some stay open, the whole question gets half of what is left, then each open one all that is
    left: splitting never lets the z3 step spend more than --rlimit."""
    given, unknown_at = [], set()

    def spend(constraints, budget):  # a fake z3: 400 units a question, unknown where told
        given.append(budget.rlimit)
        if len(given) - 1 in unknown_at or budget.rlimit < 400:
            return "unknown", None, "rlimit", budget.rlimit
        return "unsat", None, "", 400

    monkeypatch.setattr(_search, "solve_spent", spend)
    inst = Instance.build([9, 12, 10], DEMANDS)
    sp, drf = properties.get("sp"), mechanisms.get("drf")
    budget = Budget(time_limit=60.0, evaluations=1, seed=0, options={}, symbolic=True, rlimit=10_000)
    # the template drops the cases false at every instance (T = -1: tasks >= 0); a case z3's
    # simplifier rewrites to false at this instance is unsat for free
    asked_here = [q for q in sp.symbolic_step(drf, inst, budget)() if isinstance(q, _search.Question)]
    live = [not _search.trivially_unsat(q) for q in asked_here]
    assert len(asked_here) == 6 and sum(live) >= 3
    v = properties.check("drf", "sp", inst, evaluations=1, rlimit=10_000)
    phase, expected = 5_000, []
    for k in range(len(asked_here)):  # each unsat: no whole question
        if live[k]:
            expected.append(phase // (len(asked_here) - k))
            phase -= 400
    assert given == expected and v.status == "holds" and v.budget["z3_scaled"] == [0, 1, 2]
    asked = sum(live)

    given.clear()
    unknown_at.add(1)  # one case undecided: the whole question, with half of what is left, decides
    v = properties.check("drf", "sp", inst, evaluations=1, rlimit=10_000)
    assert len(given) == asked + 1 and given[asked] == (10_000 - given[1] - (asked - 1) * 400) // 2
    assert v.status == "holds" and "z3_scaled" not in v.budget

    given.clear()
    unknown_at.add(asked)  # the whole question undecided too: the open case gets all that is left
    v = properties.check("drf", "sp", inst, evaluations=1, rlimit=10_000)
    assert len(given) == asked + 2 and given[asked + 1] == 10_000 - given[1] - (asked - 1) * 400 - given[asked]
    assert v.status == "holds" and v.budget["z3_scaled"] == [0, 1, 2]

    given.clear()
    unknown_at.clear()
    v = properties.check("drf", "sp", inst, evaluations=1, rlimit=1_000)
    assert sum(given) <= 1_000 and v.status == "unknown" and v.budget["z3_reason"] == "rlimit 1000"
