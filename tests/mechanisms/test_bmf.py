"""Bottleneck max fairness (mechanisms/bmf.py): Bonald & Roberts §2.4 values, uniqueness on two
resources, BMF = PF for n = J = 2, weights and caps, and numeric vs symbolic agreement."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairlab.core.errors import InputError
from fairlab.core.exact import z3_value
from fairlab.core.instance import Instance
from fairlab.mechanisms import REGISTRY, allocate, bmf, conformance, get
from fairlab.mechanisms.base import SymbolicInstance

# B&R §2.4: three unit-capacity resources, requirement vectors (1,1,1), (1,1/2,3/4), (1/2,1,3/4).
THREE = Instance.build([1, 1, 1], [[1, 1, 1], [1, "1/2", "3/4"], ["1/2", 1, "3/4"]])


def phi(x: F) -> tuple[F, F, F]:
    """B&R §2.4's family φ(x) = (2/5 - x/15, 2/5 + 2x/45, 2/5 + 2x/45), BMF for 0 <= x <= 1."""
    return (F(2, 5) - x / 15, F(2, 5) + 2 * x / 45, F(2, 5) + 2 * x / 45)


def spec_holds(instance: Instance, tasks) -> bool:
    """Does bmf.spec accept `tasks` on `instance`? (z3, exact; no timeout on these tiny queries)."""
    sym = SymbolicInstance.from_instance(instance)
    ts = [z3.Real(f"t{i}") for i in range(instance.n)]
    solver = z3.Solver()
    solver.add(*[c.expr for c in bmf.spec(sym, ts)])
    solver.add(*[t == z3_value(F(v)) for t, v in zip(ts, tasks)])
    verdict = solver.check()
    assert verdict != z3.unknown
    return verdict == z3.sat


# --------------------------------------------------------------------------- B&R §2.4 example
def test_paper_endpoints_are_bmf():
    assert phi(F(0)) == (F(2, 5), F(2, 5), F(2, 5))
    assert phi(F(1)) == (F(1, 3), F(4, 9), F(4, 9))
    first, second = bmf.is_bmf(THREE, phi(F(0))), bmf.is_bmf(THREE, phi(F(1)))
    assert first.holds and second.holds
    # witnesses: at φ(0) user 1 is maximal on r1 (ties), user 3 on r2; at φ(1) user 1 only on r3
    assert first.bottlenecks == (0, 0, 1)
    assert second.bottlenecks == (2, 0, 1)


@pytest.mark.parametrize("x", [F(0), F(1, 7), F(1, 3), F(1, 2), F(5, 6), F(99, 100), F(1)])
def test_paper_segment_is_bmf(x):
    assert bmf.is_bmf(THREE, phi(x)).holds
    assert spec_holds(THREE, phi(x))


@pytest.mark.parametrize("x", [F(-1, 100), F(-1, 10**6), F(1) + F(1, 10**6), F(101, 100), F(2)])
def test_paper_segment_ends_exactly_at_0_and_1(x):
    check = bmf.is_bmf(THREE, phi(x))
    assert not check.holds
    assert "no bottleneck" in check.reason
    assert not spec_holds(THREE, phi(x))


def test_paper_example_is_not_unique():
    u = bmf.uniqueness(THREE)
    assert u.unique is False
    first, second = u.allocations
    assert first != second
    assert bmf.is_bmf(THREE, first).holds and bmf.is_bmf(THREE, second).holds
    assert all(isinstance(v, F) for v in first + second)


def test_paper_family_is_the_whole_bmf_set():
    """Every feasible mapping polytope lies on B&R's segment {φ(x) : 0 <= x <= 1} (the line
    2φ1 + 3φ2 = 2, φ2 = φ3, 1/3 <= φ1 <= 2/5), and one of them is the whole segment."""
    from fairlab.core.lp import solve_lp

    model = bmf._Model.of(THREE)
    mappings = bmf.enumerate_mappings(THREE).mappings
    assert len(mappings) == 6

    def extremes(polytope, objective):
        a_ub, b_ub, a_eq, b_eq, upper = polytope
        return tuple(
            solve_lp(objective, a_ub, b_ub, a_eq, b_eq, upper=upper, maximize=mx).value for mx in (False, True)
        )

    ranges = []
    for mapping in mappings:
        polytope = bmf._polytope(model, mapping)
        assert extremes(polytope, [2, 3, 0]) == (2, 2)
        assert extremes(polytope, [0, 1, -1]) == (0, 0)
        low, high = extremes(polytope, [1, 0, 0])
        assert F(1, 3) <= low <= high <= F(2, 5)
        ranges.append((low, high))
    assert (F(1, 3), F(2, 5)) in ranges


def test_paper_example_allocation_is_leximin_and_recorded():
    a = allocate("bmf", THREE)
    # φ(0) has least dominant share 2/5 > 1/3 = least share of φ(1): the leximin rule picks φ(0).
    assert a.tasks == (F(2, 5), F(2, 5), F(2, 5))
    assert a.extra["rule"] == bmf.RULE
    assert a.extra["feasible_mappings"] == 6
    assert a.extra["bottlenecks"] == ["r1", "r1", "r2"]
    assert a.to_dict()["feasible_mappings"] == 6


def test_allocation_does_not_depend_on_user_order():
    """The rule is a function of the BMF set: permuting users permutes the answer."""
    perm = [2, 0, 1]
    permuted = Instance.build([1, 1, 1], [THREE.demands[i] for i in perm])
    a, b = allocate("bmf", THREE), allocate("bmf", permuted)
    assert b.tasks == tuple(a.tasks[i] for i in perm)


# --------------------------------------------------------------------------- two resources, PF
def test_two_users_two_resources_pf_example():
    """B&R §2.3/§2.4: a1 = (1/2, 1), a2 = (1, 1/2): PF = BMF = (2/3, 2/3)."""
    inst = Instance.build([1, 1], [["1/2", 1], [1, "1/2"]])
    assert allocate("bmf", inst).tasks == (F(2, 3), F(2, 3))
    assert bmf.uniqueness(inst).unique is True


def test_two_users_manipulation_values_match_pf():
    """B&R §2.3: claiming a1 = (2/3, 1) moves PF to (3/4, 1/2); a1 = (1, 1) gives (1/2, 1/2)."""
    assert allocate("bmf", Instance.build([1, 1], [["2/3", 1], [1, "1/2"]])).tasks == (F(3, 4), F(1, 2))
    assert allocate("bmf", Instance.build([1, 1], [[1, 1], [1, "1/2"]])).tasks == (F(1, 2), F(1, 2))


share = st.sampled_from([F(0), F(1, 4), F(1, 2), F(3, 4), F(1), F(2)])


@st.composite
def instances(draw, n_range=(1, 3), m_range=(1, 3), weights=True, caps=True):
    n = draw(st.integers(*n_range))
    m = draw(st.integers(*m_range))
    demands = [[draw(share) for _ in range(m)] for _ in range(n)]
    for row in demands:
        if not any(row):
            row[draw(st.integers(0, m - 1))] = F(1)
    capacities = [draw(st.sampled_from([1, 2, 3])) for _ in range(m)]
    w = [draw(st.sampled_from([1, 2, 3])) for _ in range(n)] if weights and draw(st.booleans()) else None
    t = [draw(st.sampled_from([None, F(1, 3), F(1)])) for _ in range(n)] if caps and draw(st.booleans()) else None
    return Instance.build(capacities, demands, weights=w, max_tasks=t)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(n_range=(1, 4), m_range=(2, 2), weights=False, caps=False))
def test_two_resources_bmf_is_unique(inst):
    """B&R §2.4: "a system with 2 resources has a unique BMF allocation"."""
    u = bmf.uniqueness(inst)
    assert u.unique is True
    assert u.allocations == (allocate("bmf", inst).tasks,)


@pytest.mark.skipif("ceei" not in REGISTRY, reason="mechanism ceei (PF) not available in this tree")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(n_range=(2, 2), m_range=(2, 2), weights=False, caps=False))
def test_bmf_equals_pf_for_two_users_two_resources(inst):
    """B&R §2.4: "BMF coincides with PF for n = 2 and J = 2"."""
    assert allocate("bmf", inst).tasks == allocate("ceei", inst).tasks


# --------------------------------------------------------------------------- weights and caps
def test_weights_divide_the_amounts():
    # one resource: φ2 / 2 = φ1 and φ1 + φ2 = 1
    inst = Instance.build([1], [[1], [1]], weights=[1, 2])
    assert allocate("bmf", inst).tasks == (F(1, 3), F(2, 3))
    assert bmf.uniqueness(inst).unique is True


def test_capped_user_is_satisfied_at_its_cap():
    inst = Instance.build([1], [[1], [1]], max_tasks=["1/4", None])
    a = allocate("bmf", inst)
    assert a.tasks == (F(1, 4), F(3, 4))
    assert a.extra["bottlenecks"] == ["cap", "r1"]
    assert bmf.is_bmf(inst, [F(1, 4), F(3, 4)]).bottlenecks == ("cap", 0)
    # below its cap with the resource not saturated, user 1 has a complaint
    assert not bmf.is_bmf(inst, [F(1, 5), F(3, 4)]).holds


def test_identical_users_share_one_bottleneck_choice():
    inst = Instance.build([6, 6], [[1, 2], [1, 2], [2, 1]])
    a = allocate("bmf", inst)
    assert a.extra["user_groups"] == 2
    # users 1, 2 (φ each) on r2, user 3 on r1, both saturated: φ + φ + 2φ3 = 6 and 2φ + 2φ + φ3 = 6
    # -> φ = 1, φ3 = 2; on r2 everybody gets 2 units (ties are maximal), on r1 user 3 gets 4 > 1.
    assert a.tasks == (F(1), F(1), F(2))
    assert bmf.is_bmf(inst, a.tasks).holds


# --------------------------------------------------------------------------- membership edge cases
def test_is_bmf_rejects_infeasible_and_bad_input():
    assert "over capacity" in bmf.is_bmf(THREE, [1, 1, 1]).reason
    assert "negative" in bmf.is_bmf(THREE, [-1, 1, 1]).reason
    with pytest.raises(InputError, match="tasks"):
        bmf.is_bmf(THREE, [1, 1])
    with pytest.raises(InputError, match=r"tasks\[1\]"):
        bmf.is_bmf(THREE, [1, "x", 1])


def test_registered_as_set_valued():
    m = get("bmf")
    assert m.single_valued is False
    assert "is_bmf" in m.summary and "uniqueness" in m.summary


# --------------------------------------------------------------------------- numeric vs symbolic
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_numeric_allocation_satisfies_spec(inst):
    result = conformance.check(get("bmf"), inst)
    assert result.details["satisfies"] == "yes"
    assert bmf.is_bmf(inst, allocate("bmf", inst).tasks).holds


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.lists(st.sampled_from([F(0), F(1, 5), F(1, 3), F(1, 2), F(2, 3), F(1)]), min_size=4, max_size=4))
def test_is_bmf_agrees_with_spec(inst, raw):
    a = allocate("bmf", inst)
    candidates = [a.tasks, tuple(raw[: inst.n]), tuple(t * F(9, 10) for t in a.tasks)]
    candidates.append(allocate("drf", inst).tasks)
    candidates += list(bmf.uniqueness(inst).allocations)
    for tasks in candidates:
        assert bmf.is_bmf(inst, tasks).holds == spec_holds(inst, tasks)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(n_range=(2, 3), m_range=(2, 3)))
def test_every_bmf_point_lies_in_an_enumerated_polytope(inst):
    """Completeness of the enumeration: z3 finds no spec-satisfying allocation outside every P_σ."""
    sym = SymbolicInstance.from_instance(inst)
    ts = [z3.Real(f"t{i}") for i in range(inst.n)]
    solver = z3.Solver()
    solver.add(*[c.expr for c in bmf.spec(sym, ts)])
    for mapping in bmf.enumerate_mappings(inst).mappings:
        a_ub, b_ub, a_eq, b_eq, upper = bmf._polytope(bmf._Model.of(inst), mapping)
        inside = [z3.Sum([z3_value(c) * t for c, t in zip(row, ts)]) <= z3_value(b) for row, b in zip(a_ub, b_ub)]
        inside += [z3.Sum([z3_value(c) * t for c, t in zip(row, ts)]) == z3_value(b) for row, b in zip(a_eq, b_eq)]
        solver.add(z3.Not(z3.And(inside)))
    assert solver.check() == z3.unsat


def test_solver_unknown_is_never_an_answer(monkeypatch):
    """A z3 'unknown' during the enumeration raises instead of returning an incomplete BMF set."""
    monkeypatch.setattr(z3.Solver, "check", lambda self, *a: z3.unknown)
    with pytest.raises(bmf.SolverUndecided):
        allocate("bmf", THREE)
    with pytest.raises(bmf.SolverUndecided):
        bmf.uniqueness(THREE)
