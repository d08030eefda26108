"""Counterexample engines and the portfolio that runs them under one time budget.

Every engine is a generator of candidate instances; the portfolio pulls from the engines in turn
and decides each candidate with an exact check (`properties.check`, whose violations re-verify
themselves from scratch). Floats never decide anything here.

* symbolic — the mechanism's z3 spec on an instance whose demands are unknowns (capacities
  normalised to 1), conjoined with the property's violation encoding, nonlinear real arithmetic;
  each model is turned into a concrete instance (rationalised if z3 answers with algebraic
  numbers) and blocked before asking again. Good for small n and m.
* grid — small instances in increasing size, each once up to symmetry (`search.space.grid`).
* random — a seeded stream of random instances (`search.space.random_instances`).

A hit is shrunk (`search.shrink`) to the smallest integer instance that still violates, and
stored as a fixture (`counterexamples.store`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Iterator, Optional, Sequence

import z3

from fairlab.errors import InputError, OptionError, PluginError
from fairlab.exact import Algebraic
from fairlab.instance import Instance
from mechanisms.base import Mechanism, SymbolicInstance
from search import space
from search.shrink import shrink

ENGINES = ("symbolic", "grid", "random")


@dataclass
class Hunt:
    """What a portfolio run found and spent."""

    status: str  # "violated" | "none-found" | "unknown" (every candidate's check was unknown)
    instance: Instance | None = None
    verdict: object = None
    engine: str | None = None
    seconds: float = 0.0
    evaluated: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    shrink_steps: int = 0
    original: Instance | None = None


# --------------------------------------------------------------------------- symbolic engine
def model_instance(model: z3.ModelRef, sym: SymbolicInstance) -> Instance | None:
    """A concrete instance from a model of the unknown demands (capacities as in `sym`)."""

    def exact(term):
        value = Algebraic.of(model.eval(term, model_completion=True))
        if isinstance(value, Algebraic):  # rationalise: the exact check decides anyway
            value = Fraction(value.decimal(12))
        return value

    try:
        return Instance.build(
            [exact(c) for c in sym.capacities],
            [[exact(d) for d in row] for row in sym.demands],
            max_tasks=[None if t is None else exact(t) for t in sym.max_tasks],
        )
    except InputError:
        return None


def symbolic_candidates(
    goal: Callable[[SymbolicInstance], list], n: int, m: int, deadline: float, notes: list, step_seconds: float = 5.0
) -> Iterator[Instance]:
    """Models of `goal(sym)` (named constraints) on unknown demands, each blocked after use."""
    sym = SymbolicInstance.unknown(n, m)
    try:
        constraints = goal(sym)
    except OptionError:
        raise
    except InputError as exc:
        notes.append(f"symbolic engine off: {exc}")
        return
    solver = z3.Solver()
    for c in [*sym.domain, *constraints]:
        solver.add(c.expr)
    while True:
        left = deadline - time.monotonic()
        if left <= 0.05:
            return
        solver.set("timeout", max(50, int(min(step_seconds, left) * 1000)))
        result = solver.check()
        if result == z3.unsat:
            notes.append(f"symbolic engine: no violation exists at {n} users × {m} resources (z3 unsat)")
            return
        if result != z3.sat:
            notes.append(f"symbolic engine: z3 gave up ({solver.reason_unknown()})")
            return
        model = solver.model()
        inst = model_instance(model, sym)
        flat = [d for row in sym.demands for d in row]
        solver.add(z3.Or([d != model.eval(d, model_completion=True) for d in flat]))
        if inst is not None:
            yield inst


# --------------------------------------------------------------------------- portfolio
def hunt(
    engines: dict[str, Iterator[Instance]],
    violates: Callable[[Instance], Optional[object]],
    time_limit: float,
    progress: Callable[[str, int], None] | None = None,
    weights: dict[str, int] | None = None,
) -> Hunt:
    """Pull candidates round-robin (an engine with weight k gets k pulls a round) until one violates."""
    start = time.monotonic()
    deadline = start + time_limit
    evaluated = {name: 0 for name in engines}
    live = dict(engines)
    weights = weights or {}
    timed_out = False
    while live:
        for name in list(live):
            for _ in range(weights.get(name, 1)):
                if time.monotonic() >= deadline:
                    timed_out = True
                    break
                try:
                    candidate = next(live[name])
                except StopIteration:
                    live.pop(name)
                    break
                evaluated[name] += 1
                if progress:
                    progress(name, sum(evaluated.values()))
                verdict = violates(candidate)
                if verdict is not None:
                    return Hunt("violated", candidate, verdict, name, time.monotonic() - start, evaluated)
            if timed_out:
                break
        if timed_out:
            break
    # Budget spent or every engine exhausted: nothing found within the stated budget.
    notes = ["time budget spent"] if timed_out else ["every engine exhausted its space"]
    return Hunt("none-found", seconds=time.monotonic() - start, evaluated=evaluated, notes=notes)


def property_predicate(prop: str, mechanism: Mechanism, options: dict, check_seconds: float,
                       undecided: list | None = None):
    """`violates(instance)`: the verified `violated` verdict of an exact check, else None; the
    reasons of checks that came out `unknown` (e.g. only an approximate allocation) go to `undecided`."""
    import properties

    def violates(instance: Instance):
        try:
            verdict = properties.check(
                prop, mechanism, instance, time_limit=check_seconds, options=options, evaluations=200
            )
        except (PluginError, OptionError):
            raise  # a broken plug-in or a bad option: stop the search, never report none-found
        except InputError:
            return None  # the mechanism refuses this instance (e.g. maxmin with two resources)
        if verdict.verdict == "violated" and verdict.violation is not None and verdict.violation.verify():
            return verdict
        if verdict.verdict == "unknown" and undecided is not None:
            undecided.append(verdict.explanation)
        return None

    return violates


def search(
    mechanism: Mechanism,
    prop: str,
    n: int = 2,
    m: int = 2,
    engines: Sequence[str] | None = None,
    time_limit: float = 30.0,
    seed: int = 0,
    options: dict | None = None,
    shrink_seconds: float = 10.0,
    progress=None,
) -> Hunt:
    """Hunt a violation of `prop` by `mechanism` at n users × m resources, then shrink it."""
    import properties

    options = dict(options or {})
    mechanism.check_options(options)
    engines = ENGINES if engines is None else tuple(engines)
    module = properties.get(prop)
    bad = [e for e in engines if e not in ENGINES]
    if bad:
        raise InputError(f"engine {bad[0]!r}: unknown (known: {', '.join(ENGINES)})")
    start = time.monotonic()
    deadline = start + time_limit
    notes: list = []
    pool: dict[str, Iterator[Instance]] = {}
    if "symbolic" in engines:
        if mechanism.spec is None or not hasattr(module, "encode"):
            notes.append("symbolic engine off: the mechanism has no symbolic specification")
        elif mechanism.discrete:
            notes.append("symbolic engine off: discrete mechanism")
        else:
            def goal(sym, module=module):
                spec = lambda s, t: mechanism.spec(s, t, **options)  # noqa: E731
                return module.encode(sym, spec, "v").constraints

            pool["symbolic"] = symbolic_candidates(goal, n, m, deadline, notes)
    if "grid" in engines:
        pool["grid"] = space.grid(n, m, discrete=mechanism.discrete)
    if "random" in engines:
        pool["random"] = space.random_instances(n, m, seed=seed, discrete=mechanism.discrete)
    undecided: list = []
    violates = property_predicate(prop, mechanism, options, check_seconds=min(5.0, max(0.5, time_limit / 10)),
                                  undecided=undecided)
    result = hunt(pool, violates, time_limit, progress, weights={"grid": 3, "random": 2})
    if undecided:  # candidates not decided exactly are no evidence: counted apart, never "none found"
        result.notes.append(f"{len(undecided)} candidates undecided (check unknown), e.g.: {undecided[0]}")
        if result.status == "none-found" and len(undecided) >= sum(result.evaluated.values()):
            result.status = "unknown"
    result.notes = notes + result.notes
    if result.status == "violated":
        result.original = result.instance
        small, verdict, steps = shrink(result.instance, result.verdict, violates, seconds=shrink_seconds)
        result.instance, result.verdict, result.shrink_steps = small, verdict, steps
    result.seconds = time.monotonic() - start
    return result
