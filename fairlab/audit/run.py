"""The audit of one mechanism: every property of the registry, at every size up to N × M.

Per size, smallest first (``sizes_up_to``), and per property still open:

1. a **proof** (`fairlab.search.proof.prove`) when the mechanism has a symbolic spec and is not
   discrete: its four gates (conformance of spec and allocator on a seeded sample, a satisfiable
   spec, a core that uses the property, a positive control) stand before any ``proved``; a
   refutation is confirmed exactly on the allocator;
2. the **search** portfolio (`fairlab.search.engines.search`: symbolic, grid and random engines)
   unless the size is already proved for the mechanism itself (a built-in: a plug-in's proof
   covers only its declared spec, so its allocator is searched too);

and before the sizes, the exact check of the **shipped examples** that fit in N × M. The first
violation of a property (the smallest size, then shrunk and re-verified exactly like every search
finding) decides it: larger sizes of that property are not run. A property is then

* ``violated`` — the smallest counterexample (instance, typed witness, the witness in words);
* ``proved`` — proved for every demand profile (unit weights, no task caps) at the sizes listed in
  ``proved_sizes`` (a search's ``holds`` at a size is such a proof too);
* ``none-found`` — no violation among the candidates evaluated (counted per size);
* ``n/a`` — the mechanism declined every instance it was given (its reason);
* ``unknown`` — nothing decided within the budget;
* ``error`` — the mechanism (a plug-in) raised on an instance: the smallest crashing instance found
  (shrunk like a counterexample), the exception and the plug-in's own file:line; nothing is stored,
  and the other properties go on.

Everything runs on one instance domain (`fairlab.core.domain`, ``domain=``; default ``all``) ∩
the mechanism's declared one: the examples outside it are skipped, the proofs and searches get it,
shrinking never leaves it, and each property's result records it (a ``proved`` the unit-weight,
uncapped sub-domain its encodings cover). `audit_domains` gives one profile per asked domain.

Budgets are deterministic: candidates per size and property, z3 resource limits, the proof
schedule, the seed. ``time_limit`` is the outer stop of the whole audit: what it cuts short is
``unknown`` with ``"stopped": "time"``.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import shlex
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from fairlab import mechanisms, properties
from fairlab.audit import reference
from fairlab.audit.allocations import involved_allocations
from fairlab.core.domain import ALL, Domain
from fairlab.core.domain import parse as parse_domain
from fairlab.core.domain import record as domain_record
from fairlab.core.errors import ExactTimeout, InputError
from fairlab.core.instance import Instance, examples
from fairlab.core.progress import Unit
from fairlab.core.results import Result, Status, provenance, to_dict
from fairlab.core.solving import DEFAULT_RLIMIT
from fairlab.core.stdio import printable
from fairlab.counterexamples.store import FixtureRefused, Store
from fairlab.mechanisms import plugin
from fairlab.mechanisms.base import Mechanism, MechanismLike
from fairlab.mechanisms.plugin import PluginTimeout
from fairlab.mechanisms.registry import is_builtin
from fairlab.search import engines, proof
from fairlab.search.budgets import CHECK_EVALUATIONS, CHECK_RLIMIT, SHRINK_TRIALS
from fairlab.search.findings import prepare_finding, writable_store
from fairlab.search.proof_domain import ENCODED
from fairlab.search.verify import plugin_identity

#: search candidates per size and property (the deterministic search budget of an audit)
AUDIT_CANDIDATES = 100
#: the whole audit's outer stop (seconds)
AUDIT_TIME_LIMIT = 900.0
#: outer stops of one proof and one search inside an audit (seconds; the audit's clock bounds both)
PROOF_SECONDS = 60.0
SEARCH_SECONDS = 120.0
#: the largest audit size (exact search and proofs beyond it are out of reach)
MAX_USERS, MAX_RESOURCES = 6, 6

Size = tuple[int, int]


def sizes_up_to(users: int, resources: int) -> list[Size]:
    """Every size 1..users × 1..resources, smallest first (fewest demand entries, then fewest users):
    the first size at which a violation turns up is the smallest that has one."""
    for label, value, top in (("--users", users, MAX_USERS), ("--resources", resources, MAX_RESOURCES)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
            raise InputError(f"{label}: expected an integer from 1 to {top}, got {value!r}")
    return sorted(((n, m) for n in range(1, users + 1) for m in range(1, resources + 1)),
                  key=_order)


def _order(size: Size) -> tuple:
    return (size[0] * size[1], size[0], size[1])


def _plainness(instance: Instance) -> tuple:
    """Smaller is plainer: fewer users and resources, smaller integers, unit weights and no caps."""
    numbers = [x for row in instance.demands for x in row] + list(instance.capacities)
    return (_order((instance.n, instance.m)), instance.weights_given != "none",
            any(t is not None for t in instance.max_tasks), max(numbers), sum(numbers))


def size_text(size: Sequence[int]) -> str:
    return f"{size[0]}×{size[1]}"


@dataclass(frozen=True)
class AuditBudget:
    """What decides an audit's verdicts (all deterministic) and its outer stop."""

    candidates: int = AUDIT_CANDIDATES
    rlimit: int = DEFAULT_RLIMIT
    proof_rlimit: int = proof.DEFAULT_RLIMIT
    proof_attempts: int = proof.DEFAULT_ATTEMPTS
    seed: int = 0
    time_limit: float = AUDIT_TIME_LIMIT
    #: the asked instance domain (the engines explore it ∩ the mechanism's declared one)
    domain: Domain = ALL
    #: prove a plug-in's declared spec too (a built-in's spec is always proved): such a proof is about
    #: the spec, not the plug-in's code, so its status rests on the search either way
    prove_spec: bool = False

    def __post_init__(self):
        for label, value in (("candidates", self.candidates), ("rlimit", self.rlimit),
                             ("proof_rlimit", self.proof_rlimit), ("proof_attempts", self.proof_attempts)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"{label}: expected a positive integer, got {value!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise InputError(f"seed: expected a non-negative integer, got {self.seed!r}")
        try:
            seconds = float(self.time_limit)
        except (TypeError, ValueError):
            seconds = float("nan")
        if not 0 < seconds < 1e8:
            raise InputError(f"time limit: must be a finite positive number of seconds, got {self.time_limit!r}")

    def recorded(self) -> dict:
        return {"candidates": self.candidates, "rlimit": self.rlimit, "proof_rlimit": self.proof_rlimit,
                "proof_attempts": self.proof_attempts, "seed": self.seed, "time_limit": float(self.time_limit),
                "prove_spec": self.prove_spec}


@dataclass
class _Property:
    """What the audit learned about one property so far."""

    name: str
    sizes: list[dict] = field(default_factory=list)
    examples: list[dict] = field(default_factory=list)
    violation: Result | None = None  # the smallest verified counterexample (search-shaped Result)
    found_by: str | None = None
    proofs: dict = field(default_factory=dict)  # size -> proof Result that proved it
    seconds: float = 0.0
    allocations: list = field(default_factory=list)  # those the kept violation involves
    notes: list = field(default_factory=list)
    refused: list = field(default_factory=list)  # findings that did not re-verify (never reported)
    prepared: tuple | None = None  # the kept finding's fixture record and receipt, for the store
    fixture: str | None = None  # where it was stored
    crash: Result | None = None  # the smallest instance the mechanism raised on (an ``error`` result)

    def offer_crash(self, found: Result) -> None:
        """Keep the crash `found` if it is the first or plainer than the one kept (never stored)."""
        if self.crash is None or _plainness(found.instance) < _plainness(self.crash.instance):
            self.crash = found

    @property
    def open(self) -> bool:
        return self.violation is None

    def offer(self, finding: Result, how: str, mech: Mechanism, options: dict, store: Store | None) -> bool:
        """Keep `finding` if it is the first or plainer than the one kept (`_plainness`): re-verified
        from scratch once more for the store and its allocations drawn now, while the audit's time
        lasts. One that does not re-verify is not kept."""
        if self.violation is not None and _plainness(finding.instance) >= _plainness(self.violation.instance):
            return True
        self.notes = []
        try:
            # re-verified from scratch now (written to the store only when the whole audit succeeded)
            self.prepared = prepare_finding(finding, mech) if store is not None else None
            self.allocations = involved_allocations(mech, self.name, finding.instance, finding.witness, options)
        except FixtureRefused as exc:  # it did not re-verify: no claim rests on it
            self.refused.append(str(exc))
            return False
        except (PluginTimeout, ExactTimeout) as exc:  # the time limit: the verified finding stands
            self.allocations = []
            self.prepared = None
            self.notes = [f"{'not stored, ' if store is not None else ''}its allocations not drawn: the time "
                          f"limit came first ({exc})"]
        self.violation, self.found_by = finding, how
        return True

    def needs(self, size: Size) -> bool:
        """Whether `size` is still worth auditing: nothing violated yet, or only an example (shrunk)
        not smaller than `size` — a smaller (or, at its size, a plainer: unit weights, no caps)
        counterexample may exist there."""
        if self.violation is None:  # a crash alone decides nothing: a violation (the answer) may still exist
            return True
        if self.found_by != "example":
            return False
        small = self.violation.instance  # at the example's own size too: a search's finding is plainer
        return _order(size) <= _order((small.n, small.m))


class _Clock:
    def __init__(self, seconds: float):
        self.start = time.monotonic()
        self.deadline = self.start + seconds
        self.stopped = False

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def share(self, cap: float) -> float | None:
        """Seconds for the next step (at most `cap`), or None when the audit's time is up."""
        left = self.left()
        if left <= 0.05:
            self.stopped = True
            return None
        return min(cap, left)


# --------------------------------------------------------------------------- the steps
def _vacuous(prop, size: Size) -> str | None:
    """Why `prop` holds at every instance of this size without looking (srf with m > 1, pm with
    one user, ef with one user), or None."""
    why = getattr(prop, "vacuous", None)
    if why is None:
        return None
    n, m = size
    probe = Instance.build([1] * m, [[1] * m for _ in range(n)])
    return why(probe)


def _proves(mech: Mechanism, budget: AuditBudget) -> bool:
    """Whether the audit runs proofs: a built-in's spec always; a plug-in's declared spec only when
    asked (``prove_spec``): its proof is about the spec, not the code, and cannot decide its status."""
    return mech.spec is not None and not mech.discrete and (budget.prove_spec or is_builtin(mech))


def _prove(mech: Mechanism, prop: str, size: Size, options: dict, budget: AuditBudget, clock: _Clock):
    seconds = clock.share(PROOF_SECONDS)
    if seconds is None:
        return None
    try:
        return proof.prove(mech, prop, *size, time_limit=seconds, options=options, rlimit=budget.proof_rlimit,
                           attempts=budget.proof_attempts, domain=budget.domain)
    except InputError as exc:
        # no proof here (the property has no symbolic encoding, the plug-in's spec raised at this
        # size, ...): the search decides this size on the allocator itself, and a broken allocator
        # stops the audit there
        return Result("proof", Status.UNKNOWN, mechanism=mech.name, property=prop,
                      explanation=f"no proof: {exc}", details={"users": size[0], "resources": size[1]})


def _search(mech: Mechanism, prop: str, size: Size, options: dict, budget: AuditBudget, clock: _Clock,
            progress) -> Result | None:
    seconds = clock.share(SEARCH_SECONDS)
    if seconds is None:
        return None
    return engines.search(mech, prop, *size, time_limit=seconds, seed=budget.seed, options=options,
                          candidates=budget.candidates, rlimit=budget.rlimit, progress=progress, domain=budget.domain)


def _classify(mech: Mechanism, prop: str, options: dict, budget: AuditBudget, deadline: float):
    return engines.candidate_check(prop, mech, options, deadline, CHECK_EVALUATIONS, CHECK_RLIMIT, budget.seed,
                                   domain=budget.domain.intersect(mech.domain))


def _as_finding(mech: Mechanism, prop: str, instance: Instance, verdict: Result | None, engine: str, options: dict,
                budget: AuditBudget, clock: _Clock) -> Result | None:
    """A violation found on one instance (an example, a proof's refutation), shrunk like a search
    finding and shaped like one (kind ``search``), so it is stored and re-verified the same way.
    An instance the mechanism raises on gives the shrunk crash instead (status ``error``)."""
    found = Result("search", Status.VIOLATED, mechanism=mech.name, property=prop, instance=instance,
                   witness=getattr(verdict, "witness", None), explanation=getattr(verdict, "explanation", ""),
                   exactness=getattr(verdict, "exactness", None),
                   budget={"seed": budget.seed, "size": size_text((instance.n, instance.m))},
                   details={"engine": engine, "options": options, "users": instance.n, "resources": instance.m})
    classify = _classify(mech, prop, options, budget, clock.deadline)
    kind, payload = classify(instance)
    if kind == "crashed":  # an example the mechanism raised on: a crash, shrunk the same way
        found = found.replace(status=Status.ERROR, witness=None, exactness=None, explanation=str(payload),
                              **engines.crash_fields(payload))
    elif kind != "violated":  # re-checked exactly before anything else (it must be)
        return None
    shrunk, details, tried, note = engines.shrink_with(classify, found, SHRINK_TRIALS, clock.deadline,
                                                       domain=budget.domain.intersect(mech.domain))
    small = shrunk.instance
    return shrunk.replace(details={**found.details, **details, "users": small.n, "resources": small.m,
                                   "notes": [note] if note else []},
                          budget={**found.budget, "shrink_trials_used": tried})


def _check_examples(mech, props: dict[str, _Property], users, resources, options, budget, clock, progress, store):
    """The exact check of every shipped example that fits in users × resources."""
    explored = budget.domain.intersect(mech.domain)
    for name, path in sorted(examples().items()):
        inst = Instance.resolve(path)
        if inst.n > users or inst.m > resources or inst.setting != mech.setting or explored.contains(inst):
            continue  # too large, another setting, or outside the domain audited
        for prop in props.values():
            if clock.share(1.0) is None:
                return
            if progress:
                progress(f"{prop.name}: example {name}")
            start = time.monotonic()
            kind, payload = _classify(mech, prop.name, options, budget, clock.deadline)(inst)
            prop.seconds += time.monotonic() - start
            row = {"example": name, "users": inst.n, "resources": inst.m,
                   "status": {"violated": "violated", "evaluated": payload, "declined": "n/a",
                              "crashed": "error"}.get(kind, "unknown"),
                   "explanation": (payload.explanation if kind == "violated" else str(payload))}
            prop.examples.append(row)
            if kind == "crashed" and prop.open:
                crash = _as_finding(mech, prop.name, inst, None, "example", options, budget, clock)
                if crash is not None:
                    prop.offer_crash(crash)
            if kind == "violated" and prop.open:
                finding = _as_finding(mech, prop.name, inst, payload, "example", options, budget, clock)
                if finding is not None:
                    finding = finding.replace(details={**finding.details, "example": name})  # the report names it
                    prop.offer(finding, "example", mech, options, store)


def _audit_size(mech, prop: _Property, size: Size, options, budget, clock, progress, store) -> None:
    n, m = size
    record: dict[str, Any] = {"users": n, "resources": m, "status": "unknown", "how": None, "candidates": 0,
                              "seconds": 0.0, "explanation": ""}
    prop.sizes.append(record)
    start = time.monotonic()
    try:
        module = properties.get(prop.name)
        vacuous = _vacuous(module, size)
        if vacuous is not None:
            record.update(status="vacuous", how="definition", explanation=vacuous)
            return
        proved_for_mechanism = False
        if _proves(mech, budget):
            if progress:
                progress(f"{prop.name} at {size_text(size)}: proof")
            result = _prove(mech, prop.name, size, options, budget, clock)
            if result is None:
                record.update(explanation="not reached: the audit's time limit", stopped="time")
                return
            record.update(how="proof", status=result.status.value, explanation=printable(result.explanation),
                          scope=result.details.get("scope"))
            if result.status == Status.PROVED:
                prop.proofs[size] = result
                proved_for_mechanism = result.details.get("scope") == "mechanism"
                if not proved_for_mechanism:
                    # a plug-in's proof is about its declared spec, not its code: the size is what
                    # the search of the allocator finds; the spec's proof is recorded beside it
                    record.update(status="unknown", spec_proved=True)
            elif result.status == Status.REFUTED:
                finding = _as_finding(mech, prop.name, Instance.resolve(result.instance), result, "prove",
                                      options, budget, clock)
                if finding is not None and prop.offer(finding, "proof", mech, options, store):
                    record["status"] = "violated"
                    # z3's model shrinks less well than a search finding: the search at this size may
                    # give a plainer counterexample (kept only if it is plainer)
        if proved_for_mechanism:
            return
        if progress:
            progress(f"{prop.name} at {size_text(size)}: search")
        found = _search(mech, prop.name, size, options, budget, clock,
                        (lambda engine, k: progress(f"{prop.name} at {size_text(size)}: {k} candidates ({engine})"))
                        if progress else None)
        if found is None:
            if record["how"] is None:
                record.update(explanation="not reached: the audit's time limit", stopped="time")
            return
        evaluated = sum(found.details.get("evaluated", {}).values())
        record.update(how="proof+search" if record["how"] else "search", candidates=evaluated)
        if found.status == Status.ERROR:  # the mechanism raised: a finding, never stored
            prop.offer_crash(found)
            record.update(status="error", explanation=printable(found.explanation))
        elif found.status == Status.VIOLATED and prop.offer(found, "search", mech, options, store):
            record.update(status="violated", explanation=found.explanation)
        elif found.status == Status.VIOLATED:
            record.update(status="unknown", explanation=f"a violation was found but {prop.refused[-1]}; no verdict")
        elif prop.violation is not None and record["status"] == "violated":
            record["explanation"] += f"; the search at this size found none plainer ({engines.summary(found)})"
        elif found.status == Status.HOLDS:
            record.update(status="holds", explanation=found.explanation)
        else:
            words = found.explanation if found.status == Status.NOT_APPLICABLE else engines.summary(found)
            if record.get("spec_proved"):
                words = f"the allocator searched: {words}; its declared spec is proved at this size"
            record.update(status=found.status.value, explanation=printable(words))
            if found.budget.get("stopped") == "time":
                record["stopped"] = "time"
    finally:
        record["seconds"] = round(time.monotonic() - start, 3)
        prop.seconds += time.monotonic() - start


# --------------------------------------------------------------------------- verdicts
def _summary_of_sizes(sizes: list[Size]) -> str:
    return ", ".join(size_text(s) for s in sizes)


def _origin(finding: Result) -> dict:
    """Where a kept counterexample came from, for the report's words: the engine that found it
    (``example``, ``prove``, or a search engine's name), the shipped example it started from, and how
    many shrink steps changed it (0: it is that example itself)."""
    return {"engine": finding.details.get("engine"), "example": finding.details.get("example"),
            "shrink_steps": finding.details.get("shrink_steps")}


def _verdict(mech: Mechanism, prop: _Property, budget: AuditBudget, options: dict, clock: _Clock) -> Result:
    """The property's one status, from its size records, examples and finding."""
    module = properties.get(prop.name)
    rows = prop.sizes
    candidates = sum(r["candidates"] for r in rows)
    by_size = {size_text((r["users"], r["resources"])): r["candidates"] for r in rows if r["candidates"]}
    proved: list[Size] = [(r["users"], r["resources"]) for r in rows if r["status"] in ("proved", "holds")]
    spec_proved = [(r["users"], r["resources"]) for r in rows if r.get("spec_proved")]
    scope = "mechanism" if proved else ("spec" if spec_proved else None)
    stopped = any(r.get("stopped") == "time" for r in rows) or clock.stopped
    largest = max(proved, key=lambda s: (s[0] * s[1], s)) if proved else None
    details = {
        "title": module.title, "definition": module.definition, "source": module.source,
        "sizes": rows, "examples": prop.examples, "candidates": candidates, "candidates_by_size": by_size,
        "proved_sizes": [list(s) for s in proved],
        "largest_proved": list(largest) if largest is not None else None,
        "proved_everywhere": bool(rows) and all(r["status"] in ("proved", "holds", "vacuous") for r in rows),
        "spec_proved_sizes": [list(s) for s in spec_proved],
        "scope": scope, "found_by": None, "fixture": None, "allocations": [], "core": None, "options": options,
    }
    recorded = {**budget.recorded(), **({"stopped": "time"} if stopped else {})}
    domain = domain_record(budget.domain, mech.domain)
    if proved or spec_proved:
        largest = tuple(details["largest_proved"] or max(spec_proved, key=_order))
        core_proof = prop.proofs.get(largest)
        if core_proof is not None and core_proof.certificate:
            details["core"] = list(core_proof.certificate.get("core") or [])
    if prop.violation is not None:
        finding = prop.violation
        notes = list(finding.details.get("notes", [])) + prop.notes
        inst = finding.instance if isinstance(finding.instance, Instance) else Instance.resolve(finding.instance)
        allocations = prop.allocations
        size = (inst.n, inst.m)
        details.update(found_by=prop.found_by, fixture=prop.fixture, allocations=allocations,
                       shrink_steps=finding.details.get("shrink_steps"), notes=notes, origin=_origin(finding))
        words = printable(finding.explanation)
        summary = f"violated at {size_text(size)}: {words}"
        if prop.crash is not None:
            notes.append(f"the mechanism also raised on an instance: {printable(prop.crash.explanation)}")
        return Result("audit", Status.VIOLATED, mechanism=mech.name, property=prop.name, instance=inst,
                      witness=finding.witness, exactness=finding.exactness, budget=recorded, seconds=prop.seconds,
                      explanation=words, details={**details, "summary": summary}, domain=domain)
    if prop.crash is not None:
        crash = prop.crash
        inst = crash.instance if isinstance(crash.instance, Instance) else Instance.resolve(crash.instance)
        where = (crash.certificate or {}).get("where")
        words = printable(crash.explanation)
        details.update(found_by="example" if crash.details.get("engine") == "example" else "search",
                       shrink_steps=crash.details.get("shrink_steps"),
                       notes=list(crash.details.get("notes", [])), crash=dict(crash.certificate or {}))
        summary = f"error at {size_text((inst.n, inst.m))}: {words}" + ("" if where else " (no plug-in frame found)")
        if budget.domain.demands != "positive" and any(d == 0 for row in inst.demands for d in row):
            summary += "; the instance has a zero demand: --domain demands=positive audits where that cannot occur"
        return Result("audit", Status.ERROR, mechanism=mech.name, property=prop.name, instance=inst,
                      certificate=crash.certificate, budget=recorded, seconds=prop.seconds, explanation=words,
                      details={**details, "summary": summary}, domain=domain)
    na = [r for r in rows if r["status"] == "n/a"]
    vacuous = [r for r in rows if r["status"] == "vacuous"]
    searched = [r for r in rows if r["candidates"]]
    parts = []
    if proved:
        covered = budget.domain.intersect(mech.domain).intersect(ENCODED)
        parts.append(f"proved at {_summary_of_sizes(proved)} for every demand profile ({covered.words})")
    rest = [r for r in searched if (r["users"], r["resources"]) not in proved]
    if rest:
        counts = ", ".join(f"{r['candidates']} at {size_text((r['users'], r['resources']))}" for r in rest)
        parts.append(f"none found at {_summary_of_sizes([(r['users'], r['resources']) for r in rest])} "
                     f"({sum(r['candidates'] for r in rest)} candidates: {counts})")
    for label, group in (("vacuous", vacuous), ("declined", na)):
        for reason in dict.fromkeys(r["explanation"] for r in group):  # each reason once, in order
            where = [(r["users"], r["resources"]) for r in group if r["explanation"] == reason]
            parts.append(f"{label} at {_summary_of_sizes(where)} ({reason})")
    if spec_proved:
        parts.append(f"the plug-in's declared spec is proved at {_summary_of_sizes(spec_proved)} (a proof about the "
                     "spec, not the plug-in's code, whose agreement with the spec was only sampled)")
    elif mech.spec is not None and not mech.discrete and not _proves(mech, budget):
        parts.append("the plug-in's declared spec was not proved (--prove-spec proves it; a proof about the spec, "
                     "not the plug-in's code, cannot decide its status)")
    if prop.refused:
        parts.append(f"{len(prop.refused)} violation(s) found did not re-verify and are not reported "
                     f"({prop.refused[0]})")
    decided = ("proved", "holds", "none-found", "vacuous", "n/a", "violated", "error")
    open_rows = [r for r in rows if r["status"] not in decided]  # unknown, or a refutation left unconfirmed
    if open_rows:
        parts.append(f"undecided at {_summary_of_sizes([(r['users'], r['resources']) for r in open_rows])}"
                     + (" (the audit's time limit)" if stopped else ""))
    # A size left undecided (the time limit, a budget) leaves the property undecided: a violation may
    # sit exactly there, so neither `proved` nor `none-found` may be claimed for the sizes asked.
    if open_rows or prop.refused:
        status = Status.UNKNOWN
    elif proved or (vacuous and len(vacuous) == len(rows)):  # vacuous at every size: it holds by definition
        status = Status.PROVED
    elif any(r["status"] == "none-found" for r in rows):
        status = Status.NONE_FOUND
    elif na:
        status = Status.NOT_APPLICABLE
    else:
        status = Status.UNKNOWN
    explanation = printable("; ".join(parts) or "nothing decided")
    summary = explanation if status in (Status.PROVED, Status.NONE_FOUND) else f"{status.value}: {explanation}"
    if status == Status.PROVED and proved or status == Status.NONE_FOUND:
        # a proof covers the sub-domain its encodings range over; the engines' candidates are drawn
        # from the same part (unit weights, no caps), so a none-found covers only that part too
        domain = domain_record(budget.domain, mech.domain, ENCODED)
    return Result("audit", status, mechanism=mech.name, property=prop.name, budget=recorded, seconds=prop.seconds,
                  explanation=explanation, details={**details, "summary": summary}, domain=domain)


# --------------------------------------------------------------------------- the audit
@dataclass(frozen=True)
class AuditReport:
    """The profile of one mechanism: one ``audit`` `Result` per property, the sizes and budget
    that decided them, the reference profiles, and how to reproduce it."""

    mechanism: str
    about: dict
    users: int
    resources: int
    sizes: tuple
    budget: dict
    results: tuple[Result, ...]
    reference: dict
    seconds: float
    command: str
    provenance: dict
    #: the asked domain and the mechanism's declared one (`fairlab.core.domain.record`)
    domain: dict | None = None

    def result(self, prop: str) -> Result:
        return next(r for r in self.results if r.property == prop)

    def __str__(self) -> str:
        """The report as Markdown (what ``fairlab audit --format markdown`` prints)."""
        from fairlab.audit import markdown

        return markdown.render(self.to_dict())

    def _repr_html_(self) -> str:
        """The report's sections (as in ``fairlab audit --out report.html``) for a notebook, under a
        style sheet scoped to them."""
        from fairlab.audit import html as audit_html

        return (f"<div class='fairlab-audit'><style>{audit_html.scoped_css('.fairlab-audit')}</style>"
                f"{audit_html.sections(self.to_dict(), ids='fairlab-audit-')}</div>")

    def to_dict(self) -> dict:
        rows = []
        for r in self.results:
            d = r.details
            rows.append({
                "property": r.property, "title": d["title"], "definition": d["definition"], "source": d["source"],
                "status": r.status.value, "summary": d["summary"], "explanation": r.explanation,
                "instance": to_dict(r.instance, versioned=False), "witness": to_dict(r.witness, versioned=False),
                "exactness": r.exactness, "found_by": d["found_by"], "fixture": d["fixture"], "scope": d["scope"],
                "proved_sizes": d["proved_sizes"], "largest_proved": d["largest_proved"],
                "proved_everywhere": d["proved_everywhere"], "spec_proved_sizes": d["spec_proved_sizes"],
                "core": d["core"],
                "candidates": d["candidates"], "candidates_by_size": d["candidates_by_size"],
                "sizes": to_dict(d["sizes"], versioned=False), "examples": to_dict(d["examples"], versioned=False),
                "allocations": to_dict(d["allocations"], versioned=False), "notes": d.get("notes", []),
                "seconds": round(r.seconds, 3), "domain": r.domain, "origin": d.get("origin"),
                **({"crash": d["crash"]} if "crash" in d else {}),
            })
        return {"schema_version": 1, "kind": "audit", "mechanism": self.mechanism, "about": self.about,
                "users": self.users, "resources": self.resources, "sizes": [list(s) for s in self.sizes],
                "seed": self.budget["seed"], "budget": self.budget, "seconds": round(self.seconds, 3),
                "command": self.command, "properties": rows, "reference": self.reference,
                "domain": self.domain, "provenance": self.provenance}


def about(mech: Mechanism) -> dict:
    """What the audited mechanism is: a built-in or foreign code, its spec and declared facts."""
    try:
        identity = plugin_identity(mech)
    except InputError:
        identity = None
    return {"builtin": is_builtin(mech), "spec": mech.spec is not None, "discrete": mech.discrete,
            "scale_invariant": mech.scale_invariant, "anonymous": mech.anonymous,
            "title": mech.summary, "source": mech.source, "plugin": identity}


def command_line(mechanism: str, users: int, resources: int, budget: AuditBudget, options: dict,
                 chosen: Sequence[str] | None = None) -> str:
    """The command that reruns this audit (shell-quoted), with every setting that differs from the
    defaults."""
    parts = ["fairlab", "audit", mechanism, "--users", str(users), "--resources", str(resources),
             "--seed", str(budget.seed)]
    for name in chosen or ():
        parts += ["--property", name]
    if budget.candidates != AUDIT_CANDIDATES:
        parts += ["--candidates", str(budget.candidates)]
    if budget.rlimit != DEFAULT_RLIMIT:
        parts += ["--rlimit", str(budget.rlimit)]
    if float(budget.time_limit) != AUDIT_TIME_LIMIT:
        parts += ["--time-limit", f"{float(budget.time_limit):g}"]
    if budget.domain != ALL:
        parts += ["--domain", budget.domain.label]
    if budget.prove_spec:
        parts.append("--prove-spec")
    for key, value in options.items():
        text = json.dumps(value) if isinstance(value, (bool, type(None), list, dict)) else str(value)
        parts += ["--option", f"{key}={text}"]
    return " ".join(shlex.quote(p) for p in parts)


def _resolve(mechanism, options: dict, budget: AuditBudget) -> Mechanism:
    with plugin.time_limit(min(budget.time_limit, 60.0)):  # also stops a plug-in's import
        mech = mechanisms.get(mechanism)
    proof.check_options(mech, options)
    return mech


def _units_left(plan: list) -> int:
    """How many of the (size, property) units in `plan` are still to run (a decided property's
    larger sizes are not)."""
    return sum(prop.needs(size) for size, prop in plan)


def _examples_unit(state: dict[str, _Property], left: int, seconds: float) -> Unit:
    """The progress event of the shipped examples' check (the first unit of an audit)."""
    violated = [name for name, prop in state.items() if prop.found_by == "example"]
    return Unit(1, 1 + left, "examples", f"violated {', '.join(violated)}" if violated else "none violated", seconds)


def _property_cell(mechanism: str, prop: _Property, sizes: list[Size], options: dict, budget: AuditBudget,
                   deadline: float, store: Store | None, examples_up_to: Size | None) -> tuple:
    """One property's part of an audit in a worker process (`_run_cells`): the shipped examples that
    fit in `examples_up_to` (if given), then each of `sizes` it still needs, smallest first, exactly
    as the serial schedule runs them for it. Returns the property's state, its units (name, status,
    seconds) and whether the time limit stopped it."""
    clock = _Clock(max(deadline - time.monotonic(), 0.0))
    clock.deadline = deadline
    with plugin.time_limit(max(deadline - time.monotonic(), 0.0)), properties.base.allocation_cache():
        mech = _resolve(mechanism, options, budget)
        if examples_up_to is not None:
            _check_examples(mech, {prop.name: prop}, *examples_up_to, options, budget, clock, None, store)
        units = []
        for size in sizes:
            if prop.needs(size):
                _audit_size(mech, prop, size, options, budget, clock, None, store)
                record = prop.sizes[-1]
                units.append((f"{prop.name} {size_text(size)}", record["status"], record["seconds"]))
    return prop, units, clock.stopped


def _run_cells(executor: concurrent.futures.Executor, mechanism: str, state: dict[str, _Property],
               sizes: list[Size], options: dict, budget: AuditBudget, clock: _Clock, progress,
               store: Store | None, examples_up_to: Size | None) -> None:
    """Every property of `state` as cells on `executor` (`_property_cell`): first the shipped
    examples (one cell per property; the examples' unit when all have ended), then its sizes (one
    cell per property, its units reported when it ends: one not yet ended counts the sizes it
    needed after the examples as left). The results are put back in `state`."""

    def rounds(stage_sizes: list[Size], examples: Size | None):
        futures = [executor.submit(_property_cell, mechanism, prop, stage_sizes, options, budget, clock.deadline,
                                   store, examples) for prop in state.values()]
        try:
            for future in concurrent.futures.as_completed(futures):
                prop, units, stopped = future.result()
                state[prop.name] = prop
                clock.stopped = clock.stopped or stopped
                yield prop.name, units
        finally:
            for future in futures:
                future.cancel()

    if progress:
        progress(Unit(0, int(examples_up_to is not None) + len(state) * len(sizes)))
    done = 0
    if examples_up_to is not None:
        for _ in rounds([], examples_up_to):
            pass
        done = 1
        if progress:
            left = _units_left([(size, prop) for size in sizes for prop in state.values()])
            progress(_examples_unit(state, left, time.monotonic() - clock.start))
    pending = {name: sum(prop.needs(size) for size in sizes) for name, prop in state.items()}  # at most
    for name, units in rounds(sizes, None):
        del pending[name]
        for index, (label, status, seconds) in enumerate(units):
            done += 1
            if progress:
                left = len(units) - index - 1 + sum(pending.values())
                progress(Unit(done, done + left, label, status, seconds))


def audit(mechanism: MechanismLike, users: int = 3, resources: int = 3, *, seed: int = 0,
          candidates: int = AUDIT_CANDIDATES, rlimit: int = DEFAULT_RLIMIT, proof_rlimit: int | None = None,
          proof_attempts: int | None = None, time_limit: float = AUDIT_TIME_LIMIT, options: dict | None = None,
          store: Store | str | os.PathLike | None = None, properties_: Sequence[str] | None = None,
          progress: Callable[[str | Unit], None] | None = None, with_examples: bool = True,
          domain: Domain | str | None = None, prove_spec: bool = False,
          executor: concurrent.futures.Executor | None = None) -> AuditReport:
    """Audit `mechanism` (a name, ``file.py:function``, an entry point, a `Mechanism` or a callable)
    against every registered property (or `properties_`) at every size up to users × resources, on
    `domain` (`fairlab.core.domain.parse`, default ``all``) ∩ the mechanism's declared domain.
    A plug-in's declared spec is proved only with `prove_spec` (a built-in's always). With an
    `executor` (a process pool, e.g. `fairlab.campaign.executors.local`) and a mechanism given by
    name, each property runs in a process of its own: the properties are independent, so the
    verdicts are those of the serial run (the time limit aside), in the same order.
    A violation is stored in `store` if one is given (a folder or a `Store`). `progress` gets a
    text as each step starts, and a `fairlab.core.progress.Unit` as each property at one size (and
    the examples' check) ends, ``Unit(0, total)`` first."""
    options = dict(options or {})
    budget = AuditBudget(candidates=candidates, rlimit=rlimit, seed=seed, time_limit=time_limit,
                         domain=parse_domain(domain), prove_spec=bool(prove_spec),
                         proof_rlimit=proof.DEFAULT_RLIMIT if proof_rlimit is None else proof_rlimit,
                         proof_attempts=proof.DEFAULT_ATTEMPTS if proof_attempts is None else proof_attempts)
    sizes = sizes_up_to(users, resources)
    for name in properties_ or ():
        properties.get(name)  # an unknown property: one line before any work
    target = writable_store(store) if store is not None else None
    mech = _resolve(mechanism, options, budget)
    chosen = list(properties_ or properties.names(mech.setting))
    clock = _Clock(float(time_limit))
    state = {name: _Property(name) for name in chosen}
    plan = [(size, prop) for size in sizes for prop in state.values()]  # the units, in order
    # one allocation cache for the whole audit, shared by its properties (`properties.base.run`)
    with plugin.time_limit(float(time_limit)), properties.base.allocation_cache():
        if executor is not None and isinstance(mechanism, str) and len(chosen) > 1:
            # each property in a process of its own (they are independent: the same verdicts)
            _run_cells(executor, mechanism, state, sizes, options, budget, clock, progress, target,
                       (users, resources) if with_examples else None)
        else:
            if progress:
                progress(Unit(0, int(with_examples) + _units_left(plan)))
            if with_examples:
                _check_examples(mech, state, users, resources, options, budget, clock, progress, target)
                if progress:
                    progress(_examples_unit(state, _units_left(plan), time.monotonic() - clock.start))
            done = int(with_examples)
            for index, (size, prop) in enumerate(plan):
                if prop.needs(size):
                    _audit_size(mech, prop, size, options, budget, clock, progress, target)
                    done += 1
                    if progress:
                        record = prop.sizes[-1]
                        progress(Unit(done, done + _units_left(plan[index + 1:]), f"{prop.name} {size_text(size)}",
                                      record["status"], record["seconds"]))
        # every property ran without an error: only now does anything reach the store
        for prop in state.values():
            if prop.violation is not None and prop.prepared is not None:
                assert target is not None  # a finding is prepared for a store only
                prop.fixture = str(target.save(*prop.prepared)[0])
        results = tuple(_verdict(mech, state[name], budget, options, clock) for name in chosen)
    name = mechanism if isinstance(mechanism, str) else mech.name
    recorded = {**budget.recorded(), "stopped": "time" if clock.stopped else None}
    return AuditReport(
        mechanism=mech.name, about=about(mech), users=users, resources=resources, sizes=tuple(sizes),
        budget=recorded, results=results, reference=reference.profiles(domain=budget.domain),
        seconds=time.monotonic() - clock.start, provenance=provenance(),
        command=command_line(name, users, resources, budget, options, properties_),
        domain=domain_record(budget.domain, mech.domain),
    )


def audit_domains(mechanism: MechanismLike, users: int = 3, resources: int = 3, *, domains: Sequence = (None,),
                  **keywords) -> list[AuditReport]:
    """One `audit` profile per asked domain (`domains`: names, ``key=value,...`` texts or `Domain`s;
    each parsed before any work), in order; the keywords as `audit`'s (the time limit per profile)."""
    asked = [parse_domain(d) for d in domains or (None,)]
    return [audit(mechanism, users, resources, domain=d, **keywords) for d in asked]


def audit_property(mechanism: MechanismLike, prop: str, users: int = 3, resources: int = 3, **keywords) -> Result:
    """The audit of one property (`audit` restricted to it): one ``audit`` `Result`."""
    return audit(mechanism, users, resources, properties_=[prop], **keywords).results[0]


__all__ = ["audit", "audit_domains", "audit_property", "AuditReport", "AuditBudget", "sizes_up_to", "AUDIT_CANDIDATES",
           "AUDIT_TIME_LIMIT"]
