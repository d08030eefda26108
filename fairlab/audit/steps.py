"""The steps of an audit (`fairlab.audit.run`): its budget, what it learned about one property so far
(`_Property`), its clock, and per property the shipped examples' exact check (`_check_examples`) and
one size's proof and search (`_audit_size`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from fairlab import properties
from fairlab.audit.allocations import involved_allocations
from fairlab.core.domain import ALL, Domain, of_result
from fairlab.core.errors import ExactTimeout, InputError
from fairlab.core.instance import Instance, examples
from fairlab.core.results import Result, Status
from fairlab.core.solving import DEFAULT_RLIMIT
from fairlab.core.stdio import printable
from fairlab.counterexamples.store import FixtureRefused, Store
from fairlab.mechanisms.base import Mechanism
from fairlab.mechanisms.plugin import PluginTimeout
from fairlab.mechanisms.registry import is_builtin
from fairlab.search import engines, proof
from fairlab.search.budgets import (
    CHECK_EVALUATIONS,
    CHECK_RLIMIT,
    PROVE_SAFETY_NET,
    SEARCH_TIME_LIMIT,
    SHRINK_TRIALS,
)
from fairlab.search.findings import prepare_finding

#: search candidates per size and property (the deterministic search budget of an audit)
AUDIT_CANDIDATES = 100
#: the whole audit's wall-clock safety net (seconds): far above what its counted budgets cost; what
#: it cuts short is ``unknown (wall-clock safety net)``
AUDIT_TIME_LIMIT = 7200.0
#: the safety nets of one proof and one search inside an audit (seconds; the audit's net bounds both):
#: those of `fairlab prove` and `fairlab search`
PROOF_SECONDS = PROVE_SAFETY_NET
SEARCH_SECONDS = SEARCH_TIME_LIMIT
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


def covered_label(result: Result) -> str | None:
    """The label of the (sub-)domain a proof's or a search's verdict covers (its recorded domain), or
    None when it records none."""
    return of_result(result.domain).label if result.domain else None


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
    """The audit's wall-clock safety net. With `net` (the audit's plug-in time limit), its deadline
    is that limit's, which moves by the time the lab spends starting a plug-in's process (a fork
    server starting on a loaded machine is neither the plug-in's time nor the audit's)."""

    def __init__(self, seconds: float, net=None):
        self.start = time.monotonic()
        self.deadline = self.start + seconds
        self.net = net
        self.stopped = False

    def left(self) -> float:
        deadline = self.deadline if self.net is None else self.net.deadline
        return deadline - time.monotonic()

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
                record.update(explanation="not reached: the audit's wall-clock safety net", stopped="time")
                return
            record.update(how="proof", status=result.status.value, explanation=printable(result.explanation),
                          scope=result.details.get("scope"))
            if result.status == Status.PROVED:
                prop.proofs[size] = result
                record["covered"] = covered_label(result)
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
                record.update(explanation="not reached: the audit's wall-clock safety net", stopped="time")
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
            record.update(status="holds", explanation=found.explanation, covered=covered_label(found))
        else:
            words = found.explanation if found.status == Status.NOT_APPLICABLE else engines.summary(found)
            if found.status == Status.NONE_FOUND:
                record["covered"] = covered_label(found)
            if record.get("spec_proved"):
                words = f"the allocator searched: {words}; its declared spec is proved at this size"
            record.update(status=found.status.value, explanation=printable(words))
            if found.budget.get("stopped") == "time":
                record["stopped"] = "time"
    finally:
        record["seconds"] = round(time.monotonic() - start, 3)
        prop.seconds += time.monotonic() - start
