"""The encodings of `fairlab.search.proof.prove`: "spec ∧ ¬property" as named z3 constraints
(`encoding`, the generic one; `_drf_bundles`, `_drf_normalised`, `_drf_sp_relaxed` and `_drf_levels`,
the lab's DRF reductions, each argued in its docstring; weights and task caps as unknowns), the
relations 'unique' / 'same-as:X', and which strategies apply (`strategies_for`). The proof's
schedule, gates and controls stay in `fairlab.search.proof` (which re-exports these names).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable

import z3

from fairlab import mechanisms, properties
from fairlab.core.errors import InputError, PluginError, describe_exception
from fairlab.core.instance import Instance
from fairlab.mechanisms.base import Constraint, Mechanism, SymbolicInstance, z3_max
from fairlab.mechanisms.registry import is_builtin
from fairlab.properties.base import Encoding, model_value, number
from fairlab.properties.property import DeviationProperty, Z3View
from fairlab.search import proof_drf
from fairlab.search.proof_weights import lifted
from fairlab.search.symbolic import model_instance

PER_USER = ("si", "ef", "sp", "pm", "njc", "bf", "srf", "rm")

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
    #: (tag, symbolic instance) of each run of the mechanism's spec in the encoding, for a
    #: relaxation built on it (`_drf_levels`); empty when none is needed
    symbolic: tuple = ()
    #: a relaxation: a SAT answer may be no instance at all (the exact re-check decides, and a
    #: model that is no violation sends the proof on to the next encoding)
    relaxed: bool = False

    def goal(self, name: str) -> bool:
        """A constraint of the negated property (not of the base)."""
        return name not in self.base


def encoding(mechanism: Mechanism, prop: str, n: int, m: int, focus_user: bool = True, normalise_rows: bool = False,
             options: dict | None = None, positive_demands: bool = False, weights: str = "none", caps: Any = False):
    """(symbolic instance, named constraints, property Encoding, reductions used, hypothesis test,
    base names). `weights` and `caps`: the unknown instance's weights ("none", "scalar", "vector")
    and which users have an unknown task cap (`SymbolicInstance.unknown`)."""
    if mechanism.spec is None:
        raise InputError(f"mechanism {mechanism.name!r}: has no symbolic specification, nothing to prove with")
    options = dict(options or {})
    # Capacities 1 lose no generality only for mechanisms declared scale-invariant (for a relation,
    # both mechanisms compared); otherwise every capacity is an unknown positive real.
    related = related_mechanism(mechanism, prop)
    if mechanism.scale_invariant and (related is None or related.scale_invariant):
        sym = SymbolicInstance.unknown(n, m, weights=weights, caps=caps)
        reductions = ["capacities normalised to 1 (scale-invariant mechanism)"]
    else:
        sym = SymbolicInstance.unknown(n, m, capacities="unknown", weights=weights, caps=caps)
        reductions = ["capacities unknown (mechanism not declared scale-invariant)"]
    reductions += space_words(weights, sym.max_tasks)
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
    elif "anonymous" in inspect.signature(module.encode).parameters:  # a coalition property (gsp)
        kwargs["anonymous"] = focus_user and mechanism.anonymous
        reductions.append("user symmetry: user 0 is a member who strictly gains and the members come first "
                          "(anonymous mechanism)" if kwargs["anonymous"] else
                          "no user symmetry: every coalition" + ("" if mechanism.anonymous else
                                                                 " (mechanism not declared anonymous)"))
    enc = module.encode(sym, spec, prop, **kwargs)
    base = {c.name for c in [*sym.domain, *extra, *(own[0] if own else [])]}
    return sym, [*sym.domain, *extra, *enc.constraints], enc, reductions, _is_hypothesis(spec_names), base



def space_words(weights: str, caps) -> list[str]:
    """What an encoding's unknown instance has besides demands, in words (for its reductions);
    nothing for unit weights and no caps (the encodings' words before weights and caps)."""
    out = {"none": [], "scalar": ["weights: one unknown weight w_i > 0 per user"],
           "vector": ["weights: one unknown weight w_ir > 0 per user and resource"]}[weights]
    capped = [i for i, t in enumerate(caps) if t is not None]
    if capped:
        out.append(f"task caps: user{'s' if len(capped) > 1 else ''} {', '.join(map(str, capped))} with an unknown "
                   f"cap >= 0, the other{'s' if len(caps) - len(capped) != 1 else ''} uncapped"
                   if len(capped) < len(caps) else "task caps: every user has an unknown cap >= 0")
    return out


def _generic(mechanism: Mechanism, prop: str, n: int, m: int, options: dict, positive_demands: bool,
             weights: str = "none", caps: Any = False) -> Encoded:
    sym, constraints, enc, reductions, hypothesis, base = encoding(mechanism, prop, n, m, options=options,
                                                                   positive_demands=positive_demands,
                                                                   weights=weights, caps=caps)

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
DRF_NORMALISED = ("si", "ef", "pe", "sp", "bf", "srf", "pm", "gsp")


def _drf_normalised(mechanism: Mechanism, prop: str, n: int, m: int, options: dict,
                    positive_demands: bool, weights: str = "none", caps: Any = False) -> Encoded:
    """The generic encoding (the mechanism's own spec and the property's own encoding) of built-in
    DRF without options, with every user's tasks fixed to 1 and users and resources ordered.

    Why fixing the tasks loses no violation (capacities are 1, as `encoding` builds them for DRF;
    weights and caps as `weights` and `caps` ask, see the last paragraphs):

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
    them (`tests/search/test_prove_speed.py` plants one that excludes every violation).

    Weights (unknowns, one per user or per user and resource) are a user's own numbers: rescaling
    its row leaves them, and the weighted dominant share t_i·max_r d_ir / w_ir, unchanged, and the
    properties' weighted forms (si's entitlement w_ir / Σ_k w_kr, ef's bundles scaled by w_ir / w_jr)
    read no row; permuting users (resources) permutes the weights with them, so the symmetries
    stay. Task caps (counted in tasks) rescale with their row: a user with a positive cap still
    gets positive tasks (a bottleneck, or its cap), so its tasks become 1 and its cap >= 1; a cap
    of 0 gives 0 tasks and nothing to rescale (`normalised_tasks`: If(cap > 0, 1, 0), made linear by
    `fairlab.search.proof_weights.lift_ite`). Users are then ordered only within a cap class."""
    if prop == "sp":
        return _drf_sp_relaxed(mechanism, n, m, positive_demands, weights=weights, caps=caps)
    if prop == "gsp":
        from fairlab.search.proof_drf_gsp import drf_gsp_relaxed  # it builds on this module

        return drf_gsp_relaxed(mechanism, n, m, positive_demands)
    if prop == "pm" and n > 1:  # (one user: nobody can leave, the generic encoding says so)
        from fairlab.search.proof_drf_pm import drf_pm_relaxed  # it builds on this module

        return drf_pm_relaxed(mechanism, n, m, positive_demands, weights=weights)
    sym, constraints, enc, reductions, hypothesis, base = encoding(mechanism, prop, n, m, options=options,
                                                                   positive_demands=positive_demands,
                                                                   weights=weights, caps=caps)
    fixed = list(enc.variables["tasks"])
    values = normalised_tasks(sym)
    missing = [str(v) for v in fixed if all(z3.substitute(c.expr, (v, z3.RealVal(1))).eq(c.expr)
                                            for c in constraints)]
    if missing:  # the property's encoding changed its names: no silent no-op normalisation
        raise AssertionError(f"drf-normalised: {missing} do not occur in the {prop} encoding")
    substituted = lifted([Constraint(c.name, z3.substitute(c.expr, *zip(fixed, values))) for c in constraints])
    extra = [Constraint(f"normalise.{v}", v == value) for v, value in zip(fixed, values)]
    extra += _symmetry(sym.demands, 0, sym.max_tasks)
    reductions = [*reductions,
                  "tasks normalised to 1: each demand row rescaled to its DRF bundle (DRF gives every user "
                  "positive tasks; spec and property are invariant under rescaling a row)"
                  + (CAPPED_TASKS if any(t is not None for t in sym.max_tasks) else ""),
                  "symmetry: users ordered by dominant share" + (" among users of the same cap class"
                                                                 if any(t is not None for t in sym.max_tasks) else "")
                  + ", resources by user 0's demand (user and resource permutations)"]

    def read_model(model):
        inst = model_instance(model, sym)
        return (inst.to_dict() if inst else None), enc.witness(model)

    return Encoded([*substituted, *extra], base | {c.name for c in extra}, hypothesis, read_model, reductions,
                   symbolic=(("", sym),))


#: how the tasks normalisation treats a capped user (`normalised_tasks`), in the reductions' words
CAPPED_TASKS = ("; a capped user's tasks are 1 if its cap is positive (its cap rescaled with its row, so >= 1), "
                "0 if its cap is 0")


def normalised_tasks(sym: SymbolicInstance) -> list:
    """Each user's tasks once its row is rescaled to its DRF bundle (`_drf_normalised`): 1, or for a
    user with an unknown cap, 1 if the cap is positive and 0 if it is 0. DRF gives a user with a
    positive cap positive tasks (its bottleneck is a saturated resource, or its tasks equal its
    cap), and rescaling its row by a > 0 rescales its tasks and its cap (counted in tasks) by 1/a;
    a user with cap 0 gets no tasks and is not rescaled. Linear: an if-then-else, no product."""
    one, zero = z3.RealVal(1), z3.RealVal(0)
    return [one if cap is None else z3.If(cap > 0, one, zero) for cap in sym.max_tasks]


def _symmetry(d, first: int, caps=None) -> list[Constraint]:
    """Users `first`..n-1 ordered by dominant share, resources by user 0's demand (`_drf_normalised`).
    With task caps (`caps`: each user's cap term or None) only neighbours of the same cap class (both
    capped or both not) are ordered: the cap patterns of `fairlab.search.proof_domain` list the capped
    users last, so permuting users inside a class is the only symmetry left."""
    share = [z3_max(row) for row in d]
    same = [True] * len(d) if caps is None else [(caps[k] is None) == (caps[k + 1] is None) for k in range(len(d) - 1)]
    return ([Constraint(f"symmetry.user-order[{k}]", share[k] <= share[k + 1]) for k in range(first, len(d) - 1)
             if same[k]]
            + [Constraint(f"symmetry.resource-order[{r}]", d[0][r] >= d[0][r + 1]) for r in range(len(d[0]) - 1)])


def normalised_run(mechanism: Mechanism, n: int, m: int, positive_demands: bool, weights: str = "none",
                   caps: Any = False) -> tuple[SymbolicInstance, list, list[Constraint], list[Constraint]]:
    """What the relaxed DRF encodings (sp here, pm in `fairlab.search.proof_drf_pm`) start from:
    (the unknown instance with capacities 1, every user's tasks fixed to 1 (`normalised_tasks`),
    the domain's constraints with every demand > 0 if `positive_demands`, the mechanism's spec of
    that run). `weights`, `caps`: the unknown instance's (`SymbolicInstance.unknown`)."""
    assert mechanism.spec is not None, "the relaxed encodings are DRF's, which has a spec"
    sym = SymbolicInstance.unknown(n, m, weights=weights, caps=caps)
    ones = normalised_tasks(sym)
    base_constraints = list(sym.domain)
    if positive_demands:
        base_constraints += [Constraint(f"assume.positive[{i}][{r}]", sym.demands[i][r] > 0)
                             for i in range(n) for r in range(m)]
    return sym, ones, base_constraints, list(mechanism.spec(sym, ones))


def _drf_sp_relaxed(mechanism: Mechanism, n: int, m: int, positive_demands: bool, weights: str = "none",
                    caps: Any = False) -> Encoded:
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
    the others keeping their bundles leave the liar no room, so that control could never be SAT.

    Weights (`weights`) are unknowns shared by both runs (a user declares its demand, not its
    weight). Task caps (`caps`, counted in tasks) rescale with their row: in the misreported run the
    liar's cap is a fresh unknown c'_0 (its declared row is rescaled by its own tasks t'_0, free), 0
    exactly when its true cap is ("relax.cap[0]"); another capped user k's is c'_k = cap_k / t'_k,
    relaxed like its bundle to the direction it moves in (above, equal to or below cap_k as its bundle
    moves below, equal to or above d_k; 0 with a cap of 0). The control's restriction then also
    keeps (or doubles) the others' caps."""
    module = properties.get("sp")
    assert isinstance(module, DeviationProperty)  # sp
    sym, ones, base_constraints, own = normalised_run(mechanism, n, m, positive_demands, weights=weights, caps=caps)
    d = sym.demands
    spec = mechanism.spec
    assert spec is not None  # normalised_run checked it
    [(tag, deviation, derived, dev_constraints)] = list(module.derive_symbolic(sym, "sp", 0))
    liar, lie = deviation
    e = [[z3.Real(f"sp.{tag}.e{k}_{r}") for r in range(m)] for k in range(n)]
    rows = [lie if k == liar else e[k] for k in range(n)]
    cap = sym.max_tasks
    cap2 = [None if cap[k] is None else z3.Real(f"sp.{tag}.cap{k}") for k in range(n)]
    relaxed = SymbolicInstance(list(derived.capacities), rows, list(derived.weights), cap2)
    after = normalised_tasks(relaxed)
    lie_spec = [Constraint(f"sp.{tag}:{c.name}", c.expr) for c in spec(relaxed, after)]
    relax = []
    if cap[liar] is not None:
        relax.append(Constraint(f"relax.cap[{liar}]", z3.And(cap2[liar] >= 0, (cap[liar] == 0) == (cap2[liar] == 0))))
    for k in range(n):
        if k == liar:
            continue
        less = z3.And([z3.If(d[k][r] > 0, z3.And(e[k][r] > 0, e[k][r] < d[k][r]), e[k][r] == 0) for r in range(m)])
        same = z3.And([e[k][r] == d[k][r] for r in range(m)])
        more = z3.And([z3.If(d[k][r] > 0, e[k][r] > d[k][r], e[k][r] == 0) for r in range(m)])
        own_cap, new_cap = cap[k], cap2[k]
        if own_cap is not None and new_cap is not None:  # the cap, in tasks, moves the other way (c'_k = cap_k / t'_k)
            less = z3.And(less, own_cap > 0, new_cap > own_cap)
            same = z3.And(same, new_cap == own_cap)
            more = z3.And(more, own_cap > 0, new_cap > 0, new_cap < own_cap)
        relax.append(Constraint(f"relax.same-demand[{k}]", z3.Or(less, same, more)))
    view = Z3View(sym)
    violated = z3.Or([module.rule(view, i, ones[i], after[pos], deviation) for i, pos in module.compared(n, deviation)])
    goal = [*dev_constraints, *lie_spec, *relax, Constraint("sp.violated", violated)]
    symmetry = _symmetry(d, 1, cap)
    if any(c is not None for c in cap):  # the capped users' tasks If(cap > 0, 1, 0): no products
        own, goal = lifted(own), lifted(goal)
    constraints = [*base_constraints, *own, *symmetry, *goal]
    base = {c.name for c in [*base_constraints, *own, *symmetry]}
    names = {c.name for c in own}
    reductions = ["capacities normalised to 1 (scale-invariant mechanism)",
                  "user symmetry: only user 0 deviates/complains (anonymous mechanism)",
                  *(["assumption: every demand strictly positive"] if positive_demands else []),
                  *space_words(weights, cap),
                  "tasks normalised to 1: each demand row rescaled to its DRF bundle (DRF gives every user "
                  "positive tasks; spec and property are invariant under rescaling a row); the liar's declared "
                  "row likewise" + (CAPPED_TASKS if any(c is not None for c in cap) else ""),
                  "symmetry: users 1..n-1 ordered by dominant share" + (" among users of the same cap class"
                                                                        if any(c is not None for c in cap) else "")
                  + ", resources by user 0's demand (user and resource permutations)",
                  "relaxation: in the misreported run each other user's bundle keeps its support and moves in one "
                  "direction (below, equal to or above its truthful bundle) instead of scaling exactly"
                  + (", its cap the other way" if any(c is not None for c in cap) else "")
                  + ": linear; UNSAT proves the unrelaxed claim"]

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
    fix += tuple((cap2[k], cap[k] / scale) for k in range(n) if k != liar and cap[k] is not None)
    return Encoded(constraints, base, _is_hypothesis(names), read_model, reductions, control_fix=fix,
                   symbolic=(("", sym), ("lie", relaxed)), relaxed=True)


#: properties the "drf-levels" strategy applies to (si with scalar weights only: with weight vectors
#: its entitlement's per-resource sums stay products)
DRF_LEVELS = ("si", "ef", "pe", "sp")


def _drf_levels(mechanism: Mechanism, prop: str, n: int, m: int, options: dict, positive_demands: bool,
                weights: str = "none", caps: Any = False) -> Encoded:
    """`_drf_normalised` of weighted DRF, made linear by the levels relaxation
    (`fairlab.search.proof_weights.levels`: each user's weighted dominant share and its products
    with the weights as unknowns, with the linear facts they satisfy). With one weight per user the
    weights are also normalised to sum 1 ("normalise.weights"): DRF's spec compares weighted shares
    only with each other, si's entitlement is w_i / Σ_k w_k, ef's scaling w_i / w_j, and pe and sp's
    rules read no weight, so multiplying every weight by one positive number changes nothing.
    UNSAT proves the property; a SAT model is re-checked exactly like any refutation."""
    from fairlab.mechanisms import drf
    from fairlab.properties import ef
    from fairlab.search.proof_weights import levels

    exact = _drf_normalised(mechanism, prop, n, m, options, positive_demands, weights=weights, caps=caps)
    sym = exact.symbolic[0][1]
    ones, extra, ratios = [], [], []
    reductions = [*exact.reductions]
    if weights == "scalar":
        total = z3.Sum([sym.weights[k][0] for k in range(n)])
        ones.append(total)
        extra.append(Constraint("normalise.weights", total == 1))
        reductions.append("weights normalised to sum 1 (spec and property read weights only through their ratios)")
    if prop == "ef":
        view, one = Z3View(sym), z3.RealVal(1)
        for i in range(n):
            for j in range(n):
                if i != j:
                    for r, term in enumerate(ef.envied_bundle(view, i, j, one)):
                        ratios.append((term, sym.demands[j][r], sym.weights[j][r], sym.weights[i][r]))
    rewritten, axioms, _ = levels(exact.constraints, list(exact.symbolic), drf.sigma_terms, ratios, ones)
    reductions.append("relaxation: each user's weighted dominant share (level) and its products with the weights "
                      "are unknowns bound by the linear facts they satisfy (definition, order, sums"
                      + (", ef's weight-scaled bundles" if ratios else "") + "): linear; UNSAT proves the exact claim")
    names = {c.name for c in [*extra, *axioms]}
    return Encoded([*extra, *rewritten, *axioms], exact.base | names, exact.hypothesis, exact.read_model, reductions,
                   control_fix=exact.control_fix, symbolic=exact.symbolic, relaxed=True)


STRATEGIES = {"generic": _generic, "drf-bundles": _drf_bundles, "drf-normalised": _drf_normalised,
              "drf-levels": _drf_levels}


def strategies_for(mechanism: Mechanism, prop: str, options: dict, positive_demands: bool = False,
                   weights: str = "none", caps: Any = False) -> list[str]:
    """The encodings that apply, most specialised first. For the lab's DRF without options (its
    reductions need both declared facts, scale invariance and anonymity) and si, ef, pe, sp: the
    tasks-normalised encoding (`_drf_normalised`) alone: it is the generic encoding with complete
    reductions, linear for si, ef and pe, and it decides sp where the bundle coordinates of
    `fairlab.search.proof_drf` and the generic encoding ran out (measured by
    `benchmarks/bench_prove.py` against `baseline_strategies_for`). Otherwise the generic encoding.
    With every demand positive as well (`positive_demands` is accepted for callers and kept for
    the record): each reduction keeps demands positive, and sp's relaxed encoding restricts its
    positive control to the others halving their bundles (`_drf_sp_relaxed`; keeping them could
    never violate sp there, which is why the baseline ran before; `benchmarks/bench_prove_domain.py`).
    With weights (`weights`: the unknown instance's) and si (one weight per user), ef, pe, sp: the
    levels relaxation first (`_drf_levels`, linear), then the tasks-normalised encoding (nonlinear:
    it finds the models, e.g. si's with weight vectors). With task caps (`caps`) the same, except
    DRF's pm: the departure run's relaxation does not carry caps, so the generic encoding."""
    drf = (mechanism is mechanisms.get("drf") and not options and mechanism.scale_invariant and mechanism.anonymous)
    capped = caps is True or (caps is not False and any(caps))
    if drf and weights != "none" and prop in DRF_LEVELS and not (prop == "si" and weights == "vector"):
        return ["drf-levels", "drf-normalised"]
    if drf and prop in DRF_NORMALISED and not (prop == "pm" and capped) \
            and not (prop == "gsp" and (capped or weights != "none")):
        return ["drf-normalised"]  # (gsp's relaxation carries neither weights nor caps: the generic encoding)
    if prop == "gsp" and weights == "none" and not capped and mechanism is mechanisms.get("asset") \
            and not options and mechanism.scale_invariant and mechanism.anonymous:
        return ["drf-normalised"]  # the same reductions hold for asset fairness (`proof_drf_gsp`)
    return ["generic"]


def baseline_strategies_for(mechanism: Mechanism, prop: str, options: dict) -> list[str]:
    """The encodings `strategies_for` chose before the tasks-normalised one, kept callable as the
    baseline of `benchmarks/bench_prove.py`: for DRF's sp the bundle coordinates then the generic
    encoding, otherwise the generic one."""
    if strategies_for(mechanism, prop, options) == ["drf-normalised"] and prop == "sp":
        return ["drf-bundles", "generic"]
    return ["generic"]
