"""Rediscover every counterexample of the sources from scratch: the lab's main job.

Each claim names only what the source asserts — a mechanism and a property it fails, or a set of
properties no mechanism can have together — and the size to search at. No instance from a source
appears here: the engines of `fairlab.search.engines` and `fairlab.search.impossibility` must find one, and it may
well differ from the printed one. Findings are shrunk, verified exactly and stored as fixtures.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from fairlab.counterexamples import store
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.search import engines, impossibility


@dataclass(frozen=True)
class Claim:
    id: str
    statement: str
    source: str
    kind: str  # "violation" | "impossibility" | "nonunique"
    mechanism: str = ""
    property: str = ""
    n: int = 2
    m: int = 2
    options: dict = field(default_factory=dict)
    properties: tuple[str, ...] = ()
    indivisible: bool = False
    time_limit: float = 20.0


CLAIMS: tuple[Claim, ...] = (
    Claim("thm1-asset-si", "asset fairness violates sharing incentive", "DRF paper, Theorem 1",
          "violation", "asset", "si"),
    Claim("thm2-asset-bf", "asset fairness violates bottleneck fairness", "DRF paper, Theorem 2",
          "violation", "asset", "bf"),
    Claim("thm3-asset-rm", "asset fairness violates resource monotonicity", "DRF paper, Theorem 3",
          "violation", "asset", "rm"),
    Claim("thm4-ceei-sp", "CEEI is not strategyproof", "DRF paper, Theorem 4",
          "violation", "ceei", "sp"),
    Claim("thm5-ceei-pm", "CEEI violates population monotonicity", "DRF paper, Theorem 5",
          "violation", "ceei", "pm", n=3),
    Claim("thm6-si-pe-rm", "no mechanism has sharing incentive, Pareto efficiency and resource monotonicity",
          "DRF paper, Theorem 6", "impossibility", properties=("si", "pe", "rm")),
    Claim("bmf-nonunique", "BMF allocations need not be unique with three resources",
          "Bonald & Roberts, §2.4", "nonunique", "bmf", n=3, m=3),
    Claim("pf-sp", "proportional fairness (so BMF for two users on two resources) is not strategyproof",
          "Bonald & Roberts, §2.3-2.4", "violation", "pf", "sp"),
    Claim("drf-tasks-pe", "the DRF task loop that stops at the first blocked task is not Pareto efficient",
          "Metin, PDRF §6.2", "violation", "drf-tasks", "pe", options={"on_blocked": "stop"}),
    Claim("indivisible-si-pe-sp", "with indivisible tasks no mechanism is sharing-incentive, Pareto efficient "
          "and strategyproof", "lecture, after Parkes, Procaccia & Shah", "impossibility",
          properties=("si", "pe", "sp"), indivisible=True),
)


#: deterministic budget of the non-uniqueness hunt: candidates, and z3 units per symbolic question
NONUNIQUE_CANDIDATES = 20_000
NONUNIQUE_RLIMIT = 5_000_000


def claim_ids() -> list[str]:
    return [c.id for c in CLAIMS]


def get_claim(claim_id: str) -> Claim:
    for c in CLAIMS:
        if c.id == claim_id:
            return c
    raise InputError(f"claim {claim_id!r}: unknown (known: {', '.join(claim_ids())})")


@dataclass
class Outcome:
    claim: Claim
    status: str  # "found" | "not-found"
    seconds: float
    instance: dict | None = None
    witness: dict | None = None
    fixture: str | None = None
    engine: str | None = None
    summary: str = ""
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "claim": self.claim.id,
            "statement": self.claim.statement,
            "source": self.claim.source,
            "status": self.status,
            "seconds": round(self.seconds, 3),
            "engine": self.engine,
            "instance": self.instance,
            "witness": self.witness,
            "fixture": self.fixture,
            "summary": self.summary,
            "notes": self.notes,
        }


def _fixture_path(path) -> str:
    from pathlib import Path

    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def run_claim(claim: Claim, seed: int = 0, time_limit: float | None = None, write: bool = True,
              directory=None, progress: Callable | None = None, engines_used=None) -> Outcome:
    """Run one claim's search from scratch; `engines_used` restricts the portfolio (default all)."""
    limit = claim.time_limit if time_limit is None else time_limit
    start = time.monotonic()
    if claim.kind == "impossibility":
        return _impossibility(claim, limit, start, write, directory, progress)
    if claim.kind == "nonunique":
        return _nonunique(claim, seed, limit, start, write, directory, progress, engines_used)
    from fairlab import mechanisms
    mech = mechanisms.get(claim.mechanism)
    hunt = engines.search(mech, claim.property, claim.n, claim.m, engines=engines_used, time_limit=limit, seed=seed,
                          options=claim.options, progress=progress)
    seconds = time.monotonic() - start
    if hunt.status != "violated":
        return Outcome(claim, "not-found", seconds, notes=hunt.notes)
    fixture = None
    record = violation_record(claim.mechanism, claim.property, hunt, seed, claim.options, claim.id)
    if write:
        path, _ = store.save(record, directory)
        fixture = _fixture_path(path)
    return Outcome(claim, "found", seconds, hunt.instance.to_dict(), hunt.verdict.witness.to_dict(), fixture, hunt.engine,
                   hunt.verdict.explanation, hunt.notes)


def violation_record(mechanism: str, prop: str, hunt: engines.Hunt, seed: int, options: dict, claim: str | None):
    from fairlab import mechanisms
    discrete = mechanisms.get(mechanism).discrete
    return {
        "kind": "violation",
        "claim": claim,
        "mechanism": mechanism,
        "options": options,
        "property": prop,
        "instance": hunt.instance.to_dict(),
        "witness": hunt.verdict.witness.to_dict(),
        "explanation": hunt.verdict.explanation,
        "engine": hunt.engine,
        "seed": seed,
        "seconds": round(hunt.seconds, 3),
        "evaluated": hunt.evaluated,
        "found_instance": hunt.original.to_dict() if hunt.original else None,
        "shrink_steps": hunt.shrink_steps,
        "minimality": store.minimality(hunt.instance),
        "canonical_hash": store.canonical_hash(mechanism, prop, hunt.instance, rescale_rows=not discrete),
        "provenance": "found from scratch by fairlab's search engines, shrunk and verified exactly",
    }


def _impossibility(claim, limit, start, write, directory, progress) -> Outcome:
    result = impossibility.search(claim.properties, indivisible=claim.indivisible, time_limit=limit,
                                  progress=(lambda k: progress("families", k)) if progress else None)
    seconds = time.monotonic() - start
    if result.status != "found":
        return Outcome(claim, "not-found", seconds, notes=[result.explanation])
    found = result.certificate
    base = found["family"].base
    name = "+".join(claim.properties) + ("-indivisible" if claim.indivisible else "")
    record = {
        "kind": "impossibility",
        "claim": claim.id,
        "mechanism": "any",
        "property": name,
        "properties": list(claim.properties),
        "indivisible": claim.indivisible,
        "instance": base.to_dict(),
        "family": found["family"].to_dict(),
        "core": found["core"],
        "controls": found["controls"],
        "control_models": found["control_models"],
        "engine": "impossibility",
        "seed": None,
        "seconds": round(result.seconds, 3),
        "families_tried": result.details["families_tried"],
        "minimality": store.minimality(base),
        "canonical_hash": store.family_hash(name, base),
        "provenance": "found from scratch by fairlab's ∃∀ impossibility search; unsat core and positive controls by z3",
    }
    fixture = None
    if write:
        path, _ = store.save(record, directory)
        fixture = _fixture_path(path)
    witness = {"family": [m["label"] for m in record["family"]], "core": found["core"], "controls": found["controls"]}
    return Outcome(claim, "found", seconds, base.to_dict(), witness, fixture, "impossibility", result.explanation)


def _nonunique(claim, seed, limit, start, write, directory, progress, engines_used=None) -> Outcome:
    from fairlab import mechanisms
    from fairlab.mechanisms import bmf

    mech = mechanisms.get(claim.mechanism)

    def violates(inst: Instance):
        try:
            result = bmf.uniqueness(inst)
        except Exception:  # solver undecided on this candidate: skip it, never count it
            return None
        return result if result.unique is False else None

    def goal(sym):
        import z3

        from fairlab.mechanisms.base import Constraint

        t1 = [z3.Real(f"a{i}") for i in range(sym.n)]
        t2 = [z3.Real(f"b{i}") for i in range(sym.n)]
        return [*mech.spec(sym, t1), *mech.spec(sym, t2),
                Constraint("two different allocations", z3.Or([x != y for x, y in zip(t1, t2)]))]

    deadline = time.monotonic() + limit
    notes: list = []
    # Non-uniqueness needs degenerate (tied) instances: the grid of small integers is where the
    # readable ones are, so it goes first and gets most pulls; z3's models of the condition are
    # valid but rarely shrink to small integers.
    pool = {
        "grid": engines.space.grid(claim.n, claim.m),
        "symbolic": engines.symbolic_candidates(goal, claim.n, claim.m, notes, rlimit=NONUNIQUE_RLIMIT, seed=seed,
                                                deadline=deadline),
        "random": engines.space.random_instances(claim.n, claim.m, seed=seed),
    }
    pool = {k: v for k, v in pool.items() if k in (engines_used or engines.ENGINES)}

    def classify(inst: Instance):
        found = violates(inst)
        return ("violated", found) if found is not None else ("evaluated", None)

    # deterministic budget: a candidate count and z3's rlimit; the time limit only stops
    hunt = engines.hunt(pool, classify, NONUNIQUE_CANDIDATES, weights={"grid": 500}, deadline=deadline,
                        progress=progress)
    seconds = time.monotonic() - start
    if hunt.status != "violated":
        return Outcome(claim, "not-found", seconds, notes=notes + hunt.notes)
    from fairlab.search.shrink import shrink

    hunt.original = hunt.instance
    hunt.instance, hunt.verdict, hunt.shrink_steps, _, _ = shrink(hunt.instance, hunt.verdict, violates,
                                                                  deadline=deadline, min_users=2)
    allocations = [[store._jsonify(x) for x in a] for a in hunt.verdict.allocations]
    witness = {"allocations": allocations}
    record = {
        "kind": "nonunique",
        "claim": claim.id,
        "mechanism": claim.mechanism,
        "property": "unique",
        "instance": hunt.instance.to_dict(),
        "witness": witness,
        "explanation": hunt.verdict.reason,
        "engine": hunt.engine,
        "seed": seed,
        "seconds": round(seconds, 3),
        "evaluated": hunt.evaluated,
        "found_instance": hunt.original.to_dict(),
        "shrink_steps": hunt.shrink_steps,
        "minimality": store.minimality(hunt.instance),
        "canonical_hash": store.canonical_hash(claim.mechanism, "unique", hunt.instance),
        "provenance": "found from scratch by fairlab's search engines; both allocations checked BMF exactly",
    }
    fixture = None
    if write:
        path, _ = store.save(record, directory)
        fixture = _fixture_path(path)
    return Outcome(claim, "found", seconds, hunt.instance.to_dict(), witness, fixture, hunt.engine,
                   f"two BMF allocations {allocations[0]} and {allocations[1]}", notes)
