"""machines-gsp: coalitions on several machines, valued as machines-sp values a misreport; searched, never
proved; witnesses re-checked from scratch."""

from fractions import Fraction as F

from fairlab import properties
from fairlab.core.instance import Instance
from fairlab.properties.machines_gsp import gains, structured, widen

PROP = properties.get("machines-gsp")
ONE = {"machines": [[2, 2]], "demands": [[1, 1], [1, 1]]}


def test_an_over_report_that_pays_is_a_coalition_of_one():
    # machines-sp's hand example: A declares <2, 2>, holds <2, 2> on the one machine, runs 2 real tasks > 1
    r = properties.check("drf-machines", "machines-gsp", ONE)
    assert r.status == "violated" and r.witness.coalition == [0] and r.witness.gains == [1]
    assert PROP.verify("drf-machines", ONE, r.witness) and PROP.verify("drf-machines", ONE, r.witness.to_dict())
    assert not PROP.verify("drf-machines", ONE, {**r.witness.to_dict(), "gains": [2]})  # the gain is recomputed
    assert not PROP.verify("drf-machines", ONE, {"coalition": [0], "misreports": [[1, 1]], "gains": None})


def test_drfh_is_searched_and_never_proved():
    r = properties.check("drfh", "machines-gsp", ONE, evaluations=15)
    assert r.status == "none-found" and r.budget["misreports"] == 14 and "not a proof" in r.explanation


def test_the_rule_and_widening():
    before = (F(1), F(1), F(1))
    assert gains((True, False, False), before, (F(2), F(0), F(1)))
    assert not gains((True, True, False), before, (F(2), F(0), F(1)))  # the second member loses
    # a liar who keeps its tasks is joined by the truthful user who gains
    assert widen((True, False, False), before, (F(1), F(1), F(3, 2))) == (True, False, True)
    assert widen((True, False, False), before, (F(1, 2), F(1), F(3, 2))) is None  # the liar loses


def test_structured_over_reports_are_over_reports_and_distinct():
    inst = Instance.from_dict({"machines": [[4, 4], [2, 6]], "demands": [[1, 2], [2, 1], [1, 1]]})
    seen = list(structured(inst))
    assert len(seen) == len(set(seen)) and any(sum(f) == 2 for f, _ in seen[:30])
    for flags, rows in seen:
        for i, lying in enumerate(flags):
            assert all(a >= b for a, b in zip(rows[i], inst.demands[i]))
            assert lying == (tuple(rows[i]) != tuple(inst.demands[i]))


def test_the_audit_draws_the_coalitions_run():
    from fairlab import mechanisms
    from fairlab.audit.allocations import involved_allocations

    inst = Instance.from_dict(ONE)
    w = properties.check("drf-machines", "machines-gsp", inst).witness
    views = involved_allocations(mechanisms.get("drf-machines"), "machines-gsp", inst, w, {})
    assert [v["label"] for v in views] == ["allocation", "u1 declares <2, 2>"]
