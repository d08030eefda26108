"""Counterexample engines and the portfolio that runs them under one deterministic budget.

Every engine is a generator of candidate instances; the portfolio pulls from the engines in a fixed
round-robin schedule (an engine with weight k gets k pulls a round) and decides each candidate with
an exact check (`fairlab.properties.check`, whose violations re-verify themselves from scratch). Floats
never decide anything here.

* symbolic — the mechanism's z3 spec on an instance whose demands are unknowns, conjoined with the
  property's violation encoding, nonlinear real arithmetic; each model is turned into a concrete
  instance (rationalised if z3 answers with algebraic numbers) and blocked before asking again.
  If the very first question is unsat, no instance of the size violates the property (for the
  spec): the search reports `holds` at that size, with the unsat core, once the spec has matched
  the allocator on seeded instances of the size and a positive control has passed.
* grid — small instances in increasing size, each once up to symmetry (`fairlab.search.space.grid`),
  with small integer weights and task caps where the explored domain allows them.
* random — a seeded stream of random instances (`fairlab.search.space.random_instances`), random
  weights and caps included where the domain allows them.

The budget that decides a verdict is deterministic: a number of candidates, the seed, z3's
resource limit (`rlimit`) per solver check, and the deviation budget of each candidate's check.
The same command gives the same verdict, counts and witness on a quiet laptop and on a loaded CI
machine. ``time_limit`` is only an outer stop: when it fires before the budget is spent the
verdict is ``unknown`` (reason ``time``), unless a violation had already been verified.

Verdicts: ``violated`` (verified, then shrunk), ``holds`` (z3 unsat at n × m, see above),
``none-found`` (at least one candidate decided exactly, none violates), ``n/a`` (the mechanism
declined every candidate: the reason is its own message), ``unknown`` (no candidate decided, or
the time limit stopped the search).

Where the code lives: this module is the entry point (`search`, `shrink_with`, `summary`); the
portfolio and each candidate's exact check are `fairlab.search.hunt`; the symbolic engine and the
gate of its ``holds`` are `fairlab.search.symbolic` (every name is re-exported here).

A hit is shrunk (`fairlab.search.shrink`) to the smallest integer instance that still violates.
Every run ends in one `fairlab.core.results.Result` of kind ``"search"``: the per-engine counts
(``evaluated``, ``declined``, ``undecided``), the engine that decided, the notes, the instance
found before shrinking and the shrink steps are its ``details``; a ``holds`` carries its unsat
core and positive control as its ``certificate``; the budget allowed and used is its ``budget``
(with ``"stopped": "time"`` when the outer stop fired). Storing a finding is
`fairlab.search.findings.record_finding`.
"""

from __future__ import annotations

import importlib
import inspect
import time
from dataclasses import replace
from typing import Iterator, Sequence

from fairlab import properties
from fairlab.core.domain import ALL, Domain
from fairlab.core.domain import parse as parse_domain
from fairlab.core.domain import record as domain_record
from fairlab.core.errors import InputError, PluginCrash
from fairlab.core.instance import Instance
from fairlab.core.names import unknown
from fairlab.core.results import Result, Status
from fairlab.core.solving import DEFAULT_RLIMIT
from fairlab.mechanisms import plugin
from fairlab.mechanisms.base import Mechanism
from fairlab.mechanisms.registry import is_builtin
from fairlab.search import space
from fairlab.search.budgets import (
    CHECK_EVALUATIONS,
    CHECK_RLIMIT,
    DEFAULT_CANDIDATES,
    SEARCH_TIME_LIMIT,
    SHRINK_TRIALS,
    WEIGHTS,
)
from fairlab.search.hunt import (  # noqa: F401  (re-exported: the engines' public names)
    TIME,
    WORKING,
    Unsat,
    candidate_check,
    candidate_words,
    crash_fields,
    hunt,
    property_predicate,
    seconds_left,
)
from fairlab.search.shrink import shrink
from fairlab.search.symbolic import (  # noqa: F401  (re-exported)
    SYMBOLIC_SLICES,
    holds_gate,
    model_instance,
    symbolic_candidates,
)

ENGINES = ("symbolic", "grid", "random")
VERDICTS = ("violated", "holds", "none-found", "n/a", "unknown")


def summary(result: Result) -> str:
    """One line: the verdict of a search and what it rests on."""
    size = result.budget.get("size", "")
    if result.status == "holds":
        return f"holds at {size}: {result.explanation}"
    if result.status == "n/a":
        return f"n/a (declined: {result.explanation})"
    if result.status == "error":
        return f"error (the mechanism raised or answered wrongly): {result.explanation}"
    if result.status == "unknown":
        if result.stopped_by_safety_net():
            return f"{result.label()}: {result.explanation}"
        return f"unknown ({result.explanation})"
    tally = {key: sum((result.details.get(key) or {}).values())
             for key in ("evaluated", "declined", "undecided", "searched")}
    counts = f"{tally['evaluated']} evaluated, {tally['declined']} declined"
    if tally["searched"]:
        exact = tally["evaluated"] - tally["searched"]
        split = f"{exact} decided exactly, " if exact else ""
        counts = (f"{tally['evaluated']} evaluated ({split}{tally['searched']} searched within their budget), "
                  f"{tally['declined']} declined")
    if tally["undecided"]:
        counts += f", {tally['undecided']} undecided"
    return f"{result.status.value} ({counts})"




# --------------------------------------------------------------------------- search
def setting_module(prop, mechanism):
    """The search module of a setting other than one pool (`fairlab.search.machines`,
    `fairlab.search.dynamic`): its ``search`` and ``prove`` take the arguments of `search` and
    `fairlab.search.proof.prove`. The property and the mechanism must share the setting."""
    if prop.setting != mechanism.setting:
        raise InputError(f"property {prop.name} is defined for the {prop.setting} setting but mechanism "
                         f"{mechanism.name} allocates in the {mechanism.setting} setting")
    return importlib.import_module(f"fairlab.search.{prop.setting}")


def search(
    mechanism: Mechanism,
    prop: str,
    n: int = 2,
    m: int = 2,
    engines: Sequence[str] | None = None,
    time_limit: float = SEARCH_TIME_LIMIT,
    seed: int = 0,
    options: dict | None = None,
    candidates: int = DEFAULT_CANDIDATES,
    rlimit: int = DEFAULT_RLIMIT,
    check_evaluations: int = CHECK_EVALUATIONS,
    check_rlimit: int = CHECK_RLIMIT,
    shrink_trials: int = SHRINK_TRIALS,
    progress=None,
    shrink_seconds: float | None = None,
    symbolic_slices: int = SYMBOLIC_SLICES,
    domain: Domain | str | None = None,
) -> Result:
    """Hunt a violation of `prop` by `mechanism` at n users × m resources, then shrink it.

    `domain` (`fairlab.core.domain.parse`; default ``all``): the engines explore it ∩ the
    mechanism's declared domain (the grid and random engines draw its weights and task caps too),
    shrinking never leaves it, and the result records what its verdict covers (a ``holds`` the
    symbolic unknowns' unit weights and no caps; a ``none-found`` the weights and caps of the
    candidates evaluated, ``details["drawn"]``). A plug-in that raises on a
    candidate does not end the hunt: a violation found later is the answer (its notes count the
    crashes); without one the search ends ``error`` at the first crashing instance, shrunk.

    Deterministic budget: `candidates` (all engines, fixed schedule), `seed`, `rlimit` (z3 units per
    symbolic question), `check_evaluations` / `check_rlimit` (each candidate's exact check),
    `shrink_trials`. `time_limit` (seconds) is the outer stop; `shrink_seconds` an optional extra
    stop for shrinking only (a shrink it cuts short is noted). `symbolic_slices` (see
    `symbolic_candidates`; 0 asks each z3 question with the full rlimit at once, the schedule before
    the engines were interleaved) changes the order of the candidates, never an engine's answers."""
    options = dict(options or {})
    mechanism.check_options(options)
    engines = ENGINES if engines is None else tuple(engines)
    module = properties.get(prop)
    asked = parse_domain(domain)
    explored = asked.intersect(mechanism.domain)
    if module.setting != "pool" or mechanism.setting != "pool":
        result = setting_module(module, mechanism).search(
            mechanism, prop, n, m, time_limit=time_limit, seed=seed, options=options, candidates=candidates,
            rlimit=rlimit, progress=progress, domain=explored)
        covered = Drawn.covered_of(result.details.get("drawn")) if result.status == "none-found" else None
        return result.replace(domain=domain_record(asked, mechanism.domain, covered))
    bad = [e for e in engines if e not in ENGINES]
    if bad:
        raise InputError(unknown("engine", bad[0], ENGINES))
    for label, value in (("candidates", candidates), ("rlimit", rlimit), ("check_evaluations", check_evaluations),
                         ("check_rlimit", check_rlimit), ("shrink_trials", shrink_trials)):
        if isinstance(value, bool) or not isinstance(value, int) or value < (0 if label == "shrink_trials" else 1):
            raise InputError(f"{label}: expected a positive integer, got {value!r}")
    start = time.monotonic()
    deadline = start + time_limit
    # The symbolic engine fixes every capacity to 1 (with unknown capacities z3 is far slower, and its
    # rlimit accounting lags the wall clock on such queries). An unsat then covers all capacities only
    # for a mechanism declared scale-invariant (`Mechanism.scale_invariant`: it depends on demands only
    # through shares d_ir / c_r); for any other mechanism `holds_gate` claims no `holds` and the search
    # goes on as if the symbolic engine had found nothing. (Its encodings ask about every user, never
    # user 0 alone, so no anonymity is assumed, except for a coalition property of an anonymous built-in: below.)
    capacities = None
    capacities_note = "capacities 1, which covers every capacity vector: the mechanism is declared scale-invariant"
    budget = {
        "size": f"{n}×{m}", "users": n, "resources": m, "candidates": candidates,
        "schedule": {e: WEIGHTS[e] for e in ENGINES if e in engines}, "seed": seed, "rlimit": rlimit,
        "check": {"evaluations": check_evaluations, "rlimit": check_rlimit, "seed": seed},
        "shrink_trials": shrink_trials, "time_limit": time_limit,
    }
    notes: list = []
    details: dict = {}
    drawn = Drawn(m)
    with plugin.time_limit(time_limit), properties.base.allocation_cache():
        pool: dict[str, Iterator] = {}
        on_unsat = None
        if "symbolic" in engines:
            if mechanism.spec is None or not hasattr(module, "encode"):
                notes.append("symbolic engine off: the mechanism has no symbolic specification")
            elif mechanism.discrete:
                notes.append("symbolic engine off: discrete mechanism")
            else:
                spec_names: set = set()
                own_spec = mechanism.spec

                def spec(s, t):
                    out = own_spec(s, t, **options)
                    spec_names.update(c.name for c in out)
                    return out

                # a coalition property (gsp) of an anonymous built-in: user 0 is a member who gains and the
                # members come first (complete: the unknown instance is symmetric in the users; `holds_gate`
                # checks the declaration); without it z3 spends the whole budget on every coalition at once
                symmetric = ("anonymous" in inspect.signature(module.encode).parameters
                             and mechanism.anonymous and is_builtin(mechanism))

                def goal(sym, module=module):
                    return module.encode(sym, spec, "v", **({"anonymous": True} if symmetric else {})).constraints

                pool["symbolic"] = symbolic_candidates(goal, n, m, notes, rlimit=rlimit, seed=seed, deadline=deadline,
                                                       capacities=capacities, hypotheses=spec_names,
                                                       slices=symbolic_slices, domain=explored)
                # the gate checks the spec against the allocator on the part of the domain a holds covers
                on_unsat = holds_gate(mechanism, prop, n, m, options, rlimit, seed, deadline, capacities_note,
                                      capacities=capacities, domain=explored, user_focus=symmetric)
        if "grid" in engines:
            pool["grid"] = space.grid(n, m, discrete=mechanism.discrete, domain=explored)
        if "random" in engines:
            pool["random"] = space.random_instances(n, m, seed=seed, discrete=mechanism.discrete, domain=explored)
        classify = candidate_check(prop, mechanism, options, deadline, check_evaluations, check_rlimit, seed,
                                   domain=explored)
        result = hunt(pool, drawn.counting(classify), candidates, deadline=deadline, progress=progress,
                      on_unsat=on_unsat)
        notes += result.details["notes"]
        if result.status in ("violated", "error"):
            stop = deadline if shrink_seconds is None else min(deadline, time.monotonic() + shrink_seconds)
            result, details, tried, note = shrink_with(classify, result, shrink_trials, stop, domain=explored)
            budget["shrink_trials_used"] = tried
            notes += [note] if note else []
    # a holds is the symbolic engine's, whose unknowns range over the explored domain (weights, every cap
    # pattern); a none-found covers the weights and caps of the candidates evaluated (a mechanism that
    # declined every weighted one was searched unweighted only)
    covered = drawn.covered if result.status == "none-found" else None
    return result.replace(
        mechanism=mechanism.name, property=prop, budget={**budget, **result.budget},
        details={**result.details, "users": n, "resources": m, "options": options, **details, "notes": notes,
                 "drawn": drawn.to_dict()},
        seconds=time.monotonic() - start, domain=domain_record(asked, mechanism.domain, covered),
    )




class Drawn:
    """What the candidates a search evaluated show of the domain: how many had weights other than 1
    (``weighted``; ``vector`` of them a weight vector) and task caps (``capped``), and `span`, the
    smallest weights/caps domain holding them all (what a ``none-found`` covers: the grid and random
    engines draw the whole explored domain, `fairlab.search.space`, but a mechanism may decline
    the weighted or capped candidates)."""

    def __init__(self, resources: int = 2, weights: bool = True):
        self.evaluated = self.weighted = self.vector = self.capped = 0
        self.span = space.drawn_domain(_PLAIN)
        self.resources = resources  # with one resource a weight vector is one weight: scalar covers vector
        self.weights = weights  # False: a setting without weights (machines): no weight is missing

    @property
    def covered(self) -> Domain:
        """`span`, read at this size (one resource: weights one per user are every weight there is)."""
        if not self.weights or self.resources == 1 and self.span.weights == "scalar":
            return replace(self.span, weights="vector")
        return self.span

    @classmethod
    def covered_of(cls, drawn: dict | None) -> Domain | None:
        """The weights and caps a search result's ``drawn`` record covers (None: no record)."""
        if not drawn:
            return None
        return replace(ALL, weights=drawn["weights"], caps=drawn["caps"])

    def counting(self, classify):
        """`classify` (`candidate_check`), counting each candidate it decides exactly."""

        def counted(instance):
            kind, payload = classify(instance)
            if kind in ("evaluated", "violated"):
                shape = space.drawn_domain(instance)
                self.evaluated += 1
                self.weighted += shape.weights != "none"
                self.vector += shape.weights == "vector"
                self.capped += shape.caps != "none"
                self.span = space.widest(self.span, shape)
            return kind, payload

        return counted

    def to_dict(self) -> dict:
        return {"evaluated": self.evaluated, "weighted": self.weighted, "vector_weights": self.vector,
                "capped": self.capped, "weights": self.covered.weights, "caps": self.covered.caps}


_PLAIN = Instance.build([1], [[1]])


def shrink_with(classify, result: Result, trials: int, deadline: float,
                domain: Domain = ALL) -> tuple[Result, dict, int, str | None]:
    """Shrink the violation (or, for an ``error`` result, the crash) of `result`
    (`fairlab.search.shrink`, never leaving `domain`), every step decided by `classify`
    (`candidate_check`): (the result at the smallest instance found, with its re-checked witness
    and words; details ``found_instance`` / ``shrink_steps``; trials used; a note when the clock
    cut it short)."""
    wanted = "crashed" if result.status == Status.ERROR else "violated"

    def violates(instance):
        kind, payload = classify(instance)
        if kind == "stopped":
            raise _ShrinkStopped()
        return payload if kind == wanted else None

    small, verdict, steps, tried, cut = shrink(result.instance, result, violates, trials=trials, deadline=deadline,
                                              stop=_ShrinkStopped, domain=domain)
    details = {"found_instance": result.instance, "shrink_steps": steps}
    if wanted == "crashed":
        crash = {} if verdict is result or not isinstance(verdict, PluginCrash) else crash_fields(verdict)
        shrunk = result.replace(instance=small, explanation=result.explanation if verdict is result else str(verdict),
                                **crash)
    else:
        shrunk = result.replace(instance=small, witness=verdict.witness, explanation=verdict.explanation,
                                exactness=getattr(verdict, "exactness", None) or result.exactness)
    note = (f"shrinking stopped by the time limit after {tried} trials: the instance is verified but may not be "
            "the smallest") if cut else None
    return shrunk, details, tried, note


class _ShrinkStopped(Exception):
    """The outer time limit fired inside a shrink trial."""
