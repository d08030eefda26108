"""From a result to a stored finding: the one place a fixture record is built, re-verified and saved.

`fixture_record(result, mechanism)` turns a ``search`` (violated), ``proof`` (refuted) or
``rediscovery`` (found) `Result` into the JSON record of `fairlab.counterexamples.store`;
`record_finding(result, mechanism, store)` re-verifies that record from scratch
(`fairlab.search.verify`) and hands it to the store with the receipt — the store writes nothing
else — and returns the result with ``details["fixture"]`` set to the file written.
"""

from __future__ import annotations

import os

from fairlab import properties
from fairlab.core.instance import Instance
from fairlab.core.results import Result, to_dict
from fairlab.counterexamples import store as fixtures
from fairlab.counterexamples.store import FixtureRefused, Store
from fairlab.mechanisms.base import Mechanism
from fairlab.search.verify import plugin_identity, reverify

#: how each engine's findings came about (the record's ``found_by``)
FOUND_BY = {
    "search": "found from scratch by fairlab's search engines, shrunk and verified exactly",
    "proof": "z3 model of spec ∧ ¬property found by `fairlab prove`, confirmed exactly",
    "impossibility": "found from scratch by fairlab's ∃∀ impossibility search; unsat core and positive controls by z3",
    "nonunique": "found from scratch by fairlab's search engines; both allocations checked BMF exactly",
}


def fixture_record(result: Result, mechanism: Mechanism | None = None, claim: str | None = None) -> dict | None:
    """The fixture record of a finding, or None if the result is not one (not violated / refuted /
    found, or a relation ``same-as:X``: a disagreement of two mechanisms is no property violation).
    `mechanism` is the one searched (None for an impossibility, which is about every mechanism)."""
    if result.status not in ("violated", "refuted", "found") or result.instance is None:
        return None
    details = result.details
    instance = result.instance if isinstance(result.instance, Instance) else Instance.from_dict(result.instance)
    certificate = result.certificate or {}
    common = {"claim": claim if claim is not None else details.get("claim"), "seconds": round(result.seconds, 3),
              "minimality": fixtures.minimality(instance)}
    if "family" in certificate:  # an impossibility: every mechanism fails on the family
        name = result.property
        assert name is not None  # an impossibility names its relational property
        return {
            "kind": "impossibility", **common, "mechanism": "any", "property": name,
            "properties": list(details["properties"]), "indivisible": details["indivisible"],
            "instance": instance.to_dict(), "family": _family(certificate["family"]),
            "core": certificate["core"], "controls": certificate["controls"],
            "control_models": to_dict(certificate.get("control_models", {}), versioned=False),
            "engine": "impossibility", "seed": None, "families_tried": details.get("families_tried"),
            "canonical_hash": fixtures.family_hash(name, instance), "found_by": FOUND_BY["impossibility"],
        }
    prop = result.property
    assert prop is not None  # a finding names its property
    if prop.startswith("same-as:"):
        return None
    if prop in properties.PLUGINS:  # a plug-in property: a fixture could not name it portably (not stored)
        return None
    assert mechanism is not None  # only an impossibility is about no one mechanism
    identity = plugin_identity(mechanism)
    # a registered mechanism keeps the name the result uses (an alias, e.g. "pf" for CEEI, names its own claim)
    name = (result.mechanism or mechanism.name) if identity is None else identity["name"]
    nonunique = prop == "unique"
    engine = "prove" if result.kind == "proof" else details.get("engine")
    record = {
        "kind": "nonunique" if nonunique else "violation", **common, "mechanism": name,
        **({"plugin": identity} if identity else {}),
        **({} if nonunique else {"options": dict(details.get("options") or {})}),
        "property": prop, "instance": instance.to_dict(), "witness": to_dict(result.witness, versioned=False),
        "explanation": result.explanation, "engine": engine,
        "seed": None if result.kind == "proof" else result.budget.get("seed"),
    }
    if "evaluated" in details:
        record["evaluated"] = to_dict(details["evaluated"], versioned=False)
    if details.get("found_instance") is not None:
        record["found_instance"] = to_dict(details["found_instance"], versioned=False)
        record["shrink_steps"] = details.get("shrink_steps", 0)
    record["canonical_hash"] = fixtures.canonical_hash(name, prop, instance, rescale_rows=not mechanism.discrete,
                                                       options=record.get("options") or None)
    record["found_by"] = FOUND_BY["nonunique" if nonunique else "proof" if result.kind == "proof" else "search"]
    return record


def _family(family) -> list[dict]:
    """An impossibility's instance family as a fixture writes it (read back by `fairlab.search.verify`)."""
    return [{"label": m.label, "relation": m.relation, "user": m.user, "instance": m.instance.to_dict()}
            for m in family.members]


def store_of(store: Store | str | os.PathLike | None) -> Store:
    """A `Store` from a `Store`, a folder, or None (``$FAIRLAB_STORE`` / the default location)."""
    return store if isinstance(store, Store) else Store(store)


def writable_store(store: Store | str | os.PathLike | None) -> Store:
    """`store_of`, checked writable (`Store.check_writable`): what a verb that will write calls
    before any work, so a bad store is a one-line `InputError` up front."""
    target = store_of(store)
    target.check_writable()
    return target


def prepare_finding(result: Result, mechanism: Mechanism | None, claim: str | None = None):
    """The fixture record of `result` re-verified from scratch, with its receipt — ``(record,
    verified)``, ready for `Store.save` (None when there is nothing to store). `FixtureRefused`
    when it does not re-verify exactly. For runs that write their findings only once everything
    succeeded (`fairlab.audit`)."""
    record = fixture_record(result, mechanism, claim)
    if record is None:
        return None
    verified = reverify(record, mechanism=mechanism)
    if not verified.ok:
        raise FixtureRefused(f"not storing {record['mechanism']} vs {record['property']}: it does not re-verify "
                             f"exactly ({verified.message})")
    return record, verified


def record_finding(result: Result, mechanism: Mechanism | None, store: Store | str | os.PathLike | None = None,
                   claim: str | None = None) -> Result:
    """Re-verify the finding of `result` from scratch and save it in `store` (see `store_of`):
    the result with ``details["fixture"]`` (the file; None when there is nothing to store).
    `FixtureRefused` — nothing written — when it does not re-verify exactly."""
    prepared = prepare_finding(result, mechanism, claim)
    if prepared is None:
        return result.replace(details={**result.details, "fixture": None})
    path, _ = store_of(store).save(*prepared)
    return result.replace(details={**result.details, "fixture": str(path)})
