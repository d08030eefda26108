"""The ∃∀ impossibility search (`fairlab.search.impossibility`): joint systems built from the
properties' own rules, results as `Result`s, and a positive control behind every UNSAT."""

from __future__ import annotations

import json

import pytest
import z3

from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.core.results import Result, Status, to_dict
from fairlab.search import impossibility as imp


def _with_allocation(family, properties, tasks):
    """The joint system of a one-member family with the allocation fixed to `tasks`: sat / unsat."""
    constraints, variables = imp.joint_system(family, properties, indivisible=False)
    solver = z3.Solver()
    solver.add([expr for _, expr in constraints])
    solver.add([x == z3.RealVal(str(t)) for x, t in zip(variables[0], tasks)])
    return str(solver.check())


def test_the_equal_split_of_the_joint_system_is_weighted():
    """DRF paper §4.3 weights: with weights 1 and 2 on <12>, user 2 is entitled to 8 tasks, so <6, 6>
    breaks sharing incentive (the former joint system, c/n for everyone, accepted it)."""
    family = imp.Family([imp.Member("base", Instance.build([12], [[1], [1]], weights=[1, 2]))])
    assert _with_allocation(family, ["si"], [6, 6]) == "unsat"
    assert _with_allocation(family, ["si"], [4, 8]) == "sat"
    unweighted = imp.Family([imp.Member("base", Instance.build([12], [[1], [1]]))])
    assert _with_allocation(unweighted, ["si"], [6, 6]) == "sat"


def test_constraint_names_name_the_property_member_and_user():
    base = Instance.build([1, 1], [[2, 1], [1, 2]])
    family = imp.Family([imp.Member("base", base), imp.Member("r2x4", base.replace(capacities=[1, 4]), "rm")])
    names = [name for name, _ in imp.joint_system(family, ["si", "pe", "rm"], indivisible=False)[0]]
    assert {"si[base][0]", "pe[r2x4][1]", "rm[r2x4][0]", "feasible[base].capacity[1]"} <= set(names)


def test_search_returns_a_result_with_its_certificate_and_controls():
    result = imp.search(["si", "pe", "rm"], time_limit=30)
    assert isinstance(result, Result) and result.kind == "impossibility"
    assert result.status == Status.FOUND and result.property == "si+pe+rm"
    certificate = result.certificate
    assert set(certificate) == {"family", "core", "controls", "control_models"}
    assert certificate["controls"] == {"si": "sat", "pe": "sat", "rm": "sat"}  # the positive controls
    assert result.details["families_tried"] >= 1 and result.details["indivisible"] is False
    assert "core of" in result.explanation == imp.describe(result)
    document = json.loads(json.dumps(to_dict(result)))
    assert document["schema_version"] and document["certificate"]["family"][0]["label"] == "base"
    # the family re-verifies on its own: unsat with every property, sat with each one dropped
    family = certificate["family"]
    assert imp.solve(family, ["si", "pe", "rm"], indivisible=False)[0] == "unsat"
    for dropped in ("si", "pe", "rm"):
        assert imp.solve(family, [p for p in ("si", "pe", "rm") if p != dropped], indivisible=False)[0] == "sat"


def test_the_lecture_indivisible_impossibility_is_found_with_controls():
    result = imp.search(["si", "pe", "sp"], indivisible=True, time_limit=30)
    assert result.status == "found"
    assert result.certificate["controls"] == {"si": "sat", "pe": "sat", "sp": "sat"}
    assert any(name.startswith("sp[") for name in result.certificate["core"])


def test_nothing_found_is_not_found_or_unknown_never_found():
    result = imp.search(["si", "pe", "sp"], indivisible=False, time_limit=3)
    assert result.status in ("not-found", "unknown") and result.certificate is None


def test_bad_property_sets_are_one_line_errors():
    with pytest.raises(InputError, match="needs one of rm, sp, pm"):
        imp.search(["si", "pe"])
    with pytest.raises(InputError, match="property 'xx'"):
        imp.search(["si", "xx"])


# --------------------------------------------------------------------------- well-formed families
@pytest.mark.parametrize("generator", sorted(imp.GENERATORS))
def test_every_generated_family_stands_in_its_stated_relations(generator):
    families = list(imp.GENERATORS[generator]())
    assert families
    for family in families:
        assert imp.family_error(family) is None, family.to_dict()


def _base():
    return Instance.build([1, 1], [[1, 2], [2, 1], [1, 1]])


@pytest.mark.parametrize("member, words", [
    (lambda b: imp.Member("grow", b.replace(capacities=[2, 2], demands=[[9, 9], [9, 9], [9, 9]]), "rm"),
     "base's users"),
    (lambda b: imp.Member("grow", b.replace(capacities=[2, 2, 2], demands=[[1, 2, 1], [2, 1, 1], [1, 1, 1]]), "rm"),
     "base's users"),
    (lambda b: imp.Member("shrink", b.replace(capacities=[2, "1/2"]), "rm"), "at least the base's"),
    (lambda b: imp.Member("same", b, "rm"), "increase some capacity"),
    (lambda b: imp.Member("lie", b.replace(demands=[[2, 2], [1, 1], [1, 1]]), "sp", 0), "only user 0's demands"),
    (lambda b: imp.Member("truth", b, "sp", 0), "must change user 0's demands"),
    (lambda b: imp.Member("lie", b.replace(demands=[[2, 2], [2, 1], [1, 1]]), "sp", 3), "user index"),
    (lambda b: imp.Member("left", b.replace(demands=[[1, 2], [1, 1]]), "pm", 0), "without exactly user 0"),
    (lambda b: imp.Member("again", b, "base"), "only for the first member"),
    (lambda b: imp.Member("odd", b.replace(capacities=[2, 2]), "grow"), "unknown relation"),
])
def test_a_member_not_in_its_stated_relation_is_refused_before_solving(member, words):
    base = _base()
    family = imp.Family([imp.Member("base", base), member(base)])
    assert words in imp.family_error(family)
    with pytest.raises(InputError, match="impossibility family"):
        imp.joint_system(family, ["si", "rm", "sp", "pm"], indivisible=False)
    with pytest.raises(InputError, match="impossibility family"):
        imp.check_family(family, ["si", "rm"], indivisible=False)


def test_well_formed_members_of_each_relation():
    base = _base()
    family = imp.Family([
        imp.Member("base", base),
        imp.Member("grow", base.replace(capacities=[1, 3]), "rm"),
        imp.Member("lie", base.replace(demands=[[1, 2], [1, 1], [1, 1]]), "sp", 1),
        imp.Member("left", base.replace(demands=[[1, 2], [1, 1]]), "pm", 1),
    ])
    assert imp.family_error(family) is None
