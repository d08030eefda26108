"""drf-machines' symbolic spec (fill=literal): the allocator's placement satisfies it and it pins the
placement (not only the row sums); a perturbed placement violates it; greedy has no spec."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest
import z3
from typer.testing import CliRunner

from fairlab import mechanisms
from fairlab.cli import app
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.mechanisms import conformance
from fairlab.mechanisms.base import SymbolicInstance
from fairlab.mechanisms.drf_machines import spec

DRF_MACHINES = mechanisms.get("drf-machines")
TWO_SERVERS = {"machines": [[4, 8], [6, 4]], "demands": [[1, 2], [2, 1]], "users": ["A", "B"]}


def _admits(data, placement, fill="literal") -> bool:
    """Does the spec admit this placement (tasks = its row sums) on the instance?"""
    inst = data if isinstance(data, Instance) else Instance.from_dict(data)
    sym = SymbolicInstance.from_instance(inst)
    tasks = [z3.Real(f"t{i}") for i in range(inst.n)]
    solver = z3.Solver()
    solver.add(*[c.expr for c in spec(sym, tasks, fill=fill)])
    for i, row in enumerate(placement):
        solver.add(tasks[i] == sum(row))
        solver.add(*[x == int(v) for x, v in zip(sym.placement(tasks)[i], row)])
    result = solver.check()
    assert result != z3.unknown
    return result == z3.sat


def test_two_servers_by_hand():
    # pooled <10, 12>: A 1/6 per task, B 1/5; max-task <2, 2>; machine 1: A, B (then <1, 5> free);
    # machine 2: A, B (then <3, 1> free): one task of each on each machine.
    assert DRF_MACHINES(TWO_SERVERS).placement == ((1, 1), (1, 1))
    assert _admits(TWO_SERVERS, [[1, 1], [1, 1]])
    assert not _admits(TWO_SERVERS, [[2, 0], [0, 2]])  # the same row sums, another placement
    assert not _admits(TWO_SERVERS, [[2, 1], [1, 2]])  # greedy's placement: not literal's
    assert not _admits(TWO_SERVERS, [[1, 0], [1, 0]])  # machine 2 left empty while a max-task fits
    assert conformance.check(DRF_MACHINES, TWO_SERVERS).status == "agrees"


def test_caps_and_a_user_that_fits_no_machine_by_hand():
    # pooled <6, 6>: A, C 1/6 per task; user 1 <4, 1> fits no machine <3, 3>: excluded, max-task <1, 1>.
    # Key order A0, C0 (tie: lower index), A1, C1, C2, ... (A capped at 2). Machine 1 <3, 3>: A, C, A
    # (full); machine 2: C, C, C. So A [2, 0], user 1 [0, 0], C [1, 3].
    inst = {"machines": [[3, 3], [3, 3]], "demands": [[1, 1], [4, 1], [1, 1]], "max_tasks": [2, None, None]}
    assert DRF_MACHINES(inst).placement == ((2, 0), (0, 0), (1, 3))
    assert _admits(inst, [[2, 0], [0, 0], [1, 3]])
    assert not _admits(inst, [[2, 1], [0, 0], [1, 2]])  # above A's cap
    assert not _admits(inst, [[1, 0], [0, 0], [2, 3]])  # C's second task before A's: not the key order
    assert conformance.check(DRF_MACHINES, inst).status == "agrees"


def test_a_machine_without_room_for_a_max_task_stays_empty():
    # max-task <2, 2> does not fit machine 1 <2, 1> (B's task <2, 1> would): literal leaves it empty.
    # Machine 2 <4, 4>, pooled <6, 5>: A 2/5, B 1/3 per task; A (tie, lower index), B; <1, 1> left.
    inst = {"machines": [[2, 1], [4, 4]], "demands": [[1, 2], [2, 1]]}
    assert DRF_MACHINES(inst).placement == ((0, 1), (0, 1))
    assert _admits(inst, [[0, 1], [0, 1]])
    assert not _admits(inst, [[0, 1], [1, 1]])


def test_greedy_has_no_spec():
    with pytest.raises(InputError, match="literal"):
        _admits(TWO_SERVERS, [[2, 1], [1, 2]], fill="greedy")
    with pytest.raises(InputError, match="literal"):
        conformance.check(DRF_MACHINES, TWO_SERVERS, fill="greedy")


def _random_machines(rng: random.Random) -> Instance:
    n, m, count = rng.randint(1, 4), rng.randint(1, 3), rng.randint(1, 4)
    rows = []
    for _ in range(n):
        row = [0 if rng.random() < 0.3 else rng.randint(1, 5) for _ in range(m)]
        if not any(row):
            row[rng.randrange(m)] = rng.randint(1, 5)
        rows.append(row)
    machines = [[rng.randint(0, 10) for _ in range(m)] for _ in range(count)]
    for row in machines:
        if not any(row):
            row[0] = 3
    for r in range(m):
        if not any(row[r] for row in machines):
            machines[0][r] = 4
    data = {"demands": rows, "machines": machines}
    if rng.random() < 0.4:
        data["max_tasks"] = [None if rng.random() < 0.4 else str(Fraction(rng.randint(0, 8), rng.choice([1, 2])))
                             for _ in range(n)]
    return Instance.from_dict(data)


@pytest.mark.parametrize("seed", range(8))
def test_random_placements_agree_and_a_perturbed_placement_violates(seed):
    rng = random.Random(seed)
    for _ in range(3):
        inst = _random_machines(rng)
        result = conformance.check(DRF_MACHINES, inst)
        assert result.status == "agrees", result.explanation
        placement = [list(row) for row in DRF_MACHINES(inst).placement]
        assert _admits(inst, placement)
        placed = [(i, k) for i in range(inst.n) for k in range(inst.k) if placement[i][k] > 0]
        if placed and inst.k > 1:  # move one task to another machine: same row sums
            i, k = rng.choice(placed)
            placement[i][k] -= 1
            placement[i][(k + 1) % inst.k] += 1
        else:  # or give someone one more task
            placement[rng.randrange(inst.n)][0] += 1
        assert not _admits(inst, placement)


def test_the_seeded_sample_has_machines_and_agrees():
    chosen = conformance.sample(3, 2, samples=6, seed=4, discrete=True, setting="machines")
    assert all(inst.setting == "machines" for inst in chosen)
    assert {inst.k for inst in chosen} != {1}
    report = conformance.check_sample(DRF_MACHINES, 3, 2, samples=6, seed=4)
    assert report.status == "agrees", report.explanation


def test_a_spec_without_the_segment_end_is_caught():
    from fairlab.mechanisms.base import Mechanism

    broken = Mechanism(name="drf-machines-broken", summary="", source="", allocate=DRF_MACHINES.allocate,
                       options=DRF_MACHINES.options, discrete=True, setting="machines",
                       spec=lambda s, t, **o: [c for c in spec(s, t, **o) if "segment_ends" not in c.name])
    result = conformance.check(broken, TWO_SERVERS)
    assert result.status == "disagrees" and result.details["unique"] == "no", result.explanation
    assert "placed [[" in result.explanation  # the other placement it admits is named


def test_cli_lists_both_new_specs_as_symbolic():
    out = CliRunner().invoke(app, ["mechanisms", "--format", "json"])
    assert out.exit_code == 0, out.output
    symbolic = {item["name"]: item["symbolic"] for item in json.loads(out.stdout)["items"]}
    assert symbolic["drf-machines"] is True and symbolic["drf-rerun"] is True
