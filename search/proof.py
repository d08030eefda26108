"""Prove a property of a mechanism for ALL demand profiles of a size: "spec ∧ ¬property" is UNSAT.

The instance has n users and m resources with unknown real demands (each row non-negative and
not all zero). Capacities are normalised to 1 only for a mechanism declared scale-invariant
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
  its docstring and listed in the result.

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

Budgets are deterministic: every z3 query runs in a fresh z3 context (z3's search depends on
what its context saw before) and is decided by a resource limit (`fairlab.core.solving`). The proof
query follows a fixed schedule of attempts — attempt k uses seed k and `rlimit` · 2^k — and the
positive control and the satisfiability gate have schedules of their own; the same input and
budget give the same verdict on any machine. The time limit is only an outer stop: when it fires
the verdict is `unknown` with reason "time". The budget and every query's resource use are
recorded in the result.
"""

from __future__ import annotations

import inspect
import json
import math
import random
import time
from dataclasses import dataclass
from typing import Any, Callable

import z3

from fairlab import mechanisms, properties
from fairlab.core.errors import InputError, OptionError, PluginError, describe_exception
from fairlab.core.exact import to_fraction, z3_value
from fairlab.core.instance import Instance
from fairlab.core.isolated import Isolated, global_params
from fairlab.core.results import Result, Status, to_dict
from fairlab.core.solving import SolverBudget, new_solver
from fairlab.core.solving import check as z3_check
from fairlab.mechanisms import conformance
from fairlab.mechanisms.base import Constraint, Mechanism, SymbolicInstance, z3_max
from fairlab.mechanisms.registry import is_builtin
from fairlab.properties.base import Encoding, Violation, model_value, number
from fairlab.properties.property import DeviationProperty, Z3View
from fairlab.search import proof_drf
from fairlab.search.engines import model_instance
from fairlab.search.verify import confirm_violation

PER_USER = ("si", "ef", "sp", "pm", "njc", "bf", "srf", "rm")

#: z3 resource limit of the first proof attempt; attempt k gets seed k and DEFAULT_RLIMIT · 2^k.
#: Measured (fresh contexts, seed 0): `prove drf si -n 3 -m 3` needs 1.5 million units; the
#: catalogue's fast subset at most 0.6 million per size.
DEFAULT_RLIMIT = 10_000_000
#: attempts of the proof query (seeds 0, 1, …): 4 attempts spend at most 15 · DEFAULT_RLIMIT.
DEFAULT_ATTEMPTS = 4
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
    seconds: float = 60.0
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
    t1 = [z3.Real(f"{prop}.a{i}") for i in range(sym.n)]
    t2 = [z3.Real(f"{prop}.b{i}") for i in range(sym.n)]
    other = related_mechanism(mechanism, prop)
    assert other is not None and other.spec is not None  # prop is a relation: 'unique' or 'same-as:X'
    first = spec(sym, t1)
    # the second allocation: the same spec again ('unique') or the other mechanism's ('same-as:X')
    second = spec(sym, t2) if other is mechanism else other.spec(sym, t2)
    renamed = [Constraint(f"{other.name}'.{c.name}", c.expr) for c in second]
    constraints = [*first, *renamed]
    constraints.append(Constraint(f"{prop}.violated", z3.Or([a != b for a, b in zip(t1, t2)])))
    # What must be satisfiable without the negated relation: the first spec, and for 'same-as:X'
    # X's spec on the same demands too (two specs with no common demand prove 'same-as' vacuously).
    base = {c.name for c in first} | ({c.name for c in renamed} if other is not mechanism else set())
    hypotheses = {c.name for c in first} | {c.name for c in renamed}

    def witness(model):
        return {"allocations": [[number(model_value(model, t)) for t in t1],
                                [number(model_value(model, t)) for t in t2]]}

    return Encoding(constraints, witness, {"tasks": t1, "other": t2, "base": base, "hypotheses": hypotheses})


def related_mechanism(mechanism: Mechanism, prop: str) -> Mechanism | None:
    """The mechanism a relation compares with ('unique': itself; 'same-as:X': X), else None."""
    if prop == "unique":
        return mechanism
    if not prop.startswith("same-as:"):
        return None
    other = mechanisms.get(prop.split(":", 1)[1])
    if other.spec is None:
        raise InputError(f"mechanism {other.name!r}: has no symbolic specification")
    return other


def check_options(mechanism: Mechanism, options: dict) -> None:
    """Mechanism options as one-line `InputError`s: an unknown name, or a value the allocator
    rejects. (A spec may take and ignore options, or fail on an unknown one with a TypeError; the
    allocator reads and checks its options before any work, here on a 1 × 1 instance.)"""
    if options:
        probes: dict[str, dict[str, Any]] = {"machines": {"machines": [[1]], "demands": [[1]]},
                                             "dynamic": {"capacities": [1], "demands": [[1]], "arrivals": [0]}}
        probe = probes.get(mechanism.setting, {"capacities": [1], "demands": [[1]]})  # an instance of its setting
        mechanism(Instance.from_dict(probe), **options)


@dataclass
class Encoded:
    """One encoding of "spec ∧ ¬property": the named constraints, which of them are the base
    (domain, assumptions and the spec of the instance itself: gate 2 needs them satisfiable),
    which are mechanism hypotheses (a positive control may drop one), and how to read a model."""

    constraints: list[Constraint]
    base: set[str]
    hypothesis: Callable[[str], bool]  # name -> bool
    read_model: Callable[[Any], tuple[dict | None, dict | None]]  # model -> (instance dict, witness dict)
    reductions: list[str]
    #: a restriction the positive control may add (terms fixed to values, e.g. the other users'
    #: tasks of sp's misreported run): a model of the restricted query is a model of the control
    #: query, so a `sat` still shows the encoding without the dropped hypothesis satisfiable; it
    #: only makes the control's search easier (linear). The unrestricted query is not tried.
    control_fix: tuple = ()

    def goal(self, name: str) -> bool:
        """A constraint of the negated property (not of the base)."""
        return name not in self.base


def encoding(mechanism: Mechanism, prop: str, n: int, m: int, focus_user: bool = True, normalise_rows: bool = False,
             options: dict | None = None, positive_demands: bool = False):
    """(symbolic instance, named constraints, property Encoding, reductions used, hypothesis test,
    base names)."""
    if mechanism.spec is None:
        raise InputError(f"mechanism {mechanism.name!r}: has no symbolic specification, nothing to prove with")
    options = dict(options or {})
    # Capacities 1 lose no generality only for mechanisms declared scale-invariant (for a relation,
    # both mechanisms compared); otherwise every capacity is an unknown positive real.
    related = related_mechanism(mechanism, prop)
    if mechanism.scale_invariant and (related is None or related.scale_invariant):
        sym = SymbolicInstance.unknown(n, m)
        reductions = ["capacities normalised to 1 (scale-invariant mechanism)"]
    else:
        sym = SymbolicInstance.unknown(n, m, capacities="unknown")
        reductions = ["capacities unknown (mechanism not declared scale-invariant)"]
    extra: list[Constraint] = []
    if positive_demands:
        extra += [Constraint(f"assume.positive[{i}][{r}]", sym.demands[i][r] > 0) for i in range(n) for r in range(m)]
        reductions.append("assumption: every demand strictly positive")
    spec_names: set[str] = set()
    own: list[list[Constraint]] = []  # the spec of the instance itself (its first call on `sym`)

    def spec(s, t, mech=mechanism):
        try:
            out = list(mech.spec(s, t, **options))
        except InputError:
            raise
        except Exception as exc:  # a researcher's spec: one line (the lab's own: a bug, exit 3)
            if is_builtin(mech):
                raise
            raise PluginError(f"mechanism {mech.name!r}: its spec raised {describe_exception(exc)}") from None
        spec_names.update(c.name for c in out)
        if s is sym and not own:
            own.append(out)
        return out

    if prop == "unique" or prop.startswith("same-as:"):
        enc = _relation_encoding(mechanism, prop, sym, options, spec)
        base = {c.name for c in [*sym.domain, *extra]} | enc.variables["base"]
        names = spec_names | enc.variables["hypotheses"]
        return sym, [*sym.domain, *extra, *enc.constraints], enc, reductions, _is_hypothesis(names), base
    module = properties.get(prop)
    if not hasattr(module, "encode"):
        raise InputError(f"property {prop!r}: has no symbolic encoding")
    if normalise_rows:
        for i in range(n):
            extra.append(Constraint(f"normalise.row[{i}]<=1", z3.And([d <= 1 for d in sym.demands[i]])))
            extra.append(Constraint(f"normalise.row[{i}]has1", z3.Or([d == 1 for d in sym.demands[i]])))
        reductions.append("each demand row scaled so its largest entry is 1")
    kwargs: dict[str, int | None] = {}
    if prop in PER_USER and "user" in inspect.signature(module.encode).parameters:
        if focus_user and mechanism.anonymous:
            kwargs["user"] = 0
            reductions.append("user symmetry: only user 0 deviates/complains (anonymous mechanism)")
        else:
            # user=None: the negated property is the disjunction over every user (for sp: any user may lie)
            kwargs["user"] = None
            reductions.append("no user symmetry: every user may deviate/complain"
                              + ("" if mechanism.anonymous else " (mechanism not declared anonymous)"))
    enc = module.encode(sym, spec, prop, **kwargs)
    base = {c.name for c in [*sym.domain, *extra, *(own[0] if own else [])]}
    return sym, [*sym.domain, *extra, *enc.constraints], enc, reductions, _is_hypothesis(spec_names), base


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


def _generic(mechanism: Mechanism, prop: str, n: int, m: int, options: dict, positive_demands: bool) -> Encoded:
    sym, constraints, enc, reductions, hypothesis, base = encoding(mechanism, prop, n, m, options=options,
                                                                   positive_demands=positive_demands)

    def read_model(model):
        inst = model_instance(model, sym)
        return (inst.to_dict() if inst else None), enc.witness(model)

    return Encoded(constraints, base, hypothesis, read_model, reductions)


def _drf_bundles(mechanism: Mechanism, prop: str, n: int, m: int, options: dict, positive_demands: bool) -> Encoded:
    constraints, variables = proof_drf.sp_constraints(n, m)
    if positive_demands:
        constraints += [Constraint(f"assume.positive[{i}][{r}]", variables["bundles"][i][r] > 0)
                        for i in range(n) for r in range(m)]
    reductions = ["capacities normalised to 1", "bundle coordinates (DRF: positive tasks, row-scale invariance)",
                  "symmetry: user 0 lies, its dominant resource is 0, the others ordered by share"]

    def read_model(model):
        found = proof_drf.witness_instance(model, variables)
        return found["instance"], found["witness"]

    def hypothesis(name: str) -> bool:
        return name.startswith("drf.") or name.startswith("sp.lie0:drf.")

    base = {c.name for c in constraints if not c.name.startswith("sp.")}
    return Encoded(constraints, base, hypothesis, read_model, reductions)


#: properties the "drf-normalised" strategy applies to: each is invariant under rescaling a user's
#: demand row (see `_drf_normalised`)
DRF_NORMALISED = ("si", "ef", "pe", "sp", "bf", "srf", "pm")


def _drf_normalised(mechanism: Mechanism, prop: str, n: int, m: int, options: dict,
                    positive_demands: bool) -> Encoded:
    """The generic encoding (the mechanism's own spec and the property's own encoding) of built-in
    DRF without options, with every user's tasks fixed to 1 and users and resources ordered.

    Why fixing the tasks loses no violation (capacities are 1, weights 1, no caps, as `encoding`
    builds them for DRF):

    * the spec gives every user positive tasks: `drf.bottleneck[i]` asks for a saturated resource
      r with d_ir > 0 on which no user of r has a larger share t_k·max_s d_ks than i; with t_i = 0
      every user of r would have 0 tasks and r a load of 0, not 1;
    * the spec is invariant under rescaling row i by a > 0 and t_i by 1/a: it reads the row only
      through the bundle t_i·d_i (loads), the dominant share t_i·max_r d_ir and the support
      {r: d_ir > 0}, all unchanged;
    * so are the six negated properties: si's rule (`leontief.z3_prefers`) is t_i·d_ir < 1/n on
      i's support; ef's is t_i·d_ir < t_j·d_jr on i's support; pe's that no resource of i's support
      is saturated (loads); sp's that t'_0·lie_r > t_0·d_0r on the support of the true row d_0,
      where the misreported instance shares the rows of users 1..n-1 with the true one (rescaled
      together) and the declared row `lie` is itself rescaled by its tasks t'_0 > 0; bf's
      (`leontief.z3_common_bottleneck`, `z3_not_max_min_on`) that r is every user's most demanded
      resource (d_ir >= d_is: within row i) and r is unsaturated or some share t_k·d_kr exceeds
      t_i·d_ir; srf's is bf's with m = 1 (it has no choice at all when m > 1).

    Any violating model (d, t) therefore gives one with d_i := t_i·d_i and t_i = 1 (for sp also
    lie := t'_0·lie, t'_0 = 1). Substituting 1 for those tasks makes si, ef, pe, bf, srf LINEAR. The
    equalities stay as named constraints ("normalise.*") so a model still reads as an instance
    with its allocation. sp keeps (n-1)·m products t'_k·d_kr in its misreported run: it goes to
    `_drf_sp_relaxed`, which relaxes them.

    Symmetries broken (the unknown instance, the spec and the property are symmetric under permuting
    users and, capacities being all 1, permuting resources; `drf` is declared anonymous): for si,
    ef, pe, bf, srf the negated property is the disjunction over every user (pair; bf: every
    resource and user), so users are ordered by dominant share (max_r d_ir once t = 1), then
    resources by user 0's demand (a resource permutation keeps every dominant share). For sp only
    user 0 deviates (`focus_user`): users 1..n-1 are ordered by dominant share, and resources by
    user 0's true demand, so resource 0 is its dominant one. The symmetry constraints and equalities
    are part of the base (gate 2 checks them satisfiable with the spec), never hypotheses a positive
    control may drop, and the control still has to find an instance violating the property within
    them (`tests/search/test_prove_speed.py` plants one that excludes every violation)."""
    if prop == "sp":
        return _drf_sp_relaxed(mechanism, n, m, positive_demands)
    if prop == "pm" and n > 1:  # (one user: nobody can leave, the generic encoding says so)
        from fairlab.search.proof_drf_pm import drf_pm_relaxed  # it builds on this module

        return drf_pm_relaxed(mechanism, n, m, positive_demands)
    sym, constraints, enc, reductions, hypothesis, base = encoding(mechanism, prop, n, m, options=options,
                                                                   positive_demands=positive_demands)
    fixed = list(enc.variables["tasks"])
    one = z3.RealVal(1)
    missing = [str(v) for v in fixed if all(z3.substitute(c.expr, (v, one)).eq(c.expr) for c in constraints)]
    if missing:  # the property's encoding changed its names: no silent no-op normalisation
        raise AssertionError(f"drf-normalised: {missing} do not occur in the {prop} encoding")
    substituted = [Constraint(c.name, z3.substitute(c.expr, *[(v, one) for v in fixed])) for c in constraints]
    extra = [Constraint(f"normalise.{v}", v == one) for v in fixed]
    extra += _symmetry(sym.demands, 0)
    reductions = [*reductions,
                  "tasks normalised to 1: each demand row rescaled to its DRF bundle (DRF gives every user "
                  "positive tasks; spec and property are invariant under rescaling a row)",
                  "symmetry: users ordered by dominant share, resources by user 0's demand (user and resource "
                  "permutations)"]

    def read_model(model):
        inst = model_instance(model, sym)
        return (inst.to_dict() if inst else None), enc.witness(model)

    return Encoded([*substituted, *extra], base | {c.name for c in extra}, hypothesis, read_model, reductions)


def _symmetry(d, first: int) -> list[Constraint]:
    """Users `first`..n-1 ordered by dominant share, resources by user 0's demand (`_drf_normalised`)."""
    share = [z3_max(row) for row in d]
    return ([Constraint(f"symmetry.user-order[{k}]", share[k] <= share[k + 1]) for k in range(first, len(d) - 1)]
            + [Constraint(f"symmetry.resource-order[{r}]", d[0][r] >= d[0][r + 1]) for r in range(len(d[0]) - 1)])


def normalised_run(mechanism: Mechanism, n: int, m: int, positive_demands: bool
                   ) -> tuple[SymbolicInstance, list, list[Constraint], list[Constraint]]:
    """What the relaxed DRF encodings (sp here, pm in `fairlab.search.proof_drf_pm`) start from:
    (the unknown instance with capacities 1, every user's tasks fixed to 1, the domain's constraints
    with every demand > 0 if `positive_demands`, the mechanism's spec of that run)."""
    assert mechanism.spec is not None, "the relaxed encodings are DRF's, which has a spec"
    sym = SymbolicInstance.unknown(n, m)
    ones = [z3.RealVal(1)] * n
    base_constraints = list(sym.domain)
    if positive_demands:
        base_constraints += [Constraint(f"assume.positive[{i}][{r}]", sym.demands[i][r] > 0)
                             for i in range(n) for r in range(m)]
    return sym, ones, base_constraints, list(mechanism.spec(sym, ones))


def _drf_sp_relaxed(mechanism: Mechanism, n: int, m: int, positive_demands: bool) -> Encoded:
    """sp of built-in DRF (`_drf_normalised`'s reductions), with the misreported run RELAXED to
    linear arithmetic: a proof of a stronger statement.

    The truthful instance has tasks 1 (rows = bundles) and the liar (user 0) declares `lie` with
    tasks 1, as in `_drf_normalised`. In the misreported run every other user k keeps its row d_k
    and gets t'_k > 0 tasks (DRF's spec gives every user positive tasks), so its bundle is
    e_k = t'_k·d_k: the only nonlinear terms. The relaxation forgets the factor and keeps what
    it implies: e_k has the support of d_k and moves in one direction — 0 < e_kr < d_kr on the
    support (t'_k < 1), e_k = d_k (t'_k = 1) or e_kr > d_kr on the support (t'_k > 1)
    ("relax.same-demand[k]"). The misreported run is then DRF's own spec (`mechanism.spec`) on the
    rows (lie, e_1, ..., e_{n-1}) with tasks 1, and the violation is the sp property's own rule.
    Every violating model of the unrelaxed encoding is a model of the relaxed one (e_k := t'_k·d_k),
    so UNSAT of the relaxed encoding proves sp. (The DRF paper's descent argument, appendix A,
    uses only these facts: which users lose or gain in the misreported run, and their shares.)

    A SAT answer is no refutation by itself (the relaxation may admit non-instances); like every
    refutation it is confirmed exactly on the concrete instance or reported `unknown`. The
    positive control is restricted to e_k = d_k (`Encoded.control_fix`): its model, the other users
    keeping their bundles, is a model of the unrelaxed encoding too. With every demand positive it
    is restricted to e_k = d_k / 2 instead (t'_k = 1/2, again a model of the unrelaxed encoding):
    the others keeping their bundles leave the liar no room, so that control could never be SAT."""
    module = properties.get("sp")
    assert isinstance(module, DeviationProperty)  # sp
    sym, ones, base_constraints, own = normalised_run(mechanism, n, m, positive_demands)
    d = sym.demands
    spec = mechanism.spec
    assert spec is not None  # normalised_run checked it
    [(tag, deviation, derived, dev_constraints)] = list(module.derive_symbolic(sym, "sp", 0))
    liar, lie = deviation
    e = [[z3.Real(f"sp.{tag}.e{k}_{r}") for r in range(m)] for k in range(n)]
    rows = [lie if k == liar else e[k] for k in range(n)]
    relaxed = SymbolicInstance(list(derived.capacities), rows, list(derived.weights), list(derived.max_tasks))
    lie_spec = [Constraint(f"sp.{tag}:{c.name}", c.expr) for c in spec(relaxed, ones)]
    relax = []
    for k in range(n):
        if k == liar:
            continue
        less = z3.And([z3.If(d[k][r] > 0, z3.And(e[k][r] > 0, e[k][r] < d[k][r]), e[k][r] == 0) for r in range(m)])
        same = z3.And([e[k][r] == d[k][r] for r in range(m)])
        more = z3.And([z3.If(d[k][r] > 0, e[k][r] > d[k][r], e[k][r] == 0) for r in range(m)])
        relax.append(Constraint(f"relax.same-demand[{k}]", z3.Or(less, same, more)))
    view = Z3View(sym)
    violated = z3.Or([module.rule(view, i, ones[i], ones[pos], deviation) for i, pos in module.compared(n, deviation)])
    goal = [*dev_constraints, *lie_spec, *relax, Constraint("sp.violated", violated)]
    symmetry = _symmetry(d, 1)
    constraints = [*base_constraints, *own, *symmetry, *goal]
    base = {c.name for c in [*base_constraints, *own, *symmetry]}
    names = {c.name for c in own}
    reductions = ["capacities normalised to 1 (scale-invariant mechanism)",
                  "user symmetry: only user 0 deviates/complains (anonymous mechanism)",
                  *(["assumption: every demand strictly positive"] if positive_demands else []),
                  "tasks normalised to 1: each demand row rescaled to its DRF bundle (DRF gives every user "
                  "positive tasks; spec and property are invariant under rescaling a row); the liar's declared "
                  "row likewise",
                  "symmetry: users 1..n-1 ordered by dominant share, resources by user 0's demand (user and "
                  "resource permutations)",
                  "relaxation: in the misreported run each other user's bundle keeps its support and moves in one "
                  "direction (below, equal to or above its truthful bundle) instead of scaling exactly: linear; "
                  "UNSAT proves the unrelaxed claim"]

    def read_model(model):
        inst = model_instance(model, sym)
        return (inst.to_dict() if inst else None), {"user": liar, "misreport": [number(model_value(model, x))
                                                                               for x in lie]}

    # The control's restriction: the others keep their bundles (t'_k = 1) or, with every demand
    # positive, halve them (t'_k = 1/2): keeping them leaves no room, since each user's truthful
    # bottleneck is a saturated resource the liar uses too and must get more of.
    scale = z3.RealVal("1/2") if positive_demands else z3.RealVal(1)
    fix = tuple((e[k][r], d[k][r] if not positive_demands else scale * d[k][r])
                for k in range(n) if k != liar for r in range(m))
    return Encoded(constraints, base, _is_hypothesis(names), read_model, reductions, control_fix=fix)


STRATEGIES = {"generic": _generic, "drf-bundles": _drf_bundles, "drf-normalised": _drf_normalised}


def strategies_for(mechanism: Mechanism, prop: str, options: dict, positive_demands: bool = False) -> list[str]:
    """The encodings that apply, most specialised first. For the lab's DRF without options (its
    reductions need both declared facts, scale invariance and anonymity) and si, ef, pe, sp: the
    tasks-normalised encoding (`_drf_normalised`) alone: it is the generic encoding with complete
    reductions, linear for si, ef and pe, and it decides sp where the bundle coordinates of
    `fairlab.search.proof_drf` and the generic encoding ran out (measured by
    `benchmarks/bench_prove.py` against `baseline_strategies_for`). Otherwise the generic encoding.
    With every demand positive as well (`positive_demands` is accepted for callers and kept for
    the record): each reduction keeps demands positive, and sp's relaxed encoding restricts its
    positive control to the others halving their bundles (`_drf_sp_relaxed`; keeping them could
    never violate sp there, which is why the baseline ran before; `benchmarks/bench_prove_domain.py`)."""
    drf = (mechanism is mechanisms.get("drf") and not options and mechanism.scale_invariant and mechanism.anonymous)
    if drf and prop in DRF_NORMALISED:
        return ["drf-normalised"]
    return ["generic"]


def baseline_strategies_for(mechanism: Mechanism, prop: str, options: dict) -> list[str]:
    """The encodings `strategies_for` chose before the tasks-normalised one, kept callable as the
    baseline of `benchmarks/bench_prove.py`: for DRF's sp the bundle coordinates then the generic
    encoding, otherwise the generic one."""
    if strategies_for(mechanism, prop, options) == ["drf-normalised"] and prop == "sp":
        return ["drf-bundles", "generic"]
    return ["generic"]


def _unknown(out: dict, reason: str, gate: str | None = None, state: str = "unknown") -> dict:
    if gate:
        out["gates"][gate] = state
    out.update(verdict="unknown", reason=reason)
    return out


def _time_reason(where: str, budget: ProveBudget) -> str:
    return (f"time: the wall-clock stop ({budget.seconds:g} s) fired during {where} before z3's resource limit "
            f"(the machine is slow or loaded; raise --time-limit)")


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


def run_strategy(strategy: str, mechanism: Mechanism, prop: str, n: int, m: int, time_limit: float,
                 options: dict, positive_demands: bool, seed: int = 0, rlimit: int = DEFAULT_RLIMIT) -> dict:
    """One attempt of one encoding (no conformance gate: for benchmarks of the encodings)."""
    budget = ProveBudget(rlimit=rlimit, seconds=time_limit)
    start = time.monotonic()
    encoded = STRATEGIES[strategy](mechanism, prop, n, m, options, positive_demands)
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


def conformance_gate(mech: Mechanism, n: int, m: int, options: dict, budget: ProveBudget, deadline: float):
    """Gate 1: `fairlab.mechanisms.conformance.check_sample` on the budget's seeded sample (remembered per
    mechanism, size, options and budget within a process: the answer is deterministic)."""
    try:
        key = (id(mech), n, m, json.dumps(options, sort_keys=True, default=str), budget.conformance_samples,
               budget.conformance_seed, budget.conformance_rlimit)
    except TypeError:  # pragma: no cover - options are JSON values
        key = None
    if key in _CONFORMANCE:
        return _CONFORMANCE[key][1]
    report = conformance.check_sample(mech, n, m, samples=budget.conformance_samples, seed=budget.conformance_seed,
                                      budget=SolverBudget(rlimit=budget.conformance_rlimit), options=options,
                                      stop_early=True, deadline=deadline)
    timed_out = any(r.status == "unknown" and "(time)" in r.explanation for r in conformance.results_of(report))
    if key is not None and not timed_out:
        _CONFORMANCE[key] = (mech, report)  # the mechanism kept alive so its id is not reused
    return report


GATES = ("conformance", "satisfiable", "core-uses-property", "positive-control")


def prove_encoded(mechanism: Mechanism, prop: str, n: int, m: int, time_limit: float = 60.0,
                  options: dict | None = None, positive_demands: bool = False, rlimit: int | None = None,
                  attempts: int | None = None, budget: ProveBudget | None = None,
                  strategies: list[str] | None = None) -> Result:
    """Gate 1 (conformance), then the proof attempts of the budget's schedule — attempt k: seed k,
    rlimit · 2^k, each applicable encoding in turn, most specialised first — until one decides;
    an UNSAT passes gates 2-4 before it is `proved`; a `refuted` is confirmed exactly on a
    concrete instance. `time_limit` (or `budget.seconds`) is the outer wall-clock stop.

    A ``proof`` `Result`: the unsat core and positive control are its ``certificate``; the gates,
    the conformance reports, the reductions and every z3 query are its ``details``; the budget and
    the resource units spent (``rlimit_spent``) its ``budget``. `strategies` overrides the
    encodings `strategies_for` chooses (benchmarks: the baseline, `baseline_strategies_for`)."""
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
    encoding(mechanism, prop, n, m, options=options, positive_demands=positive_demands)  # validate early
    start = time.monotonic()
    deadline = start + budget.seconds
    names = strategies_for(mechanism, prop, options, positive_demands) if strategies is None else list(strategies)
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
        report = conformance_gate(mech, n, m, opts, budget, deadline)
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
    for k, (seed, limit) in enumerate(schedule):
        for j, name in enumerate(names):
            if name not in encoded:
                encoded[name] = STRATEGIES[name](mechanism, prop, n, m, options, positive_demands)
            # each attempt may use its share of the clock that is left, so one stalled setting
            # cannot starve the others (a stop by the share alone is not final)
            now = time.monotonic()
            share = now + (deadline - now) / ((len(schedule) - k) * len(names) - j)
            results.append(decide(encoded[name], name, prop, seed, limit, budget, deadline, queries,
                                  params=budget.params_for(k), attempt_deadline=share))
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
        confirmed = confirm_refutation(mechanism, prop, best["instance"], witness, options, budget)
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
            found = allocator_check(mechanism, prop, n, m, options, sampled, budget, deadline, checked)
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
                    budget: ProveBudget, deadline: float, record: dict):
    """The gate a foreign mechanism's `proved` passes besides conformance: the exact property check
    (`fairlab.properties.check`, numeric engines only, `ALLOCATOR_CHECK_EVALUATIONS` deviations) of
    its ALLOCATOR on the conformance sample and on `allocator_instances`. Sampled conformance cannot
    show that foreign code follows its spec everywhere; an allocator that departs from it where the
    spec's proof says the property holds is caught here if the departure shows on these instances.

    None if no instance violates; ("refuted", instance dict, witness dict, explanation) for the
    first violation, confirmed exactly (`confirm_refutation`); ("unknown", reason) if the clock
    stopped the check. An instance the allocator declines is skipped. `record` is filled with what
    was checked."""
    instances = [Instance.from_dict(r.instance) for r in sampled if r.status != Status.SKIPPED and r.instance]
    extra = allocator_instances(n, m, budget.conformance_seed)
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
    verdict = properties.check(mechanism, prop, inst, options=options, time_limit=20)
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

def prove(mechanism: Mechanism, prop: str, n: int, m: int, time_limit: float = 60.0, options: dict | None = None,
          positive_demands: bool = False, rlimit: int | None = None, attempts: int | None = None,
          budget: ProveBudget | None = None, strategies: list[str] | None = None, domain=None) -> Result:
    """`prove_encoded` on an instance domain (`fairlab.core.domain`; default ``all``, and
    ``positive_demands=True`` narrows it to positive demands): the encodings get the domain's
    demand assumption and the result records exactly the domain it is about
    (`fairlab.search.proof_domain.prove_on`: a ``proved`` covers unit weights and no caps)."""
    from fairlab.search.proof_domain import prove_on

    return prove_on(prove_encoded, mechanism, prop, n, m, domain=domain, positive_demands=positive_demands,
                    time_limit=time_limit, options=options, rlimit=rlimit, attempts=attempts, budget=budget,
                    strategies=strategies)
