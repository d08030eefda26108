"""`prove_all_sizes`: a property of a mechanism for EVERY number of users n >= 1 and resources m >= 1
on a domain, or an honest `unknown` naming the step that failed.

The proof is a list of steps, each decided by z3 within a counted resource limit (never the clock):

1. gates tying the proof's vocabulary to the lab's terms (`fairlab.search.all_sizes.gates`):
   schema-is-spec, property-is-rule (z3 equivalence at every size up to 3 × 3, and some larger
   ones: the schema up to 8 × 8) and
   abstraction-conformance (the allocator's exact allocations at sizes up to 7 × 4 satisfy the
   schema and the abstraction: non-vacuity on real instances);
2. the abstraction steps (`fairlab.search.all_sizes.steps.abstraction_steps`): each statement of
   the abstraction from the schema, at every size (UNSAT ground query);
3. the theorem step: the property from the abstraction, at every size (UNSAT ground query whose
   core uses the negated property);
4. the lemmas about folds every UNSAT core used, each by induction (base and step UNSAT);
5. positive controls: for each step, a statement its core used is dropped and z3 finds a concrete
   instance (at 2 × 2, 3 × 2, ...) that violates the step's goal without it — the step is not
   UNSAT for a wrong reason; the property's goal and the domain are never dropped;
6. the large-size mutant (`fairlab.search.all_sizes.schema.drf_from`): the same abstraction
   steps for a mechanism that agrees with this one below 5 users must NOT all be proved — the proof
   really looks at large sizes.

Every step is machine-checked; a statement a family declares without a z3 proof (none of DRF's)
would make the status `proved-by-lemma`, never `proved`. What the proof rests on beyond z3 is
listed in the result (``details["rules"]``): ground instantiation and Skolemisation (first-order
logic), induction on the naturals (the lemmas), and that the schema is the lab's spec beyond the
compared sizes (the same loops over users and resources).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Any

from fairlab.core.domain import Domain, parse, record
from fairlab.core.errors import InputError
from fairlab.core.results import Result, Status
from fairlab.mechanisms.base import Constraint, Mechanism
from fairlab.mechanisms.registry import is_builtin
from fairlab.search.all_sizes import gates
from fairlab.search.all_sizes.families import FAMILIES, Family, mutant_family
from fairlab.search.all_sizes.logic import USER, Aggregate, Frame
from fairlab.search.all_sizes.negations import WITNESSES
from fairlab.search.all_sizes.schema import drf
from fairlab.search.all_sizes.steps import Step, abstraction_steps, statements_of, theorem_step
from fairlab.search.proof import Z3_PARAMS, solve

#: the sub-domain an all-size proof covers besides the demands: unit weights, no task caps
#: (capacities stay unknown positive reals: no normalisation)
COVERED = Domain(weights="none", caps="none")

#: families registered for mechanism objects that are not in the registry (`register_family`)
_EXTRA: dict[int, tuple[Mechanism, Family]] = {}


def register_family(mechanism: Mechanism, family: Family) -> None:
    """Let `prove_all_sizes` use `family` (its schema and abstraction) for this mechanism object:
    for mechanisms built in Python, such as the large-size mutant of the tests. The proof's scope
    is then the schema (like a plug-in's spec), and its gates compare the schema with the
    mechanism's spec and allocator as for the lab's own."""
    _EXTRA[id(mechanism)] = (mechanism, family)


@dataclass(frozen=True)
class AllSizesBudget:
    """What decides an all-size proof: z3 resource limits (per query), the conformance sample, and
    the wall-clock outer stop `seconds` (which can only make the result `unknown`)."""

    rlimit: int = 50_000_000  # each step's ground query and each lemma query
    gate_rlimit: int = 20_000_000  # each equivalence and conformance query
    control_rlimit: int = 10_000_000  # each positive-control query
    control_sizes: tuple[tuple[int, int], ...] = ((2, 2), (3, 2), (2, 3))
    conformance_samples: int = 2
    conformance_seed: int = 0
    mutant_from: int = 5
    seconds: float = 600.0

    def __post_init__(self):
        for name in ("rlimit", "gate_rlimit", "control_rlimit", "conformance_samples", "mutant_from"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"{name}: expected a positive integer, got {value!r}")
        if not self.seconds > 0 or self.seconds == float("inf"):
            raise InputError(f"time limit: must be a finite positive number of seconds, got {self.seconds}")

    def recorded(self) -> dict:
        return {"rlimit": self.rlimit, "gate_rlimit": self.gate_rlimit, "control_rlimit": self.control_rlimit,
                "control_sizes": [list(s) for s in self.control_sizes],
                "conformance": {"samples": self.conformance_samples, "seed": self.conformance_seed,
                                "sizes": [list(s) for s in gates.CONFORMANCE_SIZES]},
                "equivalence_sizes": {"schema-is-spec": [list(s) for s in gates.SPEC_SIZES],
                                      "property-is-rule": [list(s) for s in gates.RULE_SIZES]},
                "mutant_from": self.mutant_from,
                "time_limit": self.seconds, "z3_params": {k: v for k, v in Z3_PARAMS}}


def family_of(mechanism: Mechanism, options: dict) -> Family | None:
    """The all-size family of a mechanism: the lab's own by name (without options), or one
    registered for this object (`register_family`)."""
    found = _EXTRA.get(id(mechanism))
    if found is not None and found[0] is mechanism:
        return found[1]
    if is_builtin(mechanism) and not options:
        return FAMILIES.get(mechanism.name)
    return None


class _Stopped(Exception):
    """The wall-clock outer stop fired."""


class _Run:
    """One proof's z3 queries, budget and record."""

    def __init__(self, budget: AllSizesBudget):
        self.budget = budget
        self.deadline = time.monotonic() + budget.seconds
        self.queries: list[dict] = []

    def solve(self, constraints: list[Constraint], rlimit: int, track: bool = False, stage: str = ""):
        q = solve(constraints, 0, rlimit, self.deadline, track=track, params=Z3_PARAMS)
        self.queries.append({"stage": stage, "rlimit": rlimit, "spent": q.spent, "seconds": round(q.seconds, 3),
                             "result": q.status + (f" ({q.reason})" if q.reason else "")})
        if q.status == "unknown" and q.reason == "time":
            raise _Stopped(stage)
        return q

    def gate_solver(self, stage: str):
        return lambda constraints, rlimit, track=False: self.solve(constraints, rlimit, track, stage)


def _lemma(run: _Run, agg: Aggregate, kind: str) -> dict:
    """Prove the lemma `kind` of `agg` by induction: base and step, each UNSAT."""
    lemma = agg.lemma(kind)
    record: dict[str, Any] = {"lemma": lemma.name, "statement": lemma.text,
                              "method": f"induction on j from {lemma.start}"}
    for part, constraints in (("base", lemma.base), ("step", lemma.step)):
        q = run.solve(constraints, run.budget.rlimit, stage=f"lemma {lemma.name} ({part})")
        record[part] = {"result": q.status + (f" ({q.reason})" if q.reason else ""), "rlimit": run.budget.rlimit,
                        "spent": q.spent}
    record["proved"] = record["base"]["result"] == "unsat" and record["step"]["result"] == "unsat"
    return record


def _control(run: _Run, step: Step, statements: list[str]) -> dict | None:
    """The step's positive control: drop one statement of its core (each at the control sizes in
    turn), or widen (drop further statements of the successive cores at the first size) until a
    concrete instance violates the step's goal without them. None: no control found."""
    for n, m in run.budget.control_sizes:
        for name in statements:
            constraints, parts = step.unrolled(n, m, drop=frozenset([name]))
            q = run.solve(constraints, run.budget.control_rlimit, stage=f"control {step.name} without {name}")
            if q.status == "sat":
                return {"dropped": [name], "size": [n, m],
                        "instance": gates.read_instance(q.model, parts, Frame(n, m))}
    if not statements:
        return None
    n, m = run.budget.control_sizes[0]
    dropped = [statements[0]]
    while True:
        constraints, parts = step.unrolled(n, m, drop=frozenset(dropped))
        q = run.solve(constraints, run.budget.control_rlimit, track=True,
                      stage=f"control {step.name} without {', '.join(dropped)}")
        if q.status == "sat":
            return {"dropped": dropped, "size": [n, m], "instance": gates.read_instance(q.model, parts, Frame(n, m))}
        hypotheses = {ax for ax in q.core if ax.split("[")[0] not in dropped and ax not in dropped}
        kinds = {ax.name: ax.kind for ax in parts.axioms}
        more = sorted(x for x in hypotheses if kinds.get(x) == step.hypotheses)
        if q.status != "unsat" or not more:
            return None
        dropped.append(more[0])


def _step(run: _Run, step: Step, lemmas: dict[tuple[str, str], tuple[Aggregate, str]]) -> dict:
    """Decide one step: its ground query UNSAT, its core using its goal, and its positive control."""
    g = step.ground()
    q = run.solve(g.constraints, run.budget.rlimit, track=True, stage=step.name)
    out: dict[str, Any] = {"step": step.name, "shows": step.text, "instances": len(g.constraints),
                           "result": q.status + (f" ({q.reason})" if q.reason else ""),
                           "rlimit": run.budget.rlimit, "spent": q.spent}
    if q.status == "sat":
        out["model"] = {"users": str(q.model.eval(Frame().n)), "resources": str(q.model.eval(Frame().m))}
        out["ok"] = False
        out["why"] = (f"z3 finds the ground instances of {step.name} satisfiable (a model with n = "
                      f"{out['model']['users']}, m = {out['model']['resources']}): the step does not follow")
        return out
    if q.status != "unsat":
        out.update(ok=False, why=f"z3 could not decide {step.name} ({q.reason})")
        return out
    out["core"] = q.core
    out["terms"] = {k: v for k, v in g.names.items() if any(f"{k}]" in c or f"{k}," in c for c in q.core)}
    # the negated statement itself, not only the ranges of its violating indices
    if not any(g.kinds[c] in ("goal", "property") and not c.startswith(f"{step.name}.indices") for c in q.core):
        out.update(ok=False, why=f"{step.name}: the unsat core uses no constraint of the negated statement "
                                 "(the hypotheses alone are contradictory: vacuous)")
        return out
    for c in q.core:
        if c in g.lemmas:
            agg, kind = g.lemmas[c]
            lemmas.setdefault((agg.name, kind), (agg, kind))
    statements = statements_of(q.core, g.kinds, step.hypotheses)
    control = _control(run, step, statements)
    out["control"] = control
    if control is None:
        out.update(ok=False, why=f"{step.name}: UNSAT, but no positive control was found (dropping each of "
                                 f"{', '.join(statements) or 'no statement'}) — the step may be vacuous")
        return out
    out["ok"] = True
    return out


def _mutant(run: _Run, family: Family, prop: str, positive: bool) -> dict:
    """The large-size mutant: the same steps for a schema that agrees with `family`'s below
    `mutant_from` users (`fairlab.search.all_sizes.schema.drf_from`). It must NOT be proved: some
    step's query, unrolled at `mutant_from` users × 2 (then 3) resources with the violating users
    among the last ones, has a model — a concrete instance on which the mutant breaks the step, and
    so a model of that step's ground query (the step cannot be UNSAT)."""
    if family.schema is not drf:
        return {"result": "not-applicable", "passed": False, "why": f"no large-size mutant of {family.name}"}
    mutant = mutant_family(run.budget.mutant_from)
    first = run.budget.mutant_from
    tried = []
    for m in (2, 3):
        for step in [*abstraction_steps(mutant, positive), theorem_step(mutant, prop, positive)]:
            users = [first - 1 - k for k in range(sum(1 for s in step.sorts if s == USER))]
            choice = tuple(users.pop(0) if s == USER else 0 for s in step.sorts)
            constraints, parts = step.unrolled(first, m, choice=choice)
            q = run.solve(constraints, run.budget.control_rlimit, stage=f"mutant {step.name} at {first}x{m}")
            tried.append({"step": step.name, "size": [first, m], "users": list(choice),
                          "result": q.status + (f" ({q.reason})" if q.reason else "")})
            if q.status == "sat":
                return {"mutant": mutant.text, "tried": tried, "result": "not-proved", "passed": True,
                        "failing_step": step.name, "size": [first, m],
                        "instance": gates.read_instance(q.model, parts, Frame(first, m))}
    return {"mutant": mutant.text, "tried": tried, "result": "no step shown to fail", "passed": False}


def prove_all_sizes(mechanism: Mechanism, prop: str, *, domain=None, options: dict | None = None,
                    budget: AllSizesBudget | None = None, time_limit: float | None = None) -> Result:
    """Prove `prop` of `mechanism` at every size on `domain` (see the module docstring)."""
    options = dict(options or {})
    budget = budget or (AllSizesBudget(seconds=float(time_limit)) if time_limit else AllSizesBudget())
    asked = parse(domain)
    declared = mechanism.domain
    explored = asked.intersect(declared)
    positive = explored.demands == "positive"
    start = time.monotonic()
    run = _Run(budget)
    family = family_of(mechanism, options)
    details: dict[str, Any] = {"all_sizes": True, "users": "n >= 1", "resources": "m >= 1", "n0": 1, "m0": 1,
                               "options": options, "positive_demands": positive, "gates": {}, "steps": [],
                               "lemmas": [], "queries": run.queries}

    def result(status: Status, explanation: str, certificate: dict | None = None) -> Result:
        covered = COVERED if status in (Status.PROVED, Status.PROVED_BY_LEMMA) else None
        stopped = {"stopped": "time"} if explanation.startswith("time") else {}
        return Result("proof", status, mechanism=mechanism.name, property=prop, certificate=certificate,
                      budget={**budget.recorded(), "rlimit_spent": sum(q["spent"] for q in run.queries), **stopped},
                      seconds=time.monotonic() - start, explanation=explanation, details=details,
                      domain=record(asked, declared, covered))

    if family is None:
        return result(Status.UNKNOWN, f"no all-size proof for {mechanism.name}" + (" with options" if options else "")
                      + f": all-size proofs exist for {', '.join(sorted(FAMILIES))} (no options)")
    if prop not in WITNESSES:
        return result(Status.UNKNOWN, f"no all-size proof of {prop}: all-size proofs exist for "
                      f"{', '.join(WITNESSES)}")
    if mechanism.spec is None:
        return result(Status.UNKNOWN, f"{mechanism.name} has no spec to compare its schema with")
    if prop in family.positive_only and not positive:
        return result(Status.UNKNOWN, f"no all-size proof of {prop} on demands >= 0: it goes through the abstraction "
                      "of positive demands (every user needs every resource); ask --domain drf-paper or "
                      "demands=positive")
    if prop == "sp":  # what a misreport may be (the lab's rule: deviations outside the domain do not count)
        details["deviations"] = ("misreports inside the domain: every declared demand > 0" if positive else
                                 "misreports inside the domain: declared demands >= 0, not all zero")
    scope = "mechanism" if is_builtin(mechanism) else "spec"
    details.update(scope=scope, schema=family.text,
                   abstraction=[{"statement": s.name, "text": s.text} for s in
                                family.statements(family.schema(_probe_inst(), "mech"), positive)],
                   rules=["ground instantiation of universal statements and Skolemisation (first-order logic)",
                          "induction on the naturals (each lemma: base and step checked by z3)",
                          f"the schema is the lab's spec of {mechanism.name} beyond the compared sizes (by "
                          "construction: the same loops over users and resources; compared by z3 at "
                          f"{_sizes(gates.SPEC_SIZES)}), and the negated property the lab's rule likewise "
                          f"(compared at {_sizes(gates.RULE_SIZES)})",
                          "the allocator satisfies its spec (sampled: abstraction-conformance up to 7 x 4)"])
    gates_state = details["gates"]
    try:
        # 1. gates
        # the schema against the spec at the small sizes first; the larger ones after the allocator's
        # conformance, which tells a large-size difference of the allocator apart much sooner
        small = tuple(s for s in gates.SPEC_SIZES if s in gates.SMALL)
        larger = tuple(s for s in gates.SPEC_SIZES if s not in gates.SMALL)

        def spec_gate(sizes) -> Result | None:
            records = gates.schema_is_spec(mechanism, family.schema, positive, run.gate_solver("schema-is-spec"),
                                           budget.gate_rlimit, sizes=sizes, options=options)
            details.setdefault("schema_is_spec", []).extend(records)
            bad = [r for r in records if r["result"] != "equivalent"]
            gates_state["schema-is-spec"] = "failed" if bad else "passed"
            if bad:
                return result(Status.UNKNOWN, f"schema-is-spec: {bad[0]['what']}: {bad[0]['result']}; no verdict")
            return None

        stop = spec_gate(small)
        if stop is not None:
            return stop
        rule_records = gates.property_is_rule(prop, family.schema, positive, run.gate_solver("property-is-rule"),
                                              budget.gate_rlimit)
        details["property_is_rule"] = rule_records
        bad = [r for r in rule_records if r["result"] != "equivalent"]
        gates_state["property-is-rule"] = "failed" if bad else "passed"
        if bad:
            return result(Status.UNKNOWN, f"property-is-rule: {bad[0]['what']}: {bad[0]['result']}; no verdict")
        conf = gates.abstraction_conformance(mechanism, family, family.schema, positive,
                                             run.gate_solver("abstraction-conformance"), budget.gate_rlimit,
                                             budget.conformance_samples, budget.conformance_seed, options=options)
        details["abstraction_conformance"] = conf
        bad = [r for r in conf if r["result"] != "holds"]
        gates_state["abstraction-conformance"] = "failed" if bad else "passed"
        if bad:
            what = bad[0]
            failing = ", ".join(what.get("failing", [])) or what["result"]
            return result(Status.UNKNOWN, f"abstraction-conformance: on {what['instance']} the allocation "
                          f"{what['allocation']} does not satisfy {failing} ({what['size'][0]}x{what['size'][1]}); "
                          "no verdict")
        stop = spec_gate(larger)
        if stop is not None:
            return stop
        # 2-3. the steps; 4. their lemmas; 5. controls (inside each step)
        lemmas: dict[tuple[str, str], tuple[Aggregate, str]] = {}
        all_steps = [*abstraction_steps(family, positive), theorem_step(family, prop, positive)]
        failed: list[dict] = []
        for step in all_steps:
            if failed and step is all_steps[-1]:
                break  # the theorem rests on the abstraction: not attempted after a failed abstraction step
            outcome = _step(run, step, lemmas)
            details["steps"].append(outcome)
            if not outcome["ok"]:
                failed.append(outcome)
        if failed:
            gates_state["steps"] = "failed"
            return result(Status.UNKNOWN, "; ".join(f"step {o['step']} failed: {o['why']}" for o in failed)
                          + (" (a model of a step's ground instances need not be a counterexample: it satisfies "
                             "the instances the step uses, not every statement)"
                             if any("model" in o for o in failed) else ""))
        gates_state["steps"] = "passed"
        gates_state["positive-control"] = "passed"
        for agg, kind in lemmas.values():
            details["lemmas"].append(_lemma(run, agg, kind))
        unproved = [x["lemma"] for x in details["lemmas"] if not x["proved"]]
        gates_state["lemmas"] = "failed" if unproved else "passed"
        if unproved:
            return result(Status.UNKNOWN, f"lemma {unproved[0]}: its induction (base or step) was not shown by z3")
        # 6. the large-size mutant
        mutant = _mutant(run, family, prop, positive)
        details["large_size_mutant"] = mutant
        gates_state["large-size-mutant"] = "passed" if mutant["passed"] else "failed"
        if not mutant["passed"]:
            return result(Status.UNKNOWN, f"large-size mutant: {mutant.get('why') or mutant['result']} — the proof "
                          f"is not shown to tell instances of {budget.mutant_from} or more users apart; no verdict")
    except _Stopped as stop:
        return result(Status.UNKNOWN, f"time: the wall-clock stop ({budget.seconds:g} s) fired during {stop} before "
                      "z3's resource limit (the machine is slow or loaded; raise the time limit)")
    certificate = {"steps": [{k: s[k] for k in ("step", "shows", "result", "core", "terms", "control")}
                             for s in details["steps"]],
                   "lemmas": [{k: x[k] for k in ("lemma", "statement", "method", "base", "step")}
                              for x in details["lemmas"]],
                   "large_size_mutant": details["large_size_mutant"]}
    words = explored.intersect(COVERED).words + (f"; {details['deviations']}" if prop == "sp" else "")
    core = details["steps"][-1].get("core", []) if details["steps"] else []
    hand = [(name, where) for name, where in family.assumed if positive and family.abstraction is not None
            and any(c.split("[", 1)[0].endswith(f".abstraction.{name}") for c in core)]
    largest = max(gates.SPEC_SIZES)
    trust = (f"the schema is {mechanism.name}'s spec at every size by construction (compared by z3 up to "
             f"{largest[0]} x {largest[1]}; details.rules)")
    if hand:
        details["by_hand"] = [{"statement": name, "argument": where} for name, where in hand]
        certificate["by_hand"] = details["by_hand"]
        return result(Status.PROVED_BY_LEMMA, f"{prop} holds for every n >= 1 users and m >= 1 resources ({words}) "
                      f"GIVEN {len(hand)} statement(s) argued by hand, not machine-checked: "
                      + "; ".join(f"{name} ({where})" for name, where in hand)
                      + f"; the rest: {len(all_steps)} steps and {len(details['lemmas'])} induction lemmas, each "
                      f"UNSAT in z3, every gate passed; {trust}", certificate)
    return result(Status.PROVED, f"{prop} holds for every n >= 1 users and m >= 1 resources ({words}): "
                  f"{len(all_steps)} steps and {len(details['lemmas'])} induction lemmas, each UNSAT in z3, "
                  f"every gate passed; {trust}", certificate)


def prove_with(mechanism: Mechanism, prop: str, keywords: dict) -> Result:
    """`prove_all_sizes` from the keywords of `fairlab.search.prove` (``domain``, ``options``,
    ``time_limit``, ``rlimit``, ``budget``, ``positive_demands``); any other is a one-line error."""
    allowed = {"domain", "options", "time_limit", "rlimit", "budget", "positive_demands"}
    extra = sorted(set(keywords) - allowed)
    if extra:
        raise InputError(f"all_sizes: {extra[0]!r} is for fixed-size proofs (an all-size proof takes "
                         f"{', '.join(sorted(allowed))})")
    budget = keywords.get("budget")
    if budget is not None and not isinstance(budget, AllSizesBudget):
        raise InputError("all_sizes: budget must be an AllSizesBudget")
    changes: dict[str, Any] = {}
    if keywords.get("rlimit") is not None:
        changes["rlimit"] = keywords["rlimit"]
    if keywords.get("time_limit") is not None:
        changes["seconds"] = float(keywords["time_limit"])
    budget = dataclasses.replace(budget or AllSizesBudget(), **changes)
    domain = parse(keywords.get("domain"))
    if keywords.get("positive_demands"):
        domain = domain.intersect(Domain(demands="positive"))
    return prove_all_sizes(mechanism, prop, domain=domain, options=keywords.get("options"), budget=budget)


def _sizes(sizes) -> str:
    return ", ".join(f"{n} x {m}" for n, m in sizes)


def _probe_inst():
    from fairlab.search.all_sizes.schema import Inst

    return Inst(Frame())


__all__ = ["prove_all_sizes", "prove_with", "AllSizesBudget", "register_family", "family_of", "COVERED"]
