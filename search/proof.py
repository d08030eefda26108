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

The encodings and which strategy applies are `fairlab.search.proof_encoding` (re-exported here);
this module keeps the budget, the schedule of attempts, the gates and the controls.

Budgets are deterministic: every z3 query runs in a fresh z3 context (z3's search depends on
what its context saw before) and is decided by a resource limit (`fairlab.core.solving`). The proof
query follows a fixed schedule of attempts — attempt k uses seed k and `rlimit` · 2^k — and the
positive control and the satisfiability gate have schedules of their own; the same input and
budget give the same verdict on any machine. The time limit is only an outer stop: when it fires
the verdict is `unknown` with reason "time". The budget and every query's resource use are
recorded in the result.
"""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import dataclass
from typing import Any

import z3

from fairlab import properties
from fairlab.core.errors import InputError, OptionError, PluginError
from fairlab.core.exact import to_fraction, z3_value
from fairlab.core.instance import Instance
from fairlab.core.isolated import Isolated, global_params
from fairlab.core.results import Result, Status, to_dict
from fairlab.core.solving import SolverBudget, new_solver, safety_seconds
from fairlab.core.solving import check as z3_check
from fairlab.mechanisms import conformance
from fairlab.mechanisms.base import Constraint, Mechanism, SymbolicInstance
from fairlab.mechanisms.registry import is_builtin
from fairlab.properties.base import Violation
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
from fairlab.search.verify import confirm_violation

#: z3 resource limit of the first proof attempt; attempt k gets seed k and DEFAULT_RLIMIT · 2^k.
#: Measured (fresh contexts, seed 0): `prove drf si -n 3 -m 3` needs 1.5 million units; the
#: catalogue's fast subset at most 0.6 million per size.
DEFAULT_RLIMIT = 10_000_000
#: attempts of the proof query (seeds 0, 1, …): 4 attempts spend at most 15 · DEFAULT_RLIMIT.
DEFAULT_ATTEMPTS = 4
# PROVE_SAFETY_NET (`fairlab.search.budgets`): a proof's wall-clock safety net. Each attempt may run
# at least as long as its counted budget takes at the slowest rate seen
# (`fairlab.core.solving.safety_seconds`: 40 s for 10 million units), so an attempt that spends its
# resource limit always gets to; only work z3 does not charge to the limit (see Z3_PARAM_VARIANTS)
# is cut by the clock, and the next attempt goes on.
#: z3 global parameters of every proof query. nlsat's levelwise projection (z3 5's default)
#: computes resultants in big integers without charging the resource limit: measured, the first
#: attempt of `prove drf sp -n 3 -m 3` ran for minutes on 2 million units with it and is proved
#: in 3 s (6 million units) without it; `drf ef` 3×3 needs 1.1 instead of 34 million units.
#: (Work that does not charge the rlimit cannot be bounded deterministically: when it is long,
#: only the wall-clock stop ends it, and the verdict is `unknown (time)`.)
Z3_PARAMS: tuple[tuple[str, object], ...] = (("nlsat.lws", False),)
#: z3 settings the proof attempts alternate between (attempt k uses variant k mod 2). nlsat's work
#: is not all charged to the rlimit, in a different place for each setting: with levelwise
#: projection on (z3's default) drf sp and rm at 3x3 ran for minutes on < 3M units; with it off
#: (`Z3_PARAMS`) drf rm at 2x2 took > 20 s where the default answers in 0.2 s. Alternating, with
#: each attempt held to its share of the wall clock, lets one setting answer where the other stalls.
Z3_PARAM_VARIANTS: tuple[tuple[tuple[str, object], ...], ...] = ((), Z3_PARAMS)


@dataclass(frozen=True)
class ProveBudget:
    """Everything that decides a verdict (resource limits, attempts, seeds, the conformance
    sample), and the wall-clock outer stop `seconds` (which can only make it `unknown`)."""

    rlimit: int = DEFAULT_RLIMIT
    attempts: int = DEFAULT_ATTEMPTS
    seconds: float = PROVE_SAFETY_NET
    conformance_samples: int = 8
    conformance_seed: int = 0
    conformance_rlimit: int = 20_000_000
    z3_params: tuple[tuple[str, object], ...] = Z3_PARAMS  # the gates' and controls' setting
    z3_param_variants: tuple[tuple[tuple[str, object], ...], ...] = Z3_PARAM_VARIANTS

    def __post_init__(self):
        for name in ("rlimit", "attempts", "conformance_samples", "conformance_rlimit"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"{name}: expected a positive integer, got {value!r}")
        if isinstance(self.conformance_seed, bool) or not isinstance(self.conformance_seed, int) \
                or self.conformance_seed < 0:
            raise InputError(f"conformance seed: expected a non-negative integer, got {self.conformance_seed!r}")
        if not (isinstance(self.seconds, (int, float)) and math.isfinite(self.seconds) and self.seconds > 0):
            raise InputError(f"time limit: must be a finite positive number of seconds, got {self.seconds}")

    def schedule(self) -> list[tuple[int, int]]:
        """(seed, rlimit) of each proof attempt: seeds 0, 1, …, resource limit doubling."""
        return [(k, self.rlimit * 2 ** k) for k in range(self.attempts)]

    def params_for(self, attempt: int) -> tuple[tuple[str, object], ...]:
        """The z3 settings of proof attempt `attempt` (alternating, see `Z3_PARAM_VARIANTS`)."""
        return self.z3_param_variants[attempt % len(self.z3_param_variants)]

    def control_schedule(self) -> list[tuple[int, int]]:
        """The positive control: a quick look at every hypothesis, then a longer one."""
        return [(0, max(1, self.rlimit // 4)), (0, self.rlimit * 2)]

    def recorded(self) -> dict:
        """The budget as a result records it (`Result.budget`)."""
        return {"rlimit": self.rlimit, "attempts": self.attempts,
                "schedule": [list(p) for p in self.schedule()],
                "control_schedule": [list(p) for p in self.control_schedule()],
                "time_limit": self.seconds, "z3_params": {k: v for k, v in self.z3_params},
                "attempt_z3_params": [{k: v for k, v in self.params_for(a)} for a in range(self.attempts)],
                "conformance": {"samples": self.conformance_samples, "seed": self.conformance_seed,
                                "rlimit": self.conformance_rlimit}}


@dataclass
class Query:
    """One z3 query in a fresh context: its outcome and what it spent."""

    status: str  # "sat" | "unsat" | "unknown"
    reason: str  # "" | "rlimit" | "time" | z3's words
    core: list[str]
    model: object | None  # an IsolatedModel: .eval(term in the original constants)
    spent: int
    seconds: float


def solve(constraints: list[Constraint], seed: int, rlimit: int, deadline: float, track: bool = False,
          params: tuple[tuple[str, object], ...] = Z3_PARAMS) -> Query:
    """Decide `constraints` with `seed` and `rlimit`, isolated (`fairlab.core.isolated`: a fresh z3
    context, constants renamed canonically, so the outcome does not depend on earlier queries);
    the wall clock (`deadline`, time.monotonic) only stops it."""
    start = time.monotonic()
    left = deadline - start
    if left <= 0:
        return Query("unknown", "time", [], None, 0, 0.0)
    iso = Isolated([c.expr for c in constraints])
    ctx = iso.ctx
    solver = new_solver(SolverBudget(rlimit=rlimit, seconds=left, seed=seed), unsat_core=track, ctx=ctx)
    names = {}
    for k, (c, expr) in enumerate(zip(constraints, iso.exprs)):
        if track:
            flag = z3.Bool(f"c{k}", ctx)
            names[str(flag)] = c.name
            solver.assert_and_track(expr, flag)
        else:
            solver.add(expr)
    with global_params(params):
        status, reason = z3_check(solver)
    stats = solver.statistics()
    spent = int(stats.get_key_value("rlimit count")) if "rlimit count" in stats.keys() else 0  # noqa: SIM118 (z3 Statistics has keys() but no __contains__)
    core, model = [], None
    if status == "unsat" and track:
        core = sorted({names[str(f)] for f in solver.unsat_core()})
    elif status == "sat":
        model = iso.model(solver)
    return Query(status, reason, core, model, spent, time.monotonic() - start)


def _record(queries: list[dict], stage: str, q: Query, seed: int, rlimit: int, **extra) -> None:
    queries.append({"stage": stage, **extra, "seed": seed, "rlimit": rlimit, "spent": q.spent,
                    "result": q.status + (f" ({q.reason})" if q.reason else ""), "seconds": round(q.seconds, 3)})


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
    q = solve(encoded.constraints, seed, rlimit, min(deadline, attempt_deadline or deadline), track=True,
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


_CONFORMANCE: dict = {}


def conformance_gate(mech: Mechanism, n: int, m: int, options: dict, budget: ProveBudget, deadline: float,
                     domain=None):
    """Gate 1: `fairlab.mechanisms.conformance.check_sample` on the budget's seeded sample (remembered per
    mechanism, size, options, budget and domain within a process: the answer is deterministic).
    `domain` (a `fairlab.core.domain.Domain`, or None): the sample draws weights and task caps where
    it allows them (`conformance.sample`), so a spec is checked on the instances its proof covers."""
    spread = ("none", "none") if domain is None else (domain.weights, domain.caps)  # the sample's only input
    try:
        key = (id(mech), n, m, json.dumps(options, sort_keys=True, default=str), budget.conformance_samples,
               budget.conformance_seed, budget.conformance_rlimit, spread)
    except TypeError:  # pragma: no cover - options are JSON values
        key = None
    if key in _CONFORMANCE:
        return _CONFORMANCE[key][1]
    drawn = {} if spread == ("none", "none") else {"domain": domain}
    report = conformance.check_sample(mech, n, m, samples=budget.conformance_samples, seed=budget.conformance_seed,
                                      budget=SolverBudget(rlimit=budget.conformance_rlimit), options=options,
                                      stop_early=True, deadline=deadline, **drawn)
    timed_out = any(r.status == "unknown" and "(time)" in r.explanation for r in conformance.results_of(report))
    if key is not None and not timed_out:
        _CONFORMANCE[key] = (mech, report)  # the mechanism kept alive so its id is not reused
    return report


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


#: extra instances of the allocator check (`allocator_check`), and its deviation budget per check
ALLOCATOR_CHECK_EXTRA = 9
ALLOCATOR_CHECK_EVALUATIONS = 60


def allocator_instances(n: int, m: int, seed: int = 0, count: int = ALLOCATOR_CHECK_EXTRA) -> list[Instance]:
    """`count` seeded instances of n × m with non-unit capacities: instance k gives resource r the
    capacity 1 + (k + 4r) mod 9, so each resource takes every capacity 1..9 over nine instances;
    integer demands 0..9, every row with a positive entry. The same for the same arguments."""
    rng = random.Random(f"fairlab allocator check {seed} {n} {m}")
    out = []
    for k in range(count):
        rows = []
        for _ in range(n):
            row = [0 if rng.random() < 1 / 4 else rng.randint(1, 9) for _ in range(m)]
            if not any(row):
                row[rng.randrange(m)] = rng.randint(1, 9)
            rows.append(row)
        out.append(Instance.build([1 + (k + 4 * r) % 9 for r in range(m)], rows))
    return out


def allocator_check(mechanism: Mechanism, prop: str, n: int, m: int, options: dict, sampled: list[Result],
                    budget: ProveBudget, deadline: float, record: dict, domain=None, caps=False):
    """The gate a foreign mechanism's `proved` passes besides conformance: the exact property check
    (`fairlab.properties.check`, numeric engines only, `ALLOCATOR_CHECK_EVALUATIONS` deviations) of
    its ALLOCATOR on the conformance sample and on `allocator_instances`. Sampled conformance cannot
    show that foreign code follows its spec everywhere; an allocator that departs from it where the
    spec's proof says the property holds is caught here if the departure shows on these instances.

    None if no instance violates; ("refuted", instance dict, witness dict, explanation) for the
    first violation, confirmed exactly (`confirm_refutation`); ("unknown", reason) if the clock
    stopped the check. An instance the allocator declines is skipped. `record` is filled with what
    was checked. `domain`: the seeded instances get weights and caps where it allows them
    (`fairlab.mechanisms.conformance.spread`), as the conformance sample does; `caps` (the proof's
    cap pattern, `SymbolicInstance.unknown`): only instances capping exactly those users are checked
    (the seeded ones are given caps on them), so a violation found is one the proved spec covers."""
    instances = [Instance.from_dict(r.instance) for r in sampled if r.status != Status.SKIPPED and r.instance]
    extra = allocator_instances(n, m, budget.conformance_seed)
    if domain is not None:  # weights and caps where the proof's domain has them
        extra = conformance.spread(extra, domain, budget.conformance_seed)
    # the instances of what this proof covers: the users its cap pattern caps, and only those
    capped = [bool(c) for c in caps] if not isinstance(caps, bool) else [caps] * n
    instances = [inst for inst in instances if [t is not None for t in inst.max_tasks] == capped]
    extra = [inst.replace(max_tasks=[(inst.solo_tasks(i) / 2 if t is None else t) if capped[i] else None
                                     for i, t in enumerate(inst.max_tasks)]) for inst in extra]
    record.update(instances=len(instances) + len(extra), extra=len(extra), checked=0, declined=0, undecided=0,
                  evaluations=ALLOCATOR_CHECK_EVALUATIONS)
    for inst in instances + extra:
        left = deadline - time.monotonic()
        if left <= 0:
            return "unknown", f"{record['checked']} of {record['instances']} instances checked"
        try:
            verdict = properties.check(mechanism, prop, inst, options=options, time_limit=left, symbolic=False,
                                       evaluations=ALLOCATOR_CHECK_EVALUATIONS, seed=budget.conformance_seed)
        except (PluginError, OptionError):
            raise  # a broken or non-deterministic plug-in: no verdict at all
        except InputError:
            record["declined"] += 1  # the allocator declines this instance
            continue
        record["checked"] += 1
        if verdict.status == Status.VIOLATED:
            confirmed = confirm_refutation(mechanism, prop, inst.to_dict(), verdict.witness.to_dict(), options, budget)
            if confirmed is not None:
                return "refuted", inst.to_dict(), confirmed[1], confirmed[0]
        elif verdict.status == Status.UNKNOWN:
            if verdict.budget.get("stopped") == "time":
                return "unknown", f"stopped on instance {record['checked']} of {record['instances']}"
            record["undecided"] += 1
    return None


def confirm_refutation(mechanism: Mechanism, prop: str, instance: dict | None, witness: dict | None,
                       options: dict, budget: ProveBudget | None = None) -> tuple[str, dict | None] | None:
    """Exact confirmation of a refutation on the concrete instance: (explanation, the witness that
    was confirmed), or None. If the model's witness does not verify as it is (its numbers may have
    been rounded, e.g. algebraic values), the instance is checked afresh and that witness is kept."""
    if instance is None:
        return None
    inst = Instance.from_dict(instance)
    if prop == "unique" or prop.startswith("same-as:"):
        explanation = _confirm_relation(mechanism, prop, inst, witness, options, budget or ProveBudget())
        return None if explanation is None else (explanation, witness)
    if witness is not None:
        explanation, _ = confirm_violation(mechanism, prop, inst, witness, options)
        if explanation:
            return explanation, witness
    try:
        verdict = properties.check(mechanism, prop, inst, options=options)  # its counted budget decides
    except (PluginError, OptionError):
        raise
    except InputError:  # the allocator declines the instance (e.g. weight vectors): nothing confirmed
        return None
    if verdict.status == "violated" and Violation(prop, mechanism, inst, verdict.witness, options).verify():
        return verdict.explanation, verdict.witness.to_dict()
    return None


def _confirm_relation(mechanism, prop, inst, witness, options, budget: ProveBudget) -> str | None:
    if not witness:
        return None
    first, second = ([to_fraction(v, "allocation") for v in a] for a in witness["allocations"])
    if first == second:
        return None
    other = related_mechanism(mechanism, prop)
    assert other is not None  # prop is a relation: 'unique' or 'same-as:X'
    sym = SymbolicInstance.from_instance(inst)
    for mech, alloc, opts in ((mechanism, first, options), (other, second, options if other is mechanism else {})):
        tasks = [z3.Real(f"x{i}") for i in range(inst.n)]
        assert mech.spec is not None  # a relation's mechanisms have specs (related_mechanism, prove)
        constraints = [Constraint("spec", z3.And([c.expr for c in mech.spec(sym, tasks, **opts)])),
                       *[Constraint("fixed", t == z3_value(v)) for t, v in zip(tasks, alloc)]]
        if solve(constraints, 0, budget.conformance_rlimit, time.monotonic() + budget.seconds).status != "sat":
            return None
    return (f"on {inst.to_dict()['demands']} both {[str(x) for x in first]} ({mechanism.name}) and "
            f"{[str(x) for x in second]} ({other.name}) satisfy the specifications")


def positive_control(constraints, hypotheses, read_model, budget: ProveBudget, deadline: float,
                     queries: list[dict] | None = None, fix: tuple = (), hypothesis=None):
    """Drop one mechanism hypothesis of the core at a time: the first SAT is the control, reported
    with the instance z3 builds for it. No hypothesis in the core at all means the property's
    encoding is contradictory on its own — no control, and so no proof. The hypotheses are tried
    in name order, each with the control schedule's first (seed, rlimit), then those that ran out
    with the next: deterministic, like every budget here.

    If no single drop is satisfiable and `hypothesis` (name -> bool, `Encoded.hypothesis`) is
    given, the control widens (`_widened_control`): the spec may imply the property through
    several of its constraints at once (with every demand positive, any user's bottleneck
    condition saturates a resource every user uses, so DRF's pe follows from each one alone).

    `fix`: (term, value) pairs the control queries substitute and assert (`Encoded.control_fix`):
    a restriction, so a model found is a model of the unrestricted control; the result names it."""
    queries = [] if queries is None else queries
    if fix:
        constraints = [Constraint(c.name, z3.substitute(c.expr, *fix)) for c in constraints]
        constraints += [Constraint(f"control.fix.{term}", term == value) for term, value in fix]
    restricted = {"restricted_by": [f"{term} = {value}" for term, value in fix]} if fix else {}
    undecided = sorted(set(hypotheses))
    for seed, rlimit in budget.control_schedule():
        left = []
        for dropped in undecided:
            kept = [c for c in constraints if c.name != dropped]
            q = solve(kept, seed, rlimit, deadline, params=budget.z3_params)
            _record(queries, "control", q, seed, rlimit, dropped=dropped)
            if q.status == "unknown" and q.reason == "time":
                return None
            if q.status == "unknown":
                left.append(dropped)
            if q.status != "sat":
                continue
            return {"dropped": dropped, "result": "sat", **_read_control(read_model, q.model), **restricted}
        undecided = left
    if hypothesis is None or not hypotheses:
        return None
    return _widened_control(constraints, sorted(set(hypotheses))[0], hypothesis, read_model, budget, deadline,
                            queries, restricted)


def _read_control(read_model, model) -> dict:
    try:
        instance, witness = read_model(model)
    except Exception:  # the reader may rely on a dropped constraint
        instance, witness = None, None
    return {"instance": instance, "witness": witness}


def _widened_control(constraints, first: str, hypothesis, read_model, budget: ProveBudget, deadline: float,
                     queries: list[dict], restricted: dict):
    """The positive control when no single hypothesis can go: drop `first` (a hypothesis of the
    proof's core), and while the rest is UNSAT add the first (by name) mechanism hypothesis of
    that query's unsat core to the dropped set. It ends SAT — the control, with every hypothesis
    dropped listed ("dropped_together") — or with a core that holds no mechanism hypothesis: then
    the domain, the assumptions, the reductions and the negated property are contradictory without
    any of the spec, and no control exists however much of the spec is dropped (a superset of the
    dropped set keeps that core). Never dropped: the domain (e.g. every demand positive), the
    reductions, the negated property, so the control's instance lies inside the proof's domain.
    Each step runs the control schedule until z3 answers; deterministic like every budget here."""
    dropped = [first]
    while True:
        kept = [c for c in constraints if c.name not in dropped]
        for seed, rlimit in budget.control_schedule():
            q = solve(kept, seed, rlimit, deadline, track=True, params=budget.z3_params)
            _record(queries, "control", q, seed, rlimit, dropped=", ".join(dropped))
            if q.status != "unknown":
                break
            if q.reason == "time":
                return None
        if q.status == "sat":
            return {"dropped": dropped[0], "dropped_together": list(dropped), "result": "sat",
                    **_read_control(read_model, q.model), **restricted}
        more = sorted(c for c in q.core if hypothesis(c) and c not in dropped)
        if q.status != "unsat" or not more:
            return None
        dropped.append(more[0])


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
