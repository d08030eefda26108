"""Counterexample engines and the portfolio that runs them under one deterministic budget.

Every engine is a generator of candidate instances; the portfolio pulls from the engines in a fixed
round-robin schedule (an engine with weight k gets k pulls a round) and decides each candidate with
an exact check (`fairlab.properties.check`, whose violations re-verify themselves from scratch). Floats
never decide anything here.

* symbolic — the mechanism's z3 spec on an instance whose demands are unknowns, conjoined with the
  property's violation encoding, nonlinear real arithmetic; each model is turned into a concrete
  instance (rationalised if z3 answers with algebraic numbers) and blocked before asking again.
  If the very first question is unsat, no instance of the size violates the property (for the
  spec): the search reports `holds` at that size, with the unsat core, once the spec has matched
  the allocator on seeded instances of the size and a positive control has passed.
* grid — small instances in increasing size, each once up to symmetry (`fairlab.search.space.grid`).
* random — a seeded stream of random instances (`fairlab.search.space.random_instances`).

The budget that decides a verdict is deterministic: a number of candidates, the seed, z3's
resource limit (`rlimit`) per solver check, and the deviation budget of each candidate's check.
The same command gives the same verdict, counts and witness on a quiet laptop and on a loaded CI
machine. ``time_limit`` is only an outer stop: when it fires before the budget is spent the
verdict is ``unknown`` (reason ``time``), unless a violation had already been verified.

Verdicts: ``violated`` (verified, then shrunk), ``holds`` (z3 unsat at n × m, see above),
``none-found`` (at least one candidate decided exactly, none violates), ``n/a`` (the mechanism
declined every candidate: the reason is its own message), ``unknown`` (no candidate decided, or
the time limit stopped the search).

A hit is shrunk (`fairlab.search.shrink`) to the smallest integer instance that still violates.
Every run ends in one `fairlab.core.results.Result` of kind ``"search"``: the per-engine counts
(``evaluated``, ``declined``, ``undecided``), the engine that decided, the notes, the instance
found before shrinking and the shrink steps are its ``details``; a ``holds`` carries its unsat
core and positive control as its ``certificate``; the budget allowed and used is its ``budget``
(with ``"stopped": "time"`` when the outer stop fired). Storing a finding is
`fairlab.search.findings.record_finding`.
"""

from __future__ import annotations

import importlib
import inspect
import time
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Iterator, Sequence

import z3

from fairlab import properties
from fairlab.core.domain import ALL, Domain
from fairlab.core.domain import parse as parse_domain
from fairlab.core.domain import record as domain_record
from fairlab.core.errors import ExactTimeout, InputError, OptionError, PluginCrash, PluginError, describe_exception
from fairlab.core.exact import Algebraic
from fairlab.core.instance import Instance
from fairlab.core.isolated import isolated_solver
from fairlab.core.names import unknown
from fairlab.core.results import Result, Status
from fairlab.core.solving import DEFAULT_RLIMIT, SolverBudget, check
from fairlab.mechanisms import conformance, plugin
from fairlab.mechanisms.base import Mechanism, SymbolicInstance
from fairlab.mechanisms.plugin import PluginTimeout
from fairlab.mechanisms.registry import is_builtin
from fairlab.properties.base import Violation
from fairlab.search import space
from fairlab.search.budgets import (
    CHECK_EVALUATIONS,
    CHECK_RLIMIT,
    CONFORMANCE_INSTANCES,
    CONTROL_TRIES,
    DEFAULT_CANDIDATES,
    SEARCH_TIME_LIMIT,
    SHRINK_TRIALS,
    WEIGHTS,
)
from fairlab.search.proof_domain import ENCODED
from fairlab.search.shrink import shrink

ENGINES = ("symbolic", "grid", "random")
VERDICTS = ("violated", "holds", "none-found", "n/a", "unknown")


def summary(result: Result) -> str:
    """One line: the verdict of a search and what it rests on."""
    size = result.budget.get("size", "")
    if result.status == "holds":
        return f"holds at {size}: {result.explanation}"
    if result.status == "n/a":
        return f"n/a (declined: {result.explanation})"
    if result.status == "error":
        return f"error (the mechanism raised): {result.explanation}"
    if result.status == "unknown":
        return f"unknown ({result.explanation})"
    tally = {key: sum((result.details.get(key) or {}).values())
             for key in ("evaluated", "declined", "undecided", "searched")}
    counts = f"{tally['evaluated']} evaluated, {tally['declined']} declined"
    if tally["searched"]:
        exact = tally["evaluated"] - tally["searched"]
        split = f"{exact} decided exactly, " if exact else ""
        counts = (f"{tally['evaluated']} evaluated ({split}{tally['searched']} searched within their budget), "
                  f"{tally['declined']} declined")
    if tally["undecided"]:
        counts += f", {tally['undecided']} undecided"
    return f"{result.status.value} ({counts})"


def candidate_words(done: int, searched) -> str:
    """"N candidates decided exactly", or, when some candidates' own checks were a finite search
    (a per-instance none-found, e.g. misreports), "N candidates: K decided exactly, J searched ..."."""
    j = sum(searched.values()) if isinstance(searched, dict) else int(searched or 0)
    if not j:
        return f"{done} candidates decided exactly"
    if j == done:  # none decided exactly: do not say so at all
        return (f"{done} candidates, each only searched within its budget (that instance's own check was a finite "
                "search, none-found; not a complete check)")
    return (f"{done} candidates: {done - j} decided exactly, {j} searched within their budget (that instance's own "
            "check was a finite search, none-found; not a complete check)")


class _TimeStop:
    """An engine met the wall-clock outer stop (yielded instead of a candidate)."""


TIME = _TimeStop()


class _Working:
    """An engine spent a slice of counted work (z3 resource units) without an answer yet: the
    portfolio gives the other engines their turn and asks it again later (yielded instead of a
    candidate)."""


WORKING = _Working()

#: the symbolic engine asks each question with rlimit / 2**k for k = SYMBOLIC_SLICES, ..., 1, 0 until
#: one answers: z3 is deterministic, so the answer is the one the full rlimit gives, and between the
#: slices the cheap engines get their turns (at most twice the z3 work of one full question)
SYMBOLIC_SLICES = 10


@dataclass
class Unsat:
    """The symbolic engine's first question was unsat: no violation at this size (for the spec)."""

    constraints: list
    hypotheses: set
    sym: SymbolicInstance


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
            max_tasks=[None if t is None else exact(t) for t in sym.max_tasks],
        )
    except InputError:
        return None


def _seconds_left(deadline: float | None) -> float | None:
    return None if deadline is None else deadline - time.monotonic()


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
    up (rlimit) or has no further model. `domain`: its demand constraints join the unknowns' (the
    unknowns have unit weights and no caps, inside every domain)."""
    sym = SymbolicInstance.unknown(n, m, capacities=capacities).restrict(domain)
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
    base = [*sym.domain, *constraints]
    blocks: list = []
    while True:
        left = _seconds_left(deadline)
        if left is not None and left <= 0:
            yield TIME
            return
        for k in range(max(slices, 0), -1, -1):  # growing slices of the deterministic budget
            left = _seconds_left(deadline)
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
        blocks.append(z3.Or([d != model.eval(d, model_completion=True) for d in flat]))
        if inst is not None:
            yield inst


# --------------------------------------------------------------------------- portfolio
def hunt(
    engines: dict[str, Iterator],
    classify: Callable[[Instance], tuple[str, Any]],  # (kind, its payload: a verdict, a reason, ...)
    candidates: int,
    weights: dict[str, int] | None = None,
    deadline: float | None = None,
    progress: Callable[[str, int], None] | None = None,
    on_unsat: Callable[[Unsat], tuple[str, Any]] | None = None,
) -> Result:
    """Pull candidates in a fixed round-robin (engine with weight k: k pulls a round) until one
    violates, `candidates` have been pulled, or every engine is exhausted.

    An engine may answer a pull with `WORKING` (a slice of counted work done, no answer yet): its
    turn ends there, so an expensive engine never starves a cheap one, and the schedule depends on
    counted work only (deterministic). When the candidates are spent, a question under way is
    still finished (its `Unsat` is still heard; a model it gives is not evaluated); the time limit
    stopping that question leaves the verdict to the candidates, all evaluated (not ``unknown``:
    only a candidate left undone makes the time limit's ``unknown``).

    `classify(instance)` -> ("violated", hit with ``.witness`` and ``.explanation``) |
    ("evaluated", _) | ("declined", message) | ("undecided", why) | ("stopped", why) |
    ("outside", why: not in the domain searched; counted apart, never evaluated) |
    ("crashed", the `PluginCrash`: the mechanism raised on that instance; the hunt goes on, and ends
    ``error`` at the first crashing candidate unless a violation is found: a violation is the more
    informative verdict, and its result counts the crashes and names the first).
    `on_unsat(Unsat)` -> ("holds", {"reason", "core", "control", "notes"}) | ("stopped", why) |
    ("no", note). The answer is a ``search`` `Result` without mechanism and property (the caller
    knows them)."""
    start = time.monotonic()
    weights = {**WEIGHTS, **(weights or {})}
    evaluated = {name: 0 for name in engines}
    declined = {name: 0 for name in engines}
    undecided = {name: 0 for name in engines}
    searched = {name: 0 for name in engines}  # evaluated, but that candidate's own check was a finite search
    outside = {name: 0 for name in engines}  # not in the domain searched: skipped
    refusals: Counter = Counter()
    notes: list = []
    live = list(engines)
    taken = 0
    stopped = None
    cut = False  # the time limit stopped a candidate's own check: a candidate of the budget left undecided
    crashed = {name: 0 for name in engines}  # candidates the mechanism raised on
    first_crash: tuple[str, Instance, PluginCrash] | None = None  # (engine, instance, exception)
    pending: set = set()  # engines in the middle of a question (their last pull was WORKING)
    payload: Any  # what classify / on_unsat say with their kind: a verdict, a reason, a certificate

    def result(status, engine=None, explanation="", stopped=None, **fields):
        used = (sum(evaluated.values()) + sum(declined.values()) + sum(undecided.values()) + sum(outside.values())
                + sum(crashed.values()))
        budget = {"candidates": candidates, "candidates_used": used, **({"stopped": stopped} if stopped else {})}
        details = {"engine": engine, "evaluated": evaluated, "declined": declined, "undecided": undecided,
                   "searched": searched, "notes": notes,
                   **({"outside_domain": outside} if any(outside.values()) else {}),
                   **({"crashed": crashed} if any(crashed.values()) else {})}
        return Result("search", status, budget=budget, details=details, explanation=explanation,
                      seconds=time.monotonic() - start, **fields)

    while live and stopped is None and (taken < candidates or pending):
        for name in list(live):
            if taken >= candidates and name not in pending:
                continue  # the candidates are spent: only a question under way is finished
            for _ in range(weights.get(name, 1)):
                if stopped or (taken >= candidates and name not in pending):
                    break
                if deadline is not None and time.monotonic() >= deadline:
                    stopped = "time"
                    break
                try:
                    item = next(engines[name])
                except StopIteration:
                    live.remove(name)
                    pending.discard(name)
                    break
                if item is TIME:
                    stopped = "time"
                    notes.append(f"the time limit stopped a z3 question of the {name} engine")
                    break
                if item is WORKING:  # a slice of work, no answer yet: the next engine's turn
                    pending.add(name)
                    break
                pending.discard(name)
                if isinstance(item, Unsat):
                    kind, payload = on_unsat(item) if on_unsat else ("no", "z3: no violation at this size")
                    if kind == "holds" and first_crash is not None:  # the spec holds, the function raised
                        notes.append(f"the {name} engine proved the property for the mechanism's spec, but the "
                                     "mechanism itself raised on a candidate: no holds")
                        continue
                    if kind == "holds":
                        notes.extend(payload.get("notes", []))
                        certificate = {"core": payload["core"], "control": payload["control"]}
                        return result(Status.HOLDS, engine=name, explanation=payload["reason"], certificate=certificate)
                    if kind == "stopped":
                        stopped = payload
                    else:
                        notes.append(payload)
                    continue
                if taken >= candidates:  # its question answered with a model, but no candidate is left
                    break
                taken += 1
                kind, payload = classify(item)
                if kind == "violated":
                    evaluated[name] += 1
                    if first_crash is not None:
                        notes.append(f"the mechanism also raised on {sum(crashed.values())} candidate(s), first on "
                                     f"{first_crash[1].to_dict()}: {first_crash[2]}")
                    return result(Status.VIOLATED, engine=name, explanation=payload.explanation, instance=item,
                                  witness=payload.witness, exactness=getattr(payload, "exactness", None))
                if kind == "outside":
                    outside[name] += 1  # spends a candidate (the budget stays finite), never evaluated
                    continue
                if kind == "evaluated":
                    evaluated[name] += 1
                    if payload == "none-found":  # its check searched that instance within a budget, no proof
                        searched[name] += 1
                elif kind == "declined":
                    declined[name] += 1
                    refusals[payload] += 1
                elif kind == "undecided":
                    undecided[name] += 1
                elif kind == "crashed":  # the mechanism raised: a finding; the hunt for a violation goes on
                    crashed[name] += 1
                    if first_crash is None:
                        first_crash = (name, item, payload)
                else:  # "stopped": the outer time limit fired inside the check
                    stopped, cut = "time", True
                    if payload != "time":
                        notes.append(f"candidate {taken} ({name}): {payload}")
                if progress:
                    progress(name, taken)
    done = sum(evaluated.values())
    if stopped and taken >= candidates and not cut:
        # every candidate of the budget was taken and decided: the stop cut only a question still under
        # way, whose model would not be evaluated (only its unsat could have said holds). Work left undone
        # makes a verdict unknown, not the clock alone: the verdict is the candidates' (issue 26)
        notes.append("the time limit stopped a z3 question still under way after the last candidate (it could "
                     "only have proved holds)")
        stopped = None
    why_end = ("every engine exhausted its space" if not live and stopped is None
               else f"candidate budget spent ({taken} of {candidates})" if stopped is None else None)
    if why_end:
        notes.append(why_end)
    if first_crash is not None:  # no violation, but the mechanism raised: that is the finding
        engine, instance, exc = first_crash
        answered = f"; no violation among the {candidate_words(done, searched)}" if done else ""
        stop = ", stopped by the time limit" if stopped else ""
        return result(Status.ERROR, engine=engine, instance=instance, stopped=stopped,
                      explanation=f"{exc} (it raised on {sum(crashed.values())} of {taken} candidates{answered}"
                                  f"{stop})", **crash_fields(exc))
    if stopped:
        return result(Status.UNKNOWN, stopped="time",
                      explanation=f"time: stopped by the time limit after {taken} of {candidates} candidates "
                                  f"({done} evaluated): no verdict; raise the time limit or lower the candidates")
    if done:
        return result(Status.NONE_FOUND, explanation=f"no violation among the {candidate_words(done, searched)}")
    if sum(declined.values()) and not sum(undecided.values()):
        message, count = refusals.most_common(1)[0]
        others = f" ({len(refusals) - 1} other reasons)" if len(refusals) > 1 else ""
        return result(Status.NOT_APPLICABLE,
                      explanation=f"the mechanism declined all {taken} candidates: {message}{others}")
    why = (f"none of the {taken} candidates could be decided ({sum(undecided.values())} undecided, "
           f"{sum(declined.values())} declined)" if taken else "no candidate was evaluated")
    return result(Status.UNKNOWN, explanation=why)


def candidate_check(prop: str, mechanism: Mechanism, options: dict, deadline: float | None,
                    evaluations: int = CHECK_EVALUATIONS, rlimit: int = CHECK_RLIMIT, seed: int = 0,
                    domain: Domain = ALL):
    """`classify(instance)` for `hunt`: the exact check of one candidate (see `hunt`); an instance
    outside `domain` is ``outside`` (never evaluated), a plug-in that raises ``crashed``."""

    def classify(instance: Instance):
        left = _seconds_left(deadline)
        if left is not None and left <= 0:
            return "stopped", "time"
        why = domain.contains(instance)
        if why is not None:
            return "outside", why
        try:
            verdict = properties.check(
                mechanism, prop, instance, time_limit=left if left is not None else 1e9, options=options,
                evaluations=evaluations, rlimit=rlimit, seed=seed, domain=domain,
            )
        except PluginTimeout as exc:
            if exc.returned_before:  # it has returned before: slow, stopped by the outer limit
                return "stopped", f"stopped at the time limit while the mechanism was running ({exc})"
            raise  # it never returned at all: a broken plug-in
        except PluginCrash as exc:  # it raised on this instance: a finding, the other instances go on
            return "crashed", exc
        except (PluginError, OptionError):
            raise  # a broken plug-in or a bad option: stop the search, never report none-found
        except ExactTimeout as exc:  # no exact answer in time: not a refusal of the instance
            return "undecided", str(exc)
        except InputError as exc:
            return "declined", str(exc)  # the mechanism refuses this instance (e.g. maxmin with two resources)
        if verdict.status == "violated" and _verified(prop, mechanism, instance, verdict.witness, options, domain):
            return "violated", verdict
        if verdict.status in ("holds", "none-found"):
            return "evaluated", verdict.status.value
        if verdict.status == "n/a":  # the property does not apply to this instance (its reason)
            return "declined", verdict.explanation
        if verdict.budget.get("stopped") == "time":
            return "stopped", verdict.explanation
        return "undecided", verdict.explanation

    return classify


def _verified(prop, mechanism, instance, witness, options, domain) -> bool:
    """The witness re-verified from scratch, its deviation inside `domain`."""
    with properties.base.within(domain):
        return Violation(prop, mechanism, instance, witness, options).verify()


def crash_fields(exc: PluginCrash) -> dict:
    """The certificate of an ``error`` result: the exception and the plug-in's own file:line."""
    return {"certificate": {"exception": exc.exception, "where": exc.where}}


def property_predicate(prop: str, mechanism: Mechanism, options: dict, deadline: float | None = None, **check):
    """`violates(instance)`: the verified `violated` verdict of an exact check, else None."""
    classify = candidate_check(prop, mechanism, options, deadline, **check)

    def violates(instance: Instance):
        kind, payload = classify(instance)
        return payload if kind == "violated" else None

    return violates


# --------------------------------------------------------------------------- holds: the gate
def _conforms(mechanism: Mechanism, instance: Instance, options: dict, rlimit: int, seed: int,
              deadline: float | None):
    """`fairlab.mechanisms.conformance.check` with the deterministic budget when it takes one."""
    params = inspect.signature(conformance.check).parameters
    left = _seconds_left(deadline)
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
            left = _seconds_left(deadline)
            return left is not None and left <= 0

        # (1) conformance on seeded instances of the size the mechanism accepts
        checked: list[Instance] = []
        stream = space.random_instances(n, m, seed=seed, domain=domain)
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
            left = _seconds_left(deadline)
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
        reason = (f"z3 proved spec ∧ ¬{prop} unsat for every instance of {n} users × {m} resources (unit weights, "
                  f"no task caps, {capacities_note}); the spec matched the allocator on {len(checked)} seeded "
                  f"instances; positive control: without {control['dropped']} z3 finds a violation")
        notes = [] if isinstance(core, list) else [f"unsat core not computed ({core})"]
        return "holds", {"reason": reason, "core": core if isinstance(core, list) else None,
                         "control": control, "notes": notes}

    return gate


def _is_hypothesis(name: str, spec_names: set) -> bool:
    """A constraint of the mechanism's spec (also as renamed for a derived instance, "v.lie0:drf.x")."""
    return name in spec_names or any(name.endswith(":" + s) for s in spec_names)


def _core(constraints: list, rlimit: int, seed: int, deadline: float | None):
    """Names of an unsat core (sorted), "time" if the outer stop fired, else why there is none."""
    left = _seconds_left(deadline)
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


# --------------------------------------------------------------------------- search
def setting_module(prop, mechanism):
    """The search module of a setting other than one pool (`fairlab.search.machines`,
    `fairlab.search.dynamic`): its ``search`` and ``prove`` take the arguments of `search` and
    `fairlab.search.proof.prove`. The property and the mechanism must share the setting."""
    if prop.setting != mechanism.setting:
        raise InputError(f"property {prop.name} is defined for the {prop.setting} setting but mechanism "
                         f"{mechanism.name} allocates in the {mechanism.setting} setting")
    return importlib.import_module(f"fairlab.search.{prop.setting}")


def search(
    mechanism: Mechanism,
    prop: str,
    n: int = 2,
    m: int = 2,
    engines: Sequence[str] | None = None,
    time_limit: float = SEARCH_TIME_LIMIT,
    seed: int = 0,
    options: dict | None = None,
    candidates: int = DEFAULT_CANDIDATES,
    rlimit: int = DEFAULT_RLIMIT,
    check_evaluations: int = CHECK_EVALUATIONS,
    check_rlimit: int = CHECK_RLIMIT,
    shrink_trials: int = SHRINK_TRIALS,
    progress=None,
    shrink_seconds: float | None = None,
    symbolic_slices: int = SYMBOLIC_SLICES,
    domain: Domain | str | None = None,
) -> Result:
    """Hunt a violation of `prop` by `mechanism` at n users × m resources, then shrink it.

    `domain` (`fairlab.core.domain.parse`; default ``all``): the engines explore it ∩ the
    mechanism's declared domain, shrinking never leaves it, and the result records it (a ``holds``
    covers unit weights and no caps: its recorded domain says so). A plug-in that raises on a
    candidate does not end the hunt: a violation found later is the answer (its notes count the
    crashes); without one the search ends ``error`` at the first crashing instance, shrunk.

    Deterministic budget: `candidates` (all engines, fixed schedule), `seed`, `rlimit` (z3 units per
    symbolic question), `check_evaluations` / `check_rlimit` (each candidate's exact check),
    `shrink_trials`. `time_limit` (seconds) is the outer stop; `shrink_seconds` an optional extra
    stop for shrinking only (a shrink it cuts short is noted). `symbolic_slices` (see
    `symbolic_candidates`; 0 asks each z3 question with the full rlimit at once, the schedule before
    the engines were interleaved) changes the order of the candidates, never an engine's answers."""
    options = dict(options or {})
    mechanism.check_options(options)
    engines = ENGINES if engines is None else tuple(engines)
    module = properties.get(prop)
    asked = parse_domain(domain)
    explored = asked.intersect(mechanism.domain)
    if module.setting != "pool" or mechanism.setting != "pool":
        result = setting_module(module, mechanism).search(
            mechanism, prop, n, m, time_limit=time_limit, seed=seed, options=options, candidates=candidates,
            rlimit=rlimit, progress=progress, domain=explored)
        return result.replace(domain=domain_record(asked, mechanism.domain))
    bad = [e for e in engines if e not in ENGINES]
    if bad:
        raise InputError(unknown("engine", bad[0], ENGINES))
    for label, value in (("candidates", candidates), ("rlimit", rlimit), ("check_evaluations", check_evaluations),
                         ("check_rlimit", check_rlimit), ("shrink_trials", shrink_trials)):
        if isinstance(value, bool) or not isinstance(value, int) or value < (0 if label == "shrink_trials" else 1):
            raise InputError(f"{label}: expected a positive integer, got {value!r}")
    start = time.monotonic()
    deadline = start + time_limit
    # The symbolic engine fixes every capacity to 1 (with unknown capacities z3 is far slower, and its
    # rlimit accounting lags the wall clock on such queries). An unsat then covers all capacities only
    # for a mechanism declared scale-invariant (`Mechanism.scale_invariant`: it depends on demands only
    # through shares d_ir / c_r); for any other mechanism `holds_gate` claims no `holds` and the search
    # goes on as if the symbolic engine had found nothing. (Its encodings ask about every user, never
    # user 0 alone, so no anonymity is assumed.)
    capacities = None
    capacities_note = "capacities 1, which covers every capacity vector: the mechanism is declared scale-invariant"
    budget = {
        "size": f"{n}×{m}", "users": n, "resources": m, "candidates": candidates,
        "schedule": {e: WEIGHTS[e] for e in ENGINES if e in engines}, "seed": seed, "rlimit": rlimit,
        "check": {"evaluations": check_evaluations, "rlimit": check_rlimit, "seed": seed},
        "shrink_trials": shrink_trials, "time_limit": time_limit,
    }
    notes: list = []
    details: dict = {}
    with plugin.time_limit(time_limit), properties.base.allocation_cache():
        pool: dict[str, Iterator] = {}
        on_unsat = None
        if "symbolic" in engines:
            if mechanism.spec is None or not hasattr(module, "encode"):
                notes.append("symbolic engine off: the mechanism has no symbolic specification")
            elif mechanism.discrete:
                notes.append("symbolic engine off: discrete mechanism")
            else:
                spec_names: set = set()
                own_spec = mechanism.spec

                def spec(s, t):
                    out = own_spec(s, t, **options)
                    spec_names.update(c.name for c in out)
                    return out

                def goal(sym, module=module):
                    return module.encode(sym, spec, "v").constraints

                pool["symbolic"] = symbolic_candidates(goal, n, m, notes, rlimit=rlimit, seed=seed, deadline=deadline,
                                                       capacities=capacities, hypotheses=spec_names,
                                                       slices=symbolic_slices, domain=explored)
                on_unsat = holds_gate(mechanism, prop, n, m, options, rlimit, seed, deadline, capacities_note,
                                      capacities=capacities, domain=explored)
        if "grid" in engines:
            pool["grid"] = space.grid(n, m, discrete=mechanism.discrete, domain=explored)
        if "random" in engines:
            pool["random"] = space.random_instances(n, m, seed=seed, discrete=mechanism.discrete, domain=explored)
        classify = candidate_check(prop, mechanism, options, deadline, check_evaluations, check_rlimit, seed,
                                   domain=explored)
        if asked != ALL and (explored.weights != "none" or explored.caps != "none"):
            notes.append(f"domain {explored.label}: the engines draw unit weights and no task caps, the part of the "
                         "domain a none-found covers")
        result = hunt(pool, classify, candidates, deadline=deadline, progress=progress, on_unsat=on_unsat)
        notes += result.details["notes"]
        if result.status in ("violated", "error"):
            stop = deadline if shrink_seconds is None else min(deadline, time.monotonic() + shrink_seconds)
            result, details, tried, note = shrink_with(classify, result, shrink_trials, stop, domain=explored)
            budget["shrink_trials_used"] = tried
            notes += [note] if note else []
    # the engines draw unit weights and no caps: a holds or a none-found covers that part of the domain
    covered = SYMBOLIC_DOMAIN if result.status in ("holds", "none-found") else None
    return result.replace(
        mechanism=mechanism.name, property=prop, budget={**budget, **result.budget},
        details={**result.details, "users": n, "resources": m, "options": options, **details, "notes": notes},
        seconds=time.monotonic() - start, domain=domain_record(asked, mechanism.domain, covered),
    )


#: what the symbolic unknowns and the grid and random candidates range over: unit weights, no task
#: caps (`fairlab.search.proof_domain.ENCODED`, the one definition); a ``holds`` or a ``none-found``
#: covers this sub-domain of the one asked
SYMBOLIC_DOMAIN = ENCODED


def shrink_with(classify, result: Result, trials: int, deadline: float,
                domain: Domain = ALL) -> tuple[Result, dict, int, str | None]:
    """Shrink the violation (or, for an ``error`` result, the crash) of `result`
    (`fairlab.search.shrink`, never leaving `domain`), every step decided by `classify`
    (`candidate_check`): (the result at the smallest instance found, with its re-checked witness
    and words; details ``found_instance`` / ``shrink_steps``; trials used; a note when the clock
    cut it short)."""
    wanted = "crashed" if result.status == Status.ERROR else "violated"

    def violates(instance):
        kind, payload = classify(instance)
        if kind == "stopped":
            raise _ShrinkStopped()
        return payload if kind == wanted else None

    small, verdict, steps, tried, cut = shrink(result.instance, result, violates, trials=trials, deadline=deadline,
                                              stop=_ShrinkStopped, domain=domain)
    details = {"found_instance": result.instance, "shrink_steps": steps}
    if wanted == "crashed":
        crash = {} if verdict is result or not isinstance(verdict, PluginCrash) else crash_fields(verdict)
        shrunk = result.replace(instance=small, explanation=result.explanation if verdict is result else str(verdict),
                                **crash)
    else:
        shrunk = result.replace(instance=small, witness=verdict.witness, explanation=verdict.explanation,
                                exactness=getattr(verdict, "exactness", None) or result.exactness)
    note = (f"shrinking stopped by the time limit after {tried} trials: the instance is verified but may not be "
            "the smallest") if cut else None
    return shrunk, details, tried, note


class _ShrinkStopped(Exception):
    """The outer time limit fired inside a shrink trial."""
