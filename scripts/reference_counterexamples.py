"""Write the reference profiles' index of counterexamples (`fairlab/audit/reference_counterexamples.json`).

The reference columns of an audit (`fairlab.audit.reference`: drf, ceei, bmf, asset) show an
in-domain counterexample wherever the lab knows one. Besides the shipped fixtures, the lab knows
two more kinds, and this script collects them once (exact checks and proofs are too slow to rerun
in every audit):

* the shipped examples (`fairlab examples`): every reference mechanism's exact check of every pool
  property on every pool example; a violation is kept with its witness;
* refuted proofs: for each reference mechanism and pool property with no example violating it on a
  domain of `DOMAINS`, `fairlab prove MECH PROP -n 2 -m 2 --domain D`; a refutation (confirmed
  exactly on the allocator by the prover) is kept with its instance and witness.

Of the counterexamples of one mechanism and property, only those no other one makes redundant are
kept: one is dropped when another is no larger and lies in every domain it lies in (an example named
for what it shows, thm4-ceei-sp for ceei's sp, is always kept). The audit
re-checks each one it shows exactly (`fairlab.search.verify.confirm_violation`) and shows it only
inside the asked domain; the test suite re-checks them all (tests/audit/test_reference.py).

    python scripts/reference_counterexamples.py            # examples and proofs (tens of minutes)
    python scripts/reference_counterexamples.py --check    # exit 1 if the examples' part differs
    python scripts/reference_counterexamples.py --proofs-only   # the examples' part kept as it is
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from fairlab import mechanisms, properties
from fairlab.audit.reference import INDEX, REFERENCE_MECHANISMS
from fairlab.core.domain import PRESETS
from fairlab.core.instance import Instance, examples
from fairlab.core.results import to_dict
from fairlab.search.proof import prove
from fairlab.search.space import narrowest

#: the domains the proofs are asked on (the audit's default and the DRF paper's)
DOMAINS = ("all", "drf-paper")
CHECK_SECONDS = 120.0
PROOF_SECONDS = 120.0


def example_entries(log=print) -> list[dict]:
    out = []
    for mech in REFERENCE_MECHANISMS:
        for name, path in sorted(examples().items()):
            inst = Instance.resolve(path)
            if inst.setting != "pool":
                continue
            for prop in properties.names():
                result = properties.check(mech, prop, inst, time_limit=CHECK_SECONDS)
                log(f"{mech} {prop} {name}: {result.status.value}")
                if result.status == "violated":
                    out.append({"mechanism": mech, "property": prop, "source": "example", "name": name,
                                "witness": to_dict(result.witness, versioned=False), "options": {}})
    return out


def proof_entries(known: list[dict], log=print) -> list[dict]:
    out = []
    for mech in REFERENCE_MECHANISMS:
        for prop in properties.names():
            for label in DOMAINS:
                domain = PRESETS[label]
                if any(e["mechanism"] == mech and e["property"] == prop and narrowest(instance(e)).within(domain)
                       for e in known + out):
                    continue
                try:
                    result = prove(mechanisms.get(mech), prop, 2, 2, domain=domain, time_limit=PROOF_SECONDS)
                except Exception as exc:  # noqa: BLE001 - no proof here: nothing to keep
                    log(f"{mech} {prop} on {label}: no proof ({exc})")
                    continue
                log(f"{mech} {prop} on {label}: {result.status.value}")
                if result.status == "refuted" and result.instance is not None:
                    out.append({"mechanism": mech, "property": prop, "source": "proof",
                                "name": f"fairlab prove {mech} {prop} -n 2 -m 2 --domain {label}",
                                "instance": to_dict(result.instance, versioned=False),
                                "witness": to_dict(result.witness, versioned=False), "options": {}})
    return out


def instance(entry: dict) -> Instance:
    return Instance.resolve(entry["name"]) if entry["source"] == "example" else Instance.from_dict(entry["instance"])


def named_for(entry: dict) -> bool:
    """The entry is a shipped example named for its mechanism and property (thm1-asset-si)."""
    return entry["source"] == "example" and f"-{entry['mechanism']}-{entry['property']}" in f"-{entry['name']}"


def minimal(entries: list[dict]) -> list[dict]:
    """Per mechanism and property, the entries no other makes redundant (one no larger, lying in
    every domain this one lies in); ties keep the first."""
    # an example named for what it shows (thm4-ceei-sp for ceei's sp) is always kept, first among equals
    entries = sorted(entries, key=lambda e: not named_for(e))
    kept: list[dict] = []
    for k, e in enumerate(entries):
        inst, shape = instance(e), narrowest(instance(e))
        redundant = False
        if named_for(e):
            kept.append(e)
            continue
        for j, other in enumerate(entries):
            if j == k or (other["mechanism"], other["property"]) != (e["mechanism"], e["property"]):
                continue
            o = instance(other)
            smaller = (o.n * o.m, o.n) <= (inst.n * inst.m, inst.n) and narrowest(o).within(shape)
            same = (o.n * o.m, o.n) == (inst.n * inst.m, inst.n) and narrowest(o) == shape
            if smaller and (not same or j < k):
                redundant = True
                break
        if not redundant:
            kept.append(e)
    return kept


def main(argv: list[str]) -> int:
    log = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    if "--proofs-only" in argv:  # keep the examples' part of the index, ask the proofs again
        found = [e for e in json.loads(INDEX.read_text())["entries"] if e["source"] == "example"]
    else:
        found = example_entries(log)
    if "--check" in argv:
        shipped = [e for e in json.loads(INDEX.read_text())["entries"] if e["source"] == "example"]
        return 0 if minimal(found) == shipped else 1
    entries = minimal(found + proof_entries(found, log))
    document = {"schema_version": 1, "note": "written by scripts/reference_counterexamples.py; each entry is "
                "re-checked exactly before an audit shows it", "entries": entries}
    Path(INDEX).write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    log(f"{len(entries)} entries written to {INDEX}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
