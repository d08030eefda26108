"""The domain at the entry point of `fairlab.search.proof.prove`: what a proof is about, recorded exactly.

The pool setting's encodings (`fairlab.search.proof.encoding`, `SymbolicInstance.unknown`) range
over unit weights and no task caps, with non-negative demands (each row non-zero), or strictly
positive ones under ``positive_demands``; capacities are covered (normalised for a scale-invariant
mechanism, unknown otherwise). So a proof asked on a domain D is run with ``positive_demands`` when D
(∩ the mechanism's declared domain) asks positive demands, and

* ``proved`` is about D ∩ {no weights, no caps} — recorded as the result's domain, with a note when
  that is less than D (a proof on a smaller domain is never presented as one on D);
* ``refuted`` is about D: its counterexample is re-checked to lie in D (else no verdict);
* ``unknown`` records D.

The other settings' provers have their own domains (the mechanism's declared one): a domain asked
narrower than the declared one is a one-line error there rather than an assumption dropped silently.
"""

from __future__ import annotations

from fairlab.core.domain import ALL, Domain, parse, record
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.core.results import Result, Status

#: what the pool encodings range over besides the demands: unit weights, no task caps
ENCODED = Domain(weights="none", caps="none")


def prove_on(prove_encoded, mechanism, prop: str, n: int, m: int, *, domain=None, positive_demands: bool = False,
             **keywords) -> Result:
    """`prove_encoded` (the encodings' prover) on `domain` (`fairlab.core.domain.parse`; the old
    ``positive_demands=True`` narrows it to positive demands), its result stamped with the domain
    it is about (see the module docstring)."""
    asked = parse(domain)
    if positive_demands:
        asked = asked.intersect(Domain(demands="positive"))
    declared = mechanism.domain
    explored = asked.intersect(declared)
    if mechanism.setting != "pool":
        if not declared.within(asked):
            what = "--positive-demands" if positive_demands and domain is None else f"--domain {asked.label}"
            raise InputError(f"{what}: not available in the {mechanism.setting} setting (its prover explores the "
                             f"mechanism's declared domain {declared.label}; drop the option)")
        result = prove_encoded(mechanism, prop, n, m, **keywords)
    else:
        result = prove_encoded(mechanism, prop, n, m, positive_demands=explored.demands == "positive", **keywords)
    if result.status == Status.PROVED:  # never claim more than an encoding covers
        return result.replace(domain=record(asked, declared, ENCODED))
    if result.status == Status.REFUTED and result.instance is not None:
        inst = result.instance if isinstance(result.instance, Instance) else Instance.from_dict(result.instance)
        why = explored.contains(inst)
        if why is not None:
            return result.replace(status=Status.UNKNOWN, instance=None, witness=None,
                                  explanation=f"a counterexample was found but it is {why}: no verdict on this domain",
                                  domain=record(asked, declared))
    return result.replace(domain=record(asked, declared))


__all__ = ["prove_on", "ENCODED", "ALL"]
