"""What every property shares: budgets, the one place allocations are obtained, results.

The properties themselves are `fairlab.properties.property.Property` objects (one rule each, see
there). This module holds what their checks share:

* `Budget` / `parse_budget`: what a check may spend (counted: evaluations, seed, rlimit; the
  time limit only a wall-clock safety net, far above what the counted budget costs);
* `run`: the ONE place properties obtain a mechanism's allocation — exact only;
* `Violation`: a claimed violation that `verify()` recomputes from scratch (the property's
  ``confirm``: a fresh mechanism run, exact arithmetic);
* `verdict` / `violated`: `fairlab.core.results.Result` s of kind "check";
* `Encoding` and the z3 helpers of the symbolic side.

Statuses: ``violated`` (with a witness that passed `verify`), ``holds`` (proved for this
instance: exact check of the allocation, an exhaustive finite search, or z3 unsat),
``none-found`` (a search within the stated budget found nothing), ``unknown`` (the counted budget
ran out, the solver gave up, or the wall-clock safety net stopped the work — said apart, with
``"stopped": "time"``; never reported as holds).

Set-valued mechanisms (BMF) are checked on the allocation their allocator selects.

Only exact allocations decide anything. `run` is the one place where properties obtain a
mechanism's allocation: an approximate one (e.g. CEEI's certified float path) is replaced by the
exact one, computed within the time left (`fairlab.core.exact.deadline`), or `run` raises
`InexactAllocation`. Every property's ``check`` is wrapped by `exact_verdicts`, which turns that,
and exact arithmetic that did not finish in time (`ExactTimeout`), into ``unknown`` with the
reason; a witness whose re-verification would need an approximate allocation fails it
(`Violation.explain` returns None and says why in `inexact`).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

import z3

from fairlab import mechanisms
from fairlab.core import exact
from fairlab.core.errors import ExactBudgetSpent, ExactTimeout, InexactAllocation, InputError, OptionError, PluginError
from fairlab.core.exact import Algebraic, Exact, format_exact, to_fraction
from fairlab.core.instance import Instance
from fairlab.core.isolated import isolated_solver
from fairlab.core.results import Result, Status, to_dict
from fairlab.core.solving import SolverBudget
from fairlab.core.solving import check as solver_check
from fairlab.mechanisms import plugin
from fairlab.mechanisms.base import Constraint, Mechanism, check_feasible
from fairlab.mechanisms.registry import is_builtin

VERDICTS = ("violated", "holds", "none-found", "unknown")

#: name -> `fairlab.properties.property.Property`, filled by `fairlab.properties.property.register`
REGISTRY: dict = {}

#: z3 resource units per solver check of a property check (the sp / rm / pm deviation search's z3
#: step): counted, so the same instance gets the same answer on any machine. Measured on a 2-core
#: machine shared by eight busy processes: 10 million units take 30-40 s (3x3 resource monotonicity
#: of DRF), 1-3 s idle; a 3x3 rm question that z3 decides needs 0.1-4 million
CHECK_RLIMIT = 10_000_000
#: the wall-clock safety net of a check (seconds): far above what its counted budget costs (300
#: evaluations and one z3 step of CHECK_RLIMIT units), so it stops only work that is not counted (a
#: z3 step that does not charge its resource limit, a hanging plug-in); a check it stops is
#: ``unknown (wall-clock safety net)``, with ``"stopped": "time"``
CHECK_SAFETY_NET = 600.0

DEFAULT_BUDGET: dict[str, Any] = {
    "time_limit": CHECK_SAFETY_NET, "evaluations": 300, "seed": 0, "options": {}, "symbolic": True, "rlimit": None,
}


# --------------------------------------------------------------------------- budgets
@dataclass
class Budget:
    """What a check may spend. The deciding budget is counted: `evaluations` (mechanism runs of a
    deviation search), `seed` (its random candidates) and `rlimit` (z3 resource units per solver
    check); `time_limit` (seconds) is only the wall-clock safety net, and a check it cuts short is
    ``unknown (wall-clock safety net)`` with ``"stopped": "time"`` in its budget record, never a verdict."""

    time_limit: float
    evaluations: int
    seed: int
    options: dict
    symbolic: bool
    rlimit: int = CHECK_RLIMIT
    started: float = field(default_factory=time.monotonic)
    used_evaluations: int = 0

    def remaining(self) -> float:
        """Seconds left before the outer stop."""
        return self.time_limit - (time.monotonic() - self.started)

    def exhausted(self) -> bool:
        """The deterministic budget is spent (mechanism runs): the same on any machine."""
        return self.used_evaluations >= self.evaluations

    def time_up(self) -> bool:
        """The wall-clock outer stop has fired (the result can then only be `unknown`)."""
        return self.remaining() <= 0

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def solver(self) -> SolverBudget:
        """The z3 budget of one check: `rlimit` decides, the time left is the outer stop."""
        return SolverBudget(rlimit=self.rlimit, seconds=max(self.remaining(), 0.001), seed=self.seed)

    def used(self, **extra) -> dict:
        return {
            "time_limit": self.time_limit,
            "evaluations": self.used_evaluations,
            "max_evaluations": self.evaluations,
            "rlimit": self.rlimit,
            "seed": self.seed,
            **extra,
        }


def parse_budget(budget: Mapping[str, Any]) -> Budget:
    """Validate `**budget` keywords: time_limit (s > 0, the safety net), evaluations (int >= 1), seed,
    options, symbolic, rlimit (z3 resource units per check, int >= 1; default `CHECK_RLIMIT`)."""
    unknown = [k for k in budget if k not in DEFAULT_BUDGET]
    if unknown:
        raise InputError(f"budget {unknown[0]!r}: unknown (known: {', '.join(DEFAULT_BUDGET)})")
    merged = {**DEFAULT_BUDGET, **{k: v for k, v in budget.items() if v is not None}}
    limit = to_fraction(merged["time_limit"], "time_limit")
    if limit <= 0:
        raise InputError(f"time_limit: must be positive, got {merged['time_limit']!r}")
    evals = merged["evaluations"]
    if isinstance(evals, bool) or not isinstance(evals, int) or evals < 1:
        raise InputError(f"evaluations: expected a positive integer, got {evals!r}")
    seed = merged["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InputError(f"seed: expected an integer, got {seed!r}")
    options = merged["options"]
    if not isinstance(options, Mapping):
        raise InputError(f"options: expected a mapping of mechanism options, got {options!r}")
    rlimit = CHECK_RLIMIT if merged["rlimit"] is None else merged["rlimit"]
    if isinstance(rlimit, bool) or not isinstance(rlimit, int) or rlimit < 1:
        raise InputError(f"rlimit: expected a positive integer (z3 resource units), got {rlimit!r}")
    return Budget(float(limit), evals, seed, dict(options), bool(merged["symbolic"]), rlimit)


# --------------------------------------------------------------------------- mechanisms and instances
def resolve_mechanism(mechanism) -> Mechanism:
    """A `Mechanism`, or a registered name / alias / ``file.py:function`` plug-in."""
    if isinstance(mechanism, Mechanism):
        return mechanism
    return mechanisms.get(mechanism)


def resolve_instance(instance) -> Instance:
    """An `Instance`, its JSON-shaped dict, a path to a JSON file or a shipped example's name."""
    if isinstance(instance, Instance):
        return instance
    if isinstance(instance, Mapping):
        return Instance.from_dict(instance)
    if isinstance(instance, str):
        return Instance.load(instance)
    raise InputError(f"instance: expected an Instance, a JSON-shaped dict or a path, got {type(instance).__name__}")


#: Seconds an exact re-computation may take when no check has set a time limit (e.g. the
#: re-verification of a stored fixture): the default time limit of a check.
DEFAULT_EXACT_SECONDS: float = DEFAULT_BUDGET["time_limit"]


#: the instance domain of the check under way (`within`): a deviation whose derived instance lies
#: outside it (a misreport with a zero demand on positive demands, ...) is not one of its deviations
_DOMAIN: contextvars.ContextVar = contextvars.ContextVar("fairlab_check_domain", default=None)


@contextlib.contextmanager
def within(domain):
    """Checks inside this block consider only deviations whose derived instance lies in `domain`
    (a `fairlab.core.domain.Domain`; None: every deviation)."""
    token = _DOMAIN.set(domain)
    try:
        yield
    finally:
        _DOMAIN.reset(token)


def outside_domain(instance: Instance) -> str | None:
    """Why `instance` (a derived instance of a deviation) lies outside the current check's domain, or None."""
    domain = _DOMAIN.get()
    return None if domain is None else domain.contains(instance)


def run(mechanism: Mechanism, instance: Instance, options: Mapping[str, Any]) -> tuple[Exact, ...]:
    """Tasks per user of the mechanism's EXACT allocation on a fresh run, checked exactly feasible
    (caps, capacities, non-negative). The one place where properties obtain allocations.

    An approximate allocation (`Allocation.is_exact` False) never leaves this function: the
    mechanism is asked for the exact one (`Mechanism.exact_options`) within the time left before
    the current `fairlab.core.exact.deadline` (`DEFAULT_EXACT_SECONDS` without one), and if that is
    not possible or does not finish, `InexactAllocation` says why.

    A mechanism that is not one of the lab's built-ins (`is_builtin`: plug-in files, plain
    callables, entry points, hand-made `Mechanism` objects) is run twice on the same instance and
    options, and the two exact allocations must be equal: a mechanism that answers differently
    for the same question is not a mechanism a verdict can be about (a deviation search would
    compare two different behaviours), so `run` raises a one-line `PluginBadAnswer` instead (a
    finding about that instance, like a raise). Two runs
    cannot prove determinism, but they catch a mechanism that alternates or draws at random
    often enough to matter, at the only place allocations are obtained. Built-ins run once.
    Inside `allocation_cache()` an instance asked again gets the answer kept (for a foreign
    mechanism: the one its two runs agreed on)."""
    tasks = _run(mechanism, instance, options)
    for record in _RECORDERS:
        record.append((instance, tasks))
    return tasks


#: lists `run` appends (instance, tasks) to while a violation is re-verified (`violated`)
_RECORDERS: list[list] = []


def _run(mechanism: Mechanism, instance: Instance, options: Mapping[str, Any]) -> tuple[Exact, ...]:
    if _CACHE_DEPTH and ALLOCATION_CACHE:
        return _cached_exact_tasks(mechanism, instance, options)
    return _checked_tasks(mechanism, instance, options)


def _checked_tasks(mechanism: Mechanism, instance: Instance, options: Mapping[str, Any]) -> tuple[Exact, ...]:
    """`_exact_tasks`, twice for a foreign mechanism (the two must agree; `run`): a plug-in's
    worker process runs both on one request (`fairlab.mechanisms.plugin.paired`)."""
    if is_builtin(mechanism):
        return _exact_tasks(mechanism, instance, options)
    with plugin.paired() if PLUGIN_BATCHES else contextlib.nullcontext():
        tasks = _exact_tasks(mechanism, instance, options)
        again = _exact_tasks(mechanism, instance, options, feasible=False)  # the same tasks are feasible
    if again != tasks:  # a wrong answer on this instance: a finding (status error), not the end of the run
        raise plugin.bad_answer(mechanism.name, "returned different allocations for the same instance "
                                f"({fmt_tasks(tasks)} then {fmt_tasks(again)}): not a deterministic mechanism; "
                                "no verdict", getattr(mechanism.allocate, "defined_at", None))
    return tasks


#: exact allocations already computed in this process: (mechanism name, its allocator, instance,
#: options) -> tasks. A built-in is deterministic by review and the tasks are exact, so a hit is the
#: very answer a fresh run gives; a foreign mechanism's entry is kept only after its two runs agreed
#: (`run`), the answer a deterministic one gives again (each new instance is still run twice). It
#: spares the repeated runs of a search and its shrinking (the same derived instances recur across
#: checks; a plug-in's calls cross a pipe to its process). Small instances only.
#: Only inside `allocation_cache()` (a search and its shrinking), emptied when the outermost
#: block ends, so nothing outlives the search that filled it (e.g. into a test that patches a
#: mechanism's exact path).
_ALLOCATIONS: dict = {}
_CACHE_DEPTH = 0
ALLOCATION_CACHE = True  # False: every run from scratch (benchmarks/bench_search.py measures both)
ALLOCATION_CACHE_SIZE = 4096
ALLOCATION_CACHE_MAX_ENTRIES = 256  # n * m of the instances cached
#: a plug-in's two runs of an instance in one request, and the instances a search is about to ask for
#: sent ahead (`send_ahead`); False: one request per run (benchmarks/bench_audit.py measures both)
PLUGIN_BATCHES = True


@contextlib.contextmanager
def allocation_cache():
    """Within this block `run` keeps the exact allocations it computes (`_ALLOCATIONS`)."""
    global _CACHE_DEPTH
    _CACHE_DEPTH += 1
    try:
        yield
    finally:
        _CACHE_DEPTH -= 1
        if not _CACHE_DEPTH:
            _ALLOCATIONS.clear()


def _cached_exact_tasks(mechanism: Mechanism, instance: Instance, options: Mapping[str, Any]) -> tuple[Exact, ...]:
    if instance.n * instance.m > ALLOCATION_CACHE_MAX_ENTRIES:
        return _checked_tasks(mechanism, instance, options)
    try:
        key = (mechanism.name, mechanism.allocate, instance, tuple(sorted(options.items())))
        hash(key)
    except TypeError:  # an option value that is not hashable: no caching
        return _checked_tasks(mechanism, instance, options)
    tasks = _ALLOCATIONS.get(key)
    if tasks is None:
        tasks = _checked_tasks(mechanism, instance, options)
        if len(_ALLOCATIONS) >= ALLOCATION_CACHE_SIZE:
            _ALLOCATIONS.pop(next(iter(_ALLOCATIONS)))  # the oldest first
        _ALLOCATIONS[key] = tasks
    return tasks


def send_ahead(mechanism: Mechanism, instances: Sequence[Instance], options: Mapping[str, Any]) -> None:
    """Tell a plug-in's worker process the instances `run` is about to ask for, in order (those the
    allocation cache does not hold): its calls then cross the pipe once for all of them
    (`fairlab.mechanisms.plugin.send_ahead`), each still run twice and compared (`run`). A hint
    only: what `run` asks is what it gets. Nothing for a built-in, or outside `allocation_cache()`."""
    if is_builtin(mechanism) or not (_CACHE_DEPTH and ALLOCATION_CACHE and PLUGIN_BATCHES):
        return
    wanted, seen = [], set()
    for instance in instances:
        if instance.n * instance.m <= ALLOCATION_CACHE_MAX_ENTRIES:  # `run` looks in the cache first
            try:
                key = (mechanism.name, mechanism.allocate, instance, tuple(sorted(options.items())))
                if key in _ALLOCATIONS or key in seen:
                    continue
                seen.add(key)
            except TypeError:  # an option value that is not hashable: no cache, no hint
                return
        wanted.append(instance)
    plugin.send_ahead(mechanism, wanted, dict(options), runs=2)


def _exact_tasks(mechanism: Mechanism, instance: Instance, options: Mapping[str, Any], feasible: bool = True
                 ) -> tuple[Exact, ...]:
    """The exact tasks of a run, exactly feasible (`feasible`: checked here, unless a plug-in's
    allocator already checked its exact answer, `plugin.FEASIBILITY_CHECKED`; False for a second run
    whose tasks are then compared with a checked first one)."""
    allocation = mechanism(instance, **dict(options))
    if mechanism.allocate in plugin.FEASIBILITY_CHECKED and allocation.is_exact():
        feasible = False  # the plug-in's allocator checked this exact answer on this instance (`plugin._allocator`)
    if not allocation.is_exact():
        allocation = _exact_allocation(mechanism, instance, options, allocation)
    tasks = tuple(allocation.tasks)
    loose = [k for k, t in enumerate(tasks) if isinstance(t, bool) or not isinstance(t, (Fraction, Algebraic, int))]
    if loose:  # e.g. a hand-made Mechanism whose Allocation holds floats: a float never decides
        k = loose[0]
        raise InexactAllocation(f"{mechanism.name}'s allocation on this instance holds tasks[{k}] = {tasks[k]!r}, "
                                f"a {type(tasks[k]).__name__}, not an exact number; only exact allocations decide "
                                "verdicts")
    if feasible:
        check_feasible(instance, tasks, f"mechanism {mechanism.name!r}")
    return tasks


def _exact_allocation(mechanism: Mechanism, instance: Instance, options: Mapping[str, Any], approximate):
    what = f"{mechanism.name}'s allocation on this instance is {approximate.describe_exactness()}"
    if approximate.notes:  # why (e.g. a plug-in's answer held floats)
        what += f" ({approximate.notes[0]})"
    if mechanism.exact_options is None:
        raise InexactAllocation(f"{what}, and the mechanism has no exact path; only exact allocations decide verdicts")
    left = exact.remaining()
    seconds = DEFAULT_EXACT_SECONDS if left is None else left
    if seconds <= 0:
        raise InexactAllocation(f"{what}; no time was left to compute the exact one")
    try:
        allocation = mechanism(instance, **mechanism.exact_options(dict(options), seconds))
    except ExactTimeout as exc:
        raise InexactAllocation(
            f"{what}; the exact one did not finish within the {seconds:.3g} s left of the time limit "
            "(the wall-clock safety net)"
        ) from exc
    if not allocation.is_exact():
        raise InexactAllocation(f"{what}; asked for the exact one, it answered approximately again")
    return allocation


def rebuild(instance: Instance, keep_users: Sequence[int] | None = None, demands=None, capacities=None) -> Instance:
    """A copy of `instance` with some users only, replaced demand rows, or new capacities."""
    users = list(range(instance.n)) if keep_users is None else list(keep_users)
    rows = instance.demands if demands is None else demands
    weights: list[Any] | None = None
    if instance.weights_given == "scalar":
        weights = [instance.weights[i][0] for i in users]
    elif instance.weights_given == "vector":
        weights = [list(instance.weights[i]) for i in users]
    return Instance.build(
        capacities=list(instance.capacities if capacities is None else capacities),
        demands=[list(rows[i]) for i in users],
        weights=weights,
        max_tasks=[instance.max_tasks[i] for i in users],
        users=[instance.users[i] for i in users],
        resources=list(instance.resources),
    )


# --------------------------------------------------------------------------- witness numbers
def number(value: Exact):
    """A witness number for JSON: an int if integral, else ``"p/q"`` (irrationals to 20 digits)."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return int(value)
    if isinstance(value, int):
        return value
    return format_exact(value)


def read_vector(raw, length: int, field_name: str) -> tuple[Fraction, ...]:
    if not isinstance(raw, (list, tuple)) or len(raw) != length:
        raise InputError(f"witness {field_name}: expected {length} numbers, got {raw!r}")
    return tuple(to_fraction(v, f"witness {field_name}[{k}]") for k, v in enumerate(raw))


def read_index(raw, bound: int, field_name: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw < bound:
        raise InputError(f"witness {field_name}: expected an index in 0..{bound - 1}, got {raw!r}")
    return raw


# --------------------------------------------------------------------------- results
@dataclass
class Violation:
    """A claimed violation: `verify()` recomputes it from scratch (fresh run, exact arithmetic)."""

    property: str
    mechanism: Mechanism
    instance: Instance
    witness: Any  # the property's typed witness, or its dict (stored fixtures)
    options: dict = field(default_factory=dict)
    #: after `explain`: why it could not be confirmed exactly (an approximate allocation, or exact
    #: arithmetic out of time), or None
    inexact: str | None = field(default=None, compare=False)

    def explain(self) -> str | None:
        """The recomputed explanation, or None if the witness does not show a violation, or if
        showing it would need an approximate allocation or more time (then `inexact` says why)."""
        self.inexact = None
        try:
            if self.property not in REGISTRY:
                raise InputError(f"property {self.property!r}: unknown")
            return REGISTRY[self.property].confirm(self.mechanism, self.instance, self.witness, self.options)
        except (PluginError, OptionError):
            raise  # the mechanism failed: not a verdict about the witness
        except (InexactAllocation, ExactTimeout) as exc:
            self.inexact = str(exc)
            return None
        except InputError:
            return None

    def verify(self) -> bool:
        return self.explain() is not None


def violated(name: str, mechanism: Mechanism, instance: Instance, witness, budget: Budget, **used) -> Result:
    """A `violated` result, only if the witness passes its own from-scratch verification. A witness
    dict (read from a z3 model) becomes the property's typed witness."""
    if isinstance(witness, Mapping) and name in REGISTRY:
        witness = REGISTRY[name].witness.from_dict(witness)
    violation = Violation(name, mechanism, instance, witness, dict(budget.options))
    recorded: list = []
    _RECORDERS.append(recorded)
    try:
        explanation = violation.explain()
    finally:
        _RECORDERS.remove(recorded)
    shown = to_dict(witness, versioned=False)
    if explanation is None and violation.inexact is not None:
        return verdict(name, mechanism, "unknown", budget,
                       f"a candidate witness {shown} could not be re-verified exactly: {violation.inexact}", **used)
    if explanation is None:  # an engine bug or a non-deterministic mechanism: never print it
        return verdict(name, mechanism, "unknown", budget,
                       f"a candidate witness {shown} failed its exact re-verification; not reported", **used)
    return Result("check", Status.VIOLATED, mechanism.name, name, instance, witness, budget=budget.used(**used),
                  seconds=budget.elapsed(), explanation=explanation,
                  details={"compared": compared_allocations(instance, recorded)} if recorded else {})


def compared_allocations(instance: Instance, recorded: list) -> list[dict]:
    """The allocations a violation's re-verification computed, in order, each once: the instance's
    own ("allocation") and those of derived instances (a misreport, grown capacities, a departure),
    with the users they belong to and their exact tasks."""
    out, seen = [], set()
    for inst, tasks in recorded:
        key = (repr(inst.to_dict()), tuple(tasks))
        if key in seen:
            continue
        seen.add(key)
        label = "allocation" if inst == instance else "allocation of the derived instance"
        out.append({"label": label, "users": list(inst.users), "tasks": [format_exact(t) for t in tasks],
                    "instance": inst.to_dict()})
    return out


def exact_verdicts(name: str, check: Callable[..., Result]) -> Callable[..., Result]:
    """Wrap a property's ``check(mechanism, instance, **budget)`` so that it decides on exact
    allocations only: exact work inside it must finish within the budget's time limit
    (`fairlab.core.exact.deadline`), and a check that needed an allocation only available
    approximately (`InexactAllocation`), or exact arithmetic that ran out of time
    (`ExactTimeout`), answers ``unknown`` with the reason — never violated, holds or none-found.
    `fairlab.properties.property.Property.check` is wrapped so."""
    if getattr(check, "exact_verdicts", False):
        return check

    @functools.wraps(check)
    def checked(mechanism, instance, **budget) -> Result:
        b = parse_budget(budget)
        try:
            with exact.deadline(b.started + b.time_limit):
                return check(mechanism, instance, **budget)
        except (InexactAllocation, ExactTimeout) as exc:
            reason = str(exc)
            # exact work the time limit cut short: the wall-clock safety net, said apart
            timed = any(isinstance(e, ExactTimeout) and not isinstance(e, ExactBudgetSpent)
                        for e in (exc, exc.__cause__)) or b.time_up()
        return verdict(name, resolve_mechanism(mechanism), "unknown", b, f"not decided: {reason}",
                       **({"stopped": "time"} if timed else {}))

    checked.exact_verdicts = True  # type: ignore[attr-defined]  # the mark read above: wrap once
    return checked


class Undecided:
    """Deviation candidates (misreports, capacity increases) whose exact evaluation was not
    possible: the mechanism's allocation there is only approximate, or exact arithmetic ran out of
    time. `guard(evaluate)` skips them (counted, never read as "no violation here"); `amend` then
    qualifies a none-found verdict, which becomes unknown if no candidate was decided at all."""

    def __init__(self):
        self.evaluated = 0
        self.count = 0
        self.reason: str | None = None

    def guard(self, evaluate: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def guarded(candidate):
            self.evaluated += 1
            try:
                return evaluate(candidate)
            except (InexactAllocation, ExactTimeout) as exc:
                self.count += 1
                self.reason = self.reason or str(exc)
                return None

        return guarded

    def amend(self, result: Result) -> Result:
        if not self.count or result.status != Status.NONE_FOUND:
            return result
        budget = {**result.budget, "undecided": self.count}
        note = f"{self.count} of {self.evaluated} candidates undecided, e.g.: {self.reason}"
        if self.count >= self.evaluated:
            return result.replace(status=Status.UNKNOWN, budget=budget,
                                  explanation=f"not decided: every candidate evaluated was undecided ({note})")
        return result.replace(budget=budget, explanation=f"{result.explanation}; {note}")


def verdict(name: str, mechanism: Mechanism, kind: str, budget: Budget, explanation: str, **used) -> Result:
    """A check `Result` without a witness (holds, none-found, n/a, unknown)."""
    return Result("check", Status(kind), mechanism.name, name, budget=budget.used(**used), seconds=budget.elapsed(),
                  explanation=explanation)


def fmt_tasks(tasks: Sequence[Exact]) -> str:
    return "<" + ", ".join(format_exact(t) for t in tasks) + ">"


# --------------------------------------------------------------------------- symbolic side
@dataclass
class Encoding:
    """Named z3 constraints satisfiable iff the property is violated, and how to read a witness.

    `constraints` include the mechanism specification(s) on fresh task variables; `domain`
    constraints of the symbolic instance are NOT included (add ``sym.domain`` yourself).
    `witness(model)` turns a model into the property's witness as a dict (its JSON form, numbers as
    in `number`; `Property.witness.from_dict` types it)."""

    constraints: list[Constraint]
    witness: Callable[[z3.ModelRef], dict | None]  # None: the model shows no readable witness
    variables: dict = field(default_factory=dict)


def fresh_tasks(prefix: str, n: int) -> list[z3.ArithRef]:
    return [z3.Real(f"{prefix}.t{i}") for i in range(n)]


def require_spec(spec, name: str):
    if spec is None:
        raise InputError(f"mechanism {name!r}: has no symbolic specification (numeric engines only)")
    return spec


def model_value(model: z3.ModelRef, term) -> Exact:
    """Exact value of `term` in `model` (Fraction, or Algebraic for an irrational value)."""
    return Algebraic.of(model.eval(term, model_completion=True))


def model_index(model: z3.ModelRef, choices: Sequence[tuple[Any, z3.BoolRef]]):
    """The first choice whose guard is true in the model."""
    for value, guard in choices:
        if z3.is_true(model.eval(guard, model_completion=True)):
            return value
    return None


def solve(constraints: Sequence[Constraint], budget) -> tuple[str, z3.ModelRef | None]:
    """Run z3 on named constraints: ("sat", model), ("unsat", None) or ("unknown", None).

    `budget` is a `fairlab.core.solving.SolverBudget` (its rlimit decides; its seconds are the outer
    stop), a `Budget` (its `solver()`), or a number of seconds (the outer stop, with the default
    rlimit). `solve_reason` also says why an answer is unknown."""
    status, model, _ = solve_reason(constraints, budget)
    return status, model


def solve_reason(constraints: Sequence[Constraint], budget) -> tuple[str, z3.ModelRef | None, str]:
    """`solve` with the reason of an unknown: "rlimit" (deterministic), "time" (outer stop), or z3's words."""
    status, model, reason, _ = solve_spent(constraints, budget)
    return status, model, reason


def solve_spent(constraints: Sequence[Constraint], budget) -> tuple[str, z3.ModelRef | None, str, int]:
    """`solve_reason` and the z3 resource units the question spent (its fresh context's ``rlimit
    count``: deterministic; the whole rlimit when z3 gave up on it or does not say)."""
    if isinstance(budget, Budget):
        if budget.time_up():
            return "unknown", None, "time", 0
        budget = budget.solver()
    elif not isinstance(budget, SolverBudget):
        if not budget > 0:
            return "unknown", None, "time", 0
        budget = SolverBudget(seconds=float(budget))
    solver, ctx = isolated_solver(budget)
    for c in constraints:
        solver.add(c.expr.translate(ctx))
    status, reason = solver_check(solver)
    stats = solver.statistics()
    counted = "rlimit count" in stats.keys()  # noqa: SIM118 (z3 Statistics has keys() but no __contains__)
    spent = budget.rlimit if status == "unknown" or not counted else int(stats.get_key_value("rlimit count"))
    return status, (solver.model().translate(z3.main_ctx()) if status == "sat" else None), reason, spent
