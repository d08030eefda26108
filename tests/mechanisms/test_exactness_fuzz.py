"""Exactness fuzz (issue 35): every mechanism form — a built-in, a plain callable, an LP plug-in (one LP
and a progressive-filling generator), a lottery on machines, a plug-in property — on seeded instances
whose numbers are 1/3, 1/7, 2/3, ratios at the 10^-12 scale and large coprime integers. Each allocation
and each verdict is re-checked by an exact computation written here (plain Fractions from the numbers'
text, not the code path under test); the float-written twins must decide nothing."""

import random
from fractions import Fraction as F
from pathlib import Path

import pytest

pytest.importorskip("pulp")

from fairlab import mechanisms, properties
from fairlab.core.instance import Instance

ROOT = Path(__file__).parents[2]
PLUGINS = ROOT / "tests" / "plugins"
LP = PLUGINS / "lp_exact.py"
FILLING = ROOT / "examples" / "lp" / "filling.py"

#: the numbers the fuzz draws from (as text, read by the test with Fraction: independent of the lab's reader)
POOL = ["1/3", "1/7", "2/3", "1/1000000000000", "3/7000000000000", "2/3000000000000", "1000000007", "998244353",
        "999999937", "7919"]


def drawn(seed: int, n: int = 2, m: int = 2) -> tuple[list[str], list[list[str]]]:
    rng = random.Random(seed)
    return [rng.choice(POOL) for _ in range(m)], [[rng.choice(POOL) for _ in range(m)] for _ in range(n)]


CASES = [drawn(seed) for seed in range(6)] + [drawn(seed, 3, 2) for seed in range(6, 9)]


def exact(caps, demands):
    return [F(c) for c in caps], [[F(d) for d in row] for row in demands]


def feasible(caps, demands, tasks) -> bool:
    return all(t >= 0 for t in tasks) and all(
        sum(t * row[r] for t, row in zip(tasks, demands)) <= caps[r] for r in range(len(caps)))


def drf_tasks(caps, demands):
    """DRF with positive demands: every user demands every resource, so the first resource to fill
    stops everyone: equal dominant shares s, the largest that fits."""
    per_task = [max(d / c for d, c in zip(row, caps)) for row in demands]
    s = min(c / sum(row[r] / p for row, p in zip(demands, per_task)) for r, c in enumerate(caps))
    return [s / p for p in per_task]


def si_holds(caps, demands, tasks) -> bool:
    n = len(demands)
    return all(t >= min(c / n / d for c, d in zip(caps, row)) for t, row in zip(tasks, demands))


def pe_holds(caps, demands, tasks) -> bool:
    """Positive demands: Pareto efficient iff every user uses some resource that is full."""
    full = [r for r in range(len(caps)) if sum(t * row[r] for t, row in zip(tasks, demands)) == caps[r]]
    return all(any(row[r] > 0 for r in full) for row in demands)


def equal_split(inst):
    return [min(c / inst.n / d for c, d in zip(inst.capacities, row)) for row in inst.demands]


FORMS = {
    "built-in drf": ("drf", drf_tasks),
    "plain callable": (equal_split,
                       lambda caps, dem: [min(c / len(dem) / d for c, d in zip(caps, row)) for row in dem]),
    "LP equal tasks": (f"{LP}:equal_tasks",
                       lambda caps, dem: [min(c / sum(row[r] for row in dem) for r, c in enumerate(caps))] * len(dem)),
    "LP filling drf": (f"{FILLING}:drf", drf_tasks),
}


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("case", range(len(CASES)))
def test_every_form_is_exact_and_its_verdicts_recheck(form, case):
    mech, expected = FORMS[form]
    caps_text, demands_text = CASES[case]
    inst = Instance.build(caps_text, demands_text)
    caps, demands = exact(caps_text, demands_text)
    a = mechanisms.allocate(mech, inst)
    assert a.exactness == "rational" and all(type(t) is F for t in a.tasks)
    assert list(a.tasks) == expected(caps, demands)
    assert feasible(caps, demands, a.tasks)
    for prop, direct in (("si", si_holds), ("pe", pe_holds)):
        verdict = properties.check(mech, prop, inst, evaluations=20)
        assert verdict.status.value == ("holds" if direct(caps, demands, a.tasks) else "violated"), \
            (prop, verdict.explanation)


@pytest.mark.parametrize("case", range(0, len(CASES), 2))
def test_float_written_twins_decide_nothing(case):
    caps_text, demands_text = CASES[case]
    inst = Instance.build(caps_text, demands_text)
    floats = lambda i: [min(float(c) / i.n / float(d) for c, d in zip(i.capacities, row)) for row in i.demands]  # noqa: E731
    a = mechanisms.allocate(floats, inst)
    assert a.exactness == "approximate"
    for prop in ("si", "pe"):
        assert properties.check(floats, prop, inst, evaluations=20).status.value == "unknown"


def lottery(inst):
    """Random dictatorship on machines: with probability 1/n, user i takes all it can on every machine."""
    n = inst.n
    placements = [[[min(machine[r] / inst.demands[i][r] for r in range(inst.m)) if i == dictator else 0
                    for machine in inst.machines] for i in range(n)] for dictator in range(n)]
    return {"lottery": [[F(1, n), p] for p in placements]}


lottery.setting = "machines"


@pytest.mark.parametrize("case", range(4))
def test_a_lottery_is_exact_and_its_expectation_rechecks(case):
    rng = random.Random(100 + case)
    machines = [[rng.choice(POOL) for _ in range(2)] for _ in range(2)]
    _, demands_text = drawn(200 + case)
    inst = Instance.build(machines=machines, demands=demands_text)
    a = mechanisms.allocate(lottery, inst)
    assert a.exactness == "rational" and sum(p for p, _ in a.lottery) == 1
    machines_f = [[F(v) for v in row] for row in machines]
    _, demands = exact(["1"], demands_text)
    want = [sum(min(k[r] / demands[i][r] for r in range(2)) for k in machines_f) / 2 for i in range(2)]
    assert list(a.tasks) == want and all(type(t) is F for t in a.tasks)


@pytest.mark.parametrize("case", range(0, len(CASES), 2))
def test_a_plugin_property_decides_exactly_and_its_float_twin_does_not(case):
    caps_text, demands_text = CASES[case]
    inst = Instance.build(caps_text, demands_text)
    caps, demands = exact(caps_text, demands_text)
    for mech in ("drf", f"{LP}:utilitarian"):
        tasks = mechanisms.allocate(mech, inst).tasks
        verdict = properties.check(mech, f"{PLUGINS / 'exact_properties.py'}:EXACT", inst)
        assert verdict.status.value == ("holds" if si_holds(caps, demands, tasks) else "violated"), verdict.explanation
        floated = properties.check(mech, f"{PLUGINS / 'exact_properties.py'}:FLOATS", inst)
        assert floated.status.value == "unknown" and "float" in floated.explanation
