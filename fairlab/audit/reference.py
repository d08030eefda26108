"""Reference profiles: where drf, ceei, bmf and asset stand on every property, as the lab knows it.

Read from two records kept as data, never recomputed by an audit:

* the theorem catalogue (`fairlab.search.catalogue`): each entry is a published claim with the
  sizes the lab machine-checks it at; its ``fast`` sizes are decided as the source says by the
  default test suite of this version (``tests/search/test_prove.py``), so those are the sizes
  cited here;
* the shipped fixtures (`fairlab.counterexamples`): verified counterexamples, re-verified from
  scratch by the test suite (``tests/counterexamples/test_fixtures.py``).

A property with neither is ``not established`` (nothing is claimed); a property with a verified
counterexample is ``violated`` even when a restricted version is proved (DRF's population
monotonicity holds with strictly positive demands only: both are listed).
"""

from __future__ import annotations

from fairlab import mechanisms, properties
from fairlab.core.errors import InputError
from fairlab.counterexamples import store as fixtures
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


def _from_catalogue(mech: str, prop: str) -> list[dict]:
    rows = []
    for entry in CATALOGUE:
        if entry.property != prop or _canonical(entry.mechanism) != mech:
            continue
        checked = [list(s) for s in entry.fast]
        restriction = "strictly positive demands" if entry.positive_demands else None
        if entry.expected == "proved":
            if not checked:
                continue  # claimed, but no size is decided by the test suite: not cited as proved
            rows.append({"status": "proved", "sizes": checked, "source": entry.source, "restriction": restriction,
                         "options": dict(entry.options),
                         "evidence": f"theorem catalogue entry {entry.id}, proved at "
                                     f"{', '.join(f'{n}×{m}' for n, m in checked)} by the default test suite"})
        elif checked:
            rows.append({"status": "violated", "sizes": checked, "source": entry.source, "restriction": restriction,
                         "options": dict(entry.options),
                         "evidence": f"theorem catalogue entry {entry.id}, refuted at "
                                     f"{', '.join(f'{n}×{m}' for n, m in checked)} by the default test suite"})
    return rows


def _from_fixtures(mech: str, prop: str) -> list[dict]:
    rows = []
    for file_name, record in fixtures.shipped():
        if record.get("kind") != "violation" or record.get("property") != prop:
            continue
        if _canonical(record.get("mechanism", "")) != mech:
            continue
        n, m = len(record["instance"]["demands"]), len(record["instance"]["capacities"])
        rows.append({"status": "violated", "sizes": [[n, m]], "source": record.get("claim") or "found by the lab",
                     "instance": record["instance"], "witness": record.get("witness"),
                     "explanation": record.get("explanation"), "options": record.get("options") or {},
                     "evidence": f"shipped fixture {file_name} (re-verified by the test suite)"})
    return rows


def profile(mech: str) -> dict:
    """Property name -> {status: proved | violated | not established, evidence: [...]}; a violation
    (a verified counterexample) decides the status, a proof under a restriction is listed beside it."""
    out = {}
    for prop in properties.names():
        evidence = _from_fixtures(mech, prop) + _from_catalogue(mech, prop)
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


def profiles(names=REFERENCE_MECHANISMS) -> dict:
    """The reference block of an audit report."""
    return {"note": NOTE, "mechanisms": {name: profile(name) for name in names}}
