"""drf-rerun's symbolic spec (static DRF of the users present after each event, absent users 0):
the allocator's run satisfies it step by step and it pins it; a perturbed step violates it."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
import z3

from fairlab import mechanisms
from fairlab.core.instance import Instance
from fairlab.core.solving import SolverBudget
from fairlab.mechanisms import conformance
from fairlab.mechanisms.base import SymbolicInstance
from fairlab.mechanisms.drf_rerun import spec, step_unknowns

F = Fraction
RERUN = mechanisms.get("drf-rerun")


def _solver(inst: Instance):
    sym = SymbolicInstance.from_instance(inst)
    tasks = [z3.Real(f"t{i}") for i in range(inst.n)]
    solver = z3.Solver()
    solver.add(*[c.expr for c in spec(sym, tasks)])
    return solver, tasks


def _fix_steps(solver, tasks, steps):
    for t, step in enumerate(steps, start=1):
        solver.add(*[y == z3.RealVal(v) for y, v in zip(step_unknowns(tasks, t), step)])


def test_departure_run_by_hand_satisfies_and_a_perturbed_step_violates():
    # <1,1>, A <1,1/2>, B <1/2,1>, C <1,1>; A, B arrive, A departs, C arrives.
    # step 1 A alone: 1 (r1 full); step 2 A, B: 2/3 each; step 3 B alone: 1 (r2 full);
    # step 4 B, C: equal dominant shares s, r2 carries 2s <= 1: 1/2 each.
    inst = Instance.load("dynamic-departure")
    by_hand = [(1, 0, 0), (F(2, 3), F(2, 3), 0), (0, 1, 0), (0, F(1, 2), F(1, 2))]
    assert [tuple(s.tasks) for s in RERUN(inst).steps] == by_hand
    solver, tasks = _solver(inst)
    solver.push()
    _fix_steps(solver, tasks, by_hand)
    assert solver.check() == z3.sat
    solver.pop()
    # step 3 with B at 1/2 instead of 1 (the final tasks untouched): the spec must refuse it
    _fix_steps(solver, tasks, [by_hand[0], by_hand[1], (0, F(1, 2), 0), by_hand[3]])
    assert solver.check() == z3.unsat


def test_a_departed_user_is_pinned_to_zero():
    inst = Instance.load("dynamic-departure")
    solver, tasks = _solver(inst)
    solver.add(step_unknowns(tasks, 3)[0] == F(1, 3))  # A gone after event 3
    assert solver.check() == z3.unsat


def _random_dynamic(rng: random.Random, n: int, m: int) -> Instance:
    rows = []
    for _ in range(n):
        row = [0 if rng.random() < 1 / 3 else rng.randint(1, 4) for _ in range(m)]
        if not any(row):
            row[rng.randrange(m)] = rng.randint(1, 4)
        rows.append(row)
    order = rng.sample(range(n), n)
    data = {"capacities": [rng.randint(1, 6) for _ in range(m)], "demands": rows, "arrivals": order}
    if rng.random() < 0.5:
        data["departures"] = [{"user": order[0], "after": rng.randint(1, n)}]
    return Instance.from_dict(data)


@pytest.mark.parametrize("seed", range(6))
def test_random_runs_agree_and_a_perturbed_final_allocation_violates(seed):
    rng = random.Random(seed)
    inst = _random_dynamic(rng, rng.randint(2, 4), rng.randint(1, 3))
    result = conformance.check(RERUN, inst, budget=SolverBudget(rlimit=conformance.DEFAULT_RLIMIT))
    assert result.status == "agrees", result.explanation
    allocation = RERUN(inst)
    solver, tasks = _solver(inst)
    solver.push()
    _fix_steps(solver, tasks, [s.tasks for s in allocation.steps])
    assert solver.check() == z3.sat
    solver.pop()
    bumped = list(allocation.tasks)
    who = rng.randrange(inst.n)
    bumped[who] += F(1, 7)
    solver.add(*[t == z3.RealVal(v) for t, v in zip(tasks, bumped)])
    assert solver.check() == z3.unsat


def test_seeded_conformance_sample_agrees():
    report = conformance.check_sample(RERUN, 3, 2, samples=6, seed=3)
    assert report.status == "agrees", report.explanation
