"""DRF, asset fairness, Kalai–Smorodinsky and max-min: exact values from the sources, and the
numeric allocator agreeing with the symbolic (bottleneck) specification on random instances."""

from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairlab.core.errors import InputError
from fairlab.mechanisms import allocate, conformance, get

PAPER = {"capacities": [9, 18], "demands": [[1, 4], [3, 1]]}


def test_drf_paper_example():
    """DRF paper §4.1: A runs 3 tasks <3 CPU, 12 GB>, B 2 tasks <6 CPU, 2 GB>, dominant shares 2/3."""
    a = allocate("drf", PAPER)
    assert a.tasks == (3, 2)
    assert a.bundles == ((3, 12), (6, 2))
    assert a.dominant_shares == (F(2, 3), F(2, 3))
    assert a.utilisation == (1, F(7, 9))


def test_weighted_drf_scalar_and_vector():
    """§4.3: with scalar weights the dominant shares are in ratio w_A : w_B."""
    a = allocate("drf", {**PAPER, "weights": [1, 2]})
    assert a.dominant_shares[1] == 2 * a.dominant_shares[0]
    # s_B = y/3 = 2 s_A = 4x/9 and the CPU binds: x + 3y = 9 -> x = 9/5, y = 12/5.
    assert a.tasks == (F(9, 5), F(12, 5))
    # vector weights with all entries equal behave like scalar weights
    b = allocate("drf", {**PAPER, "weights": [[1, 1], [2, 2]]})
    assert b.tasks == a.tasks


def test_drf_zero_demands_keep_growing_after_saturation():
    """A user that does not need the saturated resource keeps growing (appendix A.1 rounds)."""
    a = allocate("drf", {"capacities": [10, 10], "demands": [[1, 0], [1, 1], [0, 1]]})
    # every resource has two users growing at the same dominant-share rate: both saturate at 1/2
    assert a.tasks == (5, 5, 5)
    b = allocate("drf", {"capacities": [10, 20], "demands": [[1, 0], [1, 1]]})
    # r1 saturates first (both use it): shares t = 1/2 each -> 5 and 5 tasks
    assert b.tasks == (5, 5)
    c = allocate("drf", {"capacities": [10, 10], "demands": [[2, 0], [1, 0], [0, 1]]})
    # r1 saturates with 2x = y (equal dominant shares) and 2x + y = 10; user 3 alone on r2 gets all of it
    assert c.tasks == (F(5, 2), 5, 10)


def test_drf_task_caps_free_resources_for_others():
    a = allocate("drf", {**PAPER, "max_tasks": [1, None]})
    assert a.tasks == (1, F(8, 3))
    assert allocate("drf", {**PAPER, "max_tasks": [0, 0]}).tasks == (0, 0)


def test_asset_fairness_examples():
    """DRF paper §5.1 (x = 2.52, y = 2.16) and the allocations inside Theorems 1-3."""
    assert allocate("asset", PAPER).tasks == (F(63, 25), F(54, 25))
    assert allocate("asset", {"capacities": [30, 30], "demands": [[1, 3], [1, 1]]}).tasks == (6, 12)
    assert allocate("asset", {"capacities": [21, 21], "demands": [[3, 2], [4, 1]]}).tasks == (3, 3)
    thm3 = {"capacities": [77, 77], "demands": [[4, 2], [1, 1]]}
    assert allocate("asset", thm3).bundles == ((44, 22), (33, 33))
    assert allocate("asset", {**thm3, "capacities": [77, 154]}).bundles == ((42, 21), (35, 35))


def test_asset_rejects_vector_weights():
    with pytest.raises(InputError, match="scalar weight"):
        allocate("asset", {**PAPER, "weights": [[1, 2], [1, 1]]})


def test_maxmin_notes_example():
    """Notes: demands 2, 2.6, 4, 5 on capacity 10 -> 2, 2.6, 2.7, 2.7."""
    a = allocate("maxmin", {"capacities": [10], "demands": [[1]] * 4, "max_tasks": [2, "2.6", 4, 5]})
    assert a.tasks == (2, F(13, 5), F(27, 10), F(27, 10))


def test_maxmin_is_single_resource():
    with pytest.raises(InputError, match="single-resource"):
        allocate("maxmin", PAPER)


def test_ks_equals_drf_without_caps_and_differs_with_them():
    assert allocate("ks", PAPER).tasks == allocate("drf", PAPER).tasks
    capped = {**PAPER, "max_tasks": [2, None]}
    # normalised utilities x/2 = y/3, CPU binds: x + 3y = 9 -> x = 18/11, y = 27/11
    assert allocate("ks", capped).tasks == (F(18, 11), F(27, 11))
    assert allocate("drf", capped).tasks == (2, F(7, 3))


def test_lecture_poll_proportional_guarantee():
    """Lecture poll: 60 CPUs, 30 GB, d1=(2,5), d2=d3=(2,1): the equal split gives u1 = 2, u2 = u3 = 10."""
    from fairlab.core.instance import Instance

    inst = Instance.load("lecture-poll")
    split = [c / inst.n for c in inst.capacities]
    u = [min(split[r] / d for r, d in enumerate(row) if d > 0) for row in inst.demands]
    assert u == [2, 10, 10]


def test_unknown_option_and_mechanism():
    with pytest.raises(InputError, match="not an option"):
        allocate("drf", PAPER, colour="red")
    with pytest.raises(InputError, match="unknown"):
        allocate("nope", PAPER)


# ---------------------------------------------------------------- numeric vs symbolic
def instances(max_n=3, max_m=3, caps=True, weights=True, one_resource=False):
    @st.composite
    def build(draw):
        n = draw(st.integers(1, max_n))
        m = 1 if one_resource else draw(st.integers(1, max_m))
        caps_ = [draw(st.integers(1, 6)) for _ in range(m)]
        rows = []
        for _ in range(n):
            row = [draw(st.integers(0, 4)) for _ in range(m)]
            if not any(row):
                row[draw(st.integers(0, m - 1))] = draw(st.integers(1, 4))
            rows.append(row)
        data = {"capacities": caps_, "demands": rows}
        if caps and draw(st.booleans()):
            data["max_tasks"] = [draw(st.one_of(st.none(), st.integers(0, 3))) for _ in range(n)]
        if weights and draw(st.booleans()):
            data["weights"] = [draw(st.integers(1, 3)) for _ in range(n)]
        return data

    return build()


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", ["drf", "asset", "ks"])
@SETTINGS
@given(data=instances())
def test_numeric_matches_symbolic(name, data):
    result = conformance.check(get(name), __import__("fairlab.core.instance").core.instance.Instance.from_dict(data))
    assert result.details["satisfies"] == "yes"
    assert result.details["unique"] == "yes", result.certificate["other"]


@SETTINGS
@given(data=instances(max_n=4, one_resource=True))
def test_maxmin_numeric_matches_symbolic_and_equals_drf(data):
    from fairlab.core.instance import Instance

    inst = Instance.from_dict(data)
    result = conformance.check(get("maxmin"), inst)
    assert result.details["satisfies"] == "yes" and result.details["unique"] == "yes"
    assert allocate("maxmin", inst).tasks == allocate("drf", inst).tasks  # single-resource fairness


def test_spec_rejects_a_wrong_allocation():
    """Control: the spec is not vacuous — it refuses the asset-fairness allocation as DRF."""
    import z3

    from fairlab.core.exact import z3_value
    from fairlab.core.instance import Instance
    from fairlab.mechanisms.base import SymbolicInstance

    inst = Instance.from_dict(PAPER)
    sym = SymbolicInstance.from_instance(inst)
    tasks = [z3.Real("a"), z3.Real("b")]
    s = z3.Solver()
    s.add(*[c.expr for c in get("drf").spec(sym, tasks)])
    s.add(tasks[0] == z3_value(F(63, 25)), tasks[1] == z3_value(F(54, 25)))
    assert s.check() == z3.unsat


def test_conformance_catches_a_spec_missing_a_constraint():
    """Control for the uniqueness check: drop one user's bottleneck condition and another
    allocation becomes admissible."""
    from fairlab.core.instance import Instance
    from fairlab.mechanisms.base import Mechanism

    drf = get("drf")
    broken = Mechanism(name="drf-broken", summary="", source="", allocate=drf.allocate,
                       spec=lambda sym, tasks: drf.spec(sym, tasks)[:-1])
    result = conformance.check(broken, Instance.load("thm5-ceei-pm"))
    assert result.details["satisfies"] == "yes" and result.details["unique"] == "no"
    assert result.certificate["other"] is not None
