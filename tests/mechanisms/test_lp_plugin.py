"""LP mechanisms written in pulp (issue 29): solved exactly by the lab (pulp's solver never runs),
the tasks read from the variables tasks_i, the spec derived from the LPs' optimality conditions.
DRF and asset fairness written as progressive-filling LPs (examples/lp/filling.py) give the
built-ins' allocations and the built-ins' proof verdicts."""

import json
from fractions import Fraction as F
from pathlib import Path

import pytest

pytest.importorskip("pulp")

import fairlab
from fairlab import mechanisms
from fairlab.core.errors import InputError, PluginError
from fairlab.core.instance import Instance, examples

ROOT = Path(__file__).parents[2]
FILLING = ROOT / "examples" / "lp" / "filling.py"
SMALL = ROOT / "tests" / "plugins" / "lp_small.py"


def regression_instances():
    """The shipped examples of the pool setting and the instances of the shipped fixtures."""
    out = []
    for name, path in sorted(examples().items()):
        inst = Instance.load(path)
        if inst.setting == "pool":
            out.append((name, inst))
    for path in sorted((ROOT / "counterexamples" / "fixtures").glob("*.json")):
        raw = json.loads(path.read_text())
        try:
            inst = Instance.from_dict(raw["instance"])
        except (InputError, KeyError, TypeError):
            continue
        if inst.setting == "pool":
            out.append((path.name, inst))
    return out


@pytest.mark.parametrize("name", ["drf", "asset"])
def test_lp_versions_give_the_builtin_allocations(name):
    lp = mechanisms.get(f"{FILLING}:{name}")
    compared = 0
    for label, inst in regression_instances():
        try:
            want = mechanisms.allocate(name, inst).tasks
        except InputError:
            with pytest.raises(InputError):
                lp(inst)
            continue
        assert lp(inst).tasks == want, label
        compared += 1
    assert compared >= 8


@pytest.mark.parametrize("name, prop", [("asset", "si"), ("asset", "ef"), ("asset", "pe"), ("drf", "si"),
                                        ("drf", "ef")])
def test_lp_versions_get_the_builtin_proof_verdicts(name, prop):
    derived = fairlab.prove(f"{FILLING}:{name}", prop, 2, 2, time_limit=300, domain="unweighted")
    builtin = fairlab.prove(name, prop, 2, 2, time_limit=300, domain="unweighted")
    assert derived.status == builtin.status and derived.status in ("proved", "refuted"), derived.explanation
    assert derived.details["gates"]["conformance"] == "passed"


@pytest.mark.slow
def test_asset_lp_sp_proof():
    assert fairlab.prove(f"{FILLING}:asset", "sp", 2, 2, time_limit=300, domain="unweighted").status == "proved"


def test_one_lp_and_a_lexicographic_sequence_are_solved_exactly():
    inst = Instance.build([7, 5], [[1, 2], [3, 1]])
    # equal tasks t: 4t <= 7 and 3t <= 5 -> t = 5/3 (exact, not a float)
    assert mechanisms.allocate(f"{SMALL}:equal_tasks", inst).tasks == (F(5, 3), F(5, 3))
    # floor 5/3 first; then the most tasks in all with both >= 5/3: t0 + 3 t1 <= 7, 2 t0 + t1 <= 5
    # -> vertex t0 = 8/5, t1 = ... only if >= 5/3; the exact optimum:
    tasks = mechanisms.allocate(f"{SMALL}:max_min_then_total", inst).tasks
    assert min(tasks) == F(5, 3) and all(isinstance(t, F) for t in tasks)
    assert tasks[0] + 3 * tasks[1] <= 7 and 2 * tasks[0] + tasks[1] <= 5


def test_derived_spec_of_one_lp_passes_conformance_and_proves():
    report = fairlab.conformance(f"{SMALL}:equal_tasks", 2, 2, samples=4)
    assert report.status == "agrees"
    assert fairlab.prove(f"{SMALL}:equal_tasks", "ef", 2, 2, time_limit=120).status == "refuted"  # equal tasks: envy


def test_broken_lps_are_one_line_errors():
    inst = Instance.build([1], [[1], [1]])
    with pytest.raises(PluginError, match="the LP is infeasible"):
        mechanisms.allocate(f"{SMALL}:infeasible", inst)
    with pytest.raises(PluginError, match="no LP variable named tasks_0"):
        mechanisms.allocate(f"{SMALL}:unnamed", inst)
    assert mechanisms.allocate(f"{SMALL}:floats_the_demands", inst).tasks  # numerically fine
    mech = mechanisms.get(f"{SMALL}:floats_the_demands")
    from fairlab.mechanisms.base import SymbolicInstance

    with pytest.raises(PluginError, match="cannot run on a symbolic instance"):
        mech.spec(SymbolicInstance.unknown(2, 1), [__import__("z3").Real("a"), __import__("z3").Real("b")])


def test_a_generator_of_task_counts_is_still_read_as_tasks():
    inst = Instance.build([30, 30], [[1, 3], [1, 1]])
    assert mechanisms.allocate(lambda i: (t for t in [1, 2]), inst).tasks == (1, 2)


def test_constraints_are_read_without_deprecation_and_named_as_pulp_names_them():
    """pulp 3.3 deprecates ``problem.constraints`` as a dict (for pulp 4): the lab reads the list
    ``problem.constraints()`` where pulp has it, naming an unnamed constraint as pulp's dict does."""
    import warnings

    import pulp

    from fairlab.mechanisms import lp_plugin

    problem = pulp.LpProblem("mixed", pulp.LpMaximize)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # building it the classic way may warn
        x, y = pulp.LpVariable("x", 0, 1), pulp.LpVariable("y", 0, 2)
        problem += x + y
        problem += x - y <= 0, "_C1"  # a name pulp would give: the first unnamed row is then _C2
        problem += x + y <= 2
        problem += x <= F(1, 2), "half"
        problem += y >= 0
        expected = list(problem.constraints.keys())  # pulp's dict (or, in pulp 3.3, its deprecated view)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        rows = lp_plugin.constraints(problem)
        lp = lp_plugin.read_problem(problem)
    assert [name for name, _ in rows] == expected == ["_C1", "_C2", "half", "_C3"]
    assert [row[0] for row in lp.rows] == expected


def test_the_lp_example_runs_without_deprecation_warnings():
    """examples/lp/filling.py creates its variables with ``problem.add_variable`` where pulp has it."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        assert fairlab.allocate(f"{FILLING}:drf", "drf-paper").tasks == fairlab.allocate("drf", "drf-paper").tasks
        report = fairlab.conformance(f"{FILLING}:asset", 2, 2, samples=2)
    assert report.status == "agrees"
