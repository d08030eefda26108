"""dynamic-drf (Kash, Procaccia & Shah's DYNAMIC DRF) and drf-rerun, against hand computations."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import z3

from fairlab import mechanisms
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.mechanisms import conformance
from fairlab.mechanisms.base import SymbolicInstance
from fairlab.mechanisms.dynamic_drf import spec

from .conftest import TWO, ZERO


def steps(name, inst):
    return [s.tasks for s in mechanisms.get(name)(inst).steps]


def test_dynamic_drf_two_users_by_hand():
    # step 1: A alone may use 1/2 of each resource: dominant share 1/2 (first resource), 1/2 task.
    # step 2: for a level M > 1/2 both resources carry M + M/2 <= 1: M = 2/3 for both.
    assert steps("dynamic-drf", TWO) == [(F(1, 2), F(0)), (F(2, 3), F(2, 3))]


def test_dynamic_drf_kps_example_and_fairness_ratio():
    # <9 CPU, 18 GB>, A <1,4> (sigma 2/9), B <3,1> (1/3), C <1,1> (1/9), n = 3.
    # step 1 (1/3 of each): A's GB: x_A = 1/3 -> 3/2 tasks.
    # step 2 (2/3): CPU 3M/2 <= 2/3 -> M = 4/9: A 2 tasks, B 4/3.
    # step 3 (1): CPU 2/9 + 4/9 + M <= 1 -> M = 1/3: C 3 tasks; A, B keep theirs.
    a = mechanisms.get("dynamic-drf")("dynamic-kps")
    assert [s.tasks for s in a.steps] == [(F(3, 2), 0, 0), (F(2), F(4, 3), 0), (F(2), F(4, 3), F(3))]
    assert a.tasks == (F(2), F(4, 3), F(3))
    # ideal = static DRF of the present users: A alone 9/2 tasks (ratio 1/3); A, B: s = 2/3, A 3, B 2
    # (ratio 2/3); A, B, C: CPU 22.5 s <= 9, s = 2/5: A 9/5, B 6/5, C 18/5 (C: 3 / (18/5) = 5/6).
    assert a.extra["fairness_ratio_steps"] == [F(1, 3), F(2, 3), F(5, 6)]
    assert a.extra["fairness_ratio"] == F(1, 3)
    assert a.extra["levels"] == [F(1, 3), F(4, 9), F(1, 3)]


def test_dynamic_drf_declines_a_zero_demand():
    # KPS's model assumes d_ir > 0 (their step LP then has one optimum); a zero demand is declined,
    # naming the user, and the spec has the same domain (d > 0 is one of its constraints)
    with pytest.raises(InputError, match="user u1 has a zero demand for resource r1.*strictly positive"):
        mechanisms.get("dynamic-drf")(ZERO)
    sym = SymbolicInstance.from_instance(Instance.from_dict(ZERO))
    tasks = [z3.Real(f"t{i}") for i in range(3)]
    solver = z3.Solver()
    solver.add(*[c.expr for c in spec(sym, tasks)])
    assert solver.check() == z3.unsat
    assert mechanisms.get("drf-rerun")(ZERO).tasks == (1, 1, 2)  # the comparator still takes it


def test_drf_rerun_takes_back_and_handles_departures():
    # A alone gets all of r1 (1 task), then DRF of A, B gives both 2/3.
    assert steps("drf-rerun", TWO) == [(1, 0), (F(2, 3), F(2, 3))]
    a = mechanisms.get("drf-rerun")("dynamic-departure")
    assert [s.event for s in a.steps] == [("arrive", 0), ("arrive", 1), ("depart", 0), ("arrive", 2)]
    # after A leaves B is alone (1 task); C <1,1> joins: DRF of B <1/2,1>, C <1,1>: r2 carries s + s = 1
    assert a.steps[2].tasks == (0, 1, 0) and a.steps[3].tasks == (0, F(1, 2), F(1, 2))
    assert a.extra["fairness_ratio"] == 1


def test_dynamic_drf_declines_departures_and_static_instances():
    with pytest.raises(InputError, match="departures are not in Kash"):
        mechanisms.get("dynamic-drf")("dynamic-departure")
    with pytest.raises(InputError, match="dynamic"):
        mechanisms.get("dynamic-drf")("drf-paper")


def test_arrival_order_matters():
    inst = dict(TWO, arrivals=["B", "A"])
    assert steps("dynamic-drf", inst) == [(0, F(1, 2)), (F(2, 3), F(2, 3))]
    three = {"capacities": [1, 1], "demands": [[1, 1], [1, 2], [1, 1]], "arrivals": [2, 0, 1]}
    # C <1,1> first: 1/3. A <1,1>: r1 carries max(M, 1/3) + M <= 2/3, so M = 1/3 (A 1/3, C stays).
    # B <1,2> (a = <1/2, 1>): r2 carries 1/3 + 1/3 + M <= 1, M = 1/3: B's dominant share 1/3 = 1/6 task.
    assert steps("dynamic-drf", three) == [(0, 0, F(1, 3)), (F(1, 3), 0, F(1, 3)), (F(1, 3), F(1, 6), F(1, 3))]


def test_spec_conforms_and_rejects_another_allocation():
    report = conformance.check(mechanisms.get("dynamic-drf"), "dynamic-kps")
    assert report.status == "agrees"
    inst = Instance.load("dynamic-kps")
    sym = SymbolicInstance.from_instance(inst)
    tasks = [z3.Real(f"t{i}") for i in range(3)]
    solver = z3.Solver()
    solver.add(*[c.expr for c in spec(sym, tasks)])
    rerun = mechanisms.get("drf-rerun")(inst).tasks  # the static DRF allocation: not dynamic-drf's
    solver.add(*[t == z3.RealVal(v) for t, v in zip(tasks, rerun)])
    assert solver.check() == z3.unsat


def test_spec_uses_the_arrival_order():
    inst = Instance.from_dict({"capacities": [1, 1], "demands": [[1, 1], [1, 2], [1, 1]], "arrivals": [2, 0, 1]})
    assert conformance.check(mechanisms.get("dynamic-drf"), inst).status == "agrees"


def test_registry_lists_them_in_the_dynamic_setting():
    assert {"dynamic-drf", "drf-rerun"} <= set(mechanisms.names("dynamic"))
    assert "dynamic-drf" not in mechanisms.names("pool")
