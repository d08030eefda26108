"""gsp, group strategyproofness: the rule (every member weakly gains, one strictly), coalitions no single
user forms, the witness (coalition, misreports, gains) re-checked from scratch, and the encoding's
coalition unknown."""

from fractions import Fraction as F

import pytest

from fairlab import properties
from fairlab.core.instance import Instance
from fairlab.mechanisms.base import SymbolicInstance
from fairlab.properties.base import solve
from fairlab.properties.gsp import gains, structured
from fairlab.properties.property import ExactView

THM4 = Instance.build([100, 100], [[16, 1], [1, 2]])
# with zero demands: u3 over-reports r2 (which u4 needs most), u4 stops earlier and u1, truthful, gains
ZEROS = Instance.build([20, 20, 20], [[11, 0, 0], [0, 7, 10], [7, 1, 10], [2, 11, 0]])
PROP = properties.get("gsp")


def test_a_coalition_of_one_is_strategyproofness():
    r = properties.check("ceei", "gsp", THM4, evaluations=60)
    assert r.status == "violated" and len(r.witness.coalition) == 1
    assert PROP.verify("ceei", THM4, r.witness)


def test_a_coalition_no_single_user_forms():
    r = properties.check("drf", "gsp", ZEROS, evaluations=60)
    assert r.status == "violated", r.explanation
    w = r.witness
    assert len(w.coalition) == 2 and all(F(str(g)) >= 0 for g in w.gains) and any(F(str(g)) > 0 for g in w.gains)
    assert PROP.verify("drf", ZEROS, w) and PROP.verify("drf", ZEROS, w.to_dict())
    # the twin: no user gains alone there (its own misreports, exactly: the members' rows one at a time)
    for k, i in enumerate(w.coalition):
        lie = [F(str(x)) for x in w.misreports[k]]
        assert not properties.get("sp").verify("drf", ZEROS, {"user": i, "misreport": lie})


def test_drf_holds_on_positive_demands_by_z3():
    r = properties.check("drf", "gsp", Instance.build([1, 1], [[1, 2], [2, 1], [1, 1]]))
    assert r.status == "holds" and r.budget["z3"] == "unsat"


def test_the_witness_is_rechecked_from_scratch():
    w = properties.check("drf", "gsp", ZEROS, evaluations=60).witness.to_dict()
    assert PROP.confirm("drf", ZEROS, w, {}) is not None
    assert PROP.confirm("drf", ZEROS, {**w, "gains": None}, {}) is not None  # gains may be left to the check
    wrong = {**w, "gains": ["1/2"] + w["gains"][1:]}
    assert PROP.confirm("drf", ZEROS, wrong, {}) is None  # a stated gain must be the recomputed one
    truthful = {**w, "misreports": [list(map(int, ZEROS.demands[i])) for i in w["coalition"]], "gains": None}
    assert PROP.confirm("drf", ZEROS, truthful, {}) is None  # nobody lies: nobody gains
    for bad in ({**w, "coalition": []}, {**w, "coalition": [0, 0]}, {**w, "coalition": [0, 9]},
                {**w, "coalition": w["coalition"][::-1]},
                {**w, "misreports": w["misreports"][:1]}, {**w, "gains": [0]}, {**w, "coalition": [True, 1]}):
        assert not PROP.verify("drf", ZEROS, bad)


def test_the_rule_needs_every_member_not_to_lose():
    inst = Instance.build([1], [[1], [1]])
    view = ExactView(inst)
    rows = ((F(1),), (F(1),))
    assert gains(view, (F(1, 2), F(1, 2)), (F(1, 4), F(3, 4)), ((False, True), rows))  # u2 alone gains
    assert not gains(view, (F(1, 2), F(1, 2)), (F(1, 4), F(3, 4)), ((True, True), rows))  # u1 loses
    assert gains(view, (F(1, 2), F(1, 2)), (F(1, 2), F(3, 4)), ((True, True), rows))  # u1 keeps, u2 gains
    assert not gains(view, (F(1, 2), F(1, 2)), (F(1, 2), F(1, 2)), ((True, True), rows))  # nobody gains


def test_the_encoding_is_sat_exactly_where_the_check_is_violated():
    for mech, inst, want in (("drf", ZEROS, "sat"), ("drf", THM4, "unsat"), ("ceei", THM4, "sat")):
        from fairlab import mechanisms

        m = mechanisms.get(mech)
        sym = SymbolicInstance.from_instance(inst)
        enc = PROP.encode(sym, m.spec)
        status, model = solve(sym.domain + enc.constraints, 60)
        assert status == want, (mech, status)
        if model is not None:
            assert PROP.verify(mech, inst, enc.witness(model))


def test_structured_candidates_reach_pairs_of_liars_early_and_once():
    inst = Instance.build([1, 1], [[1, 2], [2, 1], [1, 1]])
    seen = list(structured(inst))
    assert len(seen) == len(set(seen))
    first = seen[:40]
    assert any(sum(flags) == 2 for flags, _ in first) and any(sum(flags) == 1 for flags, _ in first)


@pytest.mark.parametrize("mechanism", ["drf", "asset"])
def test_within_a_domain_no_derived_instance_leaves_it(mechanism):
    r = properties.check(mechanism, "gsp", Instance.build([1, 1], [[1, 2], [2, 1]]), domain="drf-paper")
    assert r.status == "holds"
    assert properties.check("drf", "gsp", ZEROS, domain="all", evaluations=60).status == "violated"


def test_the_audit_draws_the_truthful_run_and_the_coalitions():
    """The audit's figures of a gsp finding: the truthful allocation and the coalition's (before the
    coalition caption: a TypeError, exit 3, on every audit whose shipped examples violate gsp)."""
    from fairlab import mechanisms
    from fairlab.audit.allocations import involved_allocations

    w = properties.check("drf", "gsp", ZEROS, evaluations=60).witness
    views = involved_allocations(mechanisms.get("drf"), "gsp", ZEROS, w, {})
    assert [v["label"] for v in views][0] == "truthful" and len(views) == 2
    assert all(f"u{i + 1} declares" in views[1]["label"] for i in w.coalition)


def test_the_impossibility_search_names_gsp_instead_of_dropping_it():
    from fairlab.core.errors import InputError
    from fairlab.search import impossibility

    assert "gsp" not in impossibility.PROPERTIES and "sp" in impossibility.PROPERTIES
    with pytest.raises(InputError, match="property 'gsp': not supported"):
        impossibility.search(["si", "gsp"])


def test_each_coalition_is_asked_with_its_members_tasks_fixed():
    """drf at 3 x 3 (positive demands, no caps): every one of the 7 coalitions has the scaling symmetry
    (`fairlab.core.scaling`), and the 3^|S| questions each decide it; the old single question gave up."""
    inst = Instance.build([9, 12, 10], [[1, 4, 2], [3, 1, 1], [2, 2, 5]])
    r = properties.check("drf", "gsp", inst, evaluations=1, rlimit=2_000_000)
    assert r.status == "holds" and r.budget["z3"] == "unsat"
    assert r.budget["z3_scaled"] == [[0], [1], [2], [0, 1], [0, 2], [1, 2], [0, 1, 2]]
    assert "coalitions [0], [1], [2]" in r.explanation


def test_z3_finds_the_coalition_of_two_in_a_fixed_case():
    r = properties.check("drf", "gsp", ZEROS, evaluations=1)  # one numeric candidate: z3 must find it
    assert r.status == "violated" and r.budget["z3"] == "sat" and r.budget.get("z3_scaled")
    assert len(r.witness.coalition) >= 2 and PROP.verify("drf", ZEROS, r.witness)
