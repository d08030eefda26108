"""z3 proofs for dynamic-drf (Kash, Procaccia & Shah's DYNAMIC DRF) and the step properties.

The statement proved: for EVERY instance of n agents × m resources that dynamic-drf accepts (real
demands d_ir > 0 for every agent and resource: Kash, Procaccia & Shah's model assumes strictly
positive demands and the mechanism declines a zero demand; its spec states d_ir > 0) the run of
dynamic-drf satisfies the property at every step. Reductions, both sound:

* capacities 1: dynamic-drf depends on the instance only through the shares d_ir / c_r (declared
  ``scale_invariant``), and so do the properties encoded here (SI: x_i >= 1/n; DEF: envy compares
  t_j d_jr with t_i d_ir per resource; DPO / pe-free / no-takeback: loads and tasks);
* arrivals in user order: any other order is the same instance with its users renamed, and the
  demand matrix is universally quantified.

Encoding: the mechanism's spec (`fairlab.mechanisms.dynamic_drf.spec`: the dominant shares x_i^k of
every step, their level M^k maximal) and the property violated at SOME step (a disjunction over
steps and agents), in dominant shares (t_i = x_i / sigma_i):

* dynamic-si: x_i^k < 1/n  (1/n of every resource runs (1/n)/sigma_i tasks);
* no-takeback: x_i^k < x_i^{k-1};
* dynamic-ef: i envies j (x_j a_jr > x_i a_ir on every resource i demands; a_ir = d_ir / sigma_i)
  and j arrived after i, or j arrived before and x_j^t > x_j^{t-1} at some step t from i's arrival
  to k (the literal excuse; for irrevocable dynamic-drf the same as x_j^k != x_j^{(before i)});
* dynamic-dpo: some agent present uses only resources with load < k/n;
* dynamic-pe-free: the same with load < 1.

Gates (as the pool's `fairlab prove`): (1) conformance of the spec with the allocator on a seeded
sample (`fairlab.mechanisms.conformance.check_sample`), (2) the spec satisfiable on the domain,
(3) a positive control: the violation with its strict inequalities relaxed (<= for <; for DEF a
weak envy, >= for >, of an unexcused agent) must be satisfiable — an encoding that could not reach the
property's boundary would prove anything. For dynamic-dpo and dynamic-pe-free the relaxation is
implied by the spec (loads within k/n), so their control is a planted mutant (`control_query`: the
spec without the level's maximality must violate the property). At n = 1, no-takeback and
dynamic-ef have nothing to violate (one step; one agent): ``proved`` as vacuous (`vacuous`), after
the conformance and satisfiability gates. Only then is an unsat ``proved``. A model is a candidate
counterexample: its instance (rational numbers) is re-checked exactly by the property's own check
(`fairlab.properties.check`, a fresh run) before ``refuted``. z3 stopped: ``unknown``.
"""

from __future__ import annotations

import time
from fractions import Fraction

import z3

from fairlab import properties
from fairlab.core.instance import Instance
from fairlab.core.results import Result, Status
from fairlab.core.solving import DEFAULT_RLIMIT, SolverBudget
from fairlab.mechanisms import conformance
from fairlab.mechanisms.base import Constraint, SymbolicInstance, z3_max
from fairlab.properties.base import model_value

PROPERTIES = ("dynamic-si", "no-takeback", "dynamic-ef", "dynamic-dpo", "dynamic-pe-free")
CONFORMANCE_SAMPLES = 6
GATES = ("conformance", "satisfiable", "control")
#: rlimit doublings of the violation query by default (3 × 2 DPO needs the third: about 25 s)
DEFAULT_ATTEMPTS = 3
DOMAIN = ("every demand d_ir > 0 (dynamic-drf accepts positive demands only: Kash, Procaccia & Shah's model; "
          "an instance with a zero demand is declined)")


#: properties whose relaxed violation (load <= limit) the spec implies (its loads are within k/n <= 1):
#: their positive control is a planted mutant instead (the spec without the level's maximality)
MUTANT_CONTROL = ("dynamic-dpo", "dynamic-pe-free")
MAXIMAL = "dynamic-drf.maximal["


def vacuous(n: int, prop: str) -> str | None:
    """Why the property holds at every instance of n agents without looking, or None."""
    if n == 1 and prop == "no-takeback":
        return ("vacuous: with 1 agent there is one step (its arrival; dynamic-drf takes no departures), so no "
                "agent is present at two steps and nothing can be taken back")
    if n == 1 and prop == "dynamic-ef":
        return "vacuous: a single agent envies no one"
    return None


def control_query(prop: str, named: list, bad, control) -> tuple[str, list]:
    """(description, constraints) of the positive control, which must be satisfiable.

    Default: the spec with the violation's strict inequalities relaxed. For dynamic-dpo and
    dynamic-pe-free that relaxation (some agent's resources at load <= k/n, resp. <= 1) is implied
    by the spec's own ``within`` constraints, so it could not fail; their control is a planted
    mutant instead: the spec WITHOUT the maximality of the water level (``maximal[k]``: the level
    may stop early, e.g. at 0), conjoined with the unrelaxed violation. That mutant does violate DPO
    (at step 1 the level 0 leaves the first agent at 0 with every load 0 < 1/n), so an encoding of
    the violation that could not see a violation (wrong loads, wrong limit, wrong variables) makes
    this query unsatisfiable and stops the proof."""
    if prop in MUTANT_CONTROL:
        mutant = [c for c in named if not c.name.startswith(MAXIMAL)]
        return ("planted mutant (the spec without the level's maximality) violates the property",
                mutant + [Constraint("violated", bad)])
    return "the relaxed violation is satisfiable", named + [Constraint("control", control)]


def applies(mechanism, prop: str, options: dict) -> bool:
    from fairlab.mechanisms import dynamic_drf

    return mechanism.allocate is dynamic_drf.allocate and prop in PROPERTIES and not options


def encode(n: int, m: int, prop: str):
    """(domain + spec constraints, violation formula, control formula, sym)."""
    from fairlab.mechanisms import dynamic_drf

    sym = SymbolicInstance.unknown(n, m, prefix="p.")
    tasks = [z3.Real(f"p.t{i}") for i in range(n)]
    spec = dynamic_drf.spec(sym, tasks)
    tag = str(tasks[0])

    def x(k, i):  # dominant share of user i after step k (1-based; users 0..k-1 present)
        return z3.Real(f"{tag}.dyn.x{k}_{i}") if k >= 1 and i < k else z3.RealVal(0)

    d = sym.demands
    sigma = [z3_max(d[i]) for i in range(n)]
    a = [[d[i][r] / sigma[i] for r in range(m)] for i in range(n)]

    def load(k, r):
        return z3.Sum([a[i][r] * x(k, i) for i in range(k)])

    bad, control = [], []
    for k in range(1, n + 1):
        present = range(k)
        if prop == "dynamic-si":
            bad += [x(k, i) < Fraction(1, n) for i in present]
            control += [x(k, i) <= Fraction(1, n) for i in present]
        elif prop == "no-takeback":
            bad += [x(k, i) < x(k - 1, i) for i in range(k - 1)]
            control += [x(k, i) <= x(k - 1, i) for i in range(k - 1)]
        elif prop == "dynamic-ef":
            for i in present:
                for j in present:
                    if i == j:
                        continue
                    envy = z3.And([z3.Implies(d[i][r] > 0, x(k, j) * a[j][r] > x(k, i) * a[i][r]) for r in range(m)])
                    weak = z3.And([z3.Implies(d[i][r] > 0, x(k, j) * a[j][r] >= x(k, i) * a[i][r]) for r in range(m)])
                    # DEF's excuse, literally (properties/dynamic_ef.py): j arrived before i (j < i) and
                    # j's share never increased at a step t, i's arrival (step i + 1) <= t <= k. The spec
                    # is irrevocable (x^t = max(M^t, x^{t-1}) >= x^{t-1}), so this is the same as
                    # x(k, j) != x(i, j) (the allocation just before i arrived): the two readings of DEF
                    # coincide for dynamic-drf and the proofs stand for both.
                    unexcused = (z3.BoolVal(True) if j > i
                                 else z3.Or([x(t, j) > x(t - 1, j) for t in range(i + 1, k + 1)]))
                    bad.append(z3.And(envy, unexcused))
                    control.append(z3.And(weak, unexcused))
        elif prop in ("dynamic-dpo", "dynamic-pe-free"):
            limit = Fraction(k, n) if prop == "dynamic-dpo" else Fraction(1)
            for i in present:
                bad.append(z3.And([z3.Implies(d[i][r] > 0, load(k, r) < limit) for r in range(m)]))
                control.append(z3.And([z3.Implies(d[i][r] > 0, load(k, r) <= limit) for r in range(m)]))
    base = list(sym.domain) + list(spec)
    return base, z3.Or(bad) if bad else z3.BoolVal(False), z3.Or(control) if control else z3.BoolVal(False), sym


def prove(mechanism, prop: str, n: int, m: int, *, time_limit: float, rlimit: int | None = None,
          attempts: int | None = None) -> Result:
    start = time.monotonic()
    deadline = start + time_limit
    rlimit = DEFAULT_RLIMIT if rlimit is None else rlimit
    tries = DEFAULT_ATTEMPTS if attempts is None else max(1, int(attempts))
    gates = {g: "not-reached" for g in GATES}
    queries: list[dict] = []

    reports: list[dict] = []

    def done(status, explanation, **fields):
        return Result("proof", status, mechanism=mechanism.name, property=prop,
                      budget={"time_limit": time_limit, "rlimit": rlimit, "attempts": tries,
                              "schedule": [(0, rlimit * 2 ** k) for k in range(tries)],
                              "rlimit_spent": sum(q["spent"] for q in queries)},
                      details={"users": n, "resources": m, "options": {}, "domain": DOMAIN, "gates": gates,
                               "queries": queries,
                               "conformance": reports, "scope": "mechanism", "reductions": [
                                   "capacities 1 (the mechanism and the property depend on shares only)",
                                   "arrivals in user order (every order is a renaming of the users)"]},
                      explanation=explanation, seconds=time.monotonic() - start, **fields)

    def ask(label, constraints, limit):
        left = deadline - time.monotonic()
        if left <= 0:
            return "unknown", None, "time"
        status, reason, model, spent = conformance._query([c.expr for c in constraints],
                                                          SolverBudget(rlimit=limit, seconds=left))
        queries.append({"query": label, "status": status, "rlimit": limit, "spent": spent,
                        **({"reason": reason} if reason else {})})
        return status, model, reason

    report = conformance.check_sample(mechanism, n, m, samples=CONFORMANCE_SAMPLES, seed=0,
                                      budget=SolverBudget(rlimit=rlimit, seconds=max(deadline - time.monotonic(),
                                                                                     0.01)))
    reports.append({"summary": report.explanation})
    if report.status != Status.AGREES:
        gates["conformance"] = "failed" if report.status == Status.DISAGREES else "unknown"
        return done(Status.UNKNOWN, f"conformance not shown, no verdict: {report.explanation}")
    gates["conformance"] = "passed"
    base, bad, control, sym = encode(n, m, prop)
    named = [c if isinstance(c, Constraint) else Constraint("c", c) for c in base]

    status, _, reason = ask("spec satisfiable", named, rlimit)
    if status != "sat":
        gates["satisfiable"] = "failed" if status == "unsat" else "unknown"
        return done(Status.UNKNOWN, f"the spec is {'unsatisfiable' if status == 'unsat' else 'undecided'} "
                    f"({reason or status}); no verdict")
    gates["satisfiable"] = "passed"
    why = vacuous(n, prop)
    if why is not None:
        gates["control"] = "not-needed (vacuous)"
        return done(Status.PROVED, f"{why} (every instance of {n} user × {m} resources); the spec conforms and is "
                    "satisfiable", certificate={"gates": dict(gates), "vacuous": why})
    described, controlled = control_query(prop, named, bad, control)
    status, _, reason = ask("positive control", controlled, rlimit)
    if status != "sat":
        gates["control"] = "failed" if status == "unsat" else "unknown"
        return done(Status.UNKNOWN, f"positive control {'unsatisfiable' if status == 'unsat' else 'undecided'} "
                    f"({described}): the encoding cannot see a violation ({reason or status}); no verdict")
    gates["control"] = "passed"

    limit = rlimit
    for attempt in range(tries):
        status, model, reason = ask(f"violation (attempt {attempt + 1})", named + [Constraint("violated", bad)], limit)
        if status == "unsat":
            return done(Status.PROVED, f"z3: no instance of {n} users × {m} resources (positive real demands — "
                        f"the mechanism accepts positive demands only —, any capacities, any arrival order) "
                        f"makes dynamic-drf violate {prop} at any step; gates passed "
                        f"({', '.join(GATES)})",
                        certificate={"gates": dict(gates), "positive_control": described})
        if status == "sat":
            return _refute(mechanism, prop, model, sym, done)
        if reason == "time":
            return done(Status.UNKNOWN, f"time: stopped by the time limit ({time_limit:g} s); no verdict")
        limit *= 2
    # z3 gave up: the exhaustive grid may still refute (or find nothing: none-found, never proved)
    from fairlab.search.dynamic import exhaustive

    left = deadline - time.monotonic()
    if left <= 0:
        return done(Status.UNKNOWN, f"rlimit: z3 gave up ({reason}) after {tries} attempt(s); no time left for "
                    "the grid")
    found = exhaustive(mechanism, prop, n, m, time_limit=left, options={},
                       note=f"z3 gave up ({reason}, {tries} attempt(s)); ")
    return found.replace(details={**found.details, "domain": DOMAIN, "gates": gates, "queries": queries,
                                  "conformance": reports},
                         budget={**found.budget, "rlimit": rlimit, "attempts": tries,
                                 "schedule": [(0, rlimit * 2 ** k) for k in range(tries)],
                                 "rlimit_spent": sum(q["spent"] for q in queries)},
                         seconds=time.monotonic() - start)


def _refute(mechanism, prop, model, sym, done) -> Result:
    values = [[model_value(model, v) for v in row] for row in sym.demands]
    if not all(isinstance(v, Fraction) for row in values for v in row):
        return done(Status.UNKNOWN, "z3 found a model with irrational demands; its violation was not re-checked "
                    "exactly; no verdict")
    inst = Instance.build(capacities=[1] * sym.m, demands=values, arrivals=list(range(sym.n)))
    checked = properties.check(mechanism, prop, inst)
    if checked.status != Status.VIOLATED:
        return done(Status.UNKNOWN, f"z3 found a model but its exact re-check says {checked.status}; no verdict")
    return done(Status.REFUTED, checked.explanation, instance=inst, witness=checked.witness, exactness="rational")
