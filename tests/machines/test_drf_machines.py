"""drf-machines: the DRF paper's discrete placement (§6.2, proof of Theorem 7), checked by hand."""

from fractions import Fraction as F

import pytest

from fairlab import mechanisms
from fairlab.core.errors import InputError, OptionError
from fairlab.core.instance import Instance

DRF_MACHINES = mechanisms.get("drf-machines")
TWO_SERVERS = {"machines": [[4, 8], [6, 4]], "demands": [[1, 2], [2, 1]], "users": ["A", "B"],
               "resources": ["CPU", "GB"]}


def test_two_servers_trace_by_hand():
    # pooled <10, 12>: one task of A is dominant share 1/6 (GB), of B 1/5 (CPU); max-task <2, 2>.
    # machine 1 <4, 8>: A (tie at 0, lower index), B (0 < 1/6); <1, 5> left, below <2, 2>: next.
    # machine 2 <6, 4>: A (1/6 < 1/5), B (1/5 < 1/3); <3, 1> left: done. 2 tasks each.
    a = DRF_MACHINES(TWO_SERVERS)
    assert a.placement == ((1, 1), (1, 1))
    assert a.tasks == (2, 2)
    assert "max-task <2, 2>" in a.notes
    assert a.to_dict()["placement"] == [["1", "1"], ["1", "1"]]


def test_greedy_fill_uses_what_literal_wastes():
    # machine 1: A <3, 6>, B <1, 5> (below the max-task <2, 2>); greedy: only A <1, 2> fits -> A <0, 3>.
    # machine 2 <6, 4>: A 1/3 vs B 1/5 -> B <4, 3>; A 1/3 vs B 2/5 -> A <3, 1> (below <2, 2>);
    # greedy: only B <2, 1> fits -> B <1, 0>. A = [2, 1], B = [1, 2].
    a = DRF_MACHINES(TWO_SERVERS, fill="greedy")
    assert a.tasks == (3, 3)
    assert a.placement == ((2, 1), (1, 2))


def test_caps_and_a_user_that_fits_no_machine():
    inst = {"machines": [[3, 3], [3, 3]], "demands": [[1, 1], [4, 1], [1, 1]], "max_tasks": [2, None, None]}
    a = DRF_MACHINES(inst)
    # user 1's task <4, 1> fits no machine: no tasks, left out of the max-task (<1, 1>);
    # user 0 stops at its cap 2, user 2 takes the rest: 6 slots - 2 = 4.
    assert a.tasks == (2, 0, 4)
    assert any("fits no machine" in n for n in a.notes)
    assert a.extra["max_task"] == [F(1), F(1)]


def test_literal_stops_below_a_max_task():
    # A <1, 3>, B <1, 1> on one machine <2, 4>: max-task <1, 3>; A first (tie, index) leaves <1, 1>:
    # below the max-task, so B gets nothing although its task fits (the literal reading wastes it).
    a = DRF_MACHINES({"machines": [[2, 4]], "demands": [[1, 3], [1, 1]]})
    assert a.tasks == (1, 0)
    assert DRF_MACHINES({"machines": [[2, 4]], "demands": [[1, 3], [1, 1]]}, fill="greedy").tasks == (1, 1)


def test_wrong_setting_and_bad_option():
    with pytest.raises(InputError, match="machines"):
        DRF_MACHINES({"capacities": [1, 1], "demands": [[1, 1]]})
    with pytest.raises(OptionError):
        DRF_MACHINES(TWO_SERVERS, fill="sometimes")
    assert "drf-machines" in mechanisms.names("machines")
    assert "drf-machines" not in mechanisms.names()


def test_feasible_per_machine_on_random_instances():
    import random
    rng = random.Random(3)
    for _ in range(200):
        n, m, k = rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 3)
        inst = Instance.build(demands=[[rng.randint(1, 4) for _ in range(m)] for _ in range(n)],
                              machines=[[rng.randint(1, 9) for _ in range(m)] for _ in range(k)])
        for fill in ("literal", "greedy"):
            a = DRF_MACHINES(inst, fill=fill)
            for kk, machine in enumerate(inst.machines):
                for r in range(m):
                    assert sum(a.placement[i][kk] * inst.demands[i][r] for i in range(n)) <= machine[r]
            assert all(sum(row) == t for row, t in zip(a.placement, a.tasks))
