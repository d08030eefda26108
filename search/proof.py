"""Prove a property of a mechanism for ALL demand profiles of a size: "spec ∧ ¬property" is UNSAT.

The instance has n users and m resources with unknown real demands (each row non-negative and
not all zero), and, where the asked domain allows them, unknown weights (one per user, or one per
user and resource) and unknown task caps (every cap pattern in turn: `fairlab.search.proof_domain`).
Capacities are normalised to 1 only for a mechanism declared scale-invariant
(`Mechanism.scale_invariant`: it depends on demands only through shares d_ir / c_r, so a resource
can be rescaled to capacity 1 without changing any allocation in tasks or any property — the proof
covers all positive capacities); for any other mechanism every capacity is an unknown positive real
(`SymbolicInstance.unknown(..., capacities="unknown")`), which z3 finds harder: an `unknown` then
is the honest answer.

Reductions that keep the proof complete:

* user symmetry, only for a mechanism declared anonymous (`Mechanism.anonymous`: its spec is
  symmetric under permuting users): the unknown instance is then symmetric in the users, so for
  properties stated per user (sp) a violation by any user is a violation by user 0 after renaming;
  the encoding asks only about user 0 (`focus_user`), which z3 finds much easier. Otherwise the
  negated property is the disjunction over every user;
* normalisation of each user's row so its largest share is 1 would also be complete for
  row-scale-invariant mechanisms; it is offered as `normalise_rows` and recorded in the result;
* for the lab's DRF (no options) and si, ef, pe, sp, bf, srf, pm, the encoding "drf-normalised"
  (`_drf_normalised`, `_drf_sp_relaxed`, `fairlab.search.proof_drf_pm`): every row rescaled so its
  DRF tasks are 1 (linear arithmetic), users and resources ordered, and for sp (pm) the
  misreported (departure) run relaxed to a linear over-approximation — each reduction argued in
  its docstring and listed in the result. With weights, "drf-levels" first (`_drf_levels`,
  `fairlab.search.proof_weights`): the same, with the weighted dominant shares and their products
  with the weights relaxed to linear facts; a relaxation's model that is no violation sends the
  proof on to the next encoding.

A proof is about the mechanism's *spec*, so before `proved` the spec must pass four gates, in
order (any failure is `unknown` with the reason, never `proved`):

1. conformance: the spec describes the numeric allocator — `fairlab.mechanisms.conformance` on a seeded
   sample of instances of the proof's size, every checked instance agreeing (for
   ``same-as:X`` also X's spec and allocator);
2. satisfiability: spec ∧ domain (the instance domain and assumptions, without the negated
   property) is satisfiable — an unsatisfiable spec proves everything ("vacuous spec");
3. the unsat core uses a constraint of the negated property (else the spec alone is
   contradictory on the domain);
4. the positive control: one mechanism hypothesis of the core dropped, the encoding is
   satisfiable (z3 produces an instance violating the property), so a property encoding that is
   UNSAT on its own (e.g. a wrongly negated property) cannot pass either. When no single drop is
   satisfiable, further hypotheses of the successive unsat cores are dropped with it
   (`_widened_control`); the domain, the assumptions (every demand positive), the reductions and
   the negated property never are, so the control's instance lies inside the proof's domain.

What a `proved` covers (``details["scope"]``): "mechanism" for the lab's built-ins (their specs are
reviewed and pass conformance in the contract tests); "spec" for foreign code (plug-ins, callables,
entry points), whose spec agreed with its allocator only on the sampled instances — the explanation
says so. A foreign mechanism's `proved` passes one more gate, "allocator-check" (`allocator_check`):
the exact property check of its allocator on the conformance sample and a few seeded instances with
capacities 1..9; a violation there is the result, `refuted` with that witness, confirmed exactly.

The encodings and which strategy applies are `fairlab.search.proof_encoding`; the budget, the z3
query, gate 1, the positive control, the exact confirmation of a refutation and the allocator check
are `fairlab.search.proof_gates` (both re-exported here); this module keeps the schedule of
attempts, gates 2-3 and the entry points.

Budgets are deterministic: every z3 query runs in a fresh z3 context (z3's search depends on
what its context saw before) and is decided by a resource limit (`fairlab.core.solving`). The proof
query follows a fixed schedule of attempts — attempt k uses seed k and `rlimit` · 2^k — and the
positive control and the satisfiability gate have schedules of their own; the same input and
budget give the same verdict on any machine. The time limit is only an outer stop: when it fires
the verdict is `unknown` with reason "time". The budget and every query's resource use are
recorded in the result.
"""

from __future__ import annotations

import time
from typing import Any

import z3

from fairlab import properties
from fairlab.core.errors import InputError
from fairlab.core.results import Result, Status, to_dict
from fairlab.core.solving import safety_seconds
from fairlab.mechanisms import conformance
from fairlab.mechanisms.base import Mechanism
from fairlab.mechanisms.registry import is_builtin
from fairlab.search.budgets import PROVE_SAFETY_NET
from fairlab.search.proof_encoding import (  # noqa: F401  (re-exported: proof's public names)
    DRF_NORMALISED,
    PER_USER,
    RELATIONS,
    STRATEGIES,
    Encoded,
    _drf_bundles,
    _drf_normalised,
    _drf_sp_relaxed,
    _generic,
    _is_hypothesis,
    _relation_encoding,
    _symmetry,
    baseline_strategies_for,
    check_options,
    encoding,
    normalised_run,
    related_mechanism,
    strategies_for,
)
from fairlab.search.proof_gates import (  # noqa: F401  (re-exported: proof's public names)
    _CONFORMANCE,
    ALLOCATOR_CHECK_EVALUATIONS,
    ALLOCATOR_CHECK_EXTRA,
    DEFAULT_ATTEMPTS,
    DEFAULT_RLIMIT,
    Z3_PARAM_VARIANTS,
    Z3_PARAMS,
    ProveBudget,
    Query,
    _confirm_relation,
    _read_control,
    _record,
    _widened_control,
    allocator_check,
    allocator_instances,
    confirm_refutation,
    conformance_gate,
    positive_control,
    solve,
    solve_with_core,
)


def _unknown(out: dict, reason: str, gate: str | None = None, state: str = "unknown") -> dict:
    if gate:
        out["gates"][gate] = state
    out.update(verdict="unknown", reason=reason)
    return out


def _time_reason(where: str, budget: ProveBudget) -> str:
    return (f"time: the wall-clock safety net ({budget.seconds:g} s) fired during {where} before z3's resource "
            f"limit (z3 did work it does not charge to the limit, or the machine is overloaded; raise --time-limit)")


def satisfiable(encoded: Encoded, strategy: str, budget: ProveBudget, deadline: float, queries: list[dict]) -> Query:
    """Gate 2: is the base (domain, assumptions, the instance's own spec) satisfiable? The proof
    schedule's (seed, rlimit) pairs in turn until one answers."""
    base = [c for c in encoded.constraints if c.name in encoded.base]
    for seed, rlimit in budget.schedule():
        q = solve(base, seed, rlimit, deadline, params=budget.z3_params)
        _record(queries, "satisfiable", q, seed, rlimit, strategy=strategy)
        if q.status != "unknown" or q.reason == "time":
            break
    return q


def decide(encoded: Encoded, strategy: str, prop: str, seed: int, rlimit: int, budget: ProveBudget,
           deadline: float, queries: list[dict], params: tuple | None = None,
           attempt_deadline: float | None = None) -> dict:
    """One proof attempt of one encoding and, if UNSAT, gates 2-4: a plain dict with "verdict"
    ("proved" | "refuted" | "unknown"), "reason", "core", "control", "instance", "witness"."""
    out: dict[str, Any] = {"strategy": strategy, "reductions": encoded.reductions, "core": [], "control": None,
                           "instance": None, "witness": None, "gates": {}, "stopped": ""}
    params = budget.z3_params if params is None else params
    q = solve_with_core(encoded.constraints, seed, rlimit, min(deadline, attempt_deadline or deadline),
                        params=params)
    _record(queries, "proof", q, seed, rlimit, strategy=strategy, z3_params={k: v for k, v in params})
    if q.status == "sat":
        out["instance"], out["witness"] = encoded.read_model(q.model)
        out["gates"] = {g: "not-needed" for g in ("satisfiable", "core-uses-property", "positive-control")}
        out.update(verdict="refuted", reason="z3 found a violating instance")
        return out
    if q.status == "unknown":
        out["stopped"] = q.reason
        if q.reason == "time":
            if time.monotonic() < deadline:  # only this attempt's share of the clock: the next attempt goes on
                out["stopped"] = "attempt-time"
            return _unknown(out, _time_reason("the proof", budget))
        return _unknown(out, f"z3 stopped ({q.reason}) on the proof with seed {seed}, rlimit {rlimit:,}")
    out["core"] = q.core
    # Gate 2: the base (domain, assumptions, the spec of the instance) alone is satisfiable.
    sat = satisfiable(encoded, strategy, budget, deadline, queries)
    if sat.status == "unsat":
        return _unknown(out, "vacuous spec: spec ∧ domain is unsatisfiable (no demand profile of this size has an "
                        "allocation the spec admits), so it proves anything; no verdict", "satisfiable", "failed")
    if sat.status == "unknown":
        out["stopped"] = sat.reason
        return _unknown(out, _time_reason("the satisfiability gate", budget) if sat.reason == "time" else
                        f"z3 could not show spec ∧ domain satisfiable ({sat.reason}); no verdict", "satisfiable")
    out["gates"]["satisfiable"] = "passed"
    # Gate 3: the core uses the negated property. (Implied by gate 2 when z3's core is right:
    # a core inside the base would make the base unsatisfiable. Kept as a cheap second check.)
    if not any(encoded.goal(c) for c in q.core):
        return _unknown(out, "vacuous: the unsat core uses no constraint of the negated property (the spec alone is "
                        "contradictory on this domain)", "core-uses-property", "failed")
    out["gates"]["core-uses-property"] = "passed"
    # Gate 4: the positive control.
    control = positive_control(encoded.constraints, [c for c in q.core if encoded.hypothesis(c)],
                               encoded.read_model, budget, deadline, queries, fix=encoded.control_fix,
                               hypothesis=encoded.hypothesis)
    if control is None:
        if queries and queries[-1]["result"] == "unknown (time)":
            out["stopped"] = "time"
            return _unknown(out, _time_reason("the positive control", budget), "positive-control")
        if any(c.name == f"{prop}.violated" and z3.is_false(z3.simplify(c.expr)) for c in encoded.constraints):
            return _unknown(out, f"UNSAT, but no positive control was satisfiable: ¬{prop} is false at this size as "
                            "encoded (nothing can violate it, as srf with several resources or ef and pm with one "
                            "user), so no control exists and nothing is proved", "positive-control", "failed")
        return _unknown(out, "UNSAT, but no positive control was satisfiable: the encoding may be vacuous",
                        "positive-control", "failed")
    out["gates"]["positive-control"] = "passed"
    out.update(verdict="proved", control=control, reason=f"spec ∧ ¬{prop} is UNSAT over the reals")
    return out


def space_keywords(weights: str = "none", caps=False) -> dict:
    """The keywords an encoding (`STRATEGIES`) gets for weights and caps: none for unit weights and
    no caps, so an encoding written before weights and caps is called as it always was."""
    out: dict[str, Any] = {}
    if weights != "none":
        out["weights"] = weights
    if caps is not False and (caps is True or any(caps)):
        out["caps"] = caps
    return out


def run_strategy(strategy: str, mechanism: Mechanism, prop: str, n: int, m: int, time_limit: float,
                 options: dict, positive_demands: bool, seed: int = 0, rlimit: int = DEFAULT_RLIMIT,
                 weights: str = "none", caps=False) -> dict:
    """One attempt of one encoding (no conformance gate: for benchmarks of the encodings)."""
    budget = ProveBudget(rlimit=rlimit, seconds=time_limit)
    start = time.monotonic()
    encoded = STRATEGIES[strategy](mechanism, prop, n, m, options, positive_demands,
                                   **space_keywords(weights, caps))
    queries: list[dict] = []
    out = decide(encoded, strategy, prop, seed, rlimit, budget, start + time_limit, queries)
    out["queries"] = queries
    out["seconds"] = time.monotonic() - start
    return out


def _final(result: dict) -> bool:
    """Decided, stopped by the clock, or an UNSAT that failed a gate (gates 2-4 have their own
    schedules, so another proof attempt would not change that): no further attempt."""
    return result["verdict"] != "unknown" or result["stopped"] == "time" or bool(result["core"])


GATES = ("conformance", "satisfiable", "core-uses-property", "positive-control")


def prove_encoded(mechanism: Mechanism, prop: str, n: int, m: int, time_limit: float = PROVE_SAFETY_NET,
                  options: dict | None = None, positive_demands: bool = False, rlimit: int | None = None,
                  attempts: int | None = None, budget: ProveBudget | None = None,
                  strategies: list[str] | None = None, weights: str = "none", caps=False,
                  conformance_domain=None) -> Result:
    """Gate 1 (conformance), then the proof attempts of the budget's schedule — attempt k: seed k,
    rlimit · 2^k, each applicable encoding in turn, most specialised first — until one decides;
    an UNSAT passes gates 2-4 before it is `proved`; a `refuted` is confirmed exactly on a
    concrete instance. `time_limit` (or `budget.seconds`) is the outer wall-clock stop.

    A ``proof`` `Result`: the unsat core and positive control are its ``certificate``; the gates,
    the conformance reports, the reductions and every z3 query are its ``details``; the budget and
    the resource units spent (``rlimit_spent``) its ``budget``. `strategies` overrides the
    encodings `strategies_for` chooses (benchmarks: the baseline, `baseline_strategies_for`).

    `weights` ("none", "scalar", "vector") and `caps` (which users have an unknown task cap:
    `SymbolicInstance.unknown`) shape the unknown instance; `conformance_domain` (a
    `fairlab.core.domain.Domain`) is what gate 1's sample draws from (weights and caps where it
    allows them; None: the sample of unit weights and no caps). The domain entry point
    (`fairlab.search.proof_domain.prove_on`) sets all three from the domain asked."""
    options = dict(options or {})
    prop_object = properties.REGISTRY.get(prop)
    if prop_object is None and prop != "unique" and not prop.startswith("same-as:"):
        prop_object = properties.get(prop)  # a plug-in (file.py:NAME, entry point), or one line naming it
    if mechanism.setting != "pool" or (prop_object is not None and prop_object.setting != "pool"):
        from fairlab.search.engines import setting_module
        if prop_object is None:
            raise InputError(f"property {prop!r}: not a property of the {mechanism.setting} setting "
                             f"(known: {', '.join(properties.names(mechanism.setting))})")
        if positive_demands or strategies is not None or budget is not None:
            # the setting's prover has its own encodings and domains: an assumption it would not
            # honour must not be dropped silently (a refutation could lie outside it)
            raise InputError(f"--positive-demands: not available in the {mechanism.setting} setting (its prover "
                             "would not honour it; drop the option)" if positive_demands else
                             f"prove: strategies and budgets are for the pool setting, not {mechanism.setting}")
        return setting_module(prop_object, mechanism).prove(
            mechanism, prop, n, m, time_limit=time_limit, options=options, rlimit=rlimit, attempts=attempts)
    if n < 1 or m < 1:
        raise InputError(f"size: need at least one user and one resource, got {n} × {m}")
    if not time_limit > 0 or time_limit == float("inf"):  # NaN fails the first test
        raise InputError(f"time limit: must be a finite positive number of seconds, got {time_limit}")
    if budget is None:
        budget = ProveBudget(rlimit=DEFAULT_RLIMIT if rlimit is None else rlimit,
                             attempts=DEFAULT_ATTEMPTS if attempts is None else attempts, seconds=float(time_limit))
    check_options(mechanism, options)
    space = space_keywords(weights, caps)
    encoding(mechanism, prop, n, m, options=options, positive_demands=positive_demands, **space)  # validate early
    start = time.monotonic()
    deadline = start + budget.seconds
    names = (strategies_for(mechanism, prop, options, positive_demands, **space) if strategies is None
             else list(strategies))
    if not names or any(name not in STRATEGIES for name in names):
        raise InputError(f"strategies: expected names among {', '.join(STRATEGIES)}, got {names}")
    gates = {g: "not-reached" for g in GATES}
    queries: list[dict] = []
    reports: list[dict] = []

    relation = prop == "unique" or prop.startswith("same-as:")
    checked: dict = {}

    def result(status, explanation, core=(), control=None, instance=None, witness=None, reductions=()):
        spent = sum(q["spent"] for q in queries) + sum(c["budget"].get("rlimit_spent", 0) for c in reports)
        stopped = {"stopped": "time"} if explanation.startswith("time") else {}
        # a refutation is confirmed exactly on the allocator itself: about the mechanism, whoever wrote it
        covered = "mechanism" if Status(status) == Status.REFUTED else scope
        return Result(
            "proof", status, mechanism=mechanism.name, property=prop, instance=instance, witness=witness,
            certificate={"core": list(core), "control": control} if core else None,
            budget={**budget.recorded(), "rlimit_spent": spent, **stopped},
            seconds=time.monotonic() - start, explanation=explanation,
            details={"users": n, "resources": m, "options": options, "positive_demands": positive_demands,
                     **({"weights": weights} if weights != "none" else {}),
                     **({"caps": [bool(c) for c in caps] if not isinstance(caps, bool) else [caps] * n}
                        if "caps" in space else {}),
                     "gates": gates, "reductions": list(reductions), "conformance": reports, "queries": queries,
                     "scope": covered, **({"allocator_check": checked} if checked else {})},
        )

    # Gate 1: the spec describes the allocator (and, for 'same-as:X', X's spec describes X).
    other = related_mechanism(mechanism, prop)
    involved = [(mechanism, options)] + ([(other, {})] if other is not None and other is not mechanism else [])
    # what a `proved` covers: the mechanism itself for the lab's built-ins (their specs are reviewed
    # and pass conformance in the contract tests); for foreign code only its declared spec
    scope = "mechanism" if all(is_builtin(mech) for mech, _ in involved) else "spec"
    if scope == "spec" and not relation:
        gates["allocator-check"] = "not-reached"
    sampled: list[Result] = []
    for mech, opts in involved:
        report = conformance_gate(mech, n, m, opts, budget, deadline, conformance_domain)
        if mech is mechanism:
            sampled = conformance.results_of(report)
        reports.append(to_dict(report, versioned=False))
        if report.status != "agrees":
            gates["conformance"] = "failed" if report.status == "disagrees" else "unknown"
            reason = (f"spec and allocator of {mech.name} disagree, no verdict: {report.explanation}"
                      if report.status == "disagrees" else f"conformance not shown, no verdict: {report.explanation}")
            if any("(time)" in r.explanation for r in conformance.results_of(report)):
                reason = _time_reason("the conformance gate", budget) + f" — {report.explanation}"
            return result(Status.UNKNOWN, reason)
    gates["conformance"] = "passed"

    encoded = {}
    results = []
    schedule = budget.schedule()
    spurious: set[str] = set()  # relaxed encodings whose model was no violation: not asked again
    for k, (seed, limit) in enumerate(schedule):
        for j, name in enumerate(names):
            if name in spurious:
                continue
            if name not in encoded:
                encoded[name] = STRATEGIES[name](mechanism, prop, n, m, options, positive_demands, **space)
            # each attempt may use its share of the clock that is left, so one setting stalled in work
            # z3 does not charge to its resource limit cannot starve the others (a stop by the share
            # alone is not final) — but never less than its counted budget takes at the slowest rate
            # seen: an attempt that spends its rlimit is always let to, whatever the machine's load
            now = time.monotonic()
            share = now + max((deadline - now) / ((len(schedule) - k) * len(names) - j), safety_seconds(limit))
            results.append(decide(encoded[name], name, prop, seed, limit, budget, deadline, queries,
                                  params=budget.params_for(k), attempt_deadline=share))
            if results[-1]["verdict"] == "refuted" and encoded[name].relaxed:
                confirmed = confirm_refutation(mechanism, prop, results[-1]["instance"], results[-1]["witness"],
                                               options, budget)
                if confirmed is None:  # a model of the relaxation only: the next encoding may decide
                    spurious.add(name)
                    results[-1].update(verdict="unknown", reason="z3 found a model but its violation did not "
                                       "survive the exact re-check", gates={})
                else:
                    results[-1]["confirmed"] = confirmed
            if _final(results[-1]):
                break
        if _final(results[-1]):
            break
    best = results[-1]
    if best["verdict"] == "unknown" and not best["core"] and best["stopped"] == "rlimit":
        best["reason"] = (f"rlimit: every proof attempt ran out of its resource limit ({len(results)} attempts: seeds "
                          f"{schedule[0][0]}-{schedule[-1][0]}, rlimit {schedule[0][1]:,} doubling to "
                          f"{schedule[-1][1]:,}); raise --rlimit or --attempts")
    gates.update(best["gates"])
    status, reason, witness = best["verdict"], best["reason"], best["witness"]
    reductions = best["reductions"] + [f"encoding: {best['strategy']} (tried: {', '.join(names)}; "
                                       f"{len(results)} attempts of the schedule)"]
    if status == "refuted":
        confirmed = best.get("confirmed") or confirm_refutation(mechanism, prop, best["instance"], witness, options,
                                                                budget)
        if confirmed is None:
            status, reason = "unknown", "z3 found a model but its violation did not survive the exact re-check"
        else:  # the witness reported is the one that was confirmed (the model's may have been rounded)
            reason, witness = confirmed
    if status == "proved" and scope == "spec":
        agreed = sum(1 for r in sampled if r.status == Status.AGREES)
        if relation:
            reason += (f". Scope: the declared specs (a relation between specifications); {mechanism.name}'s spec "
                       f"agreed with its allocator on the {agreed} sampled instances")
        else:
            found = allocator_check(mechanism, prop, n, m, options, sampled, budget, deadline, checked,
                                    domain=conformance_domain, caps=caps)
            if found is not None and found[0] == "refuted":
                _, inst, witness, why = found
                gates["allocator-check"] = "failed"
                return result(Status.REFUTED, f"the spec is proved, but the allocator departs from it: {why}",
                              instance=inst, witness=witness, reductions=reductions)
            if found is not None:  # the clock stopped the allocator check: no claim
                gates["allocator-check"] = "unknown"
                return result(Status.UNKNOWN, _time_reason("the allocator check", budget) + f" — {found[1]}",
                              reductions=reductions)
            gates["allocator-check"] = "passed"
            reason += (f". Scope: this proves the plug-in's declared spec, which agreed with its allocator on the "
                       f"{agreed} sampled instances (conformance), and the allocator's exact {prop} check found no "
                       f"violation on {checked.get('checked', 0)} instances (the sample and "
                       f"{checked.get('extra', 0)} with capacities 1..9); an allocator departing from its spec "
                       "elsewhere is not covered")
    return result(status, reason, best["core"], best["control"], best["instance"], witness, reductions)


# --------------------------------------------------------------------------- the domain (entry point)
# `prove_encoded` above is the encodings' prover; `prove` below is the entry point every caller uses

def prove(mechanism: Mechanism, prop: str, n: int, m: int, time_limit: float = PROVE_SAFETY_NET,
          options: dict | None = None,
          positive_demands: bool = False, rlimit: int | None = None, attempts: int | None = None,
          budget: ProveBudget | None = None, strategies: list[str] | None = None, domain=None) -> Result:
    """`prove_encoded` on an instance domain (`fairlab.core.domain`; default ``all``, and
    ``positive_demands=True`` narrows it to positive demands): the encodings range over the domain
    explored (its demands, weights as unknowns, every pattern of task caps) and the result records
    exactly the domain it is about (`fairlab.search.proof_domain.prove_on`)."""
    from fairlab.search.proof_domain import prove_on

    return prove_on(prove_encoded, mechanism, prop, n, m, domain=domain, positive_demands=positive_demands,
                    time_limit=time_limit, options=options, rlimit=rlimit, attempts=attempts, budget=budget,
                    strategies=strategies)
