"""Does a mechanism's numeric allocator agree with its symbolic specification?

For one instance: (1) the exact numeric allocation satisfies the spec (z3 finds the constraints
sat with the tasks fixed to the numeric values), and (2) for single-valued mechanisms, the spec
admits no other allocation (spec ∧ tasks ≠ numeric is unsat). When (1) fails, a third query says
whether the spec admits any allocation at all there (an unsatisfiable spec proves everything).

`check_sample` runs this on a seeded, deterministic sample of random instances of one size (the
gate `fairlab prove` passes before it claims anything about a mechanism, and the `fairlab
conformance` verb). Every z3 query is decided by a resource limit (`fairlab.core.solving`), in a fresh
z3 context, so the same mechanism, instance and budget give the same answer on any machine; a
wall-clock stop only turns an answer into ``unknown``.
"""

from __future__ import annotations

import random
import time
from fractions import Fraction
from os import PathLike
from typing import Any

import z3

from fairlab.core.errors import InputError, OptionError, PluginError
from fairlab.core.exact import Algebraic, format_exact, z3_value
from fairlab.core.instance import Instance
from fairlab.core.isolated import Isolated, free_constants
from fairlab.core.results import Result, Status
from fairlab.core.solving import SolverBudget, new_solver
from fairlab.core.solving import check as z3_check
from fairlab.mechanisms.base import Mechanism, SymbolicInstance
from fairlab.mechanisms.registry import get, is_builtin

#: resource limit of each conformance query (measured: the registry's mechanisms need at most a few
#: hundred thousand units per query at 4 users × 4 resources; CEEI's KKT conditions the most).
DEFAULT_RLIMIT = 20_000_000
#: instances per sample, and the sample's seed, when a caller names none.
DEFAULT_SAMPLES = 8
DEFAULT_SEED = 0


def _one(mechanism: Mechanism, instance: dict, satisfies: str, unique: str, reason: str, budget: SolverBudget,
         spent: int = 0, allocation=None, exactness: str | None = None, other=None,
         skipped: bool = False) -> Result:
    """The conformance `Result` on one instance.

    ``status``: ``agrees`` (the spec holds of the numeric allocation and, for a single-valued
    mechanism, of no other), ``disagrees`` (the explanation says which way; ``certificate.other``
    is an allocation the spec admits besides the numeric one), ``unknown`` (a z3 budget ran out:
    the explanation says "rlimit" or "time"), or ``skipped`` (the allocator declined the instance).
    ``details``: ``satisfies`` and ``unique``, each "yes" | "no" | "unknown" | "not-checked";
    ``certificate``: the numeric ``allocation`` (exact strings) and ``other``; ``budget``: the z3
    budget of each query and ``rlimit_spent``.
    """
    if skipped:
        status = Status.SKIPPED
    elif satisfies == "yes" and unique in ("yes", "not-checked"):
        status = Status.AGREES
    elif satisfies == "no" or unique == "no":
        status = Status.DISAGREES
    else:
        status = Status.UNKNOWN
    return Result(
        kind="conformance", status=status, mechanism=mechanism.name, instance=instance,
        certificate={"allocation": None if allocation is None else list(allocation),
                     "other": None if other is None else [_text(v) for v in other]},
        exactness=exactness, budget={**budget.to_dict(), "rlimit_spent": spent}, explanation=reason,
        details={"satisfies": satisfies, "unique": unique},
    )


def spent(result: Result) -> int:
    """z3 resource units a conformance result used (a sample's: all its instances')."""
    return result.budget.get("rlimit_spent", 0)


def describe(instance: dict | None) -> str:
    """An instance in one line: capacities and demands (and weights or caps if it has them)."""
    if not instance:
        return "no instance"
    parts = [f"capacities {instance['capacities']}", f"demands {instance['demands']}"]
    parts += [f"{k} {instance[k]}" for k in ("weights", "max_tasks", "machines", "arrivals", "departures")
              if instance.get(k) is not None]
    return ", ".join(parts).replace("'", "")


def _text(value) -> str:
    """A z3 numeral of a model as exact text (algebraic values to 20 significant digits)."""
    return format_exact(Algebraic.of(value))


def _spec(mechanism: Mechanism, sym: SymbolicInstance, tasks, options: dict):
    if mechanism.spec is None:
        raise InputError(f"mechanism {mechanism.name!r}: has no symbolic specification to check against")
    try:
        return list(mechanism.spec(sym, tasks, **options))
    except InputError:
        raise
    except Exception as exc:  # a researcher's spec: report it on one line (the lab's own: a bug, exit 3)
        if is_builtin(mechanism):
            raise
        raise PluginError(f"mechanism {mechanism.name!r}: its spec raised {type(exc).__name__}: {exc}") from None


def _query(constraints, budget: SolverBudget) -> tuple[str, str, Any, int]:  # Any: a z3 ModelRef or None
    """(status, reason, model or None, resource units spent), isolated (`fairlab.core.isolated`)."""
    iso = Isolated(constraints)
    solver = new_solver(budget, ctx=iso.ctx)
    solver.add(*iso.exprs)
    status, reason = z3_check(solver)
    return status, reason, (iso.model(solver) if status == "sat" else None), _spent(solver)


def _spent(solver: z3.Solver) -> int:
    stats = solver.statistics()
    return int(stats.get_key_value("rlimit count")) if "rlimit count" in stats.keys() else 0  # noqa: SIM118 (z3 Statistics has keys() but no __contains__)


def check(mechanism, instance, budget: SolverBudget | None = None, timeout_ms: int | None = None,
          **options) -> Result:
    """Conformance of `mechanism` (anything `fairlab.mechanisms.get` takes) on `instance` (an
    `Instance`, its dict, a file or an example name); options passed to allocator and spec alike.

    `budget`: the z3 budget of each query (default `DEFAULT_RLIMIT`, seed 0); `timeout_ms` is a
    wall-clock outer stop (kept for callers of the older signature). The allocator's own
    `InputError` (it declines the instance, or a bad option) propagates."""
    mechanism = get(mechanism)
    instance = _instance(instance)
    budget = budget or SolverBudget(rlimit=DEFAULT_RLIMIT)
    if timeout_ms is not None:
        budget = budget.with_seconds(timeout_ms / 1000)
    return _check(mechanism, instance, mechanism(instance, **options), budget, options)


def _instance(instance) -> Instance:
    if isinstance(instance, Instance):
        return instance
    return Instance.load(instance) if isinstance(instance, (str, PathLike)) else Instance.from_dict(instance)


def _check(mechanism: Mechanism, instance: Instance, allocation, budget: SolverBudget, options: dict) -> Result:
    data = instance.to_dict()
    numeric = tuple(format_exact(v) for v in allocation.tasks)
    shown = "(" + ", ".join(numeric) + ")"
    sym = SymbolicInstance.from_instance(instance)
    tasks = [z3.Real(f"t{i}") for i in range(instance.n)]
    spec = [c.expr for c in _spec(mechanism, sym, tasks, options)]
    fixed = [t == z3_value(v) for t, v in zip(tasks, allocation.tasks)]
    placed = _placement_fixed(sym, tasks, allocation, spec)
    fixed += placed
    common = dict(budget=budget, allocation=numeric, exactness=allocation.exactness)
    if not allocation.is_exact():  # an approximation neither satisfies nor violates the spec: undecided
        bound = f" (certified relative error <= {allocation.error_bound})" if allocation.error_bound else ""
        return _one(mechanism, data, "unknown", "not-checked", f"the allocator's result {shown} is approximate{bound}; "
                    "conformance is judged on exact allocations only", **common)

    status, reason, _, spent = _query([*spec, *fixed], budget)
    if status != "sat":
        if status == "unknown":
            return _one(mechanism, data, "unknown", "not-checked", f"z3 stopped ({reason}) checking that the numeric "
                        f"allocation {shown} satisfies the spec", spent=spent, **common)
        # Does the spec admit any allocation at all here? (A contradictory spec proves anything.)
        free, _, _, more = _query(spec, budget)
        spent += more
        why = {"unsat": "; the spec admits no allocation at all on this instance (unsatisfiable)",
               "sat": "; the spec admits other allocations"}.get(free, "")
        return _one(mechanism, data, "no", "not-checked", f"the numeric allocation {shown} violates the spec{why}",
                    spent=spent, **common)
    if not mechanism.single_valued:
        return _one(mechanism, data, "yes", "not-checked", "the numeric allocation satisfies the spec "
                    "(set-valued mechanism: other allocations may satisfy it too)", spent=spent, **common)

    status, reason, model, more = _query([*spec, z3.Not(z3.And(*fixed))], budget)
    spent += more
    if status == "unsat":
        return _one(mechanism, data, "yes", "yes", "the spec holds of the numeric allocation and of no other",
                    spent=spent, **common)
    if status == "unknown":
        return _one(mechanism, data, "yes", "unknown", f"z3 stopped ({reason}) checking that the spec admits no other "
                    "allocation", spent=spent, **common)
    other = tuple(model.eval(t, model_completion=True) for t in tasks)
    also = "(" + ", ".join(_text(v) for v in other) + ")"
    if placed:  # a placement spec: say which placement it also admits (the row sums may be the same)
        rows = [[str(model.eval(x, model_completion=True)) for x in row] for row in sym.placement(tasks)]
        also += " placed " + str(rows).replace("'", "")
        shown += " placed " + str([[format_exact(x) for x in row] for row in allocation.placement]).replace("'", "")
    return _one(mechanism, data, "yes", "no", f"the spec also admits {also} besides the numeric allocation {shown}",
                spent=spent, other=other, **common)


def _placement_fixed(sym: SymbolicInstance, tasks, allocation, spec) -> list:
    """On machines, a spec that places tasks with `SymbolicInstance.placement(tasks)` is checked on
    the allocator's placement too (satisfied by it, and pinning it): its unknowns fixed to it.
    Empty when the spec does not mention them (it then judges the row sums `tasks` alone)."""
    if sym.machines is None or allocation.placement is None:
        return []
    unknowns = sym.placement(tasks)
    names = {str(v) for row in unknowns for v in row}
    if not names & _constants(spec):
        return []
    return [v == z3.IntVal(int(x)) for row, values in zip(unknowns, allocation.placement) for v, x in zip(row, values)
            if x.denominator == 1] + [z3.BoolVal(False) for row in allocation.placement for x in row
                                      if x.denominator != 1]  # a fractional placement cannot be an Int


def _constants(exprs) -> set[str]:
    """Names of the uninterpreted constants (unknowns) in z3 expressions."""
    return {c.decl().name() for c in free_constants(exprs)}


# --------------------------------------------------------------------------- seeded samples
def sample(n: int, m: int, samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED, discrete: bool = False,
           max_entry: int = 4, setting: str = "pool", positive: bool = False, domain=None) -> list[Instance]:
    """`samples` random instances of n users × m resources, the same for the same arguments.

    Integer demands 0..`max_entry` (zeros in about a third of the entries, every row with a
    positive one); capacities 1 on every other instance (the normalised domain of `fairlab
    prove`) and random integers 1..6 on the rest (whole-task mechanisms: at least the largest
    demand of the column, up to 4 × `max_entry`); the second instance repeats a user's row (ties).
    `setting`: "dynamic" adds a seeded arrival order; "machines" replaces the capacities by 1 to 3
    seeded machines (`_machines`; a user may fit no machine). `positive`: no zero entries (for a
    mechanism that declines zero demands). `domain` (a `fairlab.core.domain.Domain`; pool setting):
    where it allows weights or task caps, three instances in four get them (`spread`); the
    demands and capacities are the same numbers as without it."""
    rng = random.Random(seed)
    out = []
    for k in range(samples):
        rows = []
        for _ in range(n):
            row = [0 if rng.random() < 1 / 3 else rng.randint(1, max_entry) for _ in range(m)]
            if positive:
                row = [v or rng.randint(1, max_entry) for v in row]
            if not any(row):
                row[rng.randrange(m)] = rng.randint(1, max_entry)
            rows.append(row)
        if k == 1 and n >= 2:
            rows[1] = list(rows[0])
        if discrete:
            caps = [rng.randint(max(1, max(r[j] for r in rows)), 4 * max_entry) for j in range(m)]
        elif k % 2 == 0:
            caps = [1] * m
        else:
            caps = [rng.randint(1, 6) for _ in range(m)]
        # agents over time: a seeded arrival order (the same numbers otherwise)
        order = {"arrivals": rng.sample(range(n), n)} if setting == "dynamic" else {}
        if setting == "machines":  # 1 to 3 seeded machines (capacities their sum; some user may fit none)
            out.append(Instance.build(None, rows, machines=_machines(rng, m, max_entry)))
            continue
        out.append(Instance.build(caps, rows, **order))
    if domain is not None and setting == "pool":
        out = spread(out, domain, seed)
    return out


def spread(instances: list[Instance], domain, seed: int) -> list[Instance]:
    """`instances` with weights and task caps drawn where `domain` allows them (`spread_one`), on every
    instance but those numbered 0, 4, 8, ... (so a sample checks the unweighted, uncapped spec too).
    Seeded by `seed` apart from the demands' stream."""
    if domain.weights == "none" and domain.caps == "none":
        return instances
    rng = random.Random(f"fairlab conformance spread {seed}")
    return [inst if k % 4 == 0 else spread_one(inst, domain, rng) for k, inst in enumerate(instances)]


def spread_one(inst: Instance, domain, rng: random.Random) -> Instance:
    """`inst` with what `domain` allows drawn from `rng`: small integer weights 1..4 (one per user, or
    one per user and resource for weight vectors), and for about half the users a task cap of 0, a
    quarter, half or three quarters of what it could run alone (a cap that binds; at least one user
    capped), the others uncapped."""
    n, m = inst.n, inst.m
    changes: dict = {}
    if domain.weights == "scalar":
        changes["weights"] = [rng.randint(1, 4) for _ in range(n)]
    elif domain.weights == "vector":
        changes["weights"] = [[rng.randint(1, 4) for _ in range(m)] for _ in range(n)]
    if domain.caps == "allowed":
        caps: list = []
        for i in range(n):
            fraction = rng.choice([None, None, None, 0, Fraction(1, 4), Fraction(1, 2), Fraction(3, 4)])
            caps.append(None if fraction is None else fraction * inst.solo_tasks(i))
        if all(c is None for c in caps):
            i = rng.randrange(n)
            caps[i] = inst.solo_tasks(i) / 2
        changes["max_tasks"] = caps
    return inst.replace(**changes) if changes else inst


def _machines(rng: random.Random, m: int, max_entry: int) -> list[list[int]]:
    """1 to 3 machines, entries 0..3 × `max_entry` (each machine with some positive entry, every
    resource on some machine)."""
    count = rng.randint(1, 3)
    machines = [[rng.randint(0, 3 * max_entry) for _ in range(m)] for _ in range(count)]
    for row in machines:
        if not any(row):
            row[rng.randrange(m)] = rng.randint(1, 3 * max_entry)
    for r in range(m):
        if not any(row[r] for row in machines):
            machines[rng.randrange(count)][r] = rng.randint(1, 3 * max_entry)
    return machines


def results_of(report: Result) -> list[Result]:
    """The per-instance conformance results of a sample's `Result`."""
    return list(report.details.get("results", ()))


def first_problem(report: Result) -> Result | None:
    """The first instance of a sample that disagrees, else the first unknown one."""
    for wanted in (Status.DISAGREES, Status.UNKNOWN):
        for r in results_of(report):
            if r.status == wanted:
                return r
    return None


def _summary(name: str, results: list[Result], n: int, m: int, samples: int, seed: int, seeded: bool,
             status: Status) -> str:
    counts = {s: sum(r.status == s for r in results) for s in ("agrees", "disagrees", "unknown", "skipped")}
    told = ", ".join(f"{v} {k}" for k, v in counts.items() if v)
    where = (f"{len(results)} of {samples} seeded instances (seed {seed}, {n} × {m})"
             if seeded else f"{len(results)} of {samples} given instances")
    head = f"conformance of {name} on {where}: {told or 'none checked'}"
    problem = next((r for wanted in (Status.DISAGREES, Status.UNKNOWN) for r in results if r.status == wanted), None)
    if problem is not None:
        head += f"; on {describe(problem.instance)}: {problem.explanation}"
    elif status == Status.UNKNOWN:
        head += "; the allocator declined every instance, nothing was checked"
    return head


def check_sample(mechanism, n: int = 2, m: int = 2, samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED,
                 budget: SolverBudget | None = None, options: dict | None = None, stop_early: bool = False,
                 instances: list | None = None, deadline: float | None = None, domain=None) -> Result:
    """`check` on `sample(n, m, samples, seed)` (or on `instances`): one conformance `Result`,
    ``agrees`` only if every checked instance agrees and at least one was checked, ``disagrees``
    if one disagrees (the explanation names the first), else ``unknown``. ``details`` holds the
    size, sample, seed, options and the per-instance ``results``; ``budget`` the z3 budget of
    each query and the total ``rlimit_spent``.

    The public ``fairlab.conformance(mechanism, n=2, m=2, ...)`` (the CLI's defaults): `mechanism` is anything
    `fairlab.mechanisms.get` takes, `instances` anything `check` takes. An instance the allocator
    declines (its own `InputError`) is skipped; a failing plug-in or a bad option raises.
    `stop_early`: stop at the first instance that does not agree. `deadline` (time.monotonic)
    is the wall-clock outer stop: queries get what is left of it. `domain` (a
    `fairlab.core.domain.Domain`): the seeded sample draws weights and task caps where it allows
    them (`sample`; None: unit weights, no caps, as before)."""
    mechanism = get(mechanism)
    options = dict(options or {})
    budget = budget or SolverBudget(rlimit=DEFAULT_RLIMIT)
    start = time.monotonic()
    seeded = instances is None
    chosen = (sample(n, m, samples, seed, discrete=mechanism.discrete, setting=mechanism.setting,
                     positive=mechanism.positive_demands, domain=domain)
              if instances is None else [_instance(i) for i in instances])
    results = []
    for inst in chosen:
        b = budget
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                results.append(_one(mechanism, inst.to_dict(), "unknown", "not-checked",
                                    "z3 stopped (time) before this instance was checked", b))
                break
            b = budget.with_seconds(min(left, budget.seconds) if budget.seconds else left)
        try:
            allocation = mechanism(inst, **options)
        except (PluginError, OptionError):
            raise
        except InputError as exc:  # the allocator declines this one instance
            results.append(_one(mechanism, inst.to_dict(), "not-checked", "not-checked",
                                f"the allocator declined the instance: {exc}", b, skipped=True))
            continue
        result = _check(mechanism, inst, allocation, b, options)
        results.append(result)
        if stop_early and result.status in ("disagrees", "unknown"):
            break
    checked = [r for r in results if r.status != Status.SKIPPED]
    if any(r.status == Status.DISAGREES for r in checked):
        status = Status.DISAGREES
    elif not checked or any(r.status == Status.UNKNOWN for r in checked):
        status = Status.UNKNOWN
    else:
        status = Status.AGREES
    count = samples if seeded else len(chosen)
    return Result(
        kind="conformance", status=status, mechanism=mechanism.name,
        budget={**budget.to_dict(), "rlimit_spent": sum(spent(r) for r in results)},
        seconds=time.monotonic() - start,
        explanation=_summary(mechanism.name, results, n, m, count, seed, seeded, status),
        details={"users": n, "resources": m, "samples": count, "seed": seed if seeded else None,
                 "options": options, "results": tuple(results)},
    )
