"""Lift a finding to a larger size: a violation at n users × m resources gives one at every N × M asked.

`lift(finding, N, M)` takes a finding — a fixture file, a stored finding's id, a rediscover claim's
name (its shipped fixture), a fixture record, or a `Result` of check / search / prove / rediscover —
and builds instances with N users and M resources by the rules of `fairlab.search.lift_rules`
(users: an inert user or a clone of a user; resources: copies of the mean-share column or of a
resource). Each candidate, in a fixed order, is kept only when it re-verifies exactly:

* a violation — its witness carried over (indices kept, a misreport or grown capacities extended by
  the column) and confirmed by the property's own exact check (`fairlab.search.verify`, a fresh
  mechanism run); where the witness cannot be carried over (an improvement, a lottery) or no longer
  shows the violation, the property's own check of the lifted instance finds the lifted witness
  (allocation properties exactly; deviation properties within a counted budget — `evaluations` mechanism
  runs and `seed`, never a wall clock — so the same input gives the same rule on any machine; the
  witness it finds is verified exactly like any other);
* an impossibility — every member of the family lifted alike, each relation to the base checked, the
  joint system UNSAT by z3 and SAT with each property dropped (`fairlab.search.impossibility`);
* a non-uniqueness — both allocations carried over and each checked BMF exactly.

Every lifted instance (and every deviated instance its witness names) lies in the narrowest domain of
the finding (`lift_rules.tightest` of the base and of its deviated instance): positive demands stay
positive, no weights or task caps appear where there were none, unit capacities stay unit.

The answer is a `Result` of kind ``lift``: ``violated`` (a violation) or ``found`` (an impossibility,
a non-uniqueness) with the lifted instance and witness; ``not-found`` when no rule kept the finding
(every attempt listed in ``details["tried"]``); ``unknown`` when an exact computation did not finish
in time (never a rule's failure: the same input gives the same rule on any machine). Which sizes the
rules are known to cover, and by which lemma, is `fairlab.search.lift_coverage`.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping, Sequence

from fairlab import mechanisms, properties
from fairlab.core.domain import Domain, DomainLike
from fairlab.core.domain import parse as parse_domain
from fairlab.core.domain import record as domain_record
from fairlab.core.errors import ExactTimeout, InexactAllocation, InputError
from fairlab.core.instance import Instance
from fairlab.core.results import SCHEMA_VERSION, Result, Status, provenance, to_dict
from fairlab.counterexamples import store as fixtures
from fairlab.counterexamples.store import Store
from fairlab.mechanisms import bmf
from fairlab.mechanisms.base import Mechanism
from fairlab.properties.base import allocation_cache, run, within
from fairlab.properties.property import DeviationProperty, exactness
from fairlab.search import impossibility as imp
from fairlab.search import lift_coverage
from fairlab.search import lift_rules as rules
from fairlab.search.findings import fixture_record, store_of
from fairlab.search.verify import check_record, confirm_violation, resolve, reverify

#: the largest size `lift` builds (users and resources): a guard against a typo, not a limit of the rules
MAX_SIZE = 64
#: the property check that finds a lifted witness: its deterministic budget (mechanism runs, seed)
CHECK_EVALUATIONS = 300
CHECK_SEED = 0
#: the outer stop of one lift in seconds (then: unknown, never another rule)
TIME_LIMIT = 300.0


@dataclass(frozen=True)
class Finding:
    """A finding to lift, read from wherever it was named (`load`)."""

    record: dict  # its fixture record (`fairlab.counterexamples.store`)
    source: str  # where it came from, in words
    instance: Instance = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "instance", Instance.from_dict(self.record["instance"]))

    @property
    def kind(self) -> str:
        return self.record["kind"]

    @property
    def n(self) -> int:
        return self.instance.n

    @property
    def m(self) -> int:
        return self.instance.m


# --------------------------------------------------------------------------- naming a finding
def load(finding: Any, store: Store | str | os.PathLike | None = None) -> Finding:
    """The finding `finding` names: a `Finding`; a fixture record (a dict); a `Result` that is a finding
    (violated, refuted or found); a path to a fixture file; a rediscover claim's id (its shipped
    fixture); or the id of a finding in the user's store `store` (its file name, with or without
    ``.json``, or its canonical hash). A one-line `InputError` otherwise."""
    if isinstance(finding, Finding):
        return finding
    if isinstance(finding, Result):
        return _from_result(finding)
    if isinstance(finding, Mapping):
        record = dict(finding)
        check_record(record, "finding")
        return Finding(record, "a fixture record")
    if not isinstance(finding, (str, os.PathLike)):
        raise InputError(f"finding: expected a fixture file, a stored finding's id, a claim or a Result, "
                         f"got {type(finding).__name__}")
    text = str(finding)
    if not text.strip():
        raise InputError("finding: empty (a fixture file, a stored finding's id or a claim)")
    path = Path(text)
    if path.is_file():
        record = fixtures.read(path)
        check_record(record, f"fixture {text!r}")
        return Finding(record, f"fixture {path.name}")
    from fairlab.search.rediscover import claim_ids

    if text in claim_ids():
        shipped = [(name, r) for name, r in fixtures.shipped() if r.get("claim") == text]
        if not shipped:
            raise InputError(f"finding {text!r}: the claim has no shipped fixture; run `fairlab rediscover --claim "
                             f"{text}` and lift the fixture it stores")
        name, record = shipped[0]
        check_record(record, f"fixture {name!r}")
        return Finding(record, f"claim {text} (shipped fixture {name})")
    where = store_of(store)
    hits = [(p, r) for p, r in where.load_all()
            if text in (p.name, p.stem) or (len(text) >= 8 and r.get("canonical_hash") == text)]
    if len(hits) == 1:
        path, record = hits[0]
        check_record(record, f"fixture {path.name!r}")
        return Finding(record, f"stored finding {path.name}")
    if len(hits) > 1:
        raise InputError(f"finding {text!r}: {len(hits)} stored findings match ({', '.join(p.name for p, _ in hits)}); "
                         "give the file name")
    raise InputError(f"finding {text!r}: not a fixture file, a rediscover claim ({', '.join(claim_ids())}) or a "
                     f"finding of the store {str(where.path)!r} (`fairlab store list`)")


def _from_result(result: Result) -> Finding:
    mech = None
    if result.mechanism not in (None, "any"):
        mech = mechanisms.get(result.mechanism)
    record = fixture_record(result, mech)
    if record is None:
        raise InputError(f"finding: a {result.kind} result with status {result.status.value} is not a finding to "
                         "lift (a violation, a refutation or a rediscovered claim)")
    return Finding(record, f"a {result.kind} result")


# --------------------------------------------------------------------------- lifting
def lift(finding: Any, n: int, m: int, *, store: Store | str | os.PathLike | None = None,
         plugins: Sequence[str | os.PathLike] = (), domain: DomainLike = None, time_limit: float = TIME_LIMIT,
         evaluations: int = CHECK_EVALUATIONS, seed: int = CHECK_SEED) -> Result:
    """Lift `finding` (see `load`) to `n` users × `m` resources (see the module docstring).
    `domain`: the lifted finding must lie in it too (the finding must); `plugins`: a plug-in's file
    when the finding names one; `evaluations` / `seed`: the budget of the property check that finds
    a lifted witness; `time_limit`: the outer stop (then ``unknown``)."""
    start = time.monotonic()
    f = load(finding, store)
    _check_size(f, n, m)
    asked = parse_domain(domain)
    mech = None if f.kind == "impossibility" else resolve(f.record, plugins)
    keep = _domain_of(f, mech)
    for where in _instances_of(f, mech):
        why = asked.contains(where)
        if why is not None:
            raise InputError(f"finding ({f.source}): {why}")
    keep = keep.intersect(asked)
    whole = (mech is not None and (mech.discrete or mech.setting == "machines")) or bool(f.record.get("indivisible"))
    named = _named_users(f)
    user_choices = rules.user_rules(f.instance, whole, named) if n > f.n else [None]
    column_choices = rules.column_rules(f.instance) if m > f.m else [None]
    tried: list[dict] = []
    budget = {"evaluations": evaluations, "seed": seed}
    deadline = start + time_limit
    for user_rule in user_choices:
        for column in column_choices:
            attempt = {"users": user_rule.name if user_rule else None, "resources": column.name if column else None}
            try:
                outcome = _attempt(f, mech, n, m, user_rule, column, keep, deadline, evaluations, seed)
            except (ExactTimeout, InexactAllocation, _OutOfTime) as exc:
                tried.append({**attempt, "outcome": f"undecided: {exc}"})
                return _answer(f, budget, Status.UNKNOWN, n, m, start, tried, keep, asked, mech,
                               explanation=f"not decided: {exc} (an exact computation did not finish; no verdict)")
            if isinstance(outcome, str):
                tried.append({**attempt, "outcome": outcome})
                continue
            tried.append({**attempt, "outcome": "verified"})
            return _answer(f, budget, outcome.status, n, m, start, tried, keep, asked, mech, lifted=outcome)
    return _answer(f, budget, Status.NOT_FOUND, n, m, start, tried, keep, asked, mech,
                   explanation=f"no lifting rule kept the finding at {n}×{m} ({len(tried)} tried; see details.tried)")


def _check_size(f: Finding, n: int, m: int) -> None:
    for value, flag, least in ((n, "-n/--users", f.n), (m, "-m/--resources", f.m)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{flag}: expected an integer, got {value!r}")
        if value < least:
            raise InputError(f"{flag}: the finding has {least}; a lift goes to at least as many, got {value}")
        if value > MAX_SIZE:
            raise InputError(f"{flag}: at most {MAX_SIZE}, got {value}")


def _named_users(f: Finding) -> list[int]:
    witness = f.record.get("witness") if f.kind == "violation" else None
    if not isinstance(witness, Mapping):
        return []
    return [v for k, v in witness.items() if k in ("user", "envied", "removed", "other") and isinstance(v, int)]


def _instances_of(f: Finding, mech: Mechanism | None) -> list[Instance]:
    """The base instance and the instances its finding relates it to (a family's members; the
    instance a violation's deviation derives)."""
    if f.kind == "impossibility":
        return [Instance.from_dict(member["instance"]) for member in f.record["family"]]
    out = [f.instance]
    derived = _derived(f.record["property"], f.instance, f.record.get("witness"))
    return out + ([derived] if derived is not None else [])


def _derived(prop: str, inst: Instance, witness) -> Instance | None:
    """The instance a deviation property's witness derives from `inst`, or None."""
    try:
        p = properties.get(prop)
    except InputError:
        return None
    if not isinstance(p, DeviationProperty) or not isinstance(witness, Mapping):
        return None
    try:
        parsed = p.read(p.witness.from_dict(witness), inst)
        return None if parsed is None else p.derive(inst, parsed[0])
    except (InputError, TypeError, ValueError):
        return None


def _domain_of(f: Finding, mech: Mechanism | None) -> Domain:
    """The narrowest domain holding the finding: its base, its family or deviated instance."""
    out = None
    for inst in _instances_of(f, mech):
        here = rules.tightest(inst)
        out = here if out is None else rules.union(out, here)
    assert out is not None  # a finding has its base
    return out


class _OutOfTime(Exception):
    """The outer stop of a lift fired (the answer is then unknown)."""


@dataclass
class _Lifted:
    status: Status
    record: dict
    explanation: str
    exactness: str | None = "rational"


def _attempt(f: Finding, mech: Mechanism | None, n: int, m: int, user_rule, column, keep: Domain, deadline: float,
             evaluations: int, seed: int) -> _Lifted | str:
    """The lifted finding of one pair of rules, verified exactly, or why it is not one."""
    if time.monotonic() > deadline:
        raise _OutOfTime("the time limit of the lift ran out")
    users, resources = n - f.n, m - f.m
    base = f.instance
    if f.kind == "impossibility":
        return _lift_family(f, users, resources, user_rule, column, keep)
    inst = rules.lift_instance(base, base, users, resources, user_rule, column)
    why = keep.contains(inst)
    if why is not None:
        return f"outside the finding's domain: {why}"
    assert mech is not None  # only an impossibility is about no one mechanism
    if f.kind == "nonunique":
        allocations = rules.lift_allocations(f.record["witness"]["allocations"], users, user_rule)
        record = _record(f, inst, {"allocations": allocations}, user_rule, column)
        for a in allocations or []:
            check = bmf.is_bmf(inst, tuple(Fraction(x) for x in a))
            if not check.holds:
                return "a carried-over allocation is not BMF on the lifted instance"
        if allocations is None or allocations[0] == allocations[1]:
            return "the carried-over allocations coincide"
        return _Lifted(Status.FOUND, record, "two different exact BMF allocations")
    prop = f.record["property"]
    options = dict(f.record.get("options") or {})
    carried = rules.lift_witness(dict(f.record["witness"]), base, resources, column)
    with within(keep), allocation_cache():  # a deviated instance outside `keep` is no deviation here
        if carried is not None:
            explanation, inexact = confirm_violation(mech, prop, inst, carried, options)
            if inexact is not None:
                raise InexactAllocation(inexact)
            if explanation is not None:
                return _Lifted(Status.VIOLATED, _record(f, inst, carried, user_rule, column, explanation),
                               explanation, _exactness(mech, inst, options))
        p = properties.get(prop)
        left = deadline - time.monotonic()
        if left <= 0:
            raise _OutOfTime("the time limit of the lift ran out")
        checked = p.check(mech, inst, options=options, evaluations=evaluations, seed=seed, time_limit=left)
        exactness = _exactness(mech, inst, options) if checked.status == Status.VIOLATED else None
    if checked.status == Status.UNKNOWN:
        raise _OutOfTime(checked.explanation)
    if checked.status != Status.VIOLATED:
        return f"the property's check of the lifted instance: {checked.status.value} ({checked.explanation})"
    witness = to_dict(checked.witness, versioned=False)
    how = ("the carried-over witness shows no violation" if carried is not None else
           "the witness cannot be carried over")
    explanation = (f"{checked.explanation} ({how}; this witness was found by the property's own check, budget "
                   f"{evaluations} evaluations, seed {seed}, and verified exactly)")
    return _Lifted(Status.VIOLATED, _record(f, inst, witness, user_rule, column, explanation), explanation, exactness)


def _exactness(mech: Mechanism, inst: Instance, options: dict) -> str | None:
    """What the allocation that decided is made of: ``rational`` or ``algebraic`` (pool mechanisms:
    the run the check just made, kept by `allocation_cache`; other settings: one more run)."""
    if mech.setting == "pool":
        return exactness(run(mech, inst, options))
    allocation = mech(inst, **options)
    return "rational" if allocation.is_exact_rational() else "algebraic" if allocation.is_exact() else None


def _lift_family(f: Finding, users: int, resources: int, user_rule, column, keep: Domain) -> _Lifted | str:
    base = f.instance
    members = []
    for member in f.record["family"]:
        inst = Instance.from_dict(member["instance"])
        lifted = rules.lift_instance(inst, base, users, resources, user_rule, column)
        why = keep.contains(lifted)
        if why is not None:
            return f"member {member['label']!r} outside the finding's domain: {why}"
        members.append(imp.Member(member["label"], lifted, member["relation"], member.get("user")))
    family = imp.Family(members)
    why = imp.family_error(family)
    if why:
        return f"the lifted members do not stand in their relations: {why}"
    props, indivisible = list(f.record["properties"]), bool(f.record["indivisible"])
    status, info = imp.solve(family, props, indivisible)
    if status == "unknown":
        raise _OutOfTime(f"z3 gave no answer ({info})")
    if status != "unsat":
        return "the joint system of the lifted family is satisfiable: some mechanism has the properties there"
    controls = {}
    for dropped in props:
        c_status, _ = imp.solve(family, [p for p in props if p != dropped], indivisible)
        if c_status == "unknown":
            raise _OutOfTime(f"z3 gave no answer to the control without {dropped}")
        controls[dropped] = c_status
    if any(v != "sat" for v in controls.values()):
        return f"a positive control is not satisfiable ({controls}): the lifted contradiction needs less"
    record = {**_record(f, family.base, None, user_rule, column), "family": family.to_dict(), "core": info,
              "controls": controls, "control_models": {}}
    record.pop("witness", None)
    record["canonical_hash"] = fixtures.family_hash(f.record["property"], family.base)
    explanation = f"unsat with a core of {len(info)} constraints; each of {', '.join(props)} needed"
    return _Lifted(Status.FOUND, record, explanation)


def _record(f: Finding, inst: Instance, witness, user_rule, column, explanation: str | None = None) -> dict:
    """The fixture record of a lifted finding (re-verifiable by `fairlab store verify`)."""
    old = f.record
    record: dict[str, Any] = {
        "kind": f.kind, "claim": old.get("claim"), "mechanism": old["mechanism"],
        **({"plugin": old["plugin"]} if old.get("plugin") else {}),
        **({"options": dict(old.get("options") or {})} if f.kind == "violation" else {}),
        "property": old["property"], "instance": inst.to_dict(),
    }
    if f.kind == "impossibility":
        record.update(properties=list(old["properties"]), indivisible=old["indivisible"])
    if witness is not None:
        record["witness"] = witness
    if explanation:
        record["explanation"] = explanation
    record.update(engine="lift", seed=None, minimality=fixtures.minimality(inst))
    if f.kind != "impossibility":
        discrete = mechanisms.get(old["mechanism"]).discrete if not old.get("plugin") else False
        record["canonical_hash"] = fixtures.canonical_hash(old["mechanism"], old["property"], inst,
                                                           rescale_rows=not discrete,
                                                           options=record.get("options") or None)
    record["found_by"] = (f"lifted from {f.source} ({f.n}×{f.m}) to {inst.n}×{inst.m} by fairlab lift "
                          f"(users: {user_rule.name if user_rule else 'none added'}; resources: "
                          f"{column.name if column else 'none added'}), verified exactly")
    record["lifted_from"] = {"source": f.source, "canonical_hash": old.get("canonical_hash"),
                             "users": f.n, "resources": f.m,
                             "rules": {"users": user_rule.name if user_rule else None,
                                       "resources": column.name if column else None}}
    return record


def _coverage(f: Finding) -> dict:
    """The sizes the finding's lifting covers: a rediscover claim's shipped fixture with the sizes the
    suite verifies (`lift_coverage.for_claim`), any other finding by the lemmas alone."""
    claim = f.record.get("claim")
    if claim:
        shipped = lift_coverage.for_claim(claim)
        if shipped is not None and shipped["fixture_hash"] == f.record.get("canonical_hash"):
            return shipped
    return lift_coverage.coverage(f.record, f.n, f.m, f.instance.setting)


def _answer(f: Finding, budget: dict, status: Status, n: int, m: int, start: float, tried: list, keep: Domain,
            asked: Domain, mech: Mechanism | None, lifted: _Lifted | None = None, explanation: str = "") -> Result:
    old = f.record
    details: dict[str, Any] = {
        "source": f.source, "claim": old.get("claim"), "finding_kind": f.kind,
        "base": {"users": f.n, "resources": f.m, "instance": old["instance"],
                 "canonical_hash": old.get("canonical_hash")},
        "users": n, "resources": m,
        "rules": None, "tried": tried, "record": None,
        "coverage": _coverage(f),
    }
    declared = mech.domain if mech is not None else asked
    common = {"mechanism": old["mechanism"], "property": old["property"], "seconds": time.monotonic() - start,
              "budget": {**budget, "rlimit": imp.RLIMIT,
                         **({"stopped": "time"} if status == Status.UNKNOWN else {})},
              "domain": {**domain_record(asked, declared, keep), "kept": keep.label}}
    if lifted is None:
        return Result("lift", status, explanation=explanation, details=details, **common)
    record = lifted.record
    details.update(rules=dict(record["lifted_from"]["rules"]), record=record)
    if f.kind == "impossibility":
        witness = {"family": [m_["label"] for m_ in record["family"]], "core": record["core"],
                   "controls": record["controls"]}
        certificate = {"family": record["family"], "core": record["core"], "controls": record["controls"]}
    else:
        witness = record["witness"]
        certificate = None
    text = (f"lifted from {f.n}×{f.m} to {n}×{m} (users: {details['rules']['users'] or 'none added'}; resources: "
            f"{details['rules']['resources'] or 'none added'}); verified exactly: {lifted.explanation}")
    return Result("lift", status, instance=Instance.from_dict(record["instance"]), witness=witness,
                  certificate=certificate, exactness=lifted.exactness, explanation=text, details=details, **common)


def grid(finding: Any, n: int, m: int, **kwargs: Any) -> list[Result]:
    """`lift` at every size from the finding's up to `n` × `m` (users outer, resources inner)."""
    f = load(finding, kwargs.pop("store", None))
    return [lift(f, users, resources, **kwargs) for users in range(f.n, n + 1) for resources in range(f.m, m + 1)]


def write(result: Result, path: str | os.PathLike, plugins: Sequence[str | os.PathLike] = ()) -> Path:
    """Write a lifted finding (`lift`'s answer, violated or found) to `path` as a fixture file that
    ``fairlab store verify`` re-verifies. It is re-verified from scratch, exactly, first (the same
    check as ``store verify``): `InputError` and nothing written if the answer is no finding, if it
    does not re-verify, or if `path` is a folder or inside the installed package."""
    if result.kind != "lift" or result.status not in (Status.VIOLATED, Status.FOUND):
        raise InputError(f"lift: nothing to write ({result.status.value}: {result.explanation})")
    record = dict(result.details["record"])
    target = Path(path)
    fixtures.check_outside_package(target, "--out", "the lifted finding")
    if target.is_dir():
        raise InputError(f"--out: {str(target)!r} is a folder; give a file name")
    verified = reverify(record, plugins, source="the lifted finding")
    if not verified.ok:
        raise InputError(f"lift: the lifted finding does not re-verify exactly ({verified.message}); nothing written")
    record = {"schema_version": SCHEMA_VERSION, **record, "provenance": provenance(),
              "found_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    try:
        fixtures.write_atomic(target, record)
    except OSError as exc:
        raise InputError(f"--out: cannot write {str(target)!r} ({exc.strerror or exc})") from None
    return target
