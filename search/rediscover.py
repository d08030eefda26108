"""Rediscover every counterexample of the sources from scratch: the lab's main job.

Each claim names only what the source asserts — a mechanism and a property it fails, or a set of
properties no mechanism can have together — and the size to search at. No instance from a source
appears here: the engines of `fairlab.search.engines` and `fairlab.search.impossibility` must find one, and it may
well differ from the printed one. Findings are shrunk, verified exactly and stored as fixtures in
the user's store (`fairlab.search.findings.record_finding`; never inside the package).

Each claim ends in one `Result` of kind ``rediscovery``: ``found`` or ``not-found``, the instance
and witness found, the claim in its ``details`` (with the fixture written, if any); an
impossibility's family, unsat core and positive controls are its ``certificate``.

A claim about a source's own statement has no ``reading``; a claim about the lab's READING of a source
(a mechanism the source only names, a property read another way, another valuation model than the
paper's) names that reading (``Claim.reading``, in the result's ``details["reading"]``): finding it is a
lab finding about the reading, never a refutation of the source (the paper-check ledger's wording rule).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Callable

import z3

from fairlab import mechanisms
from fairlab.core.domain import ALL, Domain, DomainLike
from fairlab.core.domain import parse as parse_domain
from fairlab.core.domain import record as domain_record
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.core.names import unknown
from fairlab.core.results import Result, Status
from fairlab.counterexamples.store import Store
from fairlab.mechanisms import bmf
from fairlab.mechanisms.base import Constraint
from fairlab.search import engines, impossibility, lift_coverage, space
from fairlab.search.findings import record_finding, writable_store
from fairlab.search.shrink import shrink


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
    #: the claim's wall-clock safety net (seconds): far above what its counted search costs (the
    #: sources' counterexamples are found in seconds); a search it stops is
    #: ``unknown (wall-clock safety net)``, never ``not-found``
    time_limit: float = 600.0
    #: relative cost of one run (seconds measured side by side, `benchmarks/bench_rediscover.py`): the
    #: campaign starts the costliest claims first so that two workers end together (longest processing
    #: time first). Scheduling only: a claim's result never depends on it
    cost: float = 0.5
    #: the lab's reading the claim is about ("" for a source's own statement): a lab finding, not the source's
    reading: str = ""


CLAIMS: tuple[Claim, ...] = (
    Claim("thm1-asset-si", "asset fairness violates sharing incentive", "DRF paper, Theorem 1",
          "violation", "asset", "si"),
    Claim("thm2-asset-bf", "asset fairness violates bottleneck fairness", "DRF paper, Theorem 2",
          "violation", "asset", "bf"),
    Claim("thm3-asset-rm", "asset fairness violates resource monotonicity", "DRF paper, Theorem 3",
          "violation", "asset", "rm"),
    Claim("thm4-ceei-sp", "CEEI is not strategyproof", "DRF paper, Theorem 4",
          "violation", "ceei", "sp", cost=5.0),
    Claim("thm5-ceei-pm", "CEEI violates population monotonicity", "DRF paper, Theorem 5",
          "violation", "ceei", "pm", n=3, cost=6.5),
    Claim("thm6-si-pe-rm", "no mechanism has sharing incentive, Pareto efficiency and resource monotonicity",
          "DRF paper, Theorem 6", "impossibility", properties=("si", "pe", "rm")),
    Claim("bmf-nonunique", "BMF allocations need not be unique with three resources",
          "Bonald & Roberts, §2.4", "nonunique", "bmf", n=3, m=3, cost=6.5),
    Claim("pf-sp", "proportional fairness (so BMF for two users on two resources) is not strategyproof",
          "Bonald & Roberts, §2.3-2.4", "violation", "pf", "sp", cost=11.0),
    Claim("drf-tasks-pe", "the DRF task loop that stops at the first blocked task is not Pareto efficient",
          "Metin, PDRF §6.2", "violation", "drf-tasks", "pe", options={"on_blocked": "stop"}),
    Claim("drf-machines-thm7", "on several machines DRF's discrete placement can end more than one max-task from "
          "continuous DRF on the pooled capacities (Theorem 7 read against continuous DRF; the lab's reading)",
          "DRF paper, §6.2 Theorem 7 (several machines)", "violation", "drf-machines", "thm7-continuous",
          reading="Theorem 7 read per user against continuous DRF on the pooled capacities (the paper states it "
                  "pairwise, which holds)"),
    Claim("indivisible-si-pe-sp", "with indivisible tasks no mechanism is sharing-incentive, Pareto efficient "
          "and strategyproof", "lecture, after Parkes, Procaccia & Shah", "impossibility",
          properties=("si", "pe", "sp"), indivisible=True),
    Claim("sequential-minmax-sp", "SequentialMinMax (Pareto optimal on whole tasks) pays the indivisibility "
          "impossibility with strategyproofness (the lab's reading of the mechanism)",
          "lecture, after Parkes, Procaccia & Shah", "violation", "sequential-minmax", "sp",
          reading="SequentialMinMax as the reading notes give it: one task at a time to the user whose dominant "
                  "share after it is smallest, among those whose next task fits"),
    Claim("drfh-si", "DRFH on heterogeneous servers does not guarantee sharing incentive (its abstract claims "
          "envy-freeness, Pareto optimality and truthfulness, not sharing incentive; lab's reading)",
          "Wang, Li & Liang (INFOCOM 2014) via the reading notes", "violation", "drfh", "machines-si",
          reading="DRFH as the leximin of global dominant shares, tasks divisible within a server; sharing "
                  "incentive as 1/n of every server"),
    Claim("random-dictatorship-pe", "uniform random dictatorship on several machines is Pareto efficient ex post but "
          "not ex ante: another lottery raises some user's expected tasks and lowers nobody's (the comparator of the "
          "randomized KS mechanism, which is; lab's reading)",
          "lecture, after Friedman, Ghodsi & Psomas (EC 2014), via the reading notes", "violation",
          "random-dictatorship", "machines-pe", m=1,
          reading="uniform random dictatorship over the users' orders, each dictator taking the most tasks it can"),
    Claim("ks-lottery-ef", "in the lab's POOLED reading (another user's bundle pooled per machine; not Friedman, "
          "Ghodsi & Psomas's containers model, in which it is envy-free ex ante), the randomized Kalai–Smorodinsky "
          "mechanism on several machines (lab's reading) is not envy-free ex ante: on the instance found no lottery "
          "reaching its leximin is",
          "lecture, after Friedman, Ghodsi & Psomas (EC 2014), via the reading notes", "violation",
          "ks-lottery", "machines-ef", n=3, m=1, options={"model": "pooled"},
          reading="the randomized KS mechanism as the lab reads it, judged in the pooled valuation model (asked with "
                  "model=pooled), not the paper's containers"),
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
    raise InputError(unknown("claim", claim_id, claim_ids()))


def _result(claim: Claim, status, seconds: float, notes: list, **fields) -> Result:
    details = {"claim": claim.id, "statement": claim.statement, "source": claim.source, "claim_kind": claim.kind,
               **({"reading": claim.reading} if claim.reading else {}),
               "engine": fields.pop("engine", None), "notes": notes, **fields.pop("details", {})}
    prop = claim.property or ("unique" if claim.kind == "nonunique" else "+".join(claim.properties))
    details["lifting"] = lift_coverage.for_claim(claim.id)  # the sizes its shipped fixture lifts to, and how
    return Result("rediscovery", status, mechanism=claim.mechanism or "any", property=prop, seconds=seconds,
                  details=details, **fields)


def stopped(claim: Claim, seconds: float, notes: list, budget: dict | None = None, **fields) -> Result:
    """The claim's search was stopped by the wall-clock safety net before its counted budget was spent:
    ``unknown (wall-clock safety net)``, not a ``not-found`` (nothing was decided)."""
    return _result(claim, Status.UNKNOWN, seconds, notes, budget={**(budget or {}), "stopped": "time"},
                   **{"details": {"fixture": None}, **fields})


def not_found(claim: Claim, seconds: float, notes: list) -> Result:
    """The claim's result when its search ended without a finding (`notes` say why)."""
    return _result(claim, Status.NOT_FOUND, seconds, notes, details={"fixture": None})


def run_claim(claim: Claim, seed: int = 0, time_limit: float | None = None,
              store: Store | str | os.PathLike | None = None, progress: Callable | None = None,
              engines_used=None, domain: DomainLike = None) -> Result:
    """Run one claim's search from scratch; `engines_used` restricts the portfolio (default all).
    `domain` (`fairlab.core.domain.parse`, default ``all``): the search explores it (∩ the
    mechanism's declared domain), and the result records it: a claim whose counterexample lies
    outside it is not found there. A finding is stored in `store` (a `Store` or folder) if one is
    given, else nothing is written."""
    asked = parse_domain(domain)
    if store is not None:
        store = writable_store(store)  # a bad store: one line before any search
    limit = claim.time_limit if time_limit is None else time_limit
    start = time.monotonic()
    if claim.kind == "impossibility":
        result, mech = _impossibility(claim, limit, start, progress, asked), None
        result = result.replace(domain=domain_record(asked, ALL))
    elif claim.kind == "nonunique":
        mech = mechanisms.get(claim.mechanism)
        result = _nonunique(claim, seed, limit, start, progress, engines_used, asked.intersect(mech.domain))
        result = result.replace(domain=domain_record(asked, mech.domain))
    else:
        mech = mechanisms.get(claim.mechanism)
        found = engines.search(mech, claim.property, claim.n, claim.m, engines=engines_used, time_limit=limit,
                               seed=seed, options=claim.options, progress=progress, domain=asked)
        seconds = time.monotonic() - start
        if found.status == "unknown" and found.stopped_by_safety_net():
            result = stopped(claim, seconds, found.details["notes"], dict(found.budget), domain=found.domain)
        elif found.status != "violated":
            result = _result(claim, Status.NOT_FOUND, seconds, found.details["notes"], budget=found.budget,
                             domain=found.domain)
        else:
            result = _result(claim, Status.FOUND, seconds, found.details["notes"], engine=found.details["engine"],
                             instance=found.instance, witness=found.witness, explanation=found.explanation,
                             exactness=found.exactness, budget=found.budget, domain=found.domain,
                             details={k: found.details[k] for k in ("evaluated", "found_instance", "shrink_steps",
                                                                     "options", "model") if k in found.details})
    if store is not None and result.status == "found":
        return record_finding(result, mech, store, claim=claim.id)
    return result.replace(details={**result.details, "fixture": None})


def _impossibility(claim: Claim, limit: float, start: float, progress: Callable | None, domain: Domain) -> Result:
    found = impossibility.search(claim.properties, indivisible=claim.indivisible, time_limit=limit,
                                 progress=(lambda k: progress("families", k)) if progress else None, domain=domain)
    seconds = time.monotonic() - start
    parts = _impossibility_parts(found)
    details = {"properties": list(claim.properties), "indivisible": claim.indivisible,
               "families_tried": parts["families_tried"]}
    if parts["status"] == "unknown" and found.stopped_by_safety_net():
        return stopped(claim, seconds, [f"stopped by the wall-clock safety net after {parts['families_tried']} "
                                        "families"], dict(found.budget), details=details)
    if parts["status"] != "found":
        return _result(claim, Status.NOT_FOUND, seconds,
                       [f"{parts['status']} after {parts['families_tried']} families"], details=details)
    certificate = {"family": parts["family"], "core": parts["core"], "controls": parts["controls"],
                   "control_models": parts["control_models"]}
    name = "+".join(claim.properties) + ("-indivisible" if claim.indivisible else "")
    witness = {"family": [m.label for m in parts["family"].members], "core": parts["core"],
               "controls": parts["controls"]}
    result = _result(claim, Status.FOUND, seconds, [], engine="impossibility", instance=parts["family"].base,
                     witness=witness, certificate=certificate, explanation=impossibility.describe(found),
                     details=details)
    return result.replace(property=name)


def _impossibility_parts(found: Result) -> dict:
    """The fields of `fairlab.search.impossibility.search`'s Result (family, core and controls are
    its certificate)."""
    cert = found.certificate or {}
    return {"status": str(found.status), "family": cert.get("family"), "core": list(cert.get("core", [])),
            "controls": dict(cert.get("controls", {})), "control_models": dict(cert.get("control_models", {})),
            "families_tried": found.details.get("families_tried")}


def _nonunique(claim: Claim, seed: int, limit: float, start: float, progress: Callable | None,
               engines_used=None, domain: Domain = ALL) -> Result:
    mech = mechanisms.get(claim.mechanism)

    def violates(inst: Instance):
        try:
            found = bmf.uniqueness(inst)
        except Exception:  # solver undecided on this candidate: skip it, never count it
            return None
        if found.unique is not False:
            return None
        allocations = [list(a) for a in found.allocations]
        return Result("check", Status.VIOLATED, mechanism=claim.mechanism, property="unique", instance=inst,
                      witness={"allocations": allocations}, explanation=found.reason)

    own_spec = mech.spec
    assert own_spec is not None  # a non-uniqueness claim is about a mechanism with a spec (bmf)

    def goal(sym):
        t1 = [z3.Real(f"a{i}") for i in range(sym.n)]
        t2 = [z3.Real(f"b{i}") for i in range(sym.n)]
        return [*own_spec(sym, t1), *own_spec(sym, t2),
                Constraint("two different allocations", z3.Or([x != y for x, y in zip(t1, t2)]))]

    deadline = time.monotonic() + limit
    notes: list = []
    # Non-uniqueness needs degenerate (tied) instances: the grid of small integers is where the
    # readable ones are, so it goes first and gets most pulls, every unweighted uncapped instance
    # before the weighted and capped ones (`space.plain_first`); z3's models of the condition
    # are valid but rarely shrink to small integers.
    pool = {
        "grid": space.plain_first(claim.n, claim.m, domain=domain),
        "symbolic": engines.symbolic_candidates(goal, claim.n, claim.m, notes, rlimit=NONUNIQUE_RLIMIT, seed=seed,
                                                deadline=deadline),
        "random": space.random_instances(claim.n, claim.m, seed=seed, domain=domain),
    }
    pool = {k: v for k, v in pool.items() if k in (engines_used or engines.ENGINES)}

    def classify(inst: Instance):
        outside = domain.contains(inst)
        if outside is not None:  # a symbolic model outside the domain: skipped, never evaluated
            return "outside", outside
        found = violates(inst)
        return ("violated", found) if found is not None else ("evaluated", None)

    # deterministic budget: a candidate count and z3's rlimit; the time limit only stops
    hit = engines.hunt(pool, classify, NONUNIQUE_CANDIDATES, weights={"grid": 500}, deadline=deadline,
                       progress=progress)
    if hit.status == "unknown" and hit.stopped_by_safety_net():
        return stopped(claim, time.monotonic() - start, notes + hit.details["notes"], dict(hit.budget))
    if hit.status != "violated":
        return _result(claim, Status.NOT_FOUND, time.monotonic() - start, notes + hit.details["notes"],
                       budget=hit.budget)
    small, verdict, steps, _, _ = shrink(hit.instance, hit, violates, deadline=deadline, min_users=2, domain=domain)
    first, second = verdict.witness["allocations"]
    return _result(claim, Status.FOUND, time.monotonic() - start, notes, engine=hit.details["engine"],
                   instance=small, witness=verdict.witness, budget={**hit.budget, "seed": seed},
                   explanation=f"two BMF allocations {_compact(first)} and {_compact(second)}: {verdict.explanation}",
                   details={"evaluated": hit.details["evaluated"], "found_instance": hit.instance,
                            "shrink_steps": steps})


def _compact(allocation) -> str:
    return "[" + ", ".join(str(x) for x in allocation) + "]"
