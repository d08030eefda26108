"""sequential-minmax (Parkes, Procaccia & Shah, lab's reading): hand-computed traces, the rule that
differs from drf-tasks, non-wastefulness, its spec, and the strategyproofness it gives up."""

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairlab import properties
from fairlab.mechanisms import allocate, conformance, get

PAPER = {"capacities": [9, 18], "demands": [[1, 4], [3, 1]], "users": ["A", "B"], "resources": ["CPU", "GB"]}


def test_drf_paper_example_by_hand():
    # sigma_A = 2/9, sigma_B = 1/3; keys after the task: A 2/9, 4/9, 6/9, 8/9; B 1/3, 2/3, 1.
    # A (2/9), B (1/3), A (4/9), A (6/9 ties B's 2/3: lower index), B (2/3); then A needs 1 CPU of 0 left
    result = allocate("sequential-minmax", PAPER, trace=True)
    assert result.extra["trace"] == ["A", "B", "A", "A", "B"]
    assert result.tasks == (3, 2)
    assert result.extra["unused"] == [0, 4]


def test_ranks_by_the_share_after_the_task_unlike_drf_tasks():
    # <5>, A <2>, B <1>: keys after the task A 2/5, 4/5; B 1/5, 2/5, 3/5, 4/5, 1.
    # B (1/5), A (2/5, ties B's 2/5: lower index), B (2/5), B (3/5): 5 used, both next tasks blocked.
    inst = {"capacities": [5], "demands": [[2], [1]], "users": ["A", "B"]}
    result = allocate("sequential-minmax", inst, trace=True)
    assert result.extra["trace"] == ["B", "A", "B", "B"]
    assert result.tasks == (1, 3)
    # drf-tasks ranks by the share before the task and stops at the first blocked task: (1, 2), 1 unit wasted
    assert allocate("drf-tasks", inst).tasks == (1, 2)


def test_a_blocked_user_leaves_the_others_running():
    # <12, 12>, A <7, 1>, B <1, 1>: keys A 7/12; B j/12. B's first six, then A's 7/12 (ties B's 7/12: lower
    # index) needs 7 CPU of 6 left: A leaves, B runs on to 12 tasks
    result = allocate("sequential-minmax", {"capacities": [12, 12], "demands": [[7, 1], [1, 1]]}, trace=True)
    assert result.extra["trace"] == ["u2"] * 12
    assert result.tasks == (0, 12)
    assert result.extra["frozen"][0]["user"] == "u1"


def test_caps_weights_and_too_big_users():
    caps = allocate("sequential-minmax", {"capacities": [100], "demands": [[1], [1]], "max_tasks": ["5/2", None]})
    assert caps.tasks == (2, 98)
    big = allocate("sequential-minmax", {"capacities": [10, 10], "demands": [[11, 1], [1, 1]], "users": ["big", "s"]})
    assert big.tasks == (0, 10) and any("big: one task needs 11" in n for n in big.notes)
    # weight 2 on B: B's keys are halved, B gets twice A's tasks on equal demands
    weighted = allocate("sequential-minmax", {"capacities": [9], "demands": [[1], [1]], "weights": [1, 2]})
    assert weighted.tasks == (3, 6)


small = st.integers(1, 4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 3), m=st.integers(1, 2), data=st.data())
def test_non_wasteful_so_no_task_of_anyone_fits_afterwards(n, m, data):
    caps = [data.draw(st.integers(1, 9)) for _ in range(m)]
    demands = [[data.draw(small) for _ in range(m)] for _ in range(n)]
    result = allocate("sequential-minmax", {"capacities": caps, "demands": demands})
    used = [sum(result.tasks[i] * demands[i][r] for i in range(n)) for r in range(m)]
    assert all(u <= c for u, c in zip(used, caps))
    for i in range(n):
        assert any(used[r] + demands[i][r] > caps[r] for r in range(m)), (caps, demands, result.tasks)


def test_spec_pins_the_allocation_on_seeded_samples():
    for n, m in ((2, 2), (3, 2)):
        report = conformance.check_sample(get("sequential-minmax"), n, m, samples=6, seed=3)
        assert report.status == "agrees", report.explanation


def test_spec_rejects_a_different_allocation():
    """Control: the spec with tasks fixed to another feasible allocation must be unsatisfiable."""
    import z3

    from fairlab.core.instance import Instance
    from fairlab.mechanisms.base import SymbolicInstance
    from fairlab.mechanisms.sequential_minmax import spec

    inst = Instance.build(**{k: v for k, v in PAPER.items() if k in ("capacities", "demands")})
    sym = SymbolicInstance.from_instance(inst)
    tasks = [z3.Real("t0"), z3.Real("t1")]
    for values, expected in (((3, 2), z3.sat), ((2, 2), z3.unsat), ((4, 1), z3.unsat)):
        solver = z3.Solver()
        solver.add([c.expr for c in spec(sym, tasks)])
        solver.add(tasks[0] == values[0], tasks[1] == values[1])
        assert solver.check() == expected, values


def test_it_pays_the_indivisibility_impossibility_with_strategyproofness():
    """The lecture's impossibility (si, pe, sp, whole tasks): the audit's instance, <1>, A <1>, B <1>.
    Truthful, A wins the tie; B declaring <1/2> gets the task's key 1/2 and, with 1/2 left, a second half."""
    inst = {"capacities": [1], "demands": [[1], [1]], "users": ["A", "B"]}
    assert allocate("sequential-minmax", inst).tasks == (1, 0)
    lie = allocate("sequential-minmax", {**inst, "demands": [[1], ["1/2"]]})
    assert lie.tasks == (0, 2) and lie.bundles[1] == (Fraction(1),)
    verdict = properties.check("sequential-minmax", "sp", inst)
    assert verdict.status == "violated"
    assert properties.check("sequential-minmax", "pe", inst).status == "holds"
