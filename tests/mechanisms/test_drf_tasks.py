"""drf-tasks: DRF paper Algorithm 1 / Table 1, PDRF §6.2, Theorem 7, fast path == loop."""

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.mechanisms import _drf_loop, _pdrf_kernel, _task_problem, allocate, conformance, get

PAPER = {"capacities": [9, 18], "demands": [[1, 4], [3, 1]], "users": ["A", "B"], "resources": ["CPU", "GB"]}
PARETO = {"capacities": [59, 19], "demands": [[1, 4], [3, 1]], "users": ["A", "B"], "resources": ["CPU", "GB"]}


@pytest.mark.parametrize("method", ["fast", "loop"])
def test_drf_paper_table_1_trace(method):
    result = allocate("drf-tasks", PAPER, tie="paper", method=method, trace=True)
    assert result.extra["trace"] == ["B", "A", "A", "B", "A"]
    assert result.tasks == (3, 2)
    assert result.dominant_shares == (Fraction(2, 3), Fraction(2, 3))
    assert result.extra["unused"] == [0, 4]


@pytest.mark.parametrize("method", ["fast", "loop"])
def test_index_tie_starts_with_a(method):
    result = allocate("drf-tasks", PAPER, tie="index", method=method, trace=True)
    assert result.extra["trace"] == ["A", "B", "A", "B", "A"]
    assert result.tasks == (3, 2)


@pytest.mark.parametrize("method", ["fast", "loop"])
def test_pdrf_section_6_2_stop_leaves_33_3_unused_skip_uses_it(method):
    stop = allocate("drf-tasks", PARETO, on_blocked="stop", method=method)
    assert stop.tasks == (2, 8)
    assert [b for row in stop.bundles for b in row] == [2, 8, 24, 8]
    assert stop.extra["unused"] == [33, 3]
    assert stop.extra["blocked"] == [{"user": "A", "resource": "GB"}]
    skip = allocate("drf-tasks", PARETO, on_blocked="skip", method=method)
    assert skip.tasks == (2, 11)  # B takes the three more tasks <33, 3> allows
    assert skip.extra["unused"] == [24, 0]


@pytest.mark.parametrize("method", ["fast", "loop"])
def test_user_whose_task_exceeds_a_capacity_gets_nothing_and_others_continue(method):
    inst = {"capacities": [10, 10], "demands": [[11, 1], [1, 1]], "users": ["big", "small"]}
    result = allocate("drf-tasks", inst, method=method)
    assert result.tasks == (0, 10)
    assert any("big: one task needs 11 r1 but the capacity is 10" in n for n in result.notes)


@pytest.mark.parametrize("method", ["fast", "loop"])
def test_task_caps_are_whole_tasks(method):
    inst = {"capacities": [100], "demands": [[1], [1]], "max_tasks": ["5/2", None]}
    result = allocate("drf-tasks", inst, method=method)
    assert result.tasks == (2, 98)
    assert any("5/2 counts as 2 whole tasks" in n for n in result.notes)


def test_bad_options_are_one_line_input_errors():
    with pytest.raises(InputError, match="option tie"):
        allocate("drf-tasks", PAPER, tie="random")
    with pytest.raises(InputError, match="option on_blocked"):
        allocate("drf-tasks", PAPER, on_blocked="wait")
    with pytest.raises(InputError, match="option trace"):
        allocate("drf-tasks", PAPER, trace="yes")
    with pytest.raises(InputError, match="not an option"):
        allocate("drf-tasks", PAPER, speed=3)


def test_registered_discrete_with_integer_fractions():
    mech = get("drf-tasks")
    assert mech.discrete and get("drf-loop") is mech
    assert all(isinstance(t, Fraction) and t.denominator == 1 for t in allocate("drf-tasks", PARETO).tasks)


@pytest.mark.parametrize("inst,tie", [(PAPER, "paper"), (PARETO, "paper"), (PAPER, "index"),
                                      ({"capacities": [10, 7], "demands": [[2, 0], [1, 3], [11, 1]],
                                        "max_tasks": [2, None, None]}, "paper")])
def test_spec_pins_the_stop_outcome(inst, tie):
    verdict = conformance.check(get("drf-tasks"), Instance.from_dict(inst), tie=tie)
    assert (verdict.details["satisfies"], verdict.details["unique"]) == ("yes", "yes")


def test_spec_refuses_skip():
    import z3

    from fairlab.mechanisms.base import SymbolicInstance

    sym = SymbolicInstance.from_instance(Instance.from_dict(PAPER))
    with pytest.raises(InputError, match="stop"):
        get("drf-tasks").spec(sym, [z3.Real("a"), z3.Real("b")], on_blocked="skip")


# --------------------------------------------------------------------------- fast == loop
demand_entry = st.one_of(st.just(0), st.integers(1, 9), st.integers(1, 400))


@st.composite
def instances(draw):
    n = draw(st.integers(1, 6))
    m = draw(st.integers(1, 3))
    caps = [draw(st.integers(1, 3000)) for _ in range(m)]
    demands = []
    for _ in range(n):
        row = [draw(demand_entry) for _ in range(m)]
        if not any(row):
            row[draw(st.integers(0, m - 1))] = draw(st.integers(1, 9))
        demands.append(row)
    if draw(st.booleans()):  # exact ties: copies of a user
        demands.append(list(demands[0]))
    n = len(demands)
    max_tasks = draw(st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(0, 60)), min_size=n, max_size=n)))
    weights = draw(st.one_of(st.none(), st.lists(st.sampled_from([1, 2, "1/2", 3]), min_size=n, max_size=n)))
    if draw(st.booleans()):
        caps = [Fraction(c, draw(st.integers(1, 3))) for c in caps]
    return Instance.build(caps, demands, weights=weights, max_tasks=max_tasks)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.sampled_from(["paper", "index"]), st.sampled_from(["stop", "skip"]))
def test_fast_path_equals_task_by_task_loop(inst, tie, on_blocked):
    fast = allocate("drf-tasks", inst, tie=tie, on_blocked=on_blocked, trace=True)
    loop = allocate("drf-tasks", inst, tie=tie, on_blocked=on_blocked, method="loop", trace=True)
    assert fast.tasks == loop.tasks
    assert fast.extra["trace"] == loop.extra["trace"]
    assert fast.extra["blocked"] == loop.extra["blocked"]
    assert fast.extra["unused"] == loop.extra["unused"]


def test_fast_path_python_int_branch_agrees_with_int64_branch():
    caps, dem = [59, 19, 40], [[1, 4, 0], [3, 1, 2], [0, 1, 1], [2, 2, 2]]
    small = _task_problem.from_integers(caps, dem)
    huge = _task_problem.from_integers([c * 2**40 for c in caps], [[d * 2**40 for d in row] for row in dem])
    assert huge.np_demand() is None
    for ob in ("stop", "skip"):
        assert _drf_loop.fast_loop(small, on_blocked=ob).counts == _drf_loop.fast_loop(huge, on_blocked=ob).counts
    assert _pdrf_kernel.pdrf_counts(small) == _pdrf_kernel.pdrf_counts(huge)


# --------------------------------------------------------------------------- Theorem 7
@st.composite
def positive_instances(draw):
    n = draw(st.integers(2, 6))
    m = draw(st.integers(1, 3))
    demands = [[draw(st.integers(1, 12)) for _ in range(m)] for _ in range(n)]
    max_task = [max(row[r] for row in demands) for r in range(m)]
    caps = [draw(st.integers(mt, 400)) for mt in max_task]  # a max-task fits (the machine assumption)
    return Instance.build(caps, demands)


@settings(max_examples=150, deadline=None)
@given(positive_instances())
def test_theorem_7_within_one_max_task_of_continuous_drf(inst):
    """DRF paper §6.2 Theorem 7, read in dominant shares (the continuous model's unit): with strictly
    positive demands every user's discrete dominant share is within the max-task's dominant share of
    its continuous DRF share, and any two users' discrete dominant shares differ by at most that."""
    discrete = allocate("drf-tasks", inst).dominant_shares
    continuous = allocate("drf", inst).dominant_shares
    max_task = [max(row[r] for row in inst.demands) for r in range(inst.m)]
    bound = max(max_task[r] / inst.capacities[r] for r in range(inst.m))
    for d, c in zip(discrete, continuous):
        assert abs(d - c) <= bound
    assert max(discrete) - min(discrete) <= bound


def test_theorem_7_is_not_a_per_resource_bound():
    """Read per resource amount the bound fails (<59, 19>): B is 3/2 tasks below continuous DRF,
    i.e. 9/2 CPU > the max-task's 3 CPU. The test above therefore states it in dominant shares."""
    discrete = allocate("drf-tasks", PARETO).tasks
    continuous = allocate("drf", PARETO).tasks
    assert continuous == (Fraction(19, 8), Fraction(19, 2))
    assert (continuous[1] - discrete[1]) * 3 == Fraction(9, 2)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["stop", "skip"]), st.sampled_from(["paper", "index"]))
def test_dyadic_and_big_integer_probes_agree_with_the_loop_on_larger_instances(seed, on_blocked, tie):
    """Dozens of users and capacities in the thousands, so the level search really bisects; the
    int64 dyadic probes and the big-integer fallback must land on the loop's allocation."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(20, 60)), int(rng.integers(1, 4))
    caps = rng.integers(1000, 6000, size=m).tolist()
    dem = rng.integers(0, 12, size=(n, m))
    dem[dem.sum(axis=1) == 0, 0] = 1
    inst = Instance.build(caps, dem.tolist())
    loop = allocate("drf-tasks", inst, tie=tie, on_blocked=on_blocked, method="loop").tasks
    dyadic = _task_problem.from_integers(caps, dem.tolist())
    assert dyadic.p is not None
    big = _task_problem.from_integers(caps, dem.tolist())
    big.p = big.q = None
    for problem in (dyadic, big):
        assert tuple(_drf_loop.fast_loop(problem, tie, on_blocked).counts) == loop


def test_huge_share_denominators_take_few_big_integer_probes(monkeypatch):
    """Weights with 10-digit co-prime parts make the common scale > 2**1100: no int64 probes, and the
    float guidance must still work (it once overflowed, and the gallop that followed did not double
    its step, so the level was walked one unit at a time: millions of probes, then out of memory)."""
    import random

    rng = random.Random(7)
    n = 60
    weights = [Fraction(rng.randint(10**9, 10**10), rng.randint(10**9, 10**10)) for _ in range(n)]
    dem = [[rng.randint(1, 9), rng.randint(1, 9)] for _ in range(n)]
    inst = Instance.build([4000, 3000], dem, weights=weights)
    problem = _task_problem.from_instance(inst)
    assert problem.p is None and problem.scale.bit_length() > 1100  # beyond a float
    probes = []
    real_matvec = _task_problem.matvec
    monkeypatch.setattr(_task_problem, "matvec", lambda *a: probes.append(1) or real_matvec(*a))
    for on_blocked in ("stop", "skip"):
        loop = allocate("drf-tasks", inst, on_blocked=on_blocked, method="loop").tasks
        assert tuple(_drf_loop.fast_loop(problem, "paper", on_blocked).counts) == loop
    assert len(probes) < 100


def test_theorem_7_bound_is_for_the_loop_as_printed_not_for_skip():
    """With `skip` the unblocked users keep going, and the bound can fail (found by hypothesis):
    max-task <8, 9> has dominant share 1/24, yet u4 ends 5/12 - 41/121 > 1/24 above continuous DRF."""
    inst = {"capacities": [192, 328], "demands": [[2, 3], [2, 9], [1, 9], [8, 1]]}
    assert allocate("drf", inst).dominant_shares == (Fraction(41, 121),) * 4
    stop = allocate("drf-tasks", inst).dominant_shares
    skip = allocate("drf-tasks", inst, on_blocked="skip").dominant_shares
    assert stop == (Fraction(1, 3), Fraction(27, 82), Fraction(27, 82), Fraction(1, 3))
    assert skip == (Fraction(17, 48), Fraction(27, 82), Fraction(27, 82), Fraction(5, 12))
    assert all(abs(s - Fraction(41, 121)) <= Fraction(1, 24) for s in stop)
    assert skip[3] - Fraction(41, 121) > Fraction(1, 24)


@pytest.mark.parametrize("tie", ["paper", "index"])
@pytest.mark.parametrize("on_blocked", ["stop", "skip"])
def test_window_order_int64_and_big_integer_sort_agree(tie, on_blocked, monkeypatch):
    """The window's exact order comes from an int64-checked vectorised sort; when that check is
    unavailable the big-integer sort takes over. Both must give the loop's allocation (tie-heavy
    instance: copies of users with equal per-task shares)."""
    import numpy as np

    rng = np.random.default_rng(7)
    caps = rng.integers(300, 900, size=3).tolist()
    dem = rng.integers(1, 6, size=(12, 3))
    dem = np.vstack([dem, dem[:6]])  # exact ties across users
    inst = Instance.build(caps, dem.tolist())
    loop = allocate("drf-tasks", inst, tie=tie, on_blocked=on_blocked, method="loop", trace=True)
    fast = allocate("drf-tasks", inst, tie=tie, on_blocked=on_blocked, trace=True)
    monkeypatch.setattr(_drf_loop, "_window_order", lambda *args: None)
    fallback = allocate("drf-tasks", inst, tie=tie, on_blocked=on_blocked, trace=True)
    for result in (fast, fallback):
        assert result.tasks == loop.tasks
        assert result.extra["trace"] == loop.extra["trace"]
        assert result.extra["blocked"] == loop.extra["blocked"]


def _is_loop_outcome(inst, tasks, tie):
    """The characterisation of the `stop` loop's outcome (the spec's, in Fractions): feasible, the
    launched keys precede every next key, and the first next key does not fit."""
    n, m, caps, dem = inst.n, inst.m, inst.capacities, inst.demands
    sigma = [inst.weighted_dominant_share_per_task(i) for i in range(n)]
    used = [sum(tasks[i] * dem[i][r] for i in range(n)) for r in range(m)]
    if any(u > c for u, c in zip(used, caps)):
        return False
    fits_alone = [all(dem[k][r] <= caps[r] for r in range(m)) for k in range(n)]
    for k, t in enumerate(tasks):
        limit = inst.max_tasks[k] if fits_alone[k] else 0  # a user that can never run gets nothing
        if limit is not None and t > limit:
            return False

    def key(i, j):
        return (j * sigma[i], -sigma[i] if tie == "paper" else 0, i)

    can_more = [fits_alone[k] and (inst.max_tasks[k] is None or tasks[k] + 1 <= inst.max_tasks[k]) for k in range(n)]
    following = [key(k, tasks[k]) for k in range(n) if can_more[k]]
    if not following:
        return True
    first = min(following)
    if any(tasks[i] >= 1 and key(i, tasks[i] - 1) > first for i in range(n)):
        return False
    k = first[2]
    return any(used[r] + dem[k][r] > caps[r] for r in range(m))


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 40),
    st.integers(1, 4),
    st.sampled_from([10**6, 10**9, 10**12, 10**15]),
    st.randoms(use_true_random=False),
    st.sampled_from(["paper", "index"]),
)
def test_fast_path_at_capacities_the_loop_cannot_reach(n, m, big, rng, tie):
    """Up to ~10**15 tasks: the loop is out of reach, so the fast path's outcome is checked against
    the loop's characterisation directly (exact)."""
    caps = [rng.randint(big, 3 * big) for _ in range(m)]
    dem = [[rng.choice([0, rng.randint(1, 9), rng.randint(1, 10**4)]) for _ in range(m)] for _ in range(n)]
    for row in dem:
        row[0] = row[0] or int(not any(row))
    kw = {}
    if rng.random() < 0.3:
        kw["max_tasks"] = [rng.choice([None, rng.randint(0, big // 1000)]) for _ in range(n)]
    if rng.random() < 0.3:
        kw["weights"] = [rng.choice([1, 2, "1/3", "7/5"]) for _ in range(n)]
    inst = Instance.build(caps, dem, **kw)
    tasks = allocate("drf-tasks", inst, tie=tie).tasks
    assert _is_loop_outcome(inst, tasks, tie)
    moved = list(tasks)
    moved[0] += 1  # positive control: the characterisation rejects a neighbouring allocation
    assert not _is_loop_outcome(inst, moved, tie)
