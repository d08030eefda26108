"""The portfolio of the counterexample search (`fairlab.search.engines`): `hunt` pulls candidates
from the engines in a fixed round-robin and decides each with `candidate_check`, the exact check of
one candidate (`fairlab.properties.check`, its violation re-verified from scratch).

Moved out of `fairlab.search.engines` (which re-exports every name) when that file outgrew one job.
"""


import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from fairlab import properties
from fairlab.core.domain import ALL, Domain
from fairlab.core.errors import ExactTimeout, InputError, OptionError, PluginCrash, PluginError
from fairlab.core.instance import Instance
from fairlab.core.results import Result, Status
from fairlab.mechanisms.base import Mechanism, SymbolicInstance
from fairlab.mechanisms.plugin import PluginTimeout
from fairlab.properties.base import Violation
from fairlab.search.budgets import (
    CHECK_EVALUATIONS,
    CHECK_RLIMIT,
    WEIGHTS,
)


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



@dataclass
class Unsat:
    """The symbolic engine's first question was unsat: no violation at this size (for the spec)."""

    constraints: list
    hypotheses: set
    sym: SymbolicInstance
    #: how many unknown instances (cap patterns, `fairlab.search.symbolic.symbolic_candidates`) were all
    #: unsat; `constraints` and `sym` are the first's
    patterns: int = 1



def seconds_left(deadline: float | None) -> float | None:
    return None if deadline is None else deadline - time.monotonic()



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
    still finished (its `Unsat` is still heard; a model it gives is not evaluated); the wall-clock
    safety net stopping that question makes the result ``unknown`` (the question's unsat could have
    said holds: the clock must not choose between holds and none-found), as does a candidate left
    undone.

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
                    stopped = "time"
                    if payload != "time":
                        notes.append(f"candidate {taken} ({name}): {payload}")
                if progress:
                    progress(name, taken)
    done = sum(evaluated.values())
    # (every candidate of the budget taken and decided, but the safety net cut a z3 question still under
    # way: its unsat could have said holds, so the clock would decide between holds and none-found; the
    # result stays unknown (wall-clock safety net), said apart from a verdict)
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
    if stopped and taken >= candidates:
        notes.append("the wall-clock safety net stopped a z3 question still under way after the last candidate")
        return result(Status.UNKNOWN, stopped="time",
                      explanation=f"time: stopped by the wall-clock safety net after all {candidates} candidates "
                                  f"({done} evaluated, none violates) while a z3 question was still under way (its "
                                  "unsat would have proved holds): no verdict; raise the time limit")
    if stopped:
        return result(Status.UNKNOWN, stopped="time",
                      explanation=f"time: stopped by the wall-clock safety net after {taken} of {candidates} "
                                  f"candidates ({done} evaluated), before the counted budget was spent: no verdict; "
                                  "raise the time limit")
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
        left = seconds_left(deadline)
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

