"""drfh (leximin of global dominant shares over servers, exact LPs), drfh-bestfit (the whole-task
heuristic by the paper's shape rule), drfh-firstfit and the lab's variant drfh-bestfit-amounts, Wang, Li &
Liang, lab's reading: hand-computed instances, exactness, and properties."""

from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairlab import properties
from fairlab.mechanisms import allocate

TWO_SERVERS = {"machines": [[4, 8], [6, 4]], "demands": [[1, 2], [2, 1]], "users": ["A", "B"]}
FRAGMENTED = {"machines": [[2, 5], [5, 2]], "demands": [[2, 2], [1, 1]], "users": ["A", "B"]}


def test_drfh_equals_pooled_drf_when_the_servers_can_hold_it():
    # pooled <10, 12>: sigma_A = 1/6, sigma_B = 1/5; equal share s: CPU 6s + 10s <= 10 -> s = 5/8 (GB allows 12/17)
    a = allocate("drfh", TWO_SERVERS)
    assert a.tasks == (F(15, 4), F(25, 8))
    assert a.extra["global_dominant_shares"] == [F(5, 8), F(5, 8)]
    assert allocate("drf", {"capacities": [10, 12], "demands": [[1, 2], [2, 1]]}).tasks == a.tasks


def test_drfh_below_pooled_drf_when_servers_fragment_the_pool():
    # each server holds 2 units of the scarce resource: 2 x_A + y_B <= 4 with 2 x_A / 7 = y_B / 7 -> 2/7 each,
    # where the pooled <7, 7> would give 1/2 each
    a = allocate("drfh", FRAGMENTED)
    assert a.tasks == (1, 2)
    assert a.extra["global_dominant_shares"] == [F(2, 7), F(2, 7)]


def test_drfh_leximin_raises_the_others_after_the_first_level():
    # A can use only server 1 (needs resource 2, server 2 has none); B can use both.
    inst = {"machines": [[4, 4], [8, 0]], "demands": [[1, 1], [1, 0]], "users": ["A", "B"]}
    a = allocate("drfh", inst)
    # pooled <12, 4>: sigma_A = max(1/12, 1/4) = 1/4, sigma_B = 1/12. A alone on server 1: at most 4 tasks.
    # level 1: A 4 tasks (share 1) needs server 1's 4 CPU; B then has server 2 only: 8 tasks, share 2/3 < 1.
    # max-min: raise B on server 1 too: x_A + y1 <= 4, y1 + 8 = B's tasks; A share x_A/4 = (8 + y1)/12 ->
    # 3 x_A = 8 + 4 - x_A -> x_A = 3, shares 3/4 each
    assert a.tasks == (3, 9)
    assert a.placement[0] == (3, 0)


def test_drfh_caps_and_unusable_servers():
    inst = {"machines": [[4, 4], [4, 4]], "demands": [[1, 1], [1, 1]], "max_tasks": [1, None]}
    assert allocate("drfh", inst).tasks == (1, 7)


small = st.integers(1, 4)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 3), m=st.integers(1, 2), k=st.integers(1, 2), data=st.data())
def test_drfh_is_pareto_efficient_on_random_instances(n, m, k, data):
    inst = {"machines": [[data.draw(st.integers(1, 6)) for _ in range(m)] for _ in range(k)],
            "demands": [[data.draw(small) for _ in range(m)] for _ in range(n)]}
    assert properties.check("drfh", "machines-pe", inst).status == "holds"
    shares = allocate("drfh", inst).extra["global_dominant_shares"]
    assert min(shares) > 0


#: the paper's motivating example (Wang, Li & Liang, as the reading notes recall it)
PAPER = {"machines": [[2, 12], [12, 2]], "demands": [["0.2", 1], [1, "0.2"]], "users": ["A", "B"],
         "resources": ["CPU", "GB"]}


def test_bestfit_amounts_trace_by_hand():
    # the lab's variant. pooled <10, 12>; normalised A <1/10, 1/6>, B <1/5, 1/12>. A first (tie at 0, lower index):
    # l1 distance to m1 <4/10, 8/12> is 3/10 + 1/2 = 4/5, to m2 <6/10, 4/12> 1/2 + 1/6 = 2/3 -> m2; and so on.
    a = allocate("drfh-bestfit-amounts", TWO_SERVERS)
    assert [step["machine"] for step in a.extra["order"]][0] == "m2"
    assert a.tasks == (3, 3)
    assert all(x.denominator == 1 for row in a.placement for x in row)
    assert any("the lab's variant" in note for note in a.notes)


def test_bestfit_shape_rule_trace_by_hand():
    # pooled <10, 12>. A <1, 2> normalised (1/10, 1/6), divided by its first component: (1, 5/3). m1 free <4, 8>:
    # (4/10, 8/12) -> (1, 5/3), H = 0; m2 <6, 4>: (6/10, 4/12) -> (1, 5/9), H = 10/9 -> m1 (the amounts rule: m2)
    from fairlab.core.instance import Instance
    from fairlab.mechanisms.drfh_bestfit import fitness

    inst = Instance.from_dict(TWO_SERVERS)
    assert [fitness(inst, 0, machine) for machine in inst.machines] == [0, F(10, 9)]
    a = allocate("drfh-bestfit", TWO_SERVERS)
    assert [step["machine"] for step in a.extra["order"]] == ["m1", "m2", "m1", "m2", "m1", "m2", "m1"]
    assert a.tasks == (4, 3) and a.placement == ((4, 0), (0, 3))


def test_bestfit_on_the_papers_two_server_example_gives_ten_and_ten():
    """Each user on the server of its shape, 10 tasks each (as DRFH); the amounts rule and First-Fit give 6 each."""
    best = allocate("drfh-bestfit", PAPER)
    assert best.tasks == (10, 10) and best.placement == ((10, 0), (0, 10))
    assert allocate("drfh", PAPER).tasks == (10, 10)
    amounts = allocate("drfh-bestfit-amounts", PAPER)
    assert amounts.tasks == (6, 6) and amounts.placement == ((5, 1), (1, 5))
    first = allocate("drfh-firstfit", PAPER)
    assert first.tasks == (6, 6) and [s["machine"] for s in first.extra["order"]][:2] == ["m1", "m1"]
    assert all(isinstance(x, F) for row in best.placement for x in row)


def test_bestfit_zero_first_component_divides_by_the_first_needed_resource():
    # A <0, 1> needs no CPU: both vectors are divided by their GB component. pooled <12, 12>: A (0, 1);
    # m1 <4, 8> -> (1/2, 1), H = 1/2; m2 <8, 4> -> (2, 1), H = 2: A goes to m1
    from fairlab.core.instance import Instance
    from fairlab.mechanisms.drfh_bestfit import fitness, reference

    inst = Instance.from_dict({"machines": [[4, 8], [8, 4]], "demands": [[0, 1], [1, 1]], "users": ["A", "B"]})
    assert reference(inst, 0) == 1 and reference(inst, 1) == 0
    assert [fitness(inst, 0, machine) for machine in inst.machines] == [F(1, 2), 2]
    assert [fitness(inst, 1, machine) for machine in inst.machines] == [1, F(1, 2)]
    a = allocate("drfh-bestfit", inst)
    assert a.extra["order"][0] == {"user": "A", "machine": "m1"} and a.extra["order"][1] == {"user": "B",
                                                                                          "machine": "m2"}


def test_firstfit_takes_the_first_server_that_fits():
    a = allocate("drfh-firstfit", TWO_SERVERS)
    assert [s["machine"] for s in a.extra["order"]] == ["m1", "m1", "m1", "m2", "m2", "m2"]
    assert a.tasks == (3, 3)


@pytest.mark.parametrize("name", ["drfh-bestfit", "drfh-bestfit-amounts", "drfh-firstfit"])
def test_bestfit_is_whole_tasks_and_stops_only_when_nothing_fits(name):
    a = allocate(name, FRAGMENTED)
    for demand in FRAGMENTED["demands"]:
        for k, machine in enumerate(FRAGMENTED["machines"]):
            load = [sum(a.placement[j][k] * FRAGMENTED["demands"][j][r] for j in range(2)) for r in range(2)]
            assert any(load[r] + demand[r] > machine[r] for r in range(2))


def test_drfh_placement_is_the_lab_tie_break_not_a_solver_vertex():
    """Two equal servers, two equal users: every split of 2 + 2 tasks reaches the leximin; the placement is the
    lexicographically greatest (A on the first server as far as it goes), on every HiGHS version."""
    a = allocate("drfh", {"machines": [[2], [2]], "demands": [[1], [1]], "users": ["A", "B"]})
    assert a.tasks == (2, 2)
    assert a.placement == ((2, 0), (0, 2))
