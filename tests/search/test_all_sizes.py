"""All-size proofs (`fairlab.search.all_sizes`): DRF's properties for every n and m, and the controls
that must stop a proof — the large-size mutant, a wrong lemma, a schema or a negation that is not
the lab's, a vacuous step."""

import dataclasses
import json

import pytest
import z3
from typer.testing import CliRunner

import fairlab
from fairlab.cli.app import app
from fairlab.core import schemas
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.mechanisms import get
from fairlab.mechanisms.base import Constraint, z3_max
from fairlab.search.all_sizes import gates, prove_all_sizes, register_family
from fairlab.search.all_sizes.families import FAMILIES, mutant_family
from fairlab.search.all_sizes.logic import RESOURCE, USER, Aggregate, Axiom, Frame
from fairlab.search.all_sizes.mutant import drf_from
from fairlab.search.all_sizes.negations import lab_instance
from fairlab.search.all_sizes.prover import AllSizesBudget, _Run, _step
from fairlab.search.all_sizes.schema import Inst, Run, domain_axioms, drf
from fairlab.search.all_sizes.steps import Parts, Step, abstraction_steps
from fairlab.search.proof import solve

RLIMIT = 20_000_000


def _solve(constraints, rlimit=RLIMIT, track=False):
    import time

    return solve(constraints, 0, rlimit, time.monotonic() + 300, track=track)


# --------------------------------------------------------------------------- a whole proof, from the CLI
def test_drf_pe_is_proved_at_every_size_from_the_cli(tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRLAB_STORE", str(tmp_path))
    out = CliRunner().invoke(app, ["prove", "drf", "pe", "--all-sizes", "--domain", "drf-paper", "--format", "json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    schemas.validate(doc, "result")
    assert doc["status"] == "proved" and doc["kind"] == "proof"
    d = doc["details"]
    assert d["all_sizes"] and (d["n0"], d["m0"]) == (1, 1)
    assert doc["domain"]["name"] == "drf-paper" and "note" not in doc["domain"]
    assert set(d["gates"].values()) == {"passed"}
    assert list(d["gates"]) == ["schema-is-spec", "property-is-rule", "abstraction-conformance", "steps",
                                "positive-control", "lemmas", "large-size-mutant"]
    # every step UNSAT, its core uses its goal, and its control drops a statement of the core
    steps = doc["certificate"]["steps"]
    assert [s["step"] for s in steps] == ["abstraction.nonneg", "abstraction.capacity", "abstraction.saturated",
                                         "abstraction.equal-shares", "theorem.pe"]
    for s in steps:
        assert s["result"] == "unsat" and s["control"]["dropped"]
        first = s["control"]["dropped"][0]  # (further ones come from the widened controls' cores)
        assert any(c.startswith(first + "[") or c == first for c in s["core"])
    assert any(c.startswith("pe.violated") for c in steps[-1]["core"])
    # the lemmas the cores used, each by induction
    lemmas = doc["certificate"]["lemmas"]
    assert lemmas and all(x["base"]["result"] == x["step"]["result"] == "unsat" for x in lemmas)
    # the gates compared the schema and the rule with the lab's at every small size, and the allocator
    # with the abstraction beyond them (7 users)
    assert {tuple(r["size"]) for r in d["schema_is_spec"]} == set(gates.SPEC_SIZES) >= set(gates.SMALL)
    assert max(n for n, _ in gates.SPEC_SIZES) >= 5  # past the large-size mutant's first size
    assert "by construction" in doc["explanation"] and any("by construction" in x for x in d["rules"])
    assert max(r["size"][0] for r in d["abstraction_conformance"]) == 7
    # the large-size mutant fails a step on a concrete 5-user instance: there the mutant really is not
    # Pareto efficient (the failing statement is a saturated resource per user)
    mutant = d["large_size_mutant"]
    assert mutant["passed"] and mutant["size"][0] == 5 and mutant["failing_step"] == "abstraction.saturated"
    inst = Instance.build(mutant["instance"]["capacities"], mutant["instance"]["demands"])
    assert fairlab.check(drf_from(5), "pe", inst).status == "violated"
    assert fairlab.check("drf", "pe", inst).status == "holds"


def test_the_mutant_that_differs_from_5_users_on_is_not_proved():
    """It agrees with DRF below 5 users (so a fixed-size proof at 4 users proves it) and violates pe
    from 5 on: the all-size proof must not prove it."""
    mutant = drf_from(5)
    assert fairlab.prove(mutant, "pe", 2, 2, domain="drf-paper", time_limit=60).status == "proved"
    r = prove_all_sizes(mutant, "pe", domain="drf-paper")
    assert r.status == "unknown" and r.details["gates"]["abstraction-conformance"] == "failed"
    assert "5x" in r.explanation and "does not satisfy" in r.explanation
    identical = Instance.build([1, 1], [[1, 2]] * 5)
    assert fairlab.check(mutant, "pe", identical).status == "violated"
    assert fairlab.check(mutant, "pe", Instance.build([1, 1], [[1, 2]] * 4)).status == "holds"


def test_the_mutant_posing_as_drf_is_not_proved():
    """The mutant given DRF's own schema and abstraction (as if it were DRF): the schema matches its
    spec below 5 users, and the allocator's conformance at 5 users stops the proof before any
    larger-size comparison."""
    posing = dataclasses.replace(drf_from(5), name="drf-posing")
    register_family(posing, FAMILIES["drf"])
    r = prove_all_sizes(posing, "si", domain="drf-paper")
    assert r.status == "unknown" and r.details["gates"]["abstraction-conformance"] == "failed"
    assert {tuple(x["size"]) for x in r.details["schema_is_spec"]} == set(gates.SMALL)  # the larger ones not run
    # (its twin, DRF itself passing the same gates with every larger comparison run after them:
    # test_drf_pe_is_proved_at_every_size_from_the_cli)


def test_the_mutants_abstraction_step_fails_symbolically_and_drfs_does_not():
    """The proof's own step (no concrete instance involved): equal dominant shares follow from DRF's
    schema at every size, and not from the mutant's — z3 finds a model with at least 5 users."""
    [drf_step] = [s for s in abstraction_steps(FAMILIES["drf"], True) if s.name == "abstraction.equal-shares"]
    assert _solve(drf_step.ground().constraints).status == "unsat"
    [step] = [s for s in abstraction_steps(mutant_family(5), True) if s.name == "abstraction.equal-shares"]
    q = _solve(step.ground().constraints)
    assert q.status == "sat"
    assert q.model.eval(z3.Int("n")).as_long() >= 5


# --------------------------------------------------------------------------- lemmas by induction
def _load(frame=None):
    frame = frame or Frame()
    t, d = frame.fn("t", USER), frame.fn("d", USER, RESOURCE)
    return Aggregate(frame, "load", USER, (RESOURCE,), lambda k, r: t(k) * d(k, r))


@pytest.mark.parametrize("kind", ["max.attained", "max.bound", "min.attained", "min.bound", "sum.upper",
                                  "sum.lower"])
def test_each_fold_lemma_is_proved_by_induction(kind):
    lemma = _load().lemma(kind)
    assert _solve(lemma.base).status == "unsat"
    assert _solve(lemma.step).status == "unsat"


def test_a_false_lemma_fails_its_induction():
    """sum(j) <= max(j) is false (two positive terms): its step must come back satisfiable."""
    class Wrong(Aggregate):
        def statements(self):
            out = super().statements()
            out["wrong"] = ("sum(j) <= max(j)", 1, (), lambda j, *p: self.sum(j, *p) <= self.max(j, *p))
            return out

    frame = Frame()
    t, d = frame.fn("t", USER), frame.fn("d", USER, RESOURCE)
    lemma = Wrong(frame, "load", USER, (RESOURCE,), lambda k, r: t(k) * d(k, r)).lemma("wrong")
    assert _solve(lemma.base).status == "unsat"  # true at j = 1 ...
    assert _solve(lemma.step).status == "sat"  # ... but the step does not go through


def test_unrolled_folds_are_the_lab_folds():
    """At a concrete size an aggregate is the explicit fold: the max is z3_max's, the sum the load."""
    frame = Frame(3, 2)
    inst = Inst(frame)
    run = drf(inst, "drf")
    sym = lab_instance(inst)
    tasks = [run.tasks(z3.IntVal(i)) for i in range(3)]
    same = [inst.s(z3.IntVal(i)) == z3_max([sym.demands[i][r] / sym.capacities[r] for r in range(2)])
            for i in range(3)]
    same += [run.load().sum(frame.n, z3.IntVal(r)) == sym.load(tasks, r) for r in range(2)]
    assert _solve([Constraint("differ", z3.Not(z3.And(same)))]).status == "unsat"
    # and a different fold is told apart
    other = [run.load().sum(frame.n, z3.IntVal(0)) == sym.load(tasks, 1)]
    assert _solve([Constraint("differ", z3.Not(z3.And(other)))]).status == "sat"


# --------------------------------------------------------------------------- the gates
def test_schema_is_spec_catches_a_schema_that_is_not_the_spec():
    run = _Run(AllSizesBudget())
    ok = gates.schema_is_spec(get("drf"), drf, True, run.gate_solver("t"), RLIMIT, sizes=((2, 2),))
    assert [r["result"] for r in ok] == ["equivalent"]

    def no_capacity(inst, tag="drf"):
        full = drf(inst, tag)
        return Run(inst, tag, full.tasks, [a for a in full.axioms if not a.name.endswith(".capacity")],
                   full.aggregates)

    bad = gates.schema_is_spec(get("drf"), no_capacity, True, run.gate_solver("t"), RLIMIT, sizes=((2, 2),))
    assert [r["result"] for r in bad] == ["differ"]


def test_property_is_rule_compares_with_the_lab_rule():
    run = _Run(AllSizesBudget())
    records = gates.property_is_rule("si", drf, True, run.gate_solver("t"), RLIMIT, sizes=((2, 2),))
    assert {r["result"] for r in records} == {"equivalent"} and len(records) == 2
    # a wrong negation (<= for <) differs from the lab's rule
    frame = Frame(2, 2)
    inst = Inst(frame)
    t = drf(inst, "drf").tasks
    i = z3.IntVal(0)
    wrong = z3.And([z3.Implies(inst.d(i, r) > 0, t(i) * inst.d(i, r) <= inst.c(r) / 2)
                    for r in frame.indices(RESOURCE)])
    lab = get_rule("si")(inst, t)
    out = gates._equivalent("wrong si", wrong, lab, [ax.unrolled(frame) for ax in domain_axioms(inst, True)],
                            run.gate_solver("t"), RLIMIT)
    assert out["result"] == "differ"


def get_rule(prop):
    from fairlab.properties import get as get_property
    from fairlab.properties.property import Z3View

    def rule(inst, t):
        view = Z3View(lab_instance(inst))
        return get_property(prop).rule(view, [t(u) for u in inst.frame.indices(USER)], 0)

    return rule


def test_a_vacuous_step_has_no_positive_control():
    """A goal the domain contradicts (a negative demand) is UNSAT without any statement: the step
    must fail, not count as proved."""
    def parts(frame, xs):
        inst = Inst(frame)
        run = drf(inst, "mech")
        statements = FAMILIES["drf"].statements(run, True)
        goal = Axiom("silly", "property", head=lambda: inst.d(xs[0], inst.dom(xs[0])) < 0)
        return Parts([*domain_axioms(inst, True), *statements], [goal], [inst], [run])

    step = Step("theorem.silly", "a vacuous goal", (USER,), "abstraction", parts)
    out = _step(_Run(AllSizesBudget()), step, {})
    assert out["result"] == "unsat" and not out["ok"] and "no positive control" in out["why"]


def test_contradictory_hypotheses_are_vacuous_not_a_proof():
    """Hypotheses that contradict the domain by themselves make any goal UNSAT: the core then holds no
    constraint of the negated statement (only its indices' ranges), and the step must fail."""
    def parts(frame, xs):
        inst = Inst(frame)
        run = drf(inst, "mech")
        broken = Axiom("mech.abstraction.broken", "abstraction", (USER,), head=lambda i: inst.d(i, inst.dom(i)) < 0)
        goal = Axiom("harmless", "property", head=lambda: run.tasks(xs[0]) >= 0)
        return Parts([*domain_axioms(inst, True), broken], [goal], [inst], [run])

    step = Step("theorem.harmless", "a satisfiable goal", (USER,), "abstraction", parts)
    out = _step(_Run(AllSizesBudget()), step, {})
    assert out["result"] == "unsat" and not out["ok"] and "vacuous" in out["why"]


# --------------------------------------------------------------------------- statuses and inputs
def test_a_statement_argued_by_hand_gives_proved_by_lemma_not_proved():
    """A family that states equal shares without its z3 step: si rests on it, so the status is
    proved-by-lemma and the certificate names the statement; pe does not use it: plain proved."""
    hand = dataclasses.replace(FAMILIES["drf"], name="drf-hand",
                               assumed=(("equal-shares", "argued in the docstring, not checked"),))
    mech = dataclasses.replace(get("drf"), name="drf-hand", aliases=())
    register_family(mech, hand)
    r = prove_all_sizes(mech, "si", domain="drf-paper")
    assert r.status == "proved-by-lemma"
    assert r.certificate["by_hand"] == [{"statement": "equal-shares",
                                         "argument": "argued in the docstring, not checked"}]
    assert "abstraction.equal-shares" not in [s["step"] for s in r.details["steps"]]
    assert "GIVEN" in r.explanation


def test_unsupported_questions_are_unknown_with_the_reason():
    r = fairlab.prove("asset", "si", all_sizes=True)
    assert r.status == "unknown" and "no all-size proof for asset" in r.explanation
    r = fairlab.prove("drf", "sp", all_sizes=True, domain="all")
    assert r.status == "unknown" and "positive demands" in r.explanation
    r = fairlab.prove("drf", "rm", all_sizes=True)
    assert r.status == "unknown" and "no all-size proof of rm" in r.explanation
    with pytest.raises(InputError, match="attempts"):
        fairlab.prove("drf", "si", all_sizes=True, attempts=3)


@pytest.mark.parametrize("args, message", [
    (["-n", "3"], "--all-sizes: proves every number of users and resources; drop -n/-m"),
    (["--catalogue"], "--all-sizes: not with --catalogue"),
    (["--attempts", "2"], "--attempts: for fixed-size proofs"),
])
def test_cli_rejects_fixed_size_options_with_all_sizes(args, message):
    head = [] if "--catalogue" in args else ["drf", "si"]
    out = CliRunner().invoke(app, ["prove", *head, "--all-sizes", *args])
    assert out.exit_code == 2
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {message}")


# --------------------------------------------------------------------------- the long ones
@pytest.mark.slow
@pytest.mark.parametrize("prop", ["si", "ef", "sp"])
def test_drf_is_proved_at_every_size(prop):
    r = fairlab.prove("drf", prop, all_sizes=True, domain="drf-paper")
    assert r.status == "proved", r.explanation
    assert set(r.details["gates"].values()) == {"passed"}
    core = r.certificate["steps"][-1]["core"]
    assert any(c.startswith(f"{prop}.violated") for c in core)


@pytest.mark.slow
def test_a_mutant_beyond_the_conformance_sizes_fails_a_z3_step():
    """From 8 users on: the allocator's conformance (up to 7 users) cannot see it; the abstraction
    steps must still fail."""
    r = prove_all_sizes(drf_from(8), "si", domain="drf-paper")
    assert r.details["gates"]["abstraction-conformance"] == "passed"
    assert r.status == "unknown" and r.details["gates"]["steps"] == "failed"
    assert "abstraction.equal-shares failed" in r.explanation


def test_campaigns_prove_at_every_size_with_sizes_all(tmp_path):
    from fairlab.campaign import cell, spec

    def expand(sizes, verb="prove"):
        path = tmp_path / "c.toml"
        path.write_text(f'verb = "{verb}"\n[sweep]\nmechanisms = ["asset"]\nproperties = ["si"]\nsizes = {sizes}\n'
                        '[budget]\ntime_limit = 60\n')
        return spec.expand(spec.load(path), tmp_path)

    every, fixed = expand('["all", [2, 2]]')
    assert every.description["all_sizes"] and every.description["size"] == "all"
    assert "all_sizes" not in fixed.description and fixed.id == expand("[[2, 2]]")[0].id  # ids unchanged
    doc = cell.execute(every.description, None)
    assert doc["status"] == "unknown" and doc["details"]["all_sizes"] and "no all-size proof" in doc["explanation"]
    with pytest.raises(InputError, match="sweep.sizes"):
        expand('["all"]', verb="search")  # every size: proofs only
