"""Prove a property of a mechanism for ALL demand profiles of a size: "spec ∧ ¬property" is UNSAT.

The instance has n users and m resources with unknown real demands (each row non-negative and
not all zero). Capacities are normalised to 1: every mechanism here depends on demands only
through shares d_ir / c_r, so a resource can be rescaled to capacity 1 without changing any
allocation in shares or any property — the proof covers all positive capacities. (A plug-in whose
allocation is not scale-invariant should be proved with `capacities="unknown"`.)

Reductions that keep the proof complete:

* user symmetry: the unknown instance is symmetric in the users, so for properties stated per
  user (si, ef, sp, pm, njc, bf) a violation by any user is a violation by user 0 after renaming;
  the encoding asks only about user 0 (`focus_user`), which z3 finds much easier;
* normalisation of each user's row so its largest share is 1 would also be complete for
  row-scale-invariant mechanisms; it is offered as `normalise_rows` and recorded in the result.

A `proved` verdict always comes with its positive control: the same encoding with one
hypothesis of the core dropped must be satisfiable (z3 produces an instance violating the
property), so an encoding that is vacuously UNSAT cannot pass as a proof. If no control is found
the verdict is `unknown`. A timeout is `unknown`, never `proved`.
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field

import z3

from fairlab.errors import InputError
from mechanisms.base import Constraint, Mechanism, SymbolicInstance

PER_USER = ("si", "ef", "sp", "pm", "njc", "bf", "srf", "rm")


@dataclass
class Proof:
    mechanism: str
    property: str
    n: int
    m: int
    verdict: str  # "proved" | "refuted" | "unknown"
    seconds: float
    core: list[str] = field(default_factory=list)
    control: dict | None = None
    witness: dict | None = None
    instance: dict | None = None
    reductions: list[str] = field(default_factory=list)
    reason: str = ""

    def to_dict(self) -> dict:
        return {
            "mechanism": self.mechanism,
            "property": self.property,
            "users": self.n,
            "resources": self.m,
            "verdict": self.verdict,
            "seconds": round(self.seconds, 3),
            "core": self.core,
            "control": self.control,
            "witness": self.witness,
            "instance": self.instance,
            "reductions": self.reductions,
            "reason": self.reason,
        }


RELATIONS = ("unique", "same-as:MECHANISM")


def _is_hypothesis(spec_names: set[str]):
    """Core constraints a positive control may drop: those of a mechanism specification (also as
    renamed for a derived instance, "sp.lie0:drf.bottleneck[0]"). Never the property's goal,
    the domain or a symmetry/normalisation assumption: dropping those proves nothing."""
    def test(name: str) -> bool:
        return name in spec_names or any(name.endswith(":" + s) or name.endswith("'." + s) for s in spec_names)

    return test


def _relation_encoding(mechanism: Mechanism, prop: str, sym: SymbolicInstance, options: dict, spec):
    """'unique': two different allocations satisfy the spec; 'same-as:X': the spec and X's spec
    admit different allocations. Both satisfiable iff the claimed relation fails."""
    import mechanisms

    from properties.base import Encoding, model_value, number

    t1 = [z3.Real(f"{prop}.a{i}") for i in range(sym.n)]
    t2 = [z3.Real(f"{prop}.b{i}") for i in range(sym.n)]
    other = mechanism if prop == "unique" else mechanisms.get(prop.split(":", 1)[1])
    if other.spec is None:
        raise InputError(f"mechanism {other.name!r}: has no symbolic specification")
    # the second allocation: the same spec again ('unique') or the other mechanism's ('same-as:X')
    second = spec(sym, t2) if other is mechanism else other.spec(sym, t2)
    constraints = [*spec(sym, t1), *[Constraint(f"{other.name}'.{c.name}", c.expr) for c in second]]
    constraints.append(Constraint(f"{prop}.violated", z3.Or([a != b for a, b in zip(t1, t2)])))

    def witness(model):
        return {"allocations": [[number(model_value(model, t)) for t in t1], [number(model_value(model, t)) for t in t2]]}

    return Encoding(constraints, witness, {"tasks": t1, "other": t2})


def check_options(mechanism: Mechanism, options: dict) -> None:
    """Mechanism options as one-line `InputError`s: an unknown name, or a value the allocator
    rejects. (A spec may take and ignore options, or fail on an unknown one with a TypeError; the
    allocator reads and checks its options before any work, here on a 1 × 1 instance.)"""
    if options:
        from fairlab.instance import Instance

        mechanism(Instance.from_dict({"capacities": [1], "demands": [[1]]}), **options)


def encoding(mechanism: Mechanism, prop: str, n: int, m: int, focus_user: bool = True, normalise_rows: bool = False,
             options: dict | None = None, positive_demands: bool = False):
    """(symbolic instance, named constraints, property Encoding, reductions used)."""
    import properties

    if mechanism.spec is None:
        raise InputError(f"mechanism {mechanism.name!r}: has no symbolic specification, nothing to prove with")
    options = dict(options or {})
    sym = SymbolicInstance.unknown(n, m)
    reductions = ["capacities normalised to 1 (mechanisms work on shares)"]
    extra: list[Constraint] = []
    if positive_demands:
        extra += [Constraint(f"assume.positive[{i}][{r}]", sym.demands[i][r] > 0) for i in range(n) for r in range(m)]
        reductions.append("assumption: every demand strictly positive")
    spec_names: set[str] = set()

    def spec(s, t, mech=mechanism):
        out = mech.spec(s, t, **options)
        spec_names.update(c.name for c in out)
        return out

    if prop == "unique" or prop.startswith("same-as:"):
        enc = _relation_encoding(mechanism, prop, sym, options, spec)
        return sym, [*sym.domain, *extra, *enc.constraints], enc, reductions, _is_hypothesis(spec_names)
    module = properties.get(prop)
    if not hasattr(module, "encode"):
        raise InputError(f"property {prop!r}: has no symbolic encoding")
    if normalise_rows:
        for i in range(n):
            extra.append(Constraint(f"normalise.row[{i}]<=1", z3.And([d <= 1 for d in sym.demands[i]])))
            extra.append(Constraint(f"normalise.row[{i}]has1", z3.Or([d == 1 for d in sym.demands[i]])))
        reductions.append("each demand row scaled so its largest entry is 1")
    kwargs = {}
    if focus_user and prop in PER_USER and "user" in inspect.signature(module.encode).parameters:
        kwargs["user"] = 0
        reductions.append("user symmetry: only user 0 deviates/complains")
    enc = module.encode(sym, spec, prop, **kwargs)
    return sym, [*sym.domain, *extra, *enc.constraints], enc, reductions, _is_hypothesis(spec_names)


def _check(constraints: list[Constraint], seconds: float, track: bool, seed: int = 0):
    solver = z3.Solver()
    solver.set("timeout", max(1, int(seconds * 1000)))
    solver.set("random_seed", seed)
    names = {}
    if track:
        solver.set("unsat_core", True)
        for k, c in enumerate(constraints):
            flag = z3.Bool(f"c{k}:{c.name}")
            names[str(flag)] = c.name
            solver.assert_and_track(c.expr, flag)
    else:
        for c in constraints:
            solver.add(c.expr)
    result = solver.check()
    if result == z3.unsat and track:
        return "unsat", sorted({names[str(f)] for f in solver.unsat_core()}), None
    if result == z3.sat:
        return "sat", [], solver.model()
    return ("unsat" if result == z3.unsat else "unknown"), [], (solver.reason_unknown() if result == z3.unknown else None)


def _generic(mechanism: Mechanism, prop: str, n: int, m: int, options: dict, positive_demands: bool):
    sym, constraints, enc, reductions, hypothesis = encoding(mechanism, prop, n, m, options=options,
                                                             positive_demands=positive_demands)

    def read_model(model):
        from search.engines import model_instance

        inst = model_instance(model, sym)
        return (inst.to_dict() if inst else None), enc.witness(model)

    return constraints, read_model, reductions, hypothesis


def _drf_bundles(mechanism: Mechanism, prop: str, n: int, m: int, options: dict, positive_demands: bool):
    from search import prove_drf

    constraints, variables = prove_drf.sp_constraints(n, m)
    if positive_demands:
        constraints += [Constraint(f"assume.positive[{i}][{r}]", variables["bundles"][i][r] > 0)
                        for i in range(n) for r in range(m)]
    reductions = ["capacities normalised to 1", "bundle coordinates (DRF: positive tasks, row-scale invariance)",
                  "symmetry: user 0 lies, its dominant resource is 0, the others ordered by share"]

    def read_model(model):
        found = prove_drf.witness_instance(model, variables)
        return found["instance"], found["witness"]

    def hypothesis(name: str) -> bool:
        return name.startswith("drf.") or name.startswith("sp.lie0:drf.")

    return constraints, read_model, reductions, hypothesis


STRATEGIES = {"generic": _generic, "drf-bundles": _drf_bundles}


def strategies_for(mechanism: Mechanism, prop: str, options: dict) -> list[str]:
    """The encodings that apply, most specialised first: for DRF's strategyproofness (no options)
    the bundle-coordinate encoding of `search.prove_drf`, then always the generic one."""
    out = []
    if mechanism.name == "drf" and prop == "sp" and not options and mechanism.module == "mechanisms.drf":
        out.append("drf-bundles")
    out.append("generic")
    return out


def run_strategy(strategy: str, mechanism: Mechanism, prop: str, n: int, m: int, time_limit: float,
                 options: dict, positive_demands: bool, seed: int = 0, control_time: float | None = None) -> dict:
    """One encoding, decided by z3 within `time_limit` (then the positive control gets
    `control_time`, by default what is left of `time_limit`), as a plain dict."""
    start = time.monotonic()
    constraints, read_model, reductions, hypothesis = STRATEGIES[strategy](mechanism, prop, n, m, options,
                                                                           positive_demands)
    status, core, info = _check(constraints, time_limit, track=True, seed=seed)
    out = {"strategy": strategy, "reductions": reductions, "core": [], "control": None, "instance": None,
           "witness": None}
    if status == "sat":
        out["instance"], out["witness"] = read_model(info)
        out.update(verdict="refuted", reason="z3 found a violating instance")
    elif status == "unsat":
        left = control_time if control_time is not None else max(1.0, time_limit - (time.monotonic() - start))
        control = positive_control(constraints, [c for c in core if hypothesis(c)], read_model, left)
        out["core"] = core
        if control is None:
            out.update(verdict="unknown", reason="UNSAT, but no positive control was satisfiable: the encoding may be vacuous")
        else:
            out.update(verdict="proved", control=control, reason=f"spec ∧ ¬{prop} is UNSAT over the reals")
    else:
        out.update(verdict="unknown", reason=f"z3: {info or 'timeout'}")
    out["seconds"] = time.monotonic() - start
    return out


def prove(mechanism: Mechanism, prop: str, n: int, m: int, time_limit: float = 60.0, options: dict | None = None,
          positive_demands: bool = False) -> Proof:
    """Run the applicable encodings one after the other, most specialised first, each with the
    time that is left, until one gives a definitive answer. (Running them side by side on two
    cores was measured slower: z3 on the generic encoding starves the specialised one.) A
    `refuted` is confirmed exactly on a concrete instance first."""
    options = dict(options or {})
    if n < 1 or m < 1:
        raise InputError(f"size: need at least one user and one resource, got {n} × {m}")
    if not time_limit > 0 or time_limit == float("inf"):  # NaN fails the first test
        raise InputError(f"time limit: must be a finite positive number of seconds, got {time_limit}")
    check_options(mechanism, options)
    encoding(mechanism, prop, n, m, options=options, positive_demands=positive_demands)  # validate early
    start = time.monotonic()
    names = strategies_for(mechanism, prop, options)
    results = []
    # z3's running time on these nonlinear problems is heavy-tailed (the same query took 0.5 s or
    # 25 s in one session), so run short attempts with fresh random seeds and doubling timeouts,
    # cycling through the encodings, until the time limit: restarts cut the tail.
    attempt, per_try = 0, 2.0
    while not results or results[-1]["verdict"] == "unknown":
        for name in names:
            left = time_limit - (time.monotonic() - start)
            if left <= 0.2 and results:
                break
            results.append(run_strategy(name, mechanism, prop, n, m, max(min(per_try, left), 0.2), options,
                                        positive_demands, seed=attempt, control_time=max(1.0, min(left, 60.0))))
            if results[-1]["verdict"] != "unknown":
                break
        if time_limit - (time.monotonic() - start) <= 0.2:
            break
        attempt, per_try = attempt + 1, per_try * 2
    decided = [r for r in results if r["verdict"] != "unknown"]
    best = decided[0] if decided else results[0]
    proof = Proof(mechanism.name, prop, n, m, best["verdict"], time.monotonic() - start, best["core"],
                  best["control"], best["witness"], best["instance"],
                  best["reductions"] + [f"encoding: {best['strategy']} (tried: {', '.join(names)}; "
                                        f"{len(results)} attempts with restarts)"], best["reason"])
    if proof.verdict == "refuted":
        confirmed = confirm_refutation(mechanism, prop, proof.instance, proof.witness, options)
        if confirmed is None:
            proof.verdict = "unknown"
            proof.reason = "z3 found a model but its violation did not survive the exact re-check"
        else:
            proof.reason = confirmed
    proof.seconds = time.monotonic() - start
    return proof


def confirm_refutation(mechanism: Mechanism, prop: str, instance: dict | None, witness: dict | None,
                       options: dict) -> str | None:
    """Exact confirmation of a refutation on the concrete instance, or None."""
    if instance is None:
        return None
    from fairlab.instance import Instance

    inst = Instance.from_dict(instance)
    if prop == "unique" or prop.startswith("same-as:"):
        return _confirm_relation(mechanism, prop, inst, witness, options)
    import properties
    from properties.base import Violation

    if witness is not None:
        explanation = Violation(prop, mechanism, inst, witness, options).explain()
        if explanation:
            return explanation
    # The model's numbers may have been rounded (algebraic values): search this instance exactly.
    verdict = properties.check(prop, mechanism, inst, options=options, time_limit=20)
    if verdict.verdict == "violated" and verdict.violation.verify():
        return verdict.explanation
    return None


def _confirm_relation(mechanism, prop, inst, witness, options) -> str | None:
    import mechanisms

    from fairlab.exact import to_fraction, z3_value
    from mechanisms.base import SymbolicInstance as SI

    if not witness:
        return None
    first, second = ([to_fraction(v, "allocation") for v in a] for a in witness["allocations"])
    if first == second:
        return None
    other = mechanism if prop == "unique" else mechanisms.get(prop.split(":", 1)[1])
    sym = SI.from_instance(inst)
    for mech, alloc in ((mechanism, first), (other, second)):
        tasks = [z3.Real(f"x{i}") for i in range(inst.n)]
        solver = z3.Solver()
        solver.add(*[c.expr for c in mech.spec(sym, tasks)], *[t == z3_value(v) for t, v in zip(tasks, alloc)])
        if solver.check() != z3.sat:
            return None
    return (f"on {inst.to_dict()['demands']} both {[str(x) for x in first]} ({mechanism.name}) and "
            f"{[str(x) for x in second]} ({other.name}) satisfy the specifications")


def positive_control(constraints, hypotheses, read_model, seconds):
    """Drop one mechanism hypothesis of the core at a time: the first SAT is the control, reported
    with the instance z3 builds for it. No hypothesis in the core at all means the property's
    encoding is contradictory on its own — no control, and so no proof."""
    order = sorted(hypotheses)
    start = time.monotonic()
    # Two passes: a quick look at every hypothesis (most controls are found in milliseconds),
    # then the time left shared out among the ones that did not answer.
    undecided = []
    for per_try, candidates in ((1.0, order), (None, undecided)):
        for dropped in list(candidates):
            left = seconds - (time.monotonic() - start)
            if left <= 0:
                return None
            budget = min(per_try, left) if per_try else max(0.5, left / max(1, len(undecided)))
            kept = [c for c in constraints if c.name != dropped]
            status, _, model = _check(kept, budget, track=False)
            if status == "unknown" and per_try:
                undecided.append(dropped)
            if status != "sat":
                continue
            try:
                instance, witness = read_model(model)
            except Exception:  # the reader may rely on the dropped constraint
                instance, witness = None, None
            return {"dropped": dropped, "result": "sat", "instance": instance, "witness": witness}
    return None
