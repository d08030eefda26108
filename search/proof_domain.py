"""The domain at the entry point of `fairlab.search.proof.prove`: what a proof is about, recorded exactly.

A proof asked on a domain D explores D ∩ the mechanism's declared domain (``explored``) and its
encodings (`fairlab.search.proof_encoding.encoding`, `SymbolicInstance.unknown`) range over all of it:

* demands: non-negative (each row non-zero), or strictly positive when ``explored`` asks it;
* capacities: normalised to 1 for a scale-invariant mechanism, unknown positive reals otherwise;
* weights: unit weights, one unknown weight w_i > 0 per user (``weights=scalar``) or one unknown
  w_ir > 0 per user and resource (``weights=vector``, DRF paper §4.3), as ``explored`` allows;
* task caps (``caps=allowed``): an instance may cap any set of its users, so the proof is run once
  per *cap pattern* (`cap_patterns`: which users have an unknown cap >= 0, the others none) and is
  ``proved`` only when every pattern is. For a mechanism declared anonymous the patterns are taken
  up to renaming the users (the capped users last; with a focus user, as sp's encodings have, that
  user's pattern apart), else all 2^n of them.

So ``proved`` is about ``explored`` itself (the result's domain record says so, with no note). When
the whole of ``explored`` is undecided (``unknown`` because a budget ran out, every gate reached
passed: `_undecided`) and it has weights or caps, the
proof is run again on its unweighted, uncapped part; a ``proved`` there is recorded as about that
sub-domain (the record's note says so, as `fairlab.core.domain.record` words it) and the first
attempt's reason is kept (``details["whole_domain"]``): never presented as a proof on ``explored``.
``refuted`` is about D: its counterexample is re-checked to lie in ``explored`` (else no verdict).

The gate 1 sample (conformance of the spec with the allocator) draws weights and caps where
``explored`` allows them (`fairlab.mechanisms.conformance.sample`).

The other settings' provers have their own domains (the mechanism's declared one): a domain asked
narrower than the declared one is a one-line error there rather than an assumption dropped silently.
"""

from __future__ import annotations

import inspect
import itertools
import time

from fairlab import properties
from fairlab.core.domain import ALL, Domain, parse, record
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.core.results import Result, Status

#: what the pool encodings ranged over before weights and caps were unknowns: unit weights, no
#: task caps (kept for callers; a proof's fallback sub-domain, see the module docstring)
ENCODED = Domain(weights="none", caps="none")


def focus_user(mechanism, prop: str) -> bool:
    """Whether the encodings of `prop` single out user 0 (a per-user deviation property of an
    anonymous mechanism: `fairlab.search.proof_encoding.encoding`'s ``focus_user``)."""
    from fairlab.search.proof_encoding import PER_USER

    if prop not in PER_USER or not mechanism.anonymous:
        return False
    module = properties.REGISTRY.get(prop)
    return module is not None and "user" in inspect.signature(module.encode).parameters


def cap_patterns(n: int, anonymous: bool, focus: bool = False) -> list[tuple[bool, ...]]:
    """Which users are capped, one tuple per pattern to prove, the uncapped pattern first.

    Anonymous (the spec symmetric under renaming users, the property per user or pair): every
    pattern is a renaming of one with the capped users last, so those n + 1 suffice; with a focus
    user (user 0 singled out by the encoding) user 0 is capped or not and the others' capped ones
    come last (2n patterns). Otherwise all 2^n."""
    if not anonymous:
        return sorted(itertools.product((False, True), repeat=n), key=lambda p: (sum(p), p))
    if not focus:
        return [tuple([False] * (n - k) + [True] * k) for k in range(n + 1)]
    rest = [[False] * (n - 1 - k) + [True] * k for k in range(n)]
    return sorted((tuple([first] + others) for first in (False, True) for others in rest), key=lambda p: (sum(p), p))


def pattern_words(pattern) -> str:
    capped = [i for i, c in enumerate(pattern) if c]
    if not capped:
        return "no user capped"
    if len(capped) == len(pattern):
        return "every user capped"
    return f"user{'s' if len(capped) > 1 else ''} {', '.join(map(str, capped))} capped"


def prove_on(prove_encoded, mechanism, prop: str, n: int, m: int, *, domain=None, positive_demands: bool = False,
             **keywords) -> Result:
    """`prove_encoded` (the encodings' prover) on `domain` (`fairlab.core.domain.parse`; the old
    ``positive_demands=True`` narrows it to positive demands), its result stamped with the domain
    it is about (see the module docstring)."""
    asked = parse(domain)
    if positive_demands:
        asked = asked.intersect(Domain(demands="positive"))
    declared = mechanism.domain
    if mechanism.setting == "pool":  # a relation ('same-as:X') is about instances both mechanisms take
        from fairlab.search.proof_encoding import related_mechanism

        related = related_mechanism(mechanism, prop)
        if related is not None:
            declared = declared.intersect(related.domain)
    explored = asked.intersect(declared)
    if mechanism.setting != "pool":
        if not declared.within(asked):
            what = "--positive-demands" if positive_demands and domain is None else f"--domain {asked.label}"
            raise InputError(f"{what}: not available in the {mechanism.setting} setting (its prover explores the "
                             f"mechanism's declared domain {declared.label}; drop the option)")
        result = prove_encoded(mechanism, prop, n, m, **keywords)
        return _stamped(result, asked, declared, explored)
    result = prove_space(prove_encoded, mechanism, prop, n, m, explored, **keywords)
    covered = explored
    if _undecided(result) and (explored.weights != "none" or explored.caps != "none"):
        smaller = explored.intersect(ENCODED)
        again = prove_space(prove_encoded, mechanism, prop, n, m, smaller, **keywords)
        if again.status == Status.PROVED:  # a proof of less than was asked, said so in its record
            whole = {"domain": explored.label, "status": str(result.status), "explanation": result.explanation}
            result, covered = again.replace(details={**again.details, "whole_domain": whole}), smaller
    return _stamped(result, asked, declared, explored, covered)


def _undecided(result: Result) -> bool:
    """Unknown because a budget ran out (z3's resource limit; a relaxation's model that was no
    violation), every gate reached passed: not a gate that failed (spec and allocator disagree, a
    vacuous spec, no positive control: findings about the whole domain, reported as they are) and
    not the clock."""
    gates = result.details.get("gates", {})
    return (result.status == Status.UNKNOWN and not result.explanation.startswith("time")
            and gates.get("conformance") == "passed" and "failed" not in gates.values())


def _stamped(result: Result, asked: Domain, declared: Domain, explored: Domain,
             covered: Domain | None = None) -> Result:
    if result.status == Status.PROVED:  # never claim more than the encodings covered
        return result.replace(domain=record(asked, declared, covered))
    if result.status == Status.REFUTED and result.instance is not None:
        inst = result.instance if isinstance(result.instance, Instance) else Instance.from_dict(result.instance)
        why = explored.contains(inst)
        if why is not None:
            return result.replace(status=Status.UNKNOWN, instance=None, witness=None,
                                  explanation=f"a counterexample was found but it is {why}: no verdict on this domain",
                                  domain=record(asked, declared))
    return result.replace(domain=record(asked, declared))


def prove_space(prove_encoded, mechanism, prop: str, n: int, m: int, explored: Domain, **keywords) -> Result:
    """`prove_encoded` over `explored`'s weights and caps (every cap pattern, `cap_patterns`), its
    conformance sample drawn from `explored`: one ``proof`` `Result`. Without caps one call; with
    caps the patterns in turn until one is not proved (its result, which names the pattern), or
    every pattern's proof combined (``details["cap_patterns"]``: each pattern's status, resource
    units and seconds; ``budget["rlimit_spent"]``: their sum)."""
    weights = explored.weights
    space = {"positive_demands": explored.demands == "positive", "conformance_domain": explored}
    if weights != "none":
        space["weights"] = weights
    if explored.caps == "none":
        return prove_encoded(mechanism, prop, n, m, **space, **keywords)
    from fairlab.search.proof_encoding import related_mechanism

    related = related_mechanism(mechanism, prop)
    anonymous = mechanism.anonymous and (related is None or related.anonymous)
    patterns = cap_patterns(n, anonymous, focus_user(mechanism, prop))
    limit = keywords.pop("time_limit", 60.0)
    budget = keywords.get("budget")
    limit = budget.seconds if budget is not None else limit
    deadline = time.monotonic() + limit
    done: list[dict] = []
    results: list[Result] = []
    for k, pattern in enumerate(patterns):
        # the outer stop only (the budgets decide): the first pattern gets the limit as asked (and its
        # checks), the others what is left of it
        left = limit if k == 0 else max(deadline - time.monotonic(), 1e-3)
        if budget is not None:
            from dataclasses import replace

            keywords["budget"] = replace(budget, seconds=left)
        result = prove_encoded(mechanism, prop, n, m, time_limit=left, caps=list(pattern), **space, **keywords)
        results.append(result)
        done.append({"caps": list(pattern), "pattern": pattern_words(pattern), "status": str(result.status),
                     "rlimit_spent": result.budget.get("rlimit_spent", 0), "seconds": round(result.seconds, 3)})
        if result.status != Status.PROVED:  # the reason keeps its first words ("time: ...", "vacuous spec: ...")
            why = result.explanation + f" (cap pattern: {pattern_words(pattern)})"
            return _combined(result, done, results, why if result.status != Status.REFUTED else result.explanation,
                             limit)
    words = (f"{results[-1].explanation} for each of the {len(patterns)} cap patterns "
             f"({'; '.join(d['pattern'] for d in done)}"
             + (", up to renaming the users" if anonymous else "") + ")")
    return _combined(results[-1], done, results, words, limit)


def _combined(last: Result, done: list[dict], results: list[Result], explanation: str, limit: float) -> Result:
    """One result for the patterns: the last one's, with every pattern's units and seconds and the
    time limit asked (each pattern had what was left of it)."""
    spent = sum(d["rlimit_spent"] for d in done)
    return last.replace(explanation=explanation, seconds=sum(r.seconds for r in results),
                        budget={**last.budget, "rlimit_spent": spent, "time_limit": limit},
                        details={**last.details, "cap_patterns": done})


__all__ = ["prove_on", "prove_space", "cap_patterns", "focus_user", "ENCODED", "ALL"]
