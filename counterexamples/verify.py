"""Re-verify a stored fixture from scratch, exactly: nothing of the stored verdict is trusted.

* violation — a fresh `properties` Violation (fresh mechanism run, exact arithmetic) must verify,
  on exact allocations only: one whose verification would need an approximate allocation (e.g.
  CEEI's float path, when the exact optimum cannot be had) fails (`fairlab.properties.base.run`);
* impossibility — the joint system of the stored family must be UNSAT for all its properties and
  SAT with each property dropped (the positive controls);
* nonunique — both stored allocations must pass the exact BMF membership test and differ.
The canonical hash is recomputed too, so a fixture cannot drift from its instance.
"""

from __future__ import annotations

from fractions import Fraction

from fairlab.counterexamples import store
from fairlab.core.exact import to_fraction
from fairlab.core.instance import Instance


def verify_record(record: dict) -> tuple[bool, str]:
    kind = record.get("kind")
    instance = Instance.from_dict(record["instance"])
    if kind == "violation":
        from fairlab import mechanisms
        from fairlab.properties.base import Violation

        mech = mechanisms.get(record["mechanism"])
        digest = store.canonical_hash(record["mechanism"], record["property"], instance, rescale_rows=not mech.discrete)
        if digest != record["canonical_hash"]:
            return False, f"canonical hash {record['canonical_hash']} != recomputed {digest}"
        violation = Violation(record["property"], mech, instance, record["witness"], dict(record.get("options") or {}))
        explanation = violation.explain()
        if explanation is None and violation.inexact is not None:
            return False, f"the witness cannot be re-verified on exact allocations: {violation.inexact}"
        return (explanation is not None), (explanation or "the witness no longer shows a violation")
    if kind == "impossibility":
        from fairlab.search import impossibility as imp

        members = [
            imp.Member(m["label"], Instance.from_dict(m["instance"]), m["relation"], m["user"])
            for m in record["family"]
        ]
        family = imp.Family(members)
        props = record["properties"]
        status, info = imp.solve(family, props, record["indivisible"])
        if status != "unsat":
            return False, f"joint system is {status}, expected unsat"
        for dropped in props:
            kept = [p for p in props if p != dropped]
            c_status, _ = imp.solve(family, kept, record["indivisible"])
            if c_status != "sat":
                return False, f"positive control without {dropped} is {c_status}, expected sat"
        return True, f"unsat with core {info}; each property needed"
    if kind == "nonunique":
        from fairlab.mechanisms import bmf

        allocations = [tuple(to_fraction(v, "allocation") for v in a) for a in record["witness"]["allocations"]]
        if len(allocations) != 2 or allocations[0] == allocations[1]:
            return False, "need two different allocations"
        for a in allocations:
            check = bmf.is_bmf(instance, a)
            if not check.holds:
                return False, f"{[str(Fraction(x)) for x in a]} is not BMF"
        return True, "two different exact BMF allocations"
    return False, f"unknown fixture kind {kind!r}"
