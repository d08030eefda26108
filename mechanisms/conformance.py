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
from dataclasses import dataclass, field

import z3

from fairlab.core.errors import InputError, OptionError, PluginError
from fairlab.core.exact import format_exact, z3_value
from fairlab.core.instance import Instance
from fairlab.core.isolated import Isolated
from fairlab.core.solving import SolverBudget, check as z3_check, new_solver
from fairlab.mechanisms.base import Mechanism, SymbolicInstance

#: resource limit of each conformance query (measured: the registry's mechanisms need at most a few
#: hundred thousand units per query at 4 users × 4 resources; CEEI's KKT conditions the most).
DEFAULT_RLIMIT = 20_000_000
#: instances per sample, and the sample's seed, when a caller names none.
DEFAULT_SAMPLES = 8
DEFAULT_SEED = 0


@dataclass(frozen=True)
class Conformance:
    """The verdict on one instance.

    `status`: ``agrees`` (the spec holds of the numeric allocation and, for a single-valued
    mechanism, of no other), ``disagrees`` (with `reason` saying which way, and `other` an
    allocation the spec admits besides the numeric one), ``unknown`` (a z3 budget ran out:
    `reason` says "rlimit" or "time"), or ``skipped`` (the allocator declined the instance).
    """

    satisfies: str  # "yes" | "no" | "unknown" | "not-checked"
    unique: str  # "yes" | "no" | "unknown" | "not-checked"
    other: tuple | None = None  # a different allocation the spec admits, when unique == "no"
    instance: dict | None = None
    allocation: tuple[str, ...] | None = None  # the numeric tasks, exact strings
    reason: str = ""
    budget: dict = field(default_factory=dict)
    spent: int = 0  # z3 resource units used
    skipped: bool = False

    @property
    def ok(self) -> bool:
        return self.satisfies == "yes" and self.unique in ("yes", "not-checked")

    @property
    def status(self) -> str:
        if self.skipped:
            return "skipped"
        if self.ok:
            return "agrees"
        if self.satisfies == "no" or self.unique == "no":
            return "disagrees"
        return "unknown"

    def to_dict(self) -> dict:
        return {
            "status": self.status,
            "instance": self.instance,
            "allocation": list(self.allocation) if self.allocation is not None else None,
            "satisfies": self.satisfies,
            "unique": self.unique,
            "other": [_text(v) for v in self.other] if self.other is not None else None,
            "reason": self.reason,
            "budget": self.budget,
            "rlimit_spent": self.spent,
        }


def describe(instance: dict | None) -> str:
    """An instance in one line: capacities and demands (and weights or caps if it has them)."""
    if not instance:
        return "no instance"
    parts = [f"capacities {instance['capacities']}", f"demands {instance['demands']}"]
    parts += [f"{k} {instance[k]}" for k in ("weights", "max_tasks") if instance.get(k) is not None]
    return ", ".join(parts).replace("'", "")


def _text(value) -> str:
    """A z3 numeral of a model as exact text (algebraic values to 20 significant digits)."""
    from fairlab.core.exact import Algebraic

    return format_exact(Algebraic.of(value))


def _spec(mechanism: Mechanism, sym: SymbolicInstance, tasks, options: dict):
    if mechanism.spec is None:
        raise InputError(f"mechanism {mechanism.name!r}: has no symbolic specification to check against")
    try:
        return list(mechanism.spec(sym, tasks, **options))
    except InputError:
        raise
    except Exception as exc:  # a researcher's spec: report it on one line
        raise PluginError(f"mechanism {mechanism.name!r}: its spec raised {type(exc).__name__}: {exc}") from None


def _query(constraints, budget: SolverBudget) -> tuple[str, str, object, int]:
    """(status, reason, model or None, resource units spent), isolated (`fairlab.core.isolated`)."""
    iso = Isolated(constraints)
    solver = new_solver(budget, ctx=iso.ctx)
    solver.add(*iso.exprs)
    status, reason = z3_check(solver)
    return status, reason, (iso.model(solver) if status == "sat" else None), _spent(solver)


def _spent(solver: z3.Solver) -> int:
    stats = solver.statistics()
    return int(stats.get_key_value("rlimit count")) if "rlimit count" in stats.keys() else 0


def check(mechanism: Mechanism, instance: Instance, budget: SolverBudget | None = None,
          timeout_ms: int | None = None, **options) -> Conformance:
    """Conformance of `mechanism` on `instance` (options passed to allocator and spec alike).

    `budget`: the z3 budget of each query (default `DEFAULT_RLIMIT`, seed 0); `timeout_ms` is a
    wall-clock outer stop (kept for callers of the older signature). The allocator's own
    `InputError` (it declines the instance, or a bad option) propagates."""
    budget = budget or SolverBudget(rlimit=DEFAULT_RLIMIT)
    if timeout_ms is not None:
        budget = budget.with_seconds(timeout_ms / 1000)
    return _check(mechanism, instance, mechanism(instance, **options), budget, options)


def _check(mechanism: Mechanism, instance: Instance, allocation, budget: SolverBudget, options: dict) -> Conformance:
    data = instance.to_dict()
    numeric = tuple(format_exact(v) for v in allocation.tasks)
    shown = "(" + ", ".join(numeric) + ")"
    sym = SymbolicInstance.from_instance(instance)
    tasks = [z3.Real(f"t{i}") for i in range(instance.n)]
    spec = [c.expr for c in _spec(mechanism, sym, tasks, options)]
    fixed = [t == z3_value(v) for t, v in zip(tasks, allocation.tasks)]
    common = dict(instance=data, allocation=numeric, budget=budget.to_dict())
    if not allocation.is_exact():  # an approximation neither satisfies nor violates the spec: undecided
        bound = f" (certified relative error <= {allocation.error_bound})" if allocation.error_bound else ""
        return Conformance("unknown", "not-checked", reason=f"the allocator's result {shown} is approximate{bound}; "
                           "conformance is judged on exact allocations only", **common)

    status, reason, _, spent = _query([*spec, *fixed], budget)
    if status != "sat":
        if status == "unknown":
            return Conformance("unknown", "not-checked", reason=f"z3 stopped ({reason}) checking that the numeric "
                               f"allocation {shown} satisfies the spec", spent=spent, **common)
        # Does the spec admit any allocation at all here? (A contradictory spec proves anything.)
        free, _, _, more = _query(spec, budget)
        spent += more
        why = {"unsat": "; the spec admits no allocation at all on this instance (unsatisfiable)",
               "sat": "; the spec admits other allocations"}.get(free, "")
        return Conformance("no", "not-checked", reason=f"the numeric allocation {shown} violates the spec{why}",
                           spent=spent, **common)
    if not mechanism.single_valued:
        return Conformance("yes", "not-checked", reason="the numeric allocation satisfies the spec "
                           "(set-valued mechanism: other allocations may satisfy it too)", spent=spent, **common)

    status, reason, model, more = _query([*spec, z3.Not(z3.And(*fixed))], budget)
    spent += more
    if status == "unsat":
        return Conformance("yes", "yes", reason="the spec holds of the numeric allocation and of no other",
                           spent=spent, **common)
    if status == "unknown":
        return Conformance("yes", "unknown", reason=f"z3 stopped ({reason}) checking that the spec admits no other "
                           "allocation", spent=spent, **common)
    other = tuple(model.eval(t, model_completion=True) for t in tasks)
    also = "(" + ", ".join(_text(v) for v in other) + ")"
    return Conformance("yes", "no", other, reason=f"the spec also admits {also} besides the numeric allocation {shown}",
                       spent=spent, **common)


# --------------------------------------------------------------------------- seeded samples
def sample(n: int, m: int, samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED, discrete: bool = False,
           max_entry: int = 4) -> list[Instance]:
    """`samples` random instances of n users × m resources, the same for the same arguments.

    Integer demands 0..`max_entry` (zeros in about a third of the entries, every row with a
    positive one); capacities 1 on every other instance (the normalised domain of `fairlab
    prove`) and random integers 1..6 on the rest (whole-task mechanisms: at least the largest
    demand of the column, up to 4 × `max_entry`); the second instance repeats a user's row (ties)."""
    rng = random.Random(seed)
    out = []
    for k in range(samples):
        rows = []
        for _ in range(n):
            row = [0 if rng.random() < 1 / 3 else rng.randint(1, max_entry) for _ in range(m)]
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
        out.append(Instance.build(caps, rows))
    return out


@dataclass(frozen=True)
class SampleReport:
    """Conformance on a seeded sample: `status` ``agrees`` only if every checked instance agrees
    and at least one was checked; ``disagrees`` names the first instance that does not."""

    mechanism: str
    n: int
    m: int
    samples: int
    seed: int
    results: tuple[Conformance, ...]
    budget: dict
    options: dict = field(default_factory=dict)
    seconds: float = 0.0
    seeded: bool = True  # False: the instances were given, not sampled

    @property
    def status(self) -> str:
        checked = [r for r in self.results if r.status != "skipped"]
        if any(r.status == "disagrees" for r in checked):
            return "disagrees"
        if not checked or any(r.status == "unknown" for r in checked):
            return "unknown"
        return "agrees"

    @property
    def first_problem(self) -> Conformance | None:
        for wanted in ("disagrees", "unknown"):
            for r in self.results:
                if r.status == wanted:
                    return r
        return None

    @property
    def spent(self) -> int:
        return sum(r.spent for r in self.results)

    def summary(self) -> str:
        counts = {s: sum(r.status == s for r in self.results) for s in ("agrees", "disagrees", "unknown", "skipped")}
        told = ", ".join(f"{v} {k}" for k, v in counts.items() if v)
        where = (f"{len(self.results)} of {self.samples} seeded instances (seed {self.seed}, {self.n} × {self.m})"
                 if self.seeded else f"{len(self.results)} of {self.samples} given instances")
        head = f"conformance of {self.mechanism} on {where}: {told or 'none checked'}"
        problem = self.first_problem
        if problem is not None:
            head += f"; on {describe(problem.instance)}: {problem.reason}"
        elif self.status == "unknown":
            head += "; the allocator declined every instance, nothing was checked"
        return head

    def to_dict(self) -> dict:
        return {
            "mechanism": self.mechanism,
            "users": self.n,
            "resources": self.m,
            "samples": self.samples,
            "seed": self.seed if self.seeded else None,
            "options": {k: (format_exact(v) if not isinstance(v, (str, bool, int, type(None))) else v)
                        for k, v in self.options.items()},
            "status": self.status,
            "summary": self.summary(),
            "budget": self.budget,
            "rlimit_spent": self.spent,
            "seconds": round(self.seconds, 3),
            "results": [r.to_dict() for r in self.results],
        }


def check_sample(mechanism: Mechanism, n: int, m: int, samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED,
                 budget: SolverBudget | None = None, options: dict | None = None, stop_early: bool = False,
                 instances: list[Instance] | None = None, deadline: float | None = None) -> SampleReport:
    """`check` on `sample(n, m, samples, seed)` (or on `instances`). An instance the allocator
    declines (its own `InputError`) is skipped; a failing plug-in or a bad option raises.
    `stop_early`: stop at the first instance that does not agree. `deadline` (time.monotonic)
    is the wall-clock outer stop: queries get what is left of it."""
    options = dict(options or {})
    budget = budget or SolverBudget(rlimit=DEFAULT_RLIMIT)
    start = time.monotonic()
    chosen = instances if instances is not None else sample(n, m, samples, seed, discrete=mechanism.discrete)
    results = []
    for inst in chosen:
        b = budget
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                results.append(Conformance("unknown", "not-checked", instance=inst.to_dict(), budget=b.to_dict(),
                                           reason="z3 stopped (time) before this instance was checked"))
                break
            b = budget.with_seconds(min(left, budget.seconds) if budget.seconds else left)
        try:
            allocation = mechanism(inst, **options)
        except (PluginError, OptionError):
            raise
        except InputError as exc:  # the allocator declines this one instance
            results.append(Conformance("not-checked", "not-checked", instance=inst.to_dict(), budget=b.to_dict(),
                                       reason=f"the allocator declined the instance: {exc}", skipped=True))
            continue
        result = _check(mechanism, inst, allocation, b, options)
        results.append(result)
        if stop_early and result.status in ("disagrees", "unknown"):
            break
    return SampleReport(mechanism.name, n, m, samples if instances is None else len(chosen), seed, tuple(results),
                        budget.to_dict(), options, time.monotonic() - start, seeded=instances is None)
