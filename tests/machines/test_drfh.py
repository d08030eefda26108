"""drfh (leximin of global dominant shares over servers, exact LPs) and drfh-bestfit (the whole-task
heuristic), Wang, Liang & Li, lab's reading: hand-computed instances, exactness, and properties."""

from fractions import Fraction as F

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


def test_bestfit_trace_by_hand():
    # pooled <10, 12>; normalised A <1/10, 1/6>, B <1/5, 1/12>. A first (tie at 0, lower index): l1 distance to
    # m1 <4/10, 8/12> is 3/10 + 1/2 = 4/5, to m2 <6/10, 4/12> 1/2 + 1/6 = 2/3 -> m2; and so on.
    a = allocate("drfh-bestfit", TWO_SERVERS)
    assert [step["machine"] for step in a.extra["order"]][0] == "m2"
    assert a.tasks == (3, 3)
    assert all(x.denominator == 1 for row in a.placement for x in row)


def test_bestfit_is_whole_tasks_and_stops_only_when_nothing_fits():
    a = allocate("drfh-bestfit", FRAGMENTED)
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
