"""ks-lottery and random-dictatorship (issue 30): hand-computed 2-user lotteries, exact.

One machine <4>, A needs <1>, B needs <3>: A alone runs 4, B alone 1 (u* = (4, 1)). The maximal task
vectors are (4, 0) and (1, 1). KS: lambda (4, 0) + (1 - lambda) (1, 1), normalised (lambda + (1 -
lambda)/4, 1 - lambda), equal at lambda = 3/7: t = 4/7, E[u] = (16/7, 4/7). Random dictatorship: A
first takes 4 -> (4, 0); B first takes 1, then A 1 -> (1, 1); each with probability 1/2: E[u] = (5/2, 1/2).
"""

from fractions import Fraction as F

import pytest

from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.mechanisms import allocate, get
from fairlab.mechanisms._placements import frontier, solo

HAND = {"machines": [[4]], "demands": [[1], [3]], "users": ["A", "B"]}


def _totals(placement):
    return tuple(sum(row, F(0)) for row in placement)


def test_frontier_and_ideal_points_by_hand():
    inst = Instance.from_dict(HAND)
    assert sorted(frontier(inst)) == [(1, 1), (4, 0)]
    assert [solo(inst, i) for i in range(2)] == [4, 1]


def test_ks_lottery_hand_computed():
    a = allocate("ks-lottery", HAND)
    assert a.tasks == (F(16, 7), F(4, 7))
    assert sorted((p, _totals(pl)) for p, pl in a.lottery) == [(F(3, 7), (4, 0)), (F(4, 7), (1, 1))]
    assert a.extra["normalised_levels"] == [F(4, 7), F(4, 7)]
    assert a.placement is None and a.is_exact_rational()


def test_both_lottery_options_reach_the_same_expectation():
    inst = {"machines": [[5]], "demands": [[1], [3], [1]]}
    ef, anyv = allocate("ks-lottery", inst), allocate("ks-lottery", inst, lottery="any")
    assert ef.tasks == anyv.tasks == (F(25, 13), F(5, 13), F(25, 13))
    assert any(n.startswith("envy-free ex ante (containers model") for n in ef.notes)
    pooled = allocate("ks-lottery", inst, model="pooled")
    assert pooled.tasks == ef.tasks and pooled.options["model"] == "pooled"
    assert any(n.startswith("envy-free ex ante over the enumerated placements (pooled model") for n in pooled.notes)


def test_the_envy_free_refinement_follows_the_model():
    # <7>, A <4>, B <3>, C <2>: pooled, no lottery reaching the leximin is envy-free ex ante; with containers
    # (ks-lottery's own model: A and B cannot use C's smaller containers) one is
    inst = {"machines": [[7]], "demands": [[4], [3], [2]], "users": ["A", "B", "C"]}
    own, pooled = allocate("ks-lottery", inst), allocate("ks-lottery", inst, model="pooled")
    assert own.tasks == pooled.tasks == (F(3, 7), F(6, 7), F(9, 7))
    assert own.options["model"] == "containers"
    assert any(n.startswith("envy-free ex ante (containers") for n in own.notes)
    assert any(n.startswith("no lottery reaching the leximin is envy-free ex ante over the enumerated placements")
               for n in pooled.notes)


def test_random_dictatorship_hand_computed():
    a = allocate("random-dictatorship", HAND)
    assert a.tasks == (F(5, 2), F(1, 2))
    assert sorted((p, _totals(pl)) for p, pl in a.lottery) == [(F(1, 2), (1, 1)), (F(1, 2), (4, 0))]


def test_ks_lottery_two_machines_by_hand():
    # machines <2, 1>, <4, 6>; A <3, 3> fits only the second (once), B <2, 3> twice there; together
    # they do not fit: maximal vectors (1, 0), (0, 2); KS t = 1/2, E[u] = (1/2, 1)
    a = allocate("ks-lottery", {"machines": [[2, 1], [4, 6]], "demands": [[3, 3], [2, 3]], "users": ["A", "B"]})
    assert a.tasks == (F(1, 2), F(1))
    assert sorted(p for p, _ in a.lottery) == [F(1, 2), F(1, 2)]


def test_three_symmetric_users_get_the_same_expectation():
    a = allocate("ks-lottery", {"machines": [[2]], "demands": [[1], [1], [1]]})
    assert a.tasks == (F(2, 3),) * 3
    b = allocate("random-dictatorship", {"machines": [[2]], "demands": [[1], [1], [1]]})
    assert b.tasks == (F(2, 3),) * 3 and sum(p for p, _ in b.lottery) == 1


def test_a_user_whose_task_fits_nowhere_gets_nothing():
    a = allocate("ks-lottery", {"machines": [[2, 2]], "demands": [[1, 1], [3, 1]], "users": ["A", "B"]})
    assert a.tasks == (F(2), F(0))
    assert any("u* = 0" in note for note in a.notes)


def test_caps_clip_the_vectors():
    inst = {"machines": [[4]], "demands": [[1], [1]], "max_tasks": [1, None], "users": ["A", "B"]}
    a = allocate("ks-lottery", inst)
    # A is capped at 1 (u* = 1), B alone 4: maximal clipped vectors (1, 3), (0, 4); normalised (1, 3/4) and
    # (0, 1), equal at lambda = 4/5: t = 4/5, E[u] = (4/5, 16/5)
    assert sorted(frontier(Instance.from_dict(inst))) == [(0, 4), (1, 3)]
    assert a.tasks == (F(4, 5), F(16, 5))


def test_registered_on_the_machines_setting_and_its_domain():
    for name in ("ks-lottery", "random-dictatorship"):
        mech = get(name)
        assert mech.setting == "machines" and mech.discrete and mech.spec is None
        assert mech.domain.label == "fgp-2014"
    with pytest.raises(InputError):
        allocate("ks-lottery", {"capacities": [4], "demands": [[1], [3]]})  # one pool: another setting


def test_too_many_vectors_is_a_one_line_error():
    big = {"machines": [[60, 60]] * 3, "demands": [[1, 1], [1, 1], [1, 1], [1, 1]]}
    with pytest.raises(InputError, match="too large"):
        allocate("ks-lottery", big)


def _brute_force_maximal(inst):
    """Every integral placement enumerated (no pruning), then the Pareto-maximal totals."""
    import itertools

    machines = inst.machines
    per_machine = []
    for machine in machines:
        columns = []
        ranges = [range(0, 9) for _ in range(inst.n)]
        for xs in itertools.product(*ranges):
            if all(sum(x * inst.demands[i][r] for i, x in enumerate(xs)) <= machine[r] for r in range(inst.m)):
                columns.append(xs)
        per_machine.append(columns)
    totals = {tuple(map(sum, zip(*cols))) for cols in itertools.product(*per_machine)}
    return {v for v in totals if not any(w != v and all(a >= b for a, b in zip(w, v)) for w in totals)}


def test_frontier_equals_brute_force_on_seeded_instances():
    import random

    rng = random.Random(7)
    for _ in range(25):
        n, m, k = rng.randint(2, 3), rng.randint(1, 2), rng.randint(1, 2)
        inst = Instance.build(demands=[[rng.randint(1, 3) for _ in range(m)] for _ in range(n)],
                              machines=[[rng.randint(1, 5) for _ in range(m)] for _ in range(k)])
        found = frontier(inst)
        assert set(found) == _brute_force_maximal(inst)
        for vector, placement in found.items():  # each kept placement is feasible and reaches its vector
            assert tuple(sum(row) for row in placement) == vector
            for kk, machine in enumerate(inst.machines):
                assert all(sum(placement[i][kk] * inst.demands[i][r] for i in range(n)) <= machine[r]
                           for r in range(m))


def test_in_the_containers_model_every_lottery_reaching_the_leximin_is_envy_free():
    """The docstring's argument (i uses j's containers only if d_i <= d_j, then u_i* >= u_j*, and the leximin
    leaves no E[x_j] > E[x_i]): even without the envy-free refinement (lottery=any) no envy in containers, on
    small one-machine instances; the negative twin: pooled, the same sweep meets the envy of <7>, 4, 3, 2."""
    from fairlab import properties

    pooled_envy = []
    for capacity in (5, 7):
        for demands in ((4, 3, 2), (3, 2, 1), (2, 2, 1), (4, 2, 1)):
            inst = {"machines": [[capacity]], "demands": [[d] for d in demands]}
            r = properties.check("ks-lottery", "machines-ef", inst, options={"lottery": "any"})
            assert r.status.value == "holds", (inst, r.explanation)
            pooled = properties.check("ks-lottery", "machines-ef", inst, options={"lottery": "any", "model": "pooled"})
            if pooled.status.value == "violated":
                pooled_envy.append((capacity, demands))
    assert (7, (4, 3, 2)) in pooled_envy
