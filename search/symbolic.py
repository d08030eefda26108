"""The symbolic engine of the counterexample search (`fairlab.search.engines`): models of the
mechanism's z3 spec ∧ the property's violation on unknown demands (`symbolic_candidates`), and the
gate a first-question unsat must pass before the search says ``holds`` (`holds_gate`: conformance on
seeded instances, the unsat core, a positive control).

Moved out of `fairlab.search.engines` (which re-exports every name) when that file outgrew one job.
"""


import inspect
import itertools
import random
from fractions import Fraction
from typing import Any, Callable, Iterator

import z3

from fairlab.core.domain import ALL, Domain
from fairlab.core.errors import InputError, OptionError, PluginError, describe_exception
from fairlab.core.exact import Algebraic
from fairlab.core.instance import Instance
from fairlab.core.isolated import isolated_solver
from fairlab.core.solving import DEFAULT_RLIMIT, SolverBudget, check
from fairlab.mechanisms import conformance
from fairlab.mechanisms.base import Mechanism, SymbolicInstance
from fairlab.mechanisms.registry import is_builtin
from fairlab.search import space
from fairlab.search.budgets import (
    CONFORMANCE_INSTANCES,
    CONTROL_TRIES,
)
from fairlab.search.hunt import TIME, WORKING, Unsat, seconds_left

#: the symbolic engine asks each question with rlimit / 2**k for k = SYMBOLIC_SLICES, ..., 1, 0 until
#: one answers: z3 is deterministic, so the answer is the one the full rlimit gives, and between the
#: slices the cheap engines get their turns (at most twice the z3 work of one full question)
SYMBOLIC_SLICES = 10


# --------------------------------------------------------------------------- symbolic engine
def model_instance(model: z3.ModelRef, sym: SymbolicInstance) -> Instance | None:
    """A concrete instance from a model of the unknown demands (capacities as in `sym`)."""

    def exact(term):
        value = Algebraic.of(model.eval(term, model_completion=True))
        if isinstance(value, Algebraic):  # rationalise: the exact check decides anyway
            value = Fraction(value.decimal(12))
        return value

    try:
        return Instance.build(
            [exact(c) for c in sym.capacities],
            [[exact(d) for d in row] for row in sym.demands],
            weights=model_weights(sym, exact),
            max_tasks=[None if t is None else exact(t) for t in sym.max_tasks],
        )
    except InputError:
        return None


def model_weights(sym: SymbolicInstance, exact: Callable) -> list | None:
    """The weights of `sym` as an `Instance` takes them, each term read by `exact`: None when every
    weight is the numeral 1 (no weights), one number per user when each row is one term (scalar
    weights, `SymbolicInstance.unknown(weights="scalar")`), else a vector per user."""
    rows = sym.weights
    if all(z3.is_rational_value(w) and w.as_fraction() == 1 for row in rows for w in row):
        return None
    if all(all(w.eq(row[0]) for w in row) for row in rows):
        return [exact(row[0]) for row in rows]
    return [[exact(w) for w in row] for row in rows]



def symbolic_candidates(
    goal: Callable[[SymbolicInstance], list], n: int, m: int, notes: list, rlimit: int = DEFAULT_RLIMIT,
    seed: int = 0, deadline: float | None = None, capacities=None, hypotheses: set | None = None,
    slices: int = SYMBOLIC_SLICES, domain: Domain = ALL,
) -> Iterator:
    """Models of `goal(sym)` (named constraints) on unknown demands, each blocked after use.

    Each question is a fresh solver (all constraints and the blocks so far) bounded by `rlimit`
    resource units: deterministic. Yields instances; `Unsat` if the first question is unsat;
    `TIME` if the wall-clock `deadline` stopped z3; `WORKING` after each of the `slices` smaller
    rlimits (rlimit / 2**k) a question was first asked with did not answer it. Ends when z3 gives
    up (rlimit) or has no further model.

    `domain`: the unknowns range over it — its demand constraint; unknown weights (one per user, or
    one per user and resource) where it allows weights (`SymbolicInstance.unknown`); and where it
    allows task caps, every *cap pattern* (which users have an unknown cap >= 0, the others none;
    all 2^n of them, fewest caps first: the encodings ask about every user) as a stream of its own.
    When the domain has weights or caps, a stream with unit weights and no caps (a part of the
    domain, whose models are easier instances to evaluate) comes first. The streams take turns,
    each made when its turn first comes; the `Unsat` (a ``holds`` to gate) comes only when the
    first question of every stream over the whole domain was unsat."""
    spaces: list = [(domain.weights, False)]
    if domain.caps == "allowed":
        spaces = [(domain.weights, list(p)) for p in
                  sorted(itertools.product((False, True), repeat=n), key=lambda p: (sum(p), p))]
    plain = domain.weights != "none" or domain.caps != "none"
    todo = iter(([("none", False)] if plain else []) + spaces)
    whole = len(spaces)
    unsats: list[Unsat] = []
    live: list = []
    made = 0
    while True:
        space_ = next(todo, None)
        if space_ is not None:  # one more stream joins the turns
            weights, caps = space_
            sym = SymbolicInstance.unknown(n, m, capacities=capacities, weights=weights, caps=caps).restrict(domain)
            try:
                constraints = goal(sym)
            except (OptionError, PluginError):
                raise  # a bad option or a broken plug-in: wrong everywhere, not "engine off"
            except InputError as exc:
                notes.append(f"symbolic engine off: {exc}")
                return
            except Exception as exc:  # a plug-in's spec may be broken: the numeric engines still serve
                notes.append(f"symbolic engine off: the spec raised {describe_exception(exc)}")
                return
            part = plain and made == 0  # the unit-weight, uncapped stream: a part of the domain only
            live.append((part, _questions(sym, [*sym.domain, *constraints], notes, rlimit, seed, deadline,
                                          hypotheses, slices)))
            made += 1
        if not live:
            break
        for entry in list(live):
            part, stream = entry
            item = next(stream, None)
            if item is None or isinstance(item, Unsat):
                live.remove(entry)
                if item is not None and not part:
                    unsats.append(item)
                continue
            yield item
            if item is TIME:
                return
    if unsats and len(unsats) == whole:
        yield Unsat(unsats[0].constraints, unsats[0].hypotheses, unsats[0].sym, patterns=whole)


def _questions(sym: SymbolicInstance, base: list, notes: list, rlimit: int, seed: int, deadline: float | None,
               hypotheses: set | None, slices: int) -> Iterator:
    """One unknown instance's stream of `symbolic_candidates`."""
    blocks: list = []
    while True:
        left = seconds_left(deadline)
        if left is not None and left <= 0:
            yield TIME
            return
        for k in range(max(slices, 0), -1, -1):  # growing slices of the deterministic budget
            left = seconds_left(deadline)
            if left is not None and left <= 0:
                yield TIME
                return
            solver, ctx = isolated_solver(SolverBudget(rlimit=max(1, rlimit >> k), seconds=left, seed=seed))
            for c in base:
                solver.add(c.expr.translate(ctx))
            for b in blocks:
                solver.add(b.translate(ctx))
            status, reason = check(solver)
            if k and status == "unknown" and reason == "rlimit":
                yield WORKING  # not answered within this slice: the other engines' turn
                continue
            break
        if status == "unsat":
            if not blocks:
                yield Unsat(base, set(hypotheses or ()), sym)
            else:
                notes.append(f"symbolic engine: no model beyond the {len(blocks)} it gave (each was evaluated)")
            return
        if status == "unknown":
            if reason == "time":
                yield TIME
                return
            why = f"rlimit {rlimit}" if reason == "rlimit" else reason
            notes.append(f"symbolic engine: z3 gave up ({why}) after {len(blocks)} models")
            return
        model = solver.model().translate(z3.main_ctx())
        inst = model_instance(model, sym)
        flat = [d for row in sym.demands for d in row] + [c for c in sym.capacities if not z3.is_rational_value(c)]
        flat += [w for row in sym.weights for w in row if not z3.is_rational_value(w)]
        flat += [t for t in sym.max_tasks if t is not None]
        blocks.append(z3.Or([d != model.eval(d, model_completion=True) for d in flat]))
        if inst is not None:
            yield inst



# --------------------------------------------------------------------------- holds: the gate
def _conforms(mechanism: Mechanism, instance: Instance, options: dict, rlimit: int, seed: int,
              deadline: float | None):
    """`fairlab.mechanisms.conformance.check` with the deterministic budget when it takes one."""
    params = inspect.signature(conformance.check).parameters
    left = seconds_left(deadline)
    kwargs: dict[str, Any] = {}
    if "budget" in params:
        kwargs["budget"] = SolverBudget(rlimit=rlimit, seconds=left, seed=seed)
    elif "rlimit" in params:
        kwargs["rlimit"] = rlimit
        if "timeout_ms" in params and left is not None:
            kwargs["timeout_ms"] = max(1, int(left * 1000))
    elif left is not None:
        kwargs["timeout_ms"] = max(1, int(left * 1000))
    return conformance.check(mechanism, instance, **kwargs, **options)


def holds_gate(mechanism: Mechanism, prop: str, n: int, m: int, options: dict, rlimit: int, seed: int,
               deadline: float | None, capacities_note: str, capacities=None, user_focus: bool = False,
               domain: Domain = ALL):
    """`on_unsat` for `hunt`: claim `holds` only if (0) the encoding covers every instance of the
    size — capacities unknown (`capacities="unknown"`) or the mechanism declared scale-invariant, and
    no user focus unless the mechanism is declared anonymous — (1) the spec matches the allocator on
    seeded instances of the size (`fairlab.mechanisms.conformance`), (2) a positive control passes (one spec
    hypothesis of the core dropped, z3 finds a violation: the unsat is not vacuous). Also computes
    the unsat core. Every z3 step is bounded by `rlimit`."""

    def gate(unsat: Unsat):
        # (0) the scope of the unsat: otherwise no claim, the search goes on with the other engines
        if capacities != "unknown" and not mechanism.scale_invariant and domain.capacities != "unit":
            return "no", (f"symbolic engine: z3 found no violation at {n}×{m} with capacities 1, but the mechanism is "
                          "not declared scale-invariant, so other capacities are not covered; holds not claimed")
        if user_focus and not mechanism.anonymous:
            return "no", (f"symbolic engine: z3 found no violation by user 0 at {n}×{m}, but the mechanism is not "
                          "declared anonymous, so other users are not covered; holds not claimed")
        if not is_builtin(mechanism):
            return "no", (f"symbolic engine: z3 found no violation at {n}×{m} for the declared spec, but the spec of "
                          "a mechanism from outside the lab is only sampled against its allocator; holds not claimed")
        def out_of_time():
            left = seconds_left(deadline)
            return left is not None and left <= 0

        # (1) conformance on seeded instances of the size the mechanism accepts
        checked: list[Instance] = []
        stream = _spread(space.random_instances(n, m, seed=seed, domain=domain), domain, seed)
        for _ in range(20 * CONFORMANCE_INSTANCES):
            if len(checked) == CONFORMANCE_INSTANCES:
                break
            if out_of_time():
                return "stopped", "time"
            inst = next(stream)
            try:
                result = _conforms(mechanism, inst, options, rlimit, seed, deadline)
            except (PluginError, OptionError):
                raise
            except InputError:
                continue  # declined: try the next seeded instance
            except Exception as exc:  # e.g. a spec that fails on a concrete instance: no claim
                return "no", (f"symbolic engine: z3 found no violation at {n}×{m}, but checking the spec against "
                              f"the allocator raised {type(exc).__name__}: {exc}; holds not claimed")
            if result.status != "agrees":
                if out_of_time():
                    return "stopped", "time"
                what = ("does not satisfy its spec" if result.details["satisfies"] == "no" else
                        "is not the only allocation its spec admits" if result.details["unique"] == "no" else
                        "could not be matched with its spec by z3")
                return "no", (f"symbolic engine: z3 found no violation at {n}×{m}, but the allocation on "
                              f"{inst.to_dict()['demands']} (capacities {inst.to_dict()['capacities']}) {what}; "
                              "holds not claimed")
            checked.append(inst)
        if not checked:
            return "no", f"symbolic engine: z3 found no violation at {n}×{m}, but no seeded instance was accepted " \
                         "by the mechanism to check its spec; holds not claimed"
        # (2) the unsat core (tracked solver, same rlimit)
        core = _core(unsat.constraints, rlimit, seed, deadline)
        if core == "time":
            return "stopped", "time"
        # (3) positive control: drop one spec hypothesis (of the core if known)
        names = sorted({c.name for c in unsat.constraints if _is_hypothesis(c.name, unsat.hypotheses)})
        if isinstance(core, list):
            names = [x for x in names if x in core]
        control = None
        for dropped in names[:CONTROL_TRIES]:
            left = seconds_left(deadline)
            if left is not None and left <= 0:
                return "stopped", "time"
            solver, ctx = isolated_solver(SolverBudget(rlimit=rlimit, seconds=left, seed=seed))
            for c in unsat.constraints:
                if c.name != dropped:
                    solver.add(c.expr.translate(ctx))
            status, reason = check(solver)
            if status == "unknown" and reason == "time":
                return "stopped", "time"
            if status == "sat":
                control = {"dropped": dropped, "result": "sat"}
                break
        if control is None:
            return "no", (f"symbolic engine: z3 found the violation constraints unsat at {n}×{m}, but no positive "
                          "control (one spec constraint dropped) was satisfiable; holds not claimed")
        reason = (f"z3 proved spec ∧ ¬{prop} unsat for every instance of {n} users × {m} resources "
                  f"({_unknowns_words(domain, unsat.patterns)}, {capacities_note}); the spec matched the allocator on "
                  f"{len(checked)} seeded instances; positive control: without {control['dropped']} z3 finds a "
                  "violation")
        notes = [] if isinstance(core, list) else [f"unsat core not computed ({core})"]
        return "holds", {"reason": reason, "core": core if isinstance(core, list) else None,
                         "control": control, "notes": notes}

    return gate


def _unknowns_words(domain: Domain, patterns: int) -> str:
    """What the symbolic unknowns ranged over besides demands and capacities, in words."""
    weights = {"none": "unit weights", "scalar": "unknown weights, one per user",
               "vector": "unknown weights, one per user and resource"}[domain.weights]
    caps = "no task caps" if domain.caps == "none" else f"unknown task caps in each of the {patterns} cap patterns"
    return f"{weights}, {caps}"


def _spread(stream: Iterator[Instance], domain: Domain, seed: int) -> Iterator[Instance]:
    """`stream` with weights and caps drawn where `domain` allows them (`conformance.spread`) on the
    instances that have none, so the gate checks the spec where the unknowns ranged."""
    rng = random.Random(f"fairlab holds gate spread {seed}")
    for k, inst in enumerate(stream):
        plain = inst.weights_given == "none" and all(t is None for t in inst.max_tasks)
        yield conformance.spread_one(inst, domain, rng) if plain and k % 4 else inst


def _is_hypothesis(name: str, spec_names: set) -> bool:
    """A constraint of the mechanism's spec (also as renamed for a derived instance, "v.lie0:drf.x")."""
    return name in spec_names or any(name.endswith(":" + s) for s in spec_names)


def _core(constraints: list, rlimit: int, seed: int, deadline: float | None):
    """Names of an unsat core (sorted), "time" if the outer stop fired, else why there is none."""
    left = seconds_left(deadline)
    if left is not None and left <= 0:
        return "time"
    solver, ctx = isolated_solver(SolverBudget(rlimit=rlimit, seconds=left, seed=seed), unsat_core=True)
    names = {}
    for k, c in enumerate(constraints):
        flag = z3.Bool(f"c{k}:{c.name}", ctx)
        names[str(flag)] = c.name
        solver.assert_and_track(c.expr.translate(ctx), flag)
    status, reason = check(solver)
    if status == "unsat":
        return sorted({names[str(f)] for f in solver.unsat_core()})
    if reason == "time":
        return "time"
    return f"z3: {status} ({'rlimit ' + str(rlimit) if reason == 'rlimit' else reason}) with tracked constraints"

