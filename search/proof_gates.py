"""The proof's budget, its z3 query and its gates (`fairlab.search.proof`'s machinery, moved here
so that module keeps the schedule of attempts and the entry points; every name is re-exported
from `fairlab.search.proof`).

* `ProveBudget` (resource limits, attempts, seeds, the conformance sample; the wall clock only an
  outer stop), `Query` and `solve` (one z3 query in a fresh, canonically renamed context, decided
  by its resource limit: `fairlab.core.solving`);
* gate 1, `conformance_gate` (`fairlab.mechanisms.conformance` on the budget's seeded sample);
* gate 4, `positive_control` (and `_widened_control`): a mechanism hypothesis of the unsat core
  dropped, the encoding must become satisfiable;
* `confirm_refutation`: a refutation confirmed exactly on the concrete instance (the allocator
  itself, `fairlab.search.verify.confirm_violation`), never on z3's model alone;
* `allocator_check`: the extra gate of a foreign mechanism's `proved` (its allocator's exact
  property check on the conformance sample and seeded instances with capacities 1..9).

Every budget here is counted (seeds, resource limits): the same input gives the same verdict on
any machine (the project brief's rule 2).
"""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import dataclass

import z3

from fairlab import properties
from fairlab.core.errors import InputError, OptionError, PluginError
from fairlab.core.exact import to_fraction, z3_value
from fairlab.core.instance import Instance
from fairlab.core.isolated import Isolated, global_params
from fairlab.core.results import Result, Status
from fairlab.core.solving import SolverBudget, new_solver
from fairlab.core.solving import check as z3_check
from fairlab.mechanisms import conformance
from fairlab.mechanisms.base import Constraint, Mechanism, SymbolicInstance
from fairlab.properties.base import Violation
from fairlab.search.budgets import PROVE_SAFETY_NET
from fairlab.search.proof_encoding import related_mechanism
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


#: an UNSAT's core by deletion (`solve_with_core`): each check may spend this many times the units
#: the untracked answer took, plus `CORE_FLOOR` units; a check that runs out keeps its constraint.
CORE_FACTOR = 2
CORE_FLOOR = 100_000
#: the constraints of the proof's domain (`fairlab.core.domain`) are named with this prefix: kept in a
#: core by deletion without a check (`solve_with_core`)
DOMAIN_PREFIX = "domain."
#: the untracked (nlsat) check of a nonlinear query gets 1/NLSAT_SHARE of the attempt's units first
NLSAT_SHARE = 4


def nonlinear(constraints: list[Constraint]) -> bool:
    """Whether some constraint multiplies unknowns (z3's probe ``arith-max-deg`` above 1)."""
    goal = z3.Goal(ctx=constraints[0].expr.ctx) if constraints else z3.Goal()
    goal.add(*[c.expr for c in constraints])
    return z3.Probe("arith-max-deg", goal.ctx)(goal) > 1


def solve_with_core(constraints: list[Constraint], seed: int, rlimit: int, deadline: float,
                    params: tuple[tuple[str, object], ...] = Z3_PARAMS) -> Query:
    """`solve` with an unsat core. A linear query is checked with tracked constraints, as `solve`
    does. A nonlinear one is decided untracked: z3 sends a nonlinear query without assumptions to
    nlsat, but the same query with tracked constraints to its SMT core, which can be slower by
    orders of magnitude and charge its resource limit slowly (measured on `prove drf gsp -n 2 -m 2`
    over weight vectors: UNSAT in 0.1 s, 0.27M units, untracked; tracked, unknown after 150 s
    having charged 2.8M units; drf rm 2x2: SAT in 0.02 s vs 28 s). Its core is then found by
    deletion: each constraint in turn is left out, untracked, with ``CORE_FACTOR`` times the units
    the full check took (+ ``CORE_FLOOR``), and stays out while the rest is still UNSAT; a check
    that runs out keeps it. So the core has no constraint whose removal z3 showed satisfiable or
    still UNSAT within a counted limit, and it is the same on every machine; only the wall-clock
    stop can leave a larger one (the whole query, still an UNSAT set). The domain's bounds
    (``domain.*``: demands, weights, caps in their ranges) are not tried: they stay in the core,
    which is minimal in the spec's, the property's and the reductions' constraints (the proof's
    gates and positive control read only those; `prove` prints the core without the domain
    bounds). That is about a third fewer checks. The untracked check gets
    1/``NLSAT_SHARE`` of the attempt's resource limit; if it runs out, the tracked check gets all
    of it. `spent` adds up every check."""
    if not nonlinear(constraints):
        return solve(constraints, seed, rlimit, deadline, track=True, params=params)
    q = solve(constraints, seed, max(1, rlimit // NLSAT_SHARE), deadline, params=params)
    if q.status == "unknown" and q.reason == "rlimit":
        # nlsat ran out: the SMT core may still decide it (measured: the derived spec of the LP
        # how-to's DRF, si at 2x2: nlsat out of 10M units, tracked proved)
        tracked = solve(constraints, seed, rlimit, deadline, track=True, params=params)
        return Query(tracked.status, tracked.reason, tracked.core, tracked.model, q.spent + tracked.spent,
                     q.seconds + tracked.seconds)
    if q.status != "unsat":
        return q
    spent, seconds = q.spent, q.seconds
    trial_rlimit = min(rlimit, CORE_FACTOR * q.spent + CORE_FLOOR)
    kept = list(constraints)
    for constraint in constraints:
        if constraint.name.startswith(DOMAIN_PREFIX):
            continue
        trial = [c for c in kept if c is not constraint]
        attempt = solve(trial, seed, trial_rlimit, deadline, params=params)
        spent, seconds = spent + attempt.spent, seconds + attempt.seconds
        if attempt.status == "unsat":
            kept = trial
        elif attempt.status == "unknown" and attempt.reason == "time":
            kept = list(constraints)  # the clock stopped the deletion: the whole query is the core
            break
    return Query("unsat", "", sorted({c.name for c in kept}), None, spent, seconds)


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
            q = solve_with_core(kept, seed, rlimit, deadline, params=budget.z3_params)
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
