"""sp's questions from a template built once per instance shape (`fairlab.properties._parametric`)
answer as the questions built at the instance, for every mechanism that sets `parametric_spec`;
a spec that tests a number in Python (a mutant) is caught by the same comparison."""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction as F

import pytest
import z3

from fairlab import mechanisms, properties
from fairlab.core.instance import Instance
from fairlab.core.solving import SolverBudget
from fairlab.mechanisms import drf as drf_module
from fairlab.properties import _parametric, _search
from fairlab.properties.base import Budget, Violation, solve_spent
from fairlab.search import space

PARAMETRIC = [name for name in mechanisms.names() if mechanisms.get(name).parametric_spec]
RLIMIT = 2_000_000


def budget() -> Budget:
    return Budget(time_limit=600.0, evaluations=60, seed=0, options={}, symbolic=True, rlimit=RLIMIT)


def instances(mech, sizes=((2, 2), (3, 2), (2, 3), (3, 3))) -> list[Instance]:
    """Random ones of the mechanism's domain (zero demands, weights, caps) at four sizes, and
    hand-written ones with thirds, a cap of 0 and a zero column."""
    drawn = [inst for n, m in sizes
             for inst in itertools.islice(space.random_instances(n, m, seed=7, domain=mech.domain), 4)]
    weights = [1, 2, 1] if mech.domain.weights == "scalar" else [[1, 2, 1], [3, 1, 1], [1, 1, 2]]
    drawn += [
        Instance.build([1, 1, 1], [[F(1, 3), F(2, 7), F(1, 21)], [F(1, 2), 0, F(1, 3)], [0, F(2, 3), F(1, 5)]],
                       weights=weights, max_tasks=[None, F(3, 2), None]),
        Instance.build([9, 18], [[1, 4], [3, 1], [F(1, 3), 0]], max_tasks=[0, None, 2]),
    ]
    return [inst for inst in drawn if mech.domain.contains(inst) is None]


def answers(mech, inst) -> list[tuple[str, str, str, object]]:
    """(label, template's answer, the instance's answer, the template's question) per question."""
    sp, b = properties.get("sp"), budget()
    made = _parametric.symbolic_at(sp, mech, inst, b, None)
    assert made is not None, "the template route applies"
    here = _search.symbolic_at(mech, inst, b, sp.questions)()
    ours = [q for q in made() if isinstance(q, _search.Question)]
    theirs = [q for q in here if isinstance(q, _search.Question)]
    mine = {q.label: q for q in ours}
    assert set(mine) <= {q.label for q in theirs}
    out = []
    for c in theirs:
        status_c = solve_spent(c.constraints, SolverBudget(seconds=600.0, rlimit=RLIMIT))[0]
        a = mine.get(c.label)
        if a is None:  # dropped from the template: false over the parameters, so unsat here
            out.append((c.label, "unsat", status_c, None))
            continue
        status_a = solve_spent(a.constraints, SolverBudget(seconds=600.0, rlimit=RLIMIT))[0]
        out.append((c.label, status_a, status_c, a))
    return out


def mismatches(mech, **sizes) -> tuple[list, int, int]:
    """Questions where one side is sat and the other unsat, how many both decided, and how many
    of those were sat (each sat template witness re-verified by a fresh exact run)."""
    wrong, decided, sat = [], 0, 0
    for inst in instances(mech, **sizes):
        for label, a, c, question in answers(mech, inst):
            if {a, c} == {"sat", "unsat"}:
                wrong.append((inst.to_dict(), label, a, c))
            if a in ("sat", "unsat") and a == c:
                decided += 1
            if a == c == "sat":
                sat += 1
                solver = z3.Solver()
                solver.add([x.expr for x in question.constraints])
                assert solver.check() == z3.sat
                witness = question.witness(solver.model())
                assert witness is not None
                assert Violation("sp", mech, inst, witness, {}).verify(), (inst.to_dict(), label, witness)
    return wrong, decided, sat


@pytest.mark.parametrize("name", PARAMETRIC)
def test_the_template_answers_as_the_instance(name):
    mech = mechanisms.get(name)
    wrong, decided, _ = mismatches(mech)
    assert not wrong
    assert decided >= 40


def test_a_violation_read_through_the_template_verifies(monkeypatch):
    """No flagged mechanism violates sp (drf and asset are strategyproof), so the sat side is shown
    with CEEI (DRF paper Theorem 4: not strategyproof) on unit weights, where its spec's only
    Python test (vector weights are declined) passes on numbers and parameters alike: the two
    sides agree, and each sat template question's witness, read with the instance's numbers
    substituted, is a violation a fresh exact run confirms."""
    ceei = dataclasses.replace(mechanisms.get("ceei"), parametric_spec=True)
    monkeypatch.setattr(_parametric, "is_builtin", lambda m: True)
    unit = dataclasses.replace(ceei, domain=dataclasses.replace(ceei.domain, weights="none"))
    wrong, _, sat = mismatches(unit, sizes=((2, 3),))
    assert not wrong and sat >= 1


def test_a_spec_that_tests_a_number_in_python_is_caught(monkeypatch):
    """Mutant: DRF's spec that, in Python, drops a user's bottleneck condition when one of its
    demands is the numeral 0. At the instance the condition goes; over parameters it stays (the
    test never sees a numeral): the comparison finds a sat against an unsat."""

    def mutant(sym, tasks):
        out = drf_module.spec(sym, tasks)
        zero = {i for i, row in enumerate(sym.demands)
                if any(z3.is_rational_value(d) and d.as_fraction() == 0 for d in row)}
        return [c for c in out if not any(c.name.endswith(f"bottleneck[{i}]") for i in zero)]

    mech = dataclasses.replace(mechanisms.get("drf"), name="drf", spec=mutant, parametric_spec=True)
    monkeypatch.setattr(_parametric, "is_builtin", lambda m: True)
    wrong, _, _ = mismatches(mech)
    assert wrong


def test_the_route_is_for_built_in_pool_instances_only():
    drf, b = mechanisms.get("drf"), budget()
    inst = Instance.build([1, 1], [[1, 2], [2, 1]])
    assert _parametric.applies(drf, inst, b)
    foreign = dataclasses.replace(drf, name="mine")
    assert not _parametric.applies(foreign, inst, b)
    assert not _parametric.applies(mechanisms.get("ceei"), inst, b)  # its spec tests weights in Python
    assert not _parametric.applies(drf, inst, dataclasses.replace(b, symbolic=False))


def test_a_template_check_decides_as_before():
    """The check through the template (z3 first) gives the verdict the instance's questions give."""
    inst = Instance.build([1, 1, 1], [[F(1, 3), F(2, 7), F(1, 21)], [F(1, 2), 0, F(1, 3)], [0, F(2, 3), F(1, 5)]],
                          weights=[1, 2, 1], max_tasks=[None, F(3, 2), None])
    v = properties.check("drf", "sp", inst)
    assert v.status == "holds" and v.exactness == "rational"
    assert "asked before any numeric candidate" in v.explanation and v.budget["z3_scaled"] == [0, 1, 2]


def test_two_properties_of_one_name_never_share_a_template():
    """Found by review: a property object of the same name with another rule (a weak gain counts)
    got the first one's cached questions and a false `holds`. A property that is not the lab's own
    registered one never takes the template route, and the cache is keyed by identity."""
    sp = properties.get("sp")
    inst = Instance.build([9, 18], [[1, 4], [3, 1]])

    def weak(view, i, before_i, after_i, deviation):
        return view.at_least(i, [after_i * d for d in deviation[1]], before_i)

    first = dataclasses.replace(sp, name="mysp")
    second = dataclasses.replace(sp, name="mysp", rule=weak)
    assert properties.check("drf", first, inst).status == "holds"
    assert properties.check("drf", second, inst).status == "violated"
    assert not first.z3_first(mechanisms.get("drf"), inst, budget())
    assert sp.z3_first(mechanisms.get("drf"), inst, budget())
