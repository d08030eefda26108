"""The paper-check ledger: every checkable numeric claim of the five source documents, checked by the lab.

Each `Claim` carries its transcription (id, source file, section, the claim as printed, the printed
numbers) and a named check function that computes the same quantities with the lab (mechanisms, properties,
searches). Nothing computed is written here: "printed" is the transcription, "computed" comes from
running the lab each time.

Each check ends in a `fairlab.core.results.Result` of kind ``claim`` (`check_claim`). Statuses — the
ledger's wording rule, written once in `WORDING` (the report, the docs page and every entry follow it;
an entry that adds a claim picks its status by it):

* ``reproduced`` — the source's OWN statement is checked and every printed number is what the lab
  computes (exact where printed exactly, to the printed rounding where printed as a decimal, within
  sampling error for statistics); a theorem checked at a bounded scope says the scope in ``check``;
* ``erratum`` — the source's own statement is checked and some printed number is not what the lab
  computes; ``corrected`` gives the lab's value and ``how`` says how the lab knows;
* ``lab-finding`` — what the lab checks is its own READING (``reading``: a definition the source does
  not give in full, a mechanism the source only names, a statement narrower or wider than the
  source's): a finding about that reading, rendered "lab finding (reading: ...)", never a
  reproduction nor a refutation of the source; its items must hold;
* ``out-of-scope`` — not checkable with the lab (``reason``); what can be checked about it is
  checked anyway (its items must hold).

An entry also says what the paper behind it claims (``paper_claims``, for an entry whose source
cites a paper: the lecture's entries) and which parts of it the lab does not check
(``not_checked``, e.g. DRFH's service isolation). `claim` refuses an entry that breaks the rule's
mechanical parts (a lab finding without its reading, a reading on any other status).

Every claim also records the status the ledger expects (``expect``). A claim is ``ok`` when the
check gives that status (and an out-of-scope or lab-finding entry's side checks hold); `fairlab
paper-check` exits non-zero otherwise, so a regression in the lab or a wrong transcription shows up.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any, Callable

from fairlab.core.exact import Algebraic, format_exact, to_fraction
from fairlab.core.progress import Unit
from fairlab.core.results import Result, Status

# The five source documents (transcribed into the lab's checks; never read at run time).
BR = 'Bonald & Roberts, "Multi-resource fairness: objectives, algorithms and performance"'
NOTES = "Notes on the DRF paper (lecture notes)"
PDRF = 'Metin, "Precomputed Dominant Resource Fairness"'
LECTURE = 'Procaccia & Psomas, "Fair Division III: Computational Resources" (lecture)'
DRF = 'Ghodsi et al., "Dominant Resource Fairness" (NSDI 2011), Chinese translation'

STATUSES = ("reproduced", "erratum", "lab-finding", "out-of-scope")

#: The ledger's wording rule, the one place it is written: what each status claims, and what it does not.
WORDING = {
    "reproduced": "the source's own statement is checked (its printed numbers, or its theorem as it states it, at "
                  "the scope the check names) and the lab computes the same",
    "erratum": "the source's own statement is checked and some printed number is not what the lab computes (the "
               "lab's value and how it knows are given)",
    "lab-finding": "what the lab checks is its own reading of the source (a definition the source does not give in "
                   "full, a mechanism it only names, a narrower or wider statement): a finding about that reading, "
                   "not a reproduction nor a refutation of the source",
    "out-of-scope": "the source's statement cannot be checked with the lab; what can be checked about it is checked "
                    "anyway, and the reason is given",
}


def status_words(status: str, reading: str = "") -> str:
    """A status as the ledger words it: "lab finding (reading: ...)" for a lab finding, else the status."""
    return f"lab finding (reading: {reading})" if status == "lab-finding" else status


# --------------------------------------------------------------------------- comparisons
def _decimals(text: str) -> int:
    text = text.strip()
    return len(text.split(".")[1]) if "." in text else 0


def _as_fraction(value) -> Fraction:
    if isinstance(value, Algebraic):
        return to_fraction(format_exact(value), "computed")
    return to_fraction(value, "computed")


def _show(value) -> str:
    if isinstance(value, (Fraction, int, Algebraic)):
        return format_exact(value if not isinstance(value, int) else Fraction(value))
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(_show(v) for v in value) + ")"
    return str(value)


@dataclass
class Item:
    """One printed number (or statement) next to the lab's value and whether they agree."""

    name: str
    printed: str
    computed: str
    matches: bool
    note: str = ""


def exact(name: str, printed: str, computed) -> Item:
    """Printed exactly (an integer or p/q): equal as rationals (an irrational never equals one)."""
    value = computed if isinstance(computed, Algebraic) else to_fraction(computed, name)
    ok = not isinstance(value, Algebraic) and value == to_fraction(printed, name)
    return Item(name, printed, _show(computed), ok)


def rounded(name: str, printed: str, computed) -> Item:
    """Printed as a decimal: the computed value rounds (half up) or truncates to it at the printed number
    of digits (the sources do both: the lecture's 1500/31 ≈ 48.3)."""
    digits = _decimals(printed)
    if isinstance(computed, Algebraic):
        value = Decimal(format_exact(computed))  # 20 significant digits
    else:
        frac = _as_fraction(computed)
        value = Decimal(frac.numerator) / Decimal(frac.denominator)
    step = Decimal(1).scaleb(-digits)
    half_up = value.quantize(step, rounding="ROUND_HALF_UP")
    truncated = value.quantize(step, rounding="ROUND_DOWN")
    ok = Decimal(printed) in (half_up, truncated)
    note = "printed truncated, not rounded" if ok and half_up != Decimal(printed) else ""
    return Item(name, printed, f"{half_up} ({_show(computed)})", ok, note)


def vector(name: str, printed: list[str], computed, mode: str = "rounded") -> Item:
    """A printed vector, each component compared with `exact` or `rounded`."""
    check = rounded if mode == "rounded" else exact
    parts = [check(f"{name}[{k}]", p, c) for k, (p, c) in enumerate(zip(printed, computed))]
    ok = len(printed) == len(computed) and all(p.matches for p in parts)
    return Item(name, "<" + ", ".join(printed) + ">", "<" + ", ".join(p.computed for p in parts) + ">", ok)


def same(name: str, printed: str, computed: object, note: str = "") -> Item:
    """A printed statement (a verdict, an ordering, a name) against the lab's."""
    return Item(name, printed, str(computed), str(printed) == str(computed), note)


def statistical(name: str, printed: float, mean: float, sd: float, runs: int, z: float = 4.0) -> Item:
    """A printed mean over `runs` runs against ours over as many: agree when the difference is within
    `z` standard errors of a difference of two independent means (sqrt(2) * sd / sqrt(runs))."""
    se = math.sqrt(2) * sd / math.sqrt(runs) if runs else float("inf")
    diff = abs(printed - mean)
    ok = diff <= z * se if se > 0 else diff == 0
    return Item(name, f"{printed:g}", f"{mean:.3f}", ok, f"|diff| = {diff:.3f}, {z:g} SE = {z * se:.3f}")


# --------------------------------------------------------------------------- claims
@dataclass(frozen=True)
class Evidence:
    """What a claim's check returns: the compared numbers, and how the lab knows. `attachments`:
    documents the result's certificate carries besides the items (e.g. the certificates of the
    proofs behind a verdict), as JSON-ready values."""

    items: list[Item]
    how: str = ""
    attachments: dict = field(default_factory=dict)


@dataclass
class Claim:
    """One transcribed claim (data) and the named function that checks it with the lab."""

    id: str
    source: str
    where: str
    claim: str
    check: str
    expect: str
    run: Callable[[Context], Evidence]
    reason: str = ""  # out-of-scope: why
    slow: bool = False
    reading: str = ""  # lab-finding: the lab's reading the finding is about
    paper_claims: str = ""  # what the paper behind the source's statement claims (an entry citing a paper)
    not_checked: str = ""  # which parts of the source's or the paper's claim the lab does not check

    @property
    def words(self) -> str:
        """The expected status as the ledger words it (`status_words`)."""
        return status_words(self.expect, self.reading)


@dataclass
class Context:
    """Knobs of a ledger run: PDRF table runs (the paper's 1000 by default) and a cache."""

    runs: int = 1000
    cache: dict = field(default_factory=dict)

    def once(self, key: str, fn: Callable[[], Any]):
        if key not in self.cache:
            self.cache[key] = fn()
        return self.cache[key]


#: the registry of claims, in source order (filled by `fairlab.paper_checks.claims`)
CLAIMS: list[Claim] = []


def claim(id, source, where, text, check, expect, reason="", slow=False, reading="", paper_claims="",
          not_checked=""):
    """Decorator: register the function as the check of a transcribed claim (the wording rule's
    mechanical parts, `WORDING`: a lab finding names its reading, no other status has one; an
    out-of-scope entry gives its reason)."""
    if expect not in STATUSES:
        raise ValueError(f"{id}: expect must be one of {STATUSES}")
    if (expect == "lab-finding") != bool(reading):
        raise ValueError(f"{id}: a lab-finding entry names its reading, and only a lab-finding entry has one")
    if (expect == "out-of-scope") != bool(reason):
        raise ValueError(f"{id}: an out-of-scope entry gives its reason, and only an out-of-scope entry has one")

    def wrap(fn):
        CLAIMS.append(Claim(id, source, where, text, check, expect, fn, reason, slow, reading, paper_claims,
                            not_checked))
        return fn

    return wrap


def check_claim(c: Claim, ctx: Context | None = None) -> Result:
    """The `Result` (kind ``claim``) of one claim: ``reproduced``, ``erratum``, ``lab-finding``,
    ``out-of-scope``, or ``unknown`` when the check itself failed (``details.error``; never
    reproduced). ``details``: the claim's transcription, ``expected``, ``words`` (the expected status
    as the ledger words it), ``reading`` / ``paper_claims`` / ``not_checked`` when the entry has them,
    and ``ok`` (the status is the expected one, and an out-of-scope or lab-finding claim's items
    hold); ``certificate``: the compared ``items`` (printed vs computed) and, for an erratum, the
    ``corrected`` values; ``explanation``: how the lab knows."""
    ctx = ctx or Context()
    start = time.monotonic()
    about = {"id": c.id, "source": f"{c.source}, {c.where}", "claim": c.claim, "check": c.check,
             "expected": c.expect, "words": c.words, **({"reason": c.reason} if c.reason else {}),
             **({"reading": c.reading} if c.reading else {}),
             **({"paper_claims": c.paper_claims} if c.paper_claims else {}),
             **({"not_checked": c.not_checked} if c.not_checked else {})}
    try:
        evidence = c.run(ctx)
    except Exception as exc:  # a broken check is reported as such, never as reproduced
        error = f"{type(exc).__name__}: {exc}"
        return Result(kind="claim", status=Status.UNKNOWN, seconds=time.monotonic() - start,
                      explanation=f"the check failed: {error}", details={**about, "ok": False, "error": error},
                      certificate={"items": ()})
    items = tuple(evidence.items)
    if c.expect in ("out-of-scope", "lab-finding"):  # side checks / the finding's items must hold
        status = Status.OUT_OF_SCOPE if c.expect == "out-of-scope" else Status.LAB_FINDING
        ok = all(i.matches for i in items) and (c.expect == "out-of-scope" or bool(items))
    else:
        status = Status.REPRODUCED if items and all(i.matches for i in items) else Status.ERRATUM
        ok = status == c.expect
    certificate: dict[str, Any] = {"items": items, **evidence.attachments}
    if status == Status.ERRATUM:
        certificate["corrected"] = {i.name: i.computed for i in items if not i.matches}
    return Result(kind="claim", status=status, seconds=time.monotonic() - start,
                  explanation=evidence.how or c.reason, details={**about, "ok": ok}, certificate=certificate)


def run(ctx: Context | None = None, include_slow: bool = True, only: list[str] | None = None,
        progress: Callable[[Unit], None] | None = None) -> list[Result]:
    """Check the registered claims (the slow ones unless `include_slow` is False, or those in `only`);
    `progress` hears ``Unit(0, total)`` first, then a `Unit` as each claim ends (its id and status)."""
    ctx = ctx or Context()
    chosen = [c for c in CLAIMS if (include_slow or not c.slow) and (not only or c.id in only)]
    if progress is not None:
        progress(Unit(0, len(chosen)))
    results = []
    for done, claim in enumerate(chosen, 1):
        started = time.monotonic()
        results.append(check_claim(claim, ctx))
        if progress is not None:
            status = "error" if "error" in results[-1].details else results[-1].status.value
            progress(Unit(done, len(chosen), claim.id, status, time.monotonic() - started))
    return results


def items(result: Result) -> tuple[Item, ...]:
    """The printed-vs-computed items of a claim's result."""
    return tuple((result.certificate or {}).get("items", ()))


def ok(result: Result) -> bool:
    """The claim came out as the ledger expects."""
    return bool(result.details.get("ok"))


def claim_of(result: Result) -> Claim:
    return next(c for c in CLAIMS if c.id == result.details["id"])


def summary(results: list[Result]) -> dict:
    counts = {s: 0 for s in STATUSES}
    for r in results:
        key = "error" if "error" in r.details else r.status.value
        counts[key] = counts.get(key, 0) + 1
    counts["not-ok"] = sum(1 for r in results if not ok(r))
    counts["entries"] = len(results)
    return counts


def summary_line(results: list[Result]) -> str:
    c = summary(results)
    extra = f", {c['error']} error" if c.get("error") else ""
    return (f"{c['entries']} entries: {c['reproduced']} reproduced, {c['erratum']} erratum, "
            f"{c['lab-finding']} lab finding, {c['out-of-scope']} out-of-scope{extra}; {c['not-ok']} not as expected")
