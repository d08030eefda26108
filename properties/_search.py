"""The deviation search shared by sp and rm: structured candidates, then z3, then random ones.

Every candidate deviation is evaluated by a fresh, exact mechanism run, so a violation found by
the numeric search is exact; a z3 model is re-run the same way before it counts. Verdicts:
``violated`` (witness verified), ``holds`` only when z3 proves the encoding unsat, ``none-found``
when the candidates ran out or the evaluation budget did, ``unknown`` when nothing could be
evaluated or the wall-clock safety net fired first (``unknown (wall-clock safety net)``,
``"stopped": "time"`` in the budget record). The budget that decides is a count (evaluations), a
seed and z3's rlimit: the same on any machine.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Iterator

import z3

from fairlab.core import scaling
from fairlab.core.results import Result, Status
from fairlab.mechanisms.base import SymbolicInstance
from fairlab.mechanisms.plugin import PluginTimeout
from fairlab.mechanisms.registry import is_builtin
from fairlab.properties.base import Budget, Encoding, solve_spent, verdict, violated


@dataclass(frozen=True)
class Question:
    """One z3 question of a deviation search: its constraints (the instance's domain included), how
    to read a witness from a model, and what it asks (``label``, "" for the property's whole
    encoding; e.g. "user 0, T=1" for a case of `fairlab.core.scaling`); ``scaled``: the deviating
    user (sp) or coalition (gsp) whose tasks the question fixes by the checked scaling symmetry, if any."""

    label: str
    constraints: list
    witness: Callable[[object], dict | None]
    scaled: int | tuple[int, ...] | None = None


@dataclass(frozen=True)
class Fallback:
    """The property's whole question, built (``make()`` -> `Question`) and asked only when the split
    questions before it neither found a violation nor were all unsat: some questions z3 decides whole
    and not split (measured: ceei gsp at 3 x 3, unsat whole in 1.8 s; one coalition's case ran to the
    rlimit)."""

    make: Callable[[], Question]


def whole(sym, encoding: Encoding) -> list[Question]:
    """The property's whole encoding at `sym` as the only question."""
    return [Question("", list(sym.domain) + list(encoding.constraints), encoding.witness)]


def fallback(sym, encode: Callable[[], Encoding]) -> Fallback:
    """`whole`'s question, its encoding built (``encode()``) only if it is asked."""
    return Fallback(lambda: whole(sym, encode())[0])


def pinned_reader(witness: Callable[[object], dict | None], pairs: list) -> Callable[[object], dict | None]:
    """`witness` reading a model of a question whose (unknown, value) `pairs` were substituted
    (`fairlab.core.scaling.Pinned`): the cases of sp and gsp."""
    return lambda model: witness(scaling.Pinned(model, pairs))


def symbolic_at(mech, inst, budget: Budget, questions):
    """The z3 step for `search`: the property's questions at this concrete instance
    (``questions(sym, spec)``, the spec with the budget's mechanism options), or None when the
    mechanism has no spec or the budget switched z3 off."""
    if mech.spec is None or not budget.symbolic:
        return None

    def symbolic():
        sym = SymbolicInstance.from_instance(inst)
        return questions(sym, lambda s, t: mech.spec(s, t, **budget.options))

    return symbolic


def search(
    name: str,
    mech,
    inst,
    budget: Budget,
    structured: Iterable,
    random_candidates: Iterable,
    evaluate: Callable[[object], object | None],
    symbolic: Callable[[], list] | None,
    what: str,
    ahead: Callable[[list], None] | None = None,
    z3_first: bool = False,
) -> Result:
    """Try `structured` candidates, then z3 (`symbolic()` -> its questions, `_ask`), then random ones;
    with `z3_first`, z3 before the structured candidates (where its questions are cheap: built once
    per instance shape, `fairlab.properties._parametric`; an unsat there makes the numeric
    candidates moot, and a sat is re-verified by a fresh run as always).

    Deterministic: candidates are counted against ``budget.evaluations`` and the z3 step is bounded
    by ``budget.rlimit``; the wall-clock safety net only stops the search (verdict `unknown`, ``stopped: time``).
    `ahead(candidates)`, if given, hears of the next candidates before they are evaluated (chunks
    of 4, 8, ... 64, never more than the evaluations left): a plug-in's worker then runs them in
    one round trip (`fairlab.properties.base.send_ahead`); the candidates and their order are the same."""
    tried = 0
    stopped = None
    z3_reason = None
    z3_status = "not used" if symbolic is None else "not reached"

    def attempt(candidates):
        nonlocal tried, stopped
        for candidate in (candidates if ahead is None else _announced(candidates, ahead, budget)):
            if budget.exhausted():
                return None
            if budget.time_up():
                stopped = "time"
                return None
            budget.used_evaluations += 1
            tried += 1
            witness = evaluate(candidate)
            if witness is not None:
                return witness
        return None

    def z3(**used):  # the z3 step's record, with why it gave no answer if it did not
        return {**used, **({"z3_reason": z3_reason} if z3_reason else {})}

    def ask_z3() -> Result | None:  # the z3 step: a verdict, or None to go on with the candidates
        nonlocal stopped, z3_status, z3_reason
        assert symbolic is not None
        try:
            status, witness_found, reason, scaled = _ask(symbolic(), budget)
        except PluginTimeout:
            raise  # a plug-in's spec that does not return is a failure, not a fallback
        except Exception as exc:  # a plug-in's spec may be broken: the numeric engines still serve
            status, witness_found, reason, scaled = f"error ({type(exc).__name__}: {exc})", None, "", []
        z3_status = status
        if status == "unknown":
            z3_reason = reason if reason != "rlimit" else f"rlimit {budget.rlimit}"
            if reason == "time":
                stopped = "time"
        if status == "unsat" and not is_builtin(mech):
            # a plug-in's declared spec says nothing certain about its allocator: no `holds` from it
            status = z3_status = "unsat for the plug-in's declared spec (not a proof about its allocator)"
        by_scaling = ({"z3_scaled": scaled} if scaled else {})
        if status == "unsat":
            how = (f"; {_asked(scaled)} under the {what} fixed to 1, 0 and -1 (a capped user's: at its cap, "
                   "or below or above it fixed so), by a scaling symmetry checked on the encoding "
                   "(fairlab.core.scaling)" if scaled else "")
            before = (f"{tried} numeric candidates tried first" if not z3_first else
                      "asked before any numeric candidate (its questions built once per instance shape)")
            return verdict(
                name, mech, "holds", budget,
                f"z3 proved that no {what} violates it at this instance (the mechanism's spec with the "
                f"violation constraints is unsat{how}); {before}",
                candidates=tried, z3=status, **by_scaling,
            )
        if status == "sat":
            result = violated(name, mech, inst, witness_found, budget, candidates=tried, z3=status, **by_scaling)
            if result.status == Status.VIOLATED:
                return result
            z3_status = "sat, witness not confirmed by a fresh run"
        return None

    if z3_first and symbolic is not None:
        decided = ask_z3()
        if decided is not None:
            return decided
    witness = attempt(structured) if stopped is None else None
    if witness is not None:
        return violated(name, mech, inst, witness, budget, **z3(candidates=tried, z3=z3_status))
    if not z3_first and symbolic is not None and stopped is None:
        decided = ask_z3()
        if decided is not None:
            return decided
    if stopped is None:
        witness = attempt(random_candidates)
        if witness is not None:
            return violated(name, mech, inst, witness, budget, **z3(candidates=tried, z3=z3_status))
    if stopped == "time":
        return verdict(
            name, mech, "unknown", budget,
            f"stopped by the wall-clock safety net ({budget.time_limit:g} s) after {tried} candidate {what}s "
            f"(z3: {z3_status}), before the counted budget was spent; no verdict",
            **z3(candidates=tried, z3=z3_status, stopped="time"),
        )
    if tried == 0:
        return verdict(name, mech, "unknown", budget, "the budget ran out before any candidate was evaluated",
                       **z3(candidates=tried, z3=z3_status))
    return verdict(
        name, mech, "none-found", budget,
        f"no {what} among {tried} exactly evaluated candidates violates it "
        f"(z3: {z3_status}{f', {z3_reason}' if z3_reason else ''})",
        **z3(candidates=tried, z3=z3_status),
    )


def _announced(candidates: Iterable, ahead: Callable[[list], None], budget: Budget) -> Iterator:
    """`candidates` in their order, each chunk (4, 8, ... 64, at most the evaluations left) given to
    `ahead` before the first of it is yielded."""
    stream = iter(candidates)
    size = 4
    while True:
        chunk = list(itertools.islice(stream, max(1, min(size, budget.evaluations - budget.used_evaluations))))
        if not chunk:
            return
        ahead(chunk)
        yield from chunk
        size = min(2 * size, 64)


def _ask(questions: list, budget: Budget) -> tuple[str, dict | None, str, list]:
    """(status, witness of the first sat question, reason of an unknown, users or coalitions whose
    questions were scaled): "sat" at the first model (its witness read by its question), "unsat"
    when every question is, else "unknown" (with the first reason).

    One rlimit for the whole step, spent in order (z3's deterministic count), so splitting a
    question never spends more than --rlimit. With a `Fallback`: the split questions first share
    half of it, each at most an even part of what is left of that half; if some stay undecided,
    the whole question gets half of what is left; if it does not decide either, each split
    question still open gets all that is left, in order."""
    split = [q for q in questions if isinstance(q, Question)]
    fallbacks = [q for q in questions if isinstance(q, Fallback)]
    state = _Spent(budget.rlimit)

    def ask(question: Question, rlimit: int) -> tuple[str, object]:
        status, model, why, spent = _one(question, budget, min(rlimit, state.left))
        state.left -= spent
        if status not in ("sat", "unsat"):
            state.reason = state.reason or why
        return status, model

    def timed_out() -> bool:
        return state.reason == "time"

    phase = budget.rlimit // 2 if fallbacks and split else budget.rlimit
    still = []
    for k, question in enumerate(split):  # an even part of the phase left to each
        before = state.left
        status, model = ask(question, phase // (len(split) - k))
        phase -= before - state.left
        if status == "sat":  # an unreadable witness is reported as a sat not confirmed, as before
            return "sat", question.witness(model), "", _scaled(split)
        if status != "unsat":
            still.append(question)
            if timed_out():
                return "unknown", None, "time", _scaled(split)
    if not still:
        return "unsat", None, "", _scaled(split)
    if fallbacks:  # the whole question, with half of what is left; its answer rests on no split one
        whole = fallbacks[0].make()
        status, model = ask(whole, state.left // 2)
        if status == "sat":
            return "sat", whole.witness(model), "", []
        if status == "unsat":
            return "unsat", None, "", []
        if timed_out():
            return "unknown", None, "time", _scaled(split)
    if len(split) > 1:
        for question in list(still):  # then each question still open with all that is left
            status, model = ask(question, state.left)
            if status == "sat":
                return "sat", question.witness(model), "", _scaled(split)
            if status == "unsat":
                still.remove(question)
            elif timed_out():
                break
    return ("unsat" if not still else "unknown"), None, ("" if not still else state.reason), _scaled(split)


@dataclass
class _Spent:
    """What is left of the z3 step's rlimit, and the first reason a question went undecided."""

    left: int
    reason: str = ""


def _one(question: Question, budget: Budget, rlimit: int) -> tuple[str, object, str, int]:
    """One question with `rlimit` units (none left: unknown, "rlimit"; the outer stop: "time").
    A question z3's simplifier rewrites to false (an equivalence) is unsat without a solver: at
    drf 3 x 3 that is every T = -1 case (tasks >= 0) and about two of the T = 0 cases, measured."""
    if rlimit < 1:
        return "unknown", None, "rlimit", 0
    if budget.time_up():
        return "unknown", None, "time", 0
    if trivially_unsat(question):
        return "unsat", None, "", 0
    return solve_spent(question.constraints, replace(budget.solver(), rlimit=rlimit))


def trivially_unsat(question: Question) -> bool:
    """z3's simplifier (rewriting to an equivalent formula) turns the question into false."""
    return z3.is_false(z3.simplify(z3.And([c.expr for c in question.constraints])))


def _scaled(questions: list[Question]) -> list:
    """The users (sp) or coalitions (gsp, as lists, smallest first) asked with their tasks fixed."""
    found = sorted({q.scaled for q in questions if q.scaled is not None},
                   key=lambda x: (1, len(x), x) if isinstance(x, tuple) else (0, 1, (x,)))
    return [list(x) if isinstance(x, tuple) else x for x in found]


def _asked(scaled: list) -> str:
    """ "user 0 asked with its tasks", "users 0, 2 each asked with their tasks", "coalitions [0], [0, 1]
    each asked with their members' tasks" (0-based, as witnesses)."""
    if any(isinstance(x, list) for x in scaled):
        return f"coalitions {', '.join(str(x) for x in scaled)} each asked with their members' tasks"
    if len(scaled) == 1:
        return f"user {scaled[0]} asked with its tasks"
    return f"users {', '.join(str(u) for u in scaled)} each asked with their tasks"
