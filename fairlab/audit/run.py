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
* ``proved`` — proved for every demand profile (of the sub-domain its proofs record) at the sizes
  listed in ``proved_sizes`` (a search's ``holds`` at a size is such a proof too);
* ``none-found`` — no violation among the candidates evaluated (counted per size);
* ``n/a`` — the mechanism declined every instance it was given (its reason);
* ``unknown`` — nothing decided within the budget;
* ``error`` — the mechanism (a plug-in) raised on an instance, or answered wrongly there (the wrong
  number of task counts, negative or infeasible tasks, an LP with no optimum, a different answer to
  the same question: `fairlab.core.errors.PluginBadAnswer`): the smallest such instance found (shrunk
  like a counterexample), what was wrong and the plug-in's own file:line; nothing is stored, and the
  other properties go on.

Everything runs on one instance domain (`fairlab.core.domain`, ``domain=``; default ``all``) ∩
the mechanism's declared one: the examples outside it are skipped, the proofs and searches get it
(the search draws its weights and task caps too, `fairlab.search.space`), shrinking never leaves it,
and each property's result records the part its evidence covers (a ``proved`` the sub-domain its
proofs record; a ``none-found`` the weights and caps of the candidates the mechanism evaluated); the
report's domain lists the properties whose evidence covers less (``sub_domains``).
`audit_domains` gives one profile per asked domain.

Budgets are deterministic: candidates per size and property, z3 resource limits, the proof
schedule, the seed. ``time_limit`` is the outer stop of the whole audit: what it cuts short is
``unknown`` with ``"stopped": "time"``.

The steps (the budget, the examples' check, one size's proof and search) are in
`fairlab.audit.steps`, their order across processes (``--jobs``) in `fairlab.audit.schedule`; here
the verdicts and the report.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import shlex
import time
from dataclasses import dataclass
from typing import Callable, Sequence

from fairlab import properties
from fairlab.audit import reference
from fairlab.audit.schedule import _examples_unit, _resolve, _run_cells, _units_left
from fairlab.audit.steps import (
    AUDIT_CANDIDATES,
    AUDIT_TIME_LIMIT,
    AuditBudget,
    Size,
    _audit_size,
    _check_examples,
    _Clock,
    _order,
    _Property,
    _proves,
    size_text,
    sizes_up_to,
)
from fairlab.core.domain import ALL, Domain, of_result
from fairlab.core.domain import parse as parse_domain
from fairlab.core.domain import record as domain_record
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.core.progress import Unit
from fairlab.core.results import Result, Status, provenance, to_dict
from fairlab.core.solving import DEFAULT_RLIMIT
from fairlab.core.stdio import printable
from fairlab.counterexamples.store import Store
from fairlab.mechanisms import plugin
from fairlab.mechanisms.base import Mechanism, MechanismLike
from fairlab.mechanisms.registry import is_builtin
from fairlab.search import proof
from fairlab.search.findings import writable_store
from fairlab.search.verify import plugin_identity


# --------------------------------------------------------------------------- verdicts
def _covered(explored: Domain, rows: list[dict]) -> Domain:
    """The part of `explored` every size record of `rows` covers (each its ``covered`` label,
    recorded by its proof or search; `explored` where none is recorded): a verdict about several
    sizes is about what each of them covers (a search's weight vectors at 2×1 do not make up for
    their absence at 2×2)."""
    out = explored
    for r in rows:
        out = out.intersect(parse_domain(r["covered"]) if r.get("covered") else explored)
    return out


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
    explored = budget.domain.intersect(mech.domain)
    proof_cover = _covered(explored, [r for r in rows if r["status"] in ("proved", "holds")])
    if proved:
        parts.append(f"proved at {_summary_of_sizes(proved)} for every demand profile ({proof_cover.words})")
    rest = [r for r in searched if (r["users"], r["resources"]) not in proved]
    if rest:
        counts = ", ".join(f"{r['candidates']} at {size_text((r['users'], r['resources']))}" for r in rest)
        search_cover = _covered(explored, [r for r in rest if r["status"] == "none-found"])
        drew = "" if search_cover == explored else (f"; the candidates evaluated cover only {search_cover.label}: "
                                                    f"{search_cover.words}")
        parts.append(f"none found at {_summary_of_sizes([(r['users'], r['resources']) for r in rest])} "
                     f"({sum(r['candidates'] for r in rest)} candidates: {counts}{drew})")
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
                     + (" (the audit's wall-clock safety net)" if stopped else ""))
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
    if status == Status.PROVED and proved:  # each size's proof covers the sub-domain it records
        domain = domain_record(budget.domain, mech.domain, proof_cover)
    elif status == Status.NONE_FOUND:  # what each size decided covers (its proof, its candidates evaluated)
        settled = [r for r in rows if r["status"] in ("proved", "holds", "none-found")]
        domain = domain_record(budget.domain, mech.domain, _covered(explored, settled))
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
    state = {name: _Property(name) for name in chosen}
    plan = [(size, prop) for size in sizes for prop in state.values()]  # the units, in order
    # one allocation cache for the whole audit, shared by its properties (`properties.base.run`)
    with plugin.time_limit(float(time_limit)) as net, properties.base.allocation_cache():
        clock = _Clock(float(time_limit), net)
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
        domain=report_domain(budget.domain, mech.domain, results),
    )


def report_domain(asked: Domain, declared: Domain, results: Sequence[Result]) -> dict:
    """The report's domain record (`fairlab.core.domain.record` of the asked and the declared
    domain) and ``sub_domains``: property -> the label of the sub-domain its evidence covers, for each
    property whose evidence covers less than the explored domain (asked ∩ declared) — e.g. a proof on
    unit weights, or a search whose weighted candidates the mechanism all declined. Empty when every
    verdict is about the whole explored domain."""
    explored = asked.intersect(declared)
    out = domain_record(asked, declared)
    less = {}
    for r in results:
        if r.domain:
            about = of_result(r.domain)
            if about != explored:
                less[str(r.property)] = about.label
    out["sub_domains"] = less
    return out


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
