"""The theorem catalogue: every known positive result and refutation of the sources, with the sizes
to machine-check it at. `fairlab prove --catalogue` runs it; the fast entries run in the default
test suite (`tests/search/test_prove.py`), the rest are marked slow.

`run_catalogue` checks the entries: each is a published claim, so its result (kind
``catalogue-entry``) is ``reproduced`` when the first size is decided as the source says,
``erratum`` when it is decided the other way, ``unknown`` otherwise; the sizes checked are in
its ``details``.

`expected` is what the source says; the lab reports what z3 finds. Where they differ the entry
says why (e.g. DRF's population monotonicity needs strictly positive demands: with a zero demand
the lab finds a counterexample at 3 users × 3 resources, so the entry is split in two).

Every `proved` passes `fairlab.search.prove`'s gates, the first being conformance of the spec with the
numeric allocator on a seeded sample. CEEI's default allocator is a certified float
approximation at 4+ users with an irrational optimum, which its exact KKT spec does not describe;
the CEEI entries therefore run with ``method=exact`` (the exact optimum, the mechanism the
sources define), so the gate compares the spec with the exact allocator.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from fairlab import mechanisms
from fairlab.core.domain import Domain, parse
from fairlab.core.errors import InputError
from fairlab.core.names import unknown
from fairlab.core.results import Result, Status
from fairlab.search.proof import ProveBudget, prove


@dataclass(frozen=True)
class Entry:
    mechanism: str
    property: str
    expected: str  # "proved" | "refuted"
    sizes: tuple[tuple[int, int], ...]  # (users, resources), smallest first
    source: str
    fast: tuple[tuple[int, int], ...] = ()  # sizes cheap enough for the default test suite
    positive_demands: bool = False
    note: str = ""
    options: tuple[tuple[str, object], ...] = ()  # mechanism options (allocator and spec alike)

    label: str = ""  # tells apart two entries on the same mechanism and property
    #: the instance domain the claim is about (`fairlab.core.domain.parse`; with `positive_demands`
    #: narrowed to positive demands): the sources' theorems are about unweighted, uncapped instances
    domain: str = "unweighted"

    @builtins.property  # `property` is a field of this class
    def id(self) -> str:
        tail = "+positive" if self.positive_demands else ""
        return f"{self.mechanism}-{self.property}{tail}" + (f"-{self.label}" if self.label else "")

    @builtins.property
    def covers(self) -> Domain:
        """The domain its proofs range over (`domain`, positive demands if it assumes them)."""
        covered = parse(self.domain)
        return covered.intersect(Domain(demands="positive")) if self.positive_demands else covered


EXACT = (("method", "exact"),)  # CEEI's exact allocator (see the module docstring)

GRID = ((2, 2), (2, 3), (3, 2), (3, 3), (4, 2), (4, 3), (3, 4), (4, 4))
#: every size up to 3 x 3, and 4 x 4
WEIGHTED = ((2, 2), (2, 3), (3, 2), (3, 3), (4, 4))
#: one weight per user, no task caps (`fairlab.core.domain.parse`)
SCALAR = "weighted,weights=scalar,caps=none"
EXTENDED = "lecture 'Beyond DRF: zero demands, weights' (Parkes, Procaccia & Shah's extended DRF; lab's reading)"
VECTORS = "DRF paper §4.3 (weighted DRF with weight vectors; the paper states no property of it)"
CAPPED = "task caps (the lab's finite demands) and DRF paper §4.3 weight vectors (no source states it)"

CATALOGUE: tuple[Entry, ...] = (
    # DRF: DRF paper appendix A and Table 2; lecture proofs of proportionality, envy-freeness, truthfulness.
    # si, ef, pe, sp (and bf, srf, pm) up to 4 x 4 with the tasks-normalised encoding (`fairlab.search.proof`,
    # `_drf_normalised`; on positive demands too):
    # each size well under a second (sp 4 x 4 a few seconds: slow tests, tests/search/test_prove_speed.py)
    Entry("drf", "si", "proved", GRID, "DRF paper §6.1 Table 2, appendix A; lecture 'DRF is proportional'",
          fast=GRID),
    Entry("drf", "ef", "proved", GRID, "DRF paper appendix A; lecture 'DRF is envy-free'", fast=GRID),
    Entry("drf", "pe", "proved", GRID, "DRF paper appendix A; lecture 'efficient'", fast=GRID),
    Entry("drf", "sp", "proved", GRID, "DRF paper appendix A; lecture truthfulness proof", fast=GRID[:-1]),
    Entry("drf", "bf", "proved", GRID, "DRF paper §6.1 Table 2", fast=((2, 2),)),
    Entry("drf", "srf", "proved", ((2, 1), (3, 1), (4, 1), (5, 1)), "DRF paper §6.1 Table 2", fast=((2, 1), (3, 1))),
    Entry("drf", "pm", "proved", GRID, "DRF paper §6.1 Table 2 (population monotonicity)",
          fast=((2, 2),), positive_demands=True,
          note="strictly positive demands, as the DRF paper's appendix assumes"),
    Entry("drf", "pm", "refuted", ((3, 2), (3, 3)), "DRF paper §6.1 Table 2, with a zero demand",
          note="with zero demands DRF is not population monotone (found by the lab)", label="zero-demands"),
    # Weighted DRF, one weight per user: the lecture's "zero demands, weights" extension (Parkes,
    # Procaccia & Shah's extended DRF: progressive filling on x_i / w_i; lab's reading, the primary
    # text was not available). The "drf-levels" encoding (`fairlab.search.proof_weights`).
    Entry("drf", "si", "proved", WEIGHTED, EXTENDED, fast=((2, 2), (3, 3)), domain=SCALAR, label="weighted",
          note="weighted si: at least the bundle of weight share w_i / sum_k w_k of every resource"),
    Entry("drf", "ef", "proved", WEIGHTED, EXTENDED, fast=((2, 2), (3, 3)), domain=SCALAR, label="weighted",
          note="weighted ef: no user prefers another's bundle scaled by w_i / w_j"),
    Entry("drf", "pe", "proved", WEIGHTED, EXTENDED, fast=((2, 2), (3, 3)), domain=SCALAR, label="weighted"),
    Entry("drf", "sp", "proved", WEIGHTED, EXTENDED, fast=((2, 2), (3, 3)), domain=SCALAR, label="weighted"),
    # Weighted DRF with weight vectors (DRF paper §4.3, dominant share max_j u_ij / w_ij): the paper
    # states no property of it; the lab's checks, decided by z3 (found by the lab).
    Entry("drf", "si", "refuted", ((2, 2), (3, 3)), VECTORS, fast=((2, 2),), domain="weighted", label="weight-vectors",
          note="with weight vectors DRF does not give every user the bundle of its weight share of each resource "
               "(found by the lab)"),
    Entry("drf", "ef", "proved", ((2, 2), (2, 3), (3, 2), (3, 3)), VECTORS, fast=((2, 2),), domain="weighted",
          label="weight-vectors", note="found by the lab"),
    Entry("drf", "pe", "proved", ((2, 2), (2, 3), (3, 2), (3, 3)), VECTORS, fast=((2, 2),), domain="weighted",
          label="weight-vectors", note="found by the lab"),
    Entry("drf", "sp", "proved", ((2, 2), (2, 3), (3, 2), (3, 3)), VECTORS, fast=((2, 2),), domain="weighted",
          label="weight-vectors", note="found by the lab"),
    # Task caps (how the lab models finite demands) with weight vectors: the whole domain.
    Entry("drf", "pe", "proved", ((2, 2), (3, 3)), CAPPED, fast=((2, 2),), domain="all", label="all",
          note="every cap pattern (which users are capped), weight vectors (found by the lab)"),
    Entry("drf", "sp", "proved", ((2, 2), (3, 3)), CAPPED, fast=((2, 2),), domain="all", label="all",
          note="every cap pattern (which users are capped), weight vectors (found by the lab)"),
    # DRF: group strategyproofness (Parkes, Procaccia & Shah, "Beyond DRF", EC 2012; lab's reading from the reading
    # notes: no coalition in which every member weakly gains and one strictly). Tasks-normalised relaxed encoding
    # (`fairlab.search.proof_drf_gsp`): on positive demands each size in seconds; with a zero demand the lab finds a
    # coalition at 4 x 3 (and proves 2 x 2 .. 3 x 4 and 4 x 2, 5 x 2 with zeros).
    Entry("drf", "gsp", "proved", GRID, "Parkes, Procaccia & Shah, EC 2012 (lab's reading: reading notes)",
          fast=((2, 2), (3, 2)), positive_demands=True, note="strictly positive demands, the DRF paper's domain"),
    Entry("drf", "gsp", "refuted", ((4, 3),), "Parkes, Procaccia & Shah, EC 2012, with zero demands (lab's reading)",
          fast=((4, 3),), label="zero-demands",
          note="with zero demands a coalition gains at 4 x 3 (found by the lab; PPS's own definition of group "
               "strategyproofness was not read)"),
    # CEEI: DRF paper §5.2, §6.1.2.
    Entry("ceei", "si", "proved", GRID, "DRF paper §6.1 Table 2", fast=((2, 2),), options=EXACT),
    Entry("ceei", "ef", "proved", GRID, "DRF paper §5.2 (CEEI is envy-free)", fast=((2, 2),), options=EXACT),
    Entry("ceei", "pe", "proved", GRID, "DRF paper §5.2 (CEEI is Pareto efficient)", fast=((2, 2),), options=EXACT),
    Entry("ceei", "sp", "refuted", ((2, 2),), "DRF paper Theorem 4", fast=((2, 2),), options=EXACT),
    Entry("ceei", "gsp", "refuted", ((2, 2),), "DRF paper Theorem 4 (a coalition of one)", fast=((2, 2),),
          options=EXACT),
    Entry("ceei", "pm", "refuted", ((3, 2),), "DRF paper Theorem 5", options=EXACT,
          note="z3 time varies from 2 to 30 s here; `fairlab search ceei pm -n 3` finds one in < 1 s"),
    # Asset fairness: DRF paper §6.1.1, Table 2.
    Entry("asset", "sp", "proved", GRID, "DRF paper §6.1 Table 2", fast=((2, 2),)),
    Entry("asset", "ef", "proved", GRID, "DRF paper §6.1 Table 2", fast=((2, 2),)),
    Entry("asset", "pe", "proved", GRID, "DRF paper §6.1 Table 2", fast=((2, 2),)),
    Entry("asset", "si", "refuted", ((2, 2),), "DRF paper Theorem 1", fast=((2, 2),)),
    Entry("asset", "bf", "refuted", ((2, 2),), "DRF paper Theorem 2", fast=((2, 2),)),
    # Group strategyproofness of asset fairness: no source claims it (the DRF paper's Table 2 lists asset fairness as
    # strategyproof); the lab's findings, with the tasks-normalised relaxed encoding (`fairlab.search.proof_drf_gsp`).
    Entry("asset", "gsp", "proved", GRID, "found by the lab (the DRF paper §6.1 Table 2 lists asset fairness "
          "strategyproof; coalitions are the lab's question)", fast=((2, 2), (3, 2)), positive_demands=True,
          note="strictly positive demands"),
    Entry("asset", "gsp", "refuted", ((3, 4),), "found by the lab, with zero demands", fast=((3, 4),),
          note="with zero demands a coalition gains at 3 x 4 (proved at 2 x 2 .. 3 x 3 and 4 x 2 with zeros)",
          label="zero-demands"),
    Entry("asset", "rm", "refuted", ((2, 2),), "DRF paper Theorem 3",
          note="the capacity increase is a further unknown: slow for z3; `fairlab search asset rm` finds one in < 1 s"),
    # BMF: Bonald & Roberts §2.1 (the three allocations DRF, PF, BMF are Pareto efficient, offer a
    # sharing incentive and are single-resource fair), §2.4 (BMF is defined by no justified
    # complaints on a bottleneck; it coincides with PF for n = J = 2 "and is therefore not strategyproof").
    Entry("bmf", "si", "proved", ((2, 2), (2, 3), (3, 2)), "Bonald & Roberts §2.1", fast=((2, 2),)),
    Entry("bmf", "pe", "proved", ((2, 2), (2, 3), (3, 2)), "Bonald & Roberts §2.1", fast=((2, 2),)),
    Entry("bmf", "srf", "proved", ((2, 1), (3, 1), (4, 1)), "Bonald & Roberts §2.1", fast=((2, 1),)),
    Entry("bmf", "njc", "proved", ((2, 2), (2, 3), (3, 2)), "Bonald & Roberts §2.4 (BMF's definition)",
          fast=((2, 2),)),
    Entry("bmf", "sp", "refuted", ((2, 2),), "Bonald & Roberts §2.4 (BMF = PF for n = J = 2: not strategyproof)",
          fast=((2, 2),)),
    # BMF: Bonald & Roberts §2.4.
    Entry("bmf", "unique", "proved", ((2, 2), (3, 2), (4, 2), (5, 2)), "Bonald & Roberts §2.4 (two resources)",
          fast=((2, 2),), label="two-resources"),
    Entry("bmf", "unique", "refuted", ((3, 3),), "Bonald & Roberts §2.4 (three resources: a continuum)",
          label="three-resources"),
    Entry("bmf", "same-as:ceei", "proved", ((2, 2),), "Bonald & Roberts §2.4 (BMF = PF for n = J = 2)",
          fast=((2, 2),)),
    # The same claims with weights, where they are proved without (found by the lab: the sources state
    # them unweighted; Bonald & Roberts weigh classes, one weight each). CEEI and asset fairness take one
    # weight per user, BMF weight vectors too.
    Entry("ceei", "si", "proved", ((2, 2),), "DRF paper §6.1 Table 2, weighted", fast=((2, 2),), options=EXACT,
          domain=SCALAR, label="weighted", note="weighted si (found by the lab)"),
    Entry("ceei", "ef", "proved", ((2, 2),), "DRF paper §5.2, weighted", fast=((2, 2),), options=EXACT,
          domain=SCALAR, label="weighted", note="weighted ef (found by the lab)"),
    Entry("ceei", "pe", "proved", ((2, 2),), "DRF paper §5.2, weighted", fast=((2, 2),), options=EXACT,
          domain=SCALAR, label="weighted", note="found by the lab"),
    Entry("asset", "sp", "proved", ((2, 2),), "DRF paper §6.1 Table 2, weighted", fast=((2, 2),), domain=SCALAR,
          label="weighted", note="found by the lab (3 x 3 undecided within the default budget)"),
    Entry("asset", "ef", "proved", ((2, 2),), "DRF paper §6.1 Table 2, weighted", fast=((2, 2),), domain=SCALAR,
          label="weighted", note="found by the lab (3 x 3 undecided within the default budget)"),
    Entry("asset", "pe", "proved", ((2, 2), (3, 3)), "DRF paper §6.1 Table 2, weighted", fast=((2, 2),),
          domain=SCALAR, label="weighted", note="found by the lab"),
    Entry("bmf", "si", "proved", ((2, 2), (2, 3), (3, 2)), "Bonald & Roberts §2.1, weighted", fast=((2, 2),),
          domain="weighted", label="weight-vectors", note="found by the lab"),
    Entry("bmf", "pe", "proved", ((2, 2), (2, 3), (3, 2)), "Bonald & Roberts §2.1, weighted", fast=((2, 2),),
          domain="weighted", label="weight-vectors", note="found by the lab"),
    Entry("bmf", "srf", "proved", ((2, 1), (3, 1)), "Bonald & Roberts §2.1, weighted", fast=((2, 1),),
          domain="weighted", label="weight-vectors", note="found by the lab"),
    Entry("bmf", "njc", "proved", ((2, 2), (3, 2)), "Bonald & Roberts §2.4 (BMF's definition), weighted",
          fast=((2, 2),), domain="weighted", label="weight-vectors", note="found by the lab"),
    Entry("bmf", "unique", "proved", ((2, 2),), "Bonald & Roberts §2.4 (two resources), one weight per class",
          fast=((2, 2),), domain=SCALAR, label="weighted", note="found by the lab"),
    Entry("bmf", "unique", "refuted", ((2, 2), (3, 2)), "Bonald & Roberts §2.4 (two resources), weight vectors",
          fast=((2, 2),), domain="weighted", label="weight-vectors",
          note="with weight vectors two BMF allocations exist already at 2 x 2 (found by the lab)"),
    Entry("bmf", "same-as:ceei", "proved", ((2, 2),), "Bonald & Roberts §2.4 (BMF = PF for n = J = 2), weighted",
          fast=((2, 2),), domain=SCALAR, label="weighted", note="found by the lab"),
)


def entries(mechanism: str | None = None) -> list[Entry]:
    return [e for e in CATALOGUE if mechanism is None or e.mechanism == mechanism]


def get_entry(entry_id: str) -> Entry:
    for e in CATALOGUE:
        if e.id == entry_id:
            return e
    raise InputError(unknown("catalogue entry", entry_id, [e.id for e in CATALOGUE]))


def run_entry(entry: Entry, budget: ProveBudget, fast_only: bool = False,
              progress: Callable[[str], None] | None = None) -> Result | None:
    """The sizes of `entry` in order until one is not decided as expected (None if it has no
    sizes to check, e.g. no fast ones)."""
    sizes = entry.fast if fast_only else entry.sizes
    if not sizes:
        return None
    checked = []
    seconds = 0.0
    for n, m in sizes:
        if progress:
            progress(f"{entry.id} at {n}×{m}")
        proof = prove(mechanisms.get(entry.mechanism), entry.property, n, m, time_limit=budget.seconds,
                      positive_demands=entry.positive_demands, budget=budget, options=dict(entry.options),
                      domain=entry.domain)
        seconds += proof.seconds
        checked.append({"users": n, "resources": m, "status": proof.status, "seconds": round(proof.seconds, 3),
                        "rlimit_spent": proof.budget["rlimit_spent"], "reason": proof.explanation})
        if proof.status != entry.expected:
            break
    as_expected = [c for c in checked if c["status"] == entry.expected]
    largest = max(((c["users"], c["resources"]) for c in as_expected), default=None)
    first = checked[0]["status"]
    status = (Status.REPRODUCED if first == entry.expected else Status.UNKNOWN if first == "unknown"
              else Status.ERRATUM)
    return Result(
        "catalogue-entry", status, mechanism=entry.mechanism, property=entry.property, budget=budget.recorded(),
        seconds=seconds, explanation=f"{entry.source}" + (f" ({entry.note})" if entry.note else ""),
        details={"entry": entry.id, "expected": entry.expected, "source": entry.source, "note": entry.note,
                 "options": dict(entry.options), "positive_demands": entry.positive_demands,
                 "domain": entry.covers.label,
                 "largest": list(largest) if largest else None, "checked": checked,
                 "ok": status == Status.REPRODUCED},
    )


def run_catalogue(time_limit: float, fast_only: bool = False, entries: Iterable[Entry] | None = None,
                  progress: Callable[[str], None] | None = None, rlimit: int | None = None,
                  attempts: int | None = None) -> list[Result]:
    """Every entry (or `entries`) with one proof budget (`rlimit`/`attempts`: the proof schedule,
    default `fairlab.search.proof`'s; `time_limit`: the outer stop per size)."""
    schedule: dict[str, Any] = {"rlimit": rlimit} if rlimit is not None else {}
    if attempts is not None:
        schedule["attempts"] = attempts
    budget = ProveBudget(seconds=float(time_limit), **schedule)
    rows = [run_entry(entry, budget, fast_only, progress) for entry in (entries or CATALOGUE)]
    return [row for row in rows if row is not None]
