"""Reference profiles: where drf, ceei, bmf and asset stand on every property, as the lab knows it.

Read from two records kept as data, never recomputed by an audit:

* the theorem catalogue (`fairlab.search.catalogue`): each entry is a published claim with the
  sizes the lab machine-checks it at; its ``fast`` sizes are decided as the source says by the
  default test suite of this version (``tests/search/test_prove.py``), so those are the sizes
  cited here;
* the shipped fixtures (`fairlab.counterexamples`): verified counterexamples, re-verified from
  scratch by the test suite (``tests/counterexamples/test_fixtures.py``).

A fixture judged in another valuation model than the mechanism declares (``options["model"]``, the
machines setting: `fairlab.mechanisms.base.VALUATIONS`) is not part of its profile.

Profiles are per instance domain (`fairlab.core.domain`): a fixture counts where its instance lies
in the domain; a catalogue entry's proof covers the domain of its encodings (unit weights, no caps,
and positive demands for an entry that assumes them) and counts as ``proved`` on a domain inside
it, ``proved (restricted)`` (with the restriction named) on a larger one; a refutation counts on a
domain containing the entry's. So DRF's population monotonicity is ``proved`` on ``drf-paper`` and
``violated`` on ``all`` (a counterexample with a zero demand at 3×2), each saying so.

A property with neither is ``not established`` (nothing is claimed); a property with a verified
counterexample in the domain is ``violated`` even when a restricted version is proved (both are listed).
"""

from __future__ import annotations

from typing import Sequence

from fairlab import mechanisms, properties
from fairlab.core.domain import ALL, Domain
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.counterexamples import store as fixtures
from fairlab.mechanisms.base import MODEL_OPTION
from fairlab.search.catalogue import CATALOGUE

#: the mechanisms every audit report shows beside the audited one
REFERENCE_MECHANISMS = ("drf", "ceei", "bmf", "asset")

NOTE = ("from the theorem catalogue (proved sizes: those the default test suite decides) and the shipped fixtures "
        "(verified counterexamples) of this version; not recomputed by the audit")


def _canonical(name: str) -> str | None:
    try:
        return mechanisms.get(name).name
    except InputError:
        return None


def entry_domain(entry) -> Domain:
    """The domain a catalogue entry's proofs range over (`fairlab.search.proof_domain.ENCODED`, with
    positive demands if the entry assumes them)."""
    return Domain(demands="positive" if entry.positive_demands else "nonnegative", weights="none", caps="none")


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
                     "evidence": f"shipped fixture {file_name} (re-verified by the test suite)"})
    return rows


def profile(mech: str, domain: Domain = ALL, props: Sequence[str] | None = None) -> dict:
    """Property name -> {status: proved | violated | not established, evidence: [...]} on `domain`;
    a violation (a verified counterexample in the domain) decides the status, a proof under a
    restriction (a smaller domain) is listed beside it. `props`: the properties covered (default the
    pool setting's, `fairlab.properties.names()`; the documentation site asks for a mechanism's own
    setting's)."""
    out = {}
    for prop in properties.names() if props is None else props:
        evidence = _from_fixtures(mech, prop, domain) + _from_catalogue(mech, prop, domain)
        violated = [e for e in evidence if e["status"] == "violated"]
        proved = [e for e in evidence if e["status"] == "proved"]
        if violated:
            status = "violated"
        elif proved and all(e["restriction"] is None for e in proved):
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
