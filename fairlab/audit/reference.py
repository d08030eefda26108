"""Reference profiles: where drf, ceei, bmf and asset stand on every property, as the lab knows it.

Read from three records kept as data, never searched or proved again by an audit:

* the theorem catalogue (`fairlab.search.catalogue`): each entry is a published claim with the
  sizes the lab machine-checks it at; its ``fast`` sizes are decided as the source says by the
  default test suite of this version (``tests/search/test_prove.py``), so those are the sizes
  cited here;
* the shipped fixtures (`fairlab.counterexamples`): verified counterexamples found by the lab's
  searches;
* the index of the lab's other counterexamples (`INDEX`, written by
  ``scripts/reference_counterexamples.py``): the shipped examples (``fairlab examples``) a
  reference mechanism violates, and refuted proofs (``fairlab prove ... --domain D``), each with its
  instance and witness.

Every counterexample shown is re-checked exactly first (`fairlab.search.verify.confirm_violation`,
once per process) and shown only when its instance lies in the domain; one that does not re-check
is not shown (the test suite re-checks them all: ``tests/audit/test_reference.py``).

A fixture judged in another valuation model than the mechanism declares (``options["model"]``, the
machines setting: `fairlab.mechanisms.base.VALUATIONS`) is not part of its profile.

Profiles are per instance domain (`fairlab.core.domain`): a counterexample counts where its instance
lies in the domain; a catalogue entry's proof covers the entry's domain (the sources' theorems: unit
weights, no caps; the weighted and capped entries: theirs; positive demands for an entry that assumes
them), and a proof counts as ``proved`` on a domain inside
it, ``proved (restricted)`` (with the restriction named) on a larger one; a refutation counts on a
domain containing the entry's. So DRF's population monotonicity is ``proved`` on ``drf-paper`` and
``violated`` on ``all`` (a counterexample with a zero demand at 3×2), each saying so.

A property with neither is ``not established`` (shown as "—": the lab knows no counterexample in
the domain and no proof); a property with a verified counterexample in the domain is ``violated``
even when a restricted version is proved (both are listed). The counterexample shown is the
smallest (fewest users × resources), a fixture before an example before a proof's.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Sequence

from fairlab import mechanisms, properties
from fairlab.core.domain import ALL, Domain
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.core.results import to_dict
from fairlab.counterexamples import store as fixtures
from fairlab.mechanisms.base import MODEL_OPTION
from fairlab.search.catalogue import CATALOGUE
from fairlab.search.verify import confirm_violation

#: the mechanisms every audit report shows beside the audited one
REFERENCE_MECHANISMS = ("drf", "ceei", "bmf", "asset")
#: the lab's other counterexamples: shipped examples and refuted proofs (module docstring)
INDEX = Path(__file__).with_name("reference_counterexamples.json")

NOTE = ("from the theorem catalogue (proved sizes: those the default test suite decides), the shipped fixtures, "
        "the shipped examples and refuted proofs of this version; each counterexample shown re-checked exactly and "
        "inside the domain; — where the lab knows neither a counterexample in the domain nor a proof")
#: the order counterexamples of one size are shown in
_SOURCES = ("fixture", "example", "proof")


def _canonical(name: str) -> str | None:
    try:
        return mechanisms.get(name).name
    except InputError:
        return None


def entry_domain(entry) -> Domain:
    """The domain a catalogue entry's proofs range over (`fairlab.search.catalogue.Entry.covers`: its
    domain, with positive demands if the entry assumes them)."""
    return entry.covers


def _from_catalogue(mech: str, prop: str, domain: Domain = ALL) -> list[dict]:
    rows = []
    for entry in CATALOGUE:
        if entry.property != prop or _canonical(entry.mechanism) != mech:
            continue
        checked = [list(s) for s in entry.fast]
        covered = entry_domain(entry)
        restriction = None if domain.within(covered) else covered.words
        if entry.expected == "proved":
            if not checked:
                continue  # claimed, but no size is decided by the test suite: not cited as proved
            rows.append({"status": "proved", "sizes": checked, "source": entry.source, "restriction": restriction,
                         "options": dict(entry.options), "domain": covered.label,
                         "evidence": f"theorem catalogue entry {entry.id}, proved at "
                                     f"{', '.join(f'{n}×{m}' for n, m in checked)} by the default test suite"})
        elif checked and covered.within(domain):  # its counterexamples lie in the entry's domain
            rows.append({"status": "violated", "sizes": checked, "source": entry.source, "restriction": None,
                         "options": dict(entry.options), "domain": covered.label,
                         "evidence": f"theorem catalogue entry {entry.id}, refuted at "
                                     f"{', '.join(f'{n}×{m}' for n, m in checked)} by the default test suite"})
    return rows


def _from_fixtures(mech: str, prop: str, domain: Domain = ALL) -> list[dict]:
    rows = []
    for file_name, record in fixtures.shipped():
        if record.get("kind") != "violation" or record.get("property") != prop:
            continue
        if _canonical(record.get("mechanism", "")) != mech:
            continue
        model = (record.get("options") or {}).get(MODEL_OPTION)
        if model is not None and model != mechanisms.get(mech).valuation:
            continue  # judged in another valuation model than the mechanism's own: not its profile
        try:
            if domain.contains(Instance.from_dict(record["instance"])) is not None:
                continue  # its counterexample lies outside the domain
        except InputError:
            continue
        n, m = len(record["instance"]["demands"]), len(record["instance"]["capacities"])
        rows.append({"status": "violated", "sizes": [[n, m]], "source": record.get("claim") or "found by the lab",
                     "instance": record["instance"], "witness": record.get("witness"),
                     "explanation": record.get("explanation"), "options": record.get("options") or {},
                     "kind": "fixture",
                     "evidence": f"shipped fixture {file_name}"})
    return rows


@functools.lru_cache(maxsize=1)
def index_entries() -> tuple[dict, ...]:
    """The entries of `INDEX` (each a mechanism, a property, its source and witness; an example's
    instance is the shipped example itself, read by name)."""
    return tuple(json.loads(INDEX.read_text(encoding="utf-8"))["entries"])


def entry_instance(entry: dict) -> Instance:
    """The instance of an `INDEX` entry: the shipped example it names, or its own."""
    return Instance.resolve(entry["name"]) if entry["source"] == "example" else Instance.from_dict(entry["instance"])


def _from_index(mech: str, prop: str, domain: Domain = ALL) -> list[dict]:
    rows = []
    for entry in index_entries():
        if entry["property"] != prop or _canonical(entry["mechanism"]) != mech:
            continue
        try:
            inst = entry_instance(entry)
        except InputError:
            continue
        if domain.contains(inst) is not None:
            continue  # its counterexample lies outside the domain
        source = (f"the shipped example {entry['name']}" if entry["source"] == "example"
                  else f"a refuted proof ({entry['name']})")
        rows.append({"status": "violated", "sizes": [[inst.n, inst.m]], "source": source,
                     "instance": to_dict(inst, versioned=False), "witness": entry["witness"], "explanation": None,
                     "options": entry.get("options") or {}, "kind": entry["source"], "evidence": source})
    return rows


@functools.cache
def _recheck(mech: str, prop: str, instance: str, witness: str, options: str) -> str | None:
    """The explanation of a counterexample re-checked exactly now, or None if it does not re-check
    (cached per process: the same mechanism, instance and witness give the same answer)."""
    explanation, _ = confirm_violation(mechanisms.get(mech), prop, Instance.from_json(instance), json.loads(witness),
                                       json.loads(options))
    return explanation


def _checked(mech: str, prop: str, row: dict) -> dict | None:
    """`row` (a counterexample) with its explanation re-computed, or None if it does not re-check."""
    text = {key: json.dumps(row[key], sort_keys=True) for key in ("instance", "witness", "options")}
    words = _recheck(mech, prop, text["instance"], text["witness"], text["options"])
    if words is None:
        return None
    return {key: value for key, value in row.items() if key != "kind"} | {
        "explanation": words, "evidence": f"{row['evidence']}, re-checked exactly by this report"}


def _listed(row: dict) -> dict:
    """A counterexample listed beside the one shown, not re-checked by this report (the test suite
    re-checks every one): no instance, witness or explanation of its own."""
    kept = {key: value for key, value in row.items() if key not in ("kind", "instance", "witness")}
    return kept | {"explanation": None,
                   "evidence": f"{row['evidence']} (re-checked by the test suite, not by this report)"}


def profile(mech: str, domain: Domain = ALL, props: Sequence[str] | None = None) -> dict:
    """Property name -> {status: proved | violated | not established, evidence: [...]} on `domain`;
    a violation (a verified counterexample in the domain) decides the status, a proof under a
    restriction (a smaller domain) is listed beside it. `props`: the properties covered (default the
    pool setting's, `fairlab.properties.names()`; the documentation site asks for a mechanism's own
    setting's)."""
    out = {}
    for prop in properties.names() if props is None else props:
        found = _from_fixtures(mech, prop, domain) + _from_index(mech, prop, domain)
        found.sort(key=lambda row: (row["sizes"][0][0] * row["sizes"][0][1], row["sizes"][0][0],
                                    _SOURCES.index(row["kind"])))
        shown: list[dict] = []
        for row in found:  # the smallest that re-checks is shown; the others are listed beside it
            checked = None if shown else _checked(mech, prop, row)
            if checked is not None:
                shown.insert(0, checked)
            elif shown:
                shown.append(_listed(row))
        evidence = shown + _from_catalogue(mech, prop, domain)
        violated = [e for e in evidence if e["status"] == "violated"]
        # a proof covering the whole domain first (others, on parts of it, are listed after it)
        proved = sorted((e for e in evidence if e["status"] == "proved"), key=lambda e: e["restriction"] is not None)
        if violated:
            status = "violated"
        elif proved and proved[0]["restriction"] is None:
            status = "proved"
        elif proved:
            status = "proved (restricted)"
        else:
            status = "not established"
        first = (violated or proved or [{}])[0]
        out[prop] = {"status": status, "sizes": first.get("sizes"), "instance": first.get("instance"),
                     "witness": first.get("witness"), "explanation": first.get("explanation"),
                     "source": first.get("source"), "evidence": evidence}
    return out


def profiles(names=REFERENCE_MECHANISMS, domain: Domain = ALL) -> dict:
    """The reference block of an audit report on `domain`."""
    return {"note": NOTE, "domain": domain.label, "mechanisms": {name: profile(name, domain) for name in names}}
