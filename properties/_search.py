"""The deviation search shared by sp and rm: structured candidates, then z3, then random ones.

Every candidate deviation is evaluated by a fresh, exact mechanism run, so a violation found by
the numeric search is exact; a z3 model is re-run the same way before it counts. Verdicts:
``violated`` (witness verified), ``holds`` only when z3 proves the encoding unsat, ``none-found``
when the candidates ran out or the budget did, ``unknown`` when nothing could be evaluated.
"""

from __future__ import annotations

from typing import Callable, Iterable

from properties.base import Budget, Encoding, Verdict, solve, verdict, violated

# Share of the remaining time z3 may use before the random candidates get the rest.
Z3_TIME_SHARE = 0.5


def symbolic_at(mech, inst, budget: Budget, encode):
    """The z3 step for `search`: the property's encoding at this concrete instance (the spec with the
    budget's mechanism options), or None when the mechanism has no spec or the budget switched z3 off."""
    if mech.spec is None or not budget.symbolic:
        return None

    def symbolic():
        from mechanisms.base import SymbolicInstance

        sym = SymbolicInstance.from_instance(inst)
        return sym.domain, encode(sym, lambda s, t: mech.spec(s, t, **budget.options))

    return symbolic


def search(
    name: str,
    mech,
    inst,
    budget: Budget,
    structured: Iterable,
    random_candidates: Iterable,
    evaluate: Callable[[object], dict | None],
    symbolic: Callable[[], tuple[list, Encoding]] | None,
    what: str,
) -> Verdict:
    """Try `structured` candidates, then z3 (`symbolic()` -> (domain, encoding)), then random ones."""
    tried = 0
    z3_status = "not used" if symbolic is None else "not reached"

    def attempt(candidates):
        nonlocal tried
        for candidate in candidates:
            if budget.exhausted():
                return None
            budget.used_evaluations += 1
            tried += 1
            witness = evaluate(candidate)
            if witness is not None:
                return witness
        return None

    witness = attempt(structured)
    if witness is not None:
        return violated(name, mech, inst, witness, budget, candidates=tried, z3=z3_status)
    if symbolic is not None and budget.remaining() > 0:
        try:
            domain, encoding = symbolic()
            status, model = solve(domain + encoding.constraints, budget.remaining() * Z3_TIME_SHARE)
        except Exception as exc:  # a plug-in's spec may be broken: the numeric engines still serve
            status, model = f"error ({type(exc).__name__}: {exc})", None
        z3_status = status
        if status == "unsat":
            return verdict(
                name, mech, "holds", budget,
                f"z3 proved that no {what} violates it at this instance (the mechanism's spec with the "
                f"violation constraints is unsat); {tried} numeric candidates tried first",
                candidates=tried, z3=status,
            )
        if status == "sat":
            result = violated(name, mech, inst, encoding.witness(model), budget, candidates=tried, z3=status)
            if result.verdict == "violated":
                return result
            z3_status = "sat, witness not confirmed by a fresh run"
    witness = attempt(random_candidates)
    if witness is not None:
        return violated(name, mech, inst, witness, budget, candidates=tried, z3=z3_status)
    if tried == 0 and z3_status != "unsat":
        return verdict(name, mech, "unknown", budget, "the budget ran out before any candidate was evaluated",
                       candidates=tried, z3=z3_status)
    return verdict(
        name, mech, "none-found", budget,
        f"no {what} among {tried} exactly evaluated candidates violates it (z3: {z3_status})",
        candidates=tried, z3=z3_status,
    )
