"""Issue 27: the DRF paper's theorems proved on its own domain (every demand positive), with
positive controls that can fail inside it; rm refuted there. The cheaper sizes run by default,
the full grid is `slow`. No timings here: `benchmarks/bench_prove_domain.py` measures."""

from fractions import Fraction

import pytest
import z3

from fairlab import mechanisms, properties
from fairlab.core.instance import Instance
from fairlab.mechanisms.base import Constraint
from fairlab.properties.base import Violation
from fairlab.search import proof as P
from fairlab.search import prove

DRF = mechanisms.get("drf")


def _positive(instance: dict | None) -> bool:
    return instance is not None and all(Fraction(x) > 0 for row in instance["demands"] for x in map(str, row))


def _assert_proved_on_positive_demands(prop, n, m):
    result = prove(DRF, prop, n, m, positive_demands=True, domain="unweighted")
    assert result.status == "proved", result.explanation
    assert set(result.details["gates"].values()) == {"passed"}
    assert result.details["positive_demands"] is True
    assert "assumption: every demand strictly positive" in result.details["reductions"]
    control = result.certificate["control"]
    assert control["result"] == "sat"
    # the control exists inside the domain: its instance has every demand positive
    assert _positive(control["instance"]), control
    # it drops mechanism hypotheses only, never the domain, a reduction or the goal
    for name in control.get("dropped_together", [control["dropped"]]):
        assert name.split(":")[-1].startswith("drf."), name
    return result


def _grid(prop):
    users = range(2, 5) if prop in ("ef", "pm") else range(1, 5)  # one user: nobody to envy, nobody to leave
    resources = [1] if prop == "srf" else range(1, 4) if prop == "pm" else range(1, 5)  # srf: one resource
    return [(n, m) for n in users for m in resources]


CHEAP = [("si", 3, 2), ("ef", 2, 3), ("pe", 3, 2), ("pe", 2, 1), ("sp", 2, 2), ("sp", 3, 2), ("bf", 3, 2),
         ("srf", 3, 1), ("pm", 3, 2), ("pm", 2, 2)]


@pytest.mark.parametrize(("prop", "n", "m"), CHEAP, ids=[f"{p}-{n}x{m}" for p, n, m in CHEAP])
def test_drf_paper_theorems_on_positive_demands(prop, n, m):
    result = _assert_proved_on_positive_demands(prop, n, m)
    assert result.details["reductions"][-1].startswith("encoding: drf-normalised")


@pytest.mark.slow
@pytest.mark.parametrize(("prop", "n", "m"), [(p, n, m) for p in ("si", "ef", "pe", "sp", "bf", "srf", "pm")
                                              for n, m in _grid(p)])
def test_drf_paper_theorems_on_positive_demands_full_grid(prop, n, m):
    _assert_proved_on_positive_demands(prop, n, m)


def test_pe_control_widens_when_each_bottleneck_alone_implies_the_property():
    """With every demand positive any one user's bottleneck saturates a resource every user uses,
    so no single drop makes ¬pe satisfiable: the control drops the core's hypotheses in turn."""
    result = _assert_proved_on_positive_demands("pe", 3, 2)
    control = result.certificate["control"]
    assert len(control["dropped_together"]) > 1 and control["dropped"] == control["dropped_together"][0]
    assert control["dropped"] in result.certificate["core"]
    controls = [q for q in result.details["queries"] if q["stage"] == "control"]
    assert controls[-1]["dropped"] == ", ".join(control["dropped_together"]) and controls[-1]["result"] == "sat"


def test_rm_is_refuted_on_positive_demands_with_an_exact_positive_witness():
    result = prove(DRF, "rm", 2, 2, positive_demands=True, domain="unweighted")
    assert result.status == "refuted", result.explanation
    assert _positive(result.instance)
    violation = Violation("rm", DRF, Instance.from_dict(result.instance), result.witness, {})
    assert violation.verify()


def test_pm_with_a_zero_demand_is_still_refuted_exactly():
    """The relaxed pm encoding's SAT is no refutation by itself: it is confirmed on the instance."""
    result = prove(DRF, "pm", 3, 2, domain="unweighted")
    assert result.status == "refuted"
    assert not _positive(result.instance)
    assert Violation("pm", DRF, Instance.from_dict(result.instance), result.witness, {}).verify()


def test_the_relaxed_pm_encoding_admits_a_real_departure_run():
    """Over-approximation: a real DRF run and its departure run (bundles e_k = t'_k d_k with the
    truthful rows normalised to t = 1) satisfy every constraint of the relaxed encoding but the
    violation (DRF is population monotone here)."""
    enc = P.STRATEGIES["drf-normalised"](DRF, "pm", 3, 2, {}, True)
    inst = Instance.from_dict({"capacities": [1, 1], "demands": [[4, 1], [1, 3], [2, 2]]})
    tasks = DRF(inst).tasks
    rows = [[t * x / c for x, c in zip(row, inst.capacities)] for t, row in zip(tasks, inst.demands)]
    rows = [rows[0], rows[1]] + sorted(rows[2:], key=max)
    order = sorted(range(2), key=lambda r: -rows[0][r])
    rows = [[row[r] for r in order] for row in rows]
    after = DRF(Instance.build([1, 1], rows[1:])).tasks  # user 0 leaves
    value = {f"d{i}_{r}": rows[i][r] for i in range(3) for r in range(2)}
    value.update({f"pm.without0.t{k}": after[k - 1] for k in (1, 2)})
    value.update({f"pm.without0.e{k}_{r}": after[k - 1] * rows[k][r] for k in (1, 2) for r in range(2)})
    subs = [(z3.Real(k), z3.RealVal(str(v))) for k, v in value.items()]
    truth = {c.name: z3.is_true(z3.simplify(z3.substitute(c.expr, *subs))) for c in enc.constraints}
    assert [name for name, ok in truth.items() if not ok] == ["pm.violated"]


def test_a_wrongly_negated_pe_cannot_pass_on_positive_demands(monkeypatch):
    """The widened control still needs ¬pe satisfiable within the domain: pe's rule replaced by
    False leaves no control, however much of the spec is dropped."""
    monkeypatch.setattr(properties.get("pe"), "rule", lambda *args, **kwargs: z3.BoolVal(False))
    result = prove(DRF, "pe", 3, 2, positive_demands=True, domain="unweighted")
    assert result.status == "unknown" and result.details["gates"]["positive-control"] == "failed"


@pytest.mark.parametrize("prop", ["pe", "sp"])
def test_a_symmetry_constraint_that_excludes_every_violation_is_caught_on_positive_demands(monkeypatch, prop):
    """A bogus 'reduction' in the base is never dropped, so the widened control cannot get round it."""
    real = P.STRATEGIES["drf-normalised"]

    def bogus(mechanism, prop_, n, m, options, positive_demands):
        enc = real(mechanism, prop_, n, m, options, positive_demands)
        d = [[z3.Real(f"d{i}_{r}") for r in range(m)] for i in range(n)]
        if prop_ == "pe":  # some resource saturated that every user uses: exactly "pe holds" here
            bad = z3.Or([z3.Sum([d[i][r] for i in range(n)]) == 1 for r in range(m)])
        else:  # the liar declares its true row
            bad = z3.And([z3.Real(f"sp.lie0_{r}") == d[0][r] for r in range(m)])
        enc.constraints.append(Constraint("symmetry.bogus", bad))
        enc.base.add("symmetry.bogus")
        return enc

    monkeypatch.setitem(P.STRATEGIES, "drf-normalised", bogus)
    result = prove(DRF, prop, 2, 2, positive_demands=True, domain="unweighted")
    assert result.status == "unknown", result
    assert result.details["gates"]["positive-control"] == "failed"


@pytest.mark.parametrize(("prop", "n", "m"), [("srf", 2, 2), ("ef", 1, 2), ("pm", 1, 2)])
def test_a_property_that_cannot_fail_at_a_size_is_not_proved_and_says_why(prop, n, m):
    result = prove(DRF, prop, n, m, positive_demands=True, domain="unweighted")
    assert result.status == "unknown" and result.details["gates"]["positive-control"] == "failed"
    assert f"¬{prop} is false at this size" in result.explanation
