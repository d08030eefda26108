"""Specs without traps (issue 29): the lab gives every call of a spec helper unknowns of its own
(`fairlab.mechanisms.spec_names`), so a spec with fixed helper names gives the verdicts of one with
fresh names; two calls of a spec in one encoding share nothing but the instances' unknowns."""

from pathlib import Path

import pytest
import z3

import fairlab
from fairlab import mechanisms, properties
from fairlab.core.errors import PluginError
from fairlab.core.instance import Instance
from fairlab.mechanisms.base import Constraint, SymbolicInstance
from fairlab.mechanisms.spec_names import check_independent, namespace, unknowns
from fairlab.properties import property as property_module

PLUGINS = Path(__file__).parents[1] / "plugins"
FIXED, FRESH = f"{PLUGINS / 'helper_names.py'}:fixed", f"{PLUGINS / 'helper_names.py'}:fresh"
THM4 = Instance.resolve("thm4-ceei-sp")


def _helpers(constraints, sym, tasks) -> set[str]:
    consts, funcs = unknowns([c.expr for c in constraints])
    own, _ = unknowns([*(t for row in sym.demands for t in row), *sym.capacities, *tasks])
    return (set(consts) | set(funcs)) - set(own)


def test_each_call_gets_its_own_helpers():
    spec = mechanisms.get(FIXED).spec
    sym = SymbolicInstance.unknown(2, 2)
    a, b = [z3.Real("a0"), z3.Real("a1")], [z3.Real("b0"), z3.Real("b1")]
    first, second = spec(sym, a), spec(sym, b)
    assert _helpers(first, sym, a) and not _helpers(first, sym, a) & _helpers(second, sym, b)
    check_independent("test", (sym, a, first), (sym, b, second))
    # the instance's unknowns and the tasks are kept: the constraints still speak about them
    assert {"d0_0", "a0"} <= set(unknowns([c.expr for c in first])[0])
    # without the lab's renaming the author's fixed names are shared, and the check says so
    raw = spec.__wrapped__
    with pytest.raises(PluginError, match="share the unknown"):
        check_independent("test", (sym, a, raw(sym, a)), (sym, b, raw(sym, b)))


def test_unknowns_named_after_the_tasks_are_kept():
    sym = SymbolicInstance.unknown(1, 1)
    t = [z3.Real("t0")]
    placed, helper = z3.Int("t0@m0"), z3.Real("level")
    out = namespace([Constraint("c", z3.And(placed >= 0, helper == t[0]))], sym, t)
    names = set(unknowns([out[0].expr])[0])
    assert "t0@m0" in names and "t0" in names and "level" not in names


def test_uninterpreted_functions_are_renamed_too():
    sym = SymbolicInstance.unknown(1, 1)
    g = z3.Function("g", z3.RealSort(), z3.RealSort())
    t = [z3.Real("t0")]
    first = namespace([Constraint("c", g(t[0]) > 1)], sym, t)
    second = namespace([Constraint("c", g(t[0]) > 1)], sym, t)
    assert "g" not in unknowns([first[0].expr])[1]
    assert unknowns([first[0].expr])[1].keys() != unknowns([second[0].expr])[1].keys()


def test_the_trap_is_real_without_the_renaming(monkeypatch):
    """The sp encoding at Theorem 4's instance: satisfiable (CEEI is not strategy-proof there) with
    the lab's renaming; UNSAT if the truthful and misreport runs shared the fixed-name prices."""
    sym = SymbolicInstance.from_instance(THM4)
    sp = properties.get("sp")
    spec = mechanisms.get(FIXED).spec

    def solve(s):
        solver = z3.Solver()
        solver.set("timeout", 60_000)
        solver.add([c.expr for c in sp.encode(sym, s).constraints])
        return solver.check()

    assert solve(spec) == z3.sat
    with pytest.raises(PluginError, match="share the unknown"):
        sp.encode(sym, spec.__wrapped__)
    monkeypatch.setattr(property_module, "check_independent", lambda *args: None)
    assert solve(spec.__wrapped__) == z3.unsat  # the trap: a violation hidden


@pytest.mark.parametrize("prop", ["sp", "ef", "si"])
def test_fixed_and_fresh_helper_names_give_the_same_proofs(prop):
    fixed = fairlab.prove(FIXED, prop, 2, 2, time_limit=120, domain="unweighted")
    fresh = fairlab.prove(FRESH, prop, 2, 2, time_limit=120, domain="unweighted")
    assert fixed.status == fresh.status and fixed.status in ("proved", "refuted")
    assert fairlab.to_dict(fixed.witness) == fairlab.to_dict(fresh.witness)
    assert (prop == "sp") == (fixed.status == "refuted")  # CEEI is not SP (Theorem 4), is SI and EF


def test_fixed_and_fresh_helper_names_give_the_same_checks():
    fixed = fairlab.check(FIXED, "sp", THM4, evaluations=60)
    fresh = fairlab.check(FRESH, "sp", THM4, evaluations=60)
    assert fixed.status == fresh.status == "violated" and fixed.witness == fresh.witness


def _walked(exprs):
    """`unknowns` the slow way: a Python object per sub-expression (`spec_names._walk`)."""
    from fairlab.mechanisms.spec_names import _walk

    consts, funcs = {}, {}
    for e in _walk(exprs):
        if z3.is_app(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            if e.num_args() == 0:
                consts.setdefault(e.decl().name(), e)
            else:
                funcs.setdefault(e.decl().name(), e.decl())
    return consts, funcs


@pytest.mark.parametrize("name", ["drf", "ceei", FIXED])
def test_unknowns_through_the_c_api_match_the_python_walk(name):
    """`unknowns` walks z3's terms through the C API (speed): the same names in the same order, the
    same term kept for each, functions included (the plug-in's fixed helpers are functions too)."""
    spec = mechanisms.get(name).spec
    sym = SymbolicInstance.unknown(3, 3)
    encoding = properties.get("sp").encode(sym, spec, "v")
    exprs = [c.expr for c in encoding.constraints]
    exprs.append(z3.ForAll([z3.Real("q")], z3.Function("g", z3.RealSort(), z3.RealSort())(z3.Real("q")) > 0))
    fast, slow = unknowns(exprs), _walked(exprs)
    assert list(fast[0]) == list(slow[0]) and all(fast[0][k].eq(slow[0][k]) for k in slow[0])
    assert list(fast[1]) == list(slow[1]) and all(fast[1][k].eq(slow[1][k]) for k in slow[1])
    assert "g" in fast[1] and "d0_0" in fast[0]
