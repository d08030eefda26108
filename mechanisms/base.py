"""What every mechanism shares: the allocation result, the symbolic instance, the registry.

A mechanism file defines two things side by side and registers them with `register`:

* a numeric allocator ``allocate(instance, **options) -> Allocation`` computing the exact
  allocation (tasks per user as `Fraction` or `fairlab.core.exact.Algebraic`), or an approximation
  that says so (``exactness="approximate"``, with its certified error bound);
* a symbolic specification ``spec(sym, tasks, **options) -> list[Constraint]``: named z3
  constraints that characterise the mechanism's allocation `tasks` (z3 Reals) of the symbolic
  instance `sym`, whose capacities and demands may be numerals or unknowns.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from fractions import Fraction
from os import PathLike
from types import MappingProxyType
from typing import Any, Callable, Mapping, NamedTuple, Sequence

import z3

from fairlab.core.domain import ALL, Domain
from fairlab.core.errors import InputError, OptionError
from fairlab.core.exact import Exact, format_exact, z3_value
from fairlab.core.instance import Instance

# --------------------------------------------------------------------------- result
EXACTNESS = ("rational", "algebraic", "approximate")


@dataclass(frozen=True)
class Allocation:
    """A mechanism's allocation: `tasks[i]` tasks (continuous) for user i, in user order.

    `exactness` says what the numbers are: "rational" (every task a `Fraction`, the exact
    allocation), "algebraic" (exact, some task an irrational `Algebraic`) or "approximate" (an
    approximation of the mechanism's allocation, e.g. CEEI's float path: its tasks are
    `Fraction`s, but not the mechanism's answer). The exact kinds are derived from the task types
    (leave `exactness` unset); an approximate path must say "approximate", with `error_bound`
    (text: a certified bound on each user's relative error, or None if it has none). Only exact
    allocations decide verdicts (`fairlab.properties.base.run`).
    """

    mechanism: str
    instance: Instance
    tasks: tuple[Exact, ...]
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    notes: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    exactness: str | None = None
    error_bound: str | None = None
    #: several machines: `placement[i][k]` whole tasks of user i on machine k (`tasks[i]` their sum)
    placement: tuple[tuple[Fraction, ...], ...] | None = None
    #: a randomized mechanism: its lottery, (probability, placement) pairs; `tasks` are the expected
    #: tasks (properties of a lottery are judged ex ante, on them)
    lottery: tuple[tuple[Fraction, tuple[tuple[Fraction, ...], ...]], ...] | None = None
    #: agents over time: the allocation after each event (`Step`); `tasks` is the last one
    steps: tuple[Step, ...] | None = None

    def __post_init__(self) -> None:
        derived = "rational" if all(isinstance(t, Fraction) for t in self.tasks) else "algebraic"
        if self.exactness is None:
            object.__setattr__(self, "exactness", derived)
        elif self.exactness not in EXACTNESS:
            raise ValueError(f"exactness {self.exactness!r}: not one of {', '.join(EXACTNESS)}")
        elif self.exactness != "approximate" and self.exactness != derived:
            raise ValueError(f"exactness {self.exactness!r} contradicts the tasks' types ({derived})")
        if self.exactness != "approximate" and self.error_bound is not None:
            raise ValueError("error_bound: only an approximate allocation has one")

    def is_exact(self) -> bool:
        """The mechanism's exact allocation (rational or algebraic), not an approximation of it."""
        return self.exactness != "approximate"

    def is_exact_rational(self) -> bool:
        """The exact allocation, every task a `Fraction` (False for any approximation)."""
        return self.exactness == "rational"

    def describe_exactness(self) -> str:
        """One phrase for tables and messages: "exact (rational)", "approximate (...)"."""
        if self.is_exact():
            return f"exact ({self.exactness})"
        bound = "no certified error bound" if self.error_bound is None else (
            f"certified relative error <= {self.error_bound}")
        return f"approximate ({bound})"

    @property
    def bundles(self) -> tuple[tuple[Exact, ...], ...]:
        """Resource amounts per user: tasks_i * d_ir."""
        inst = self.instance
        return tuple(tuple(t * d for d in inst.demands[i]) for i, t in enumerate(self.tasks))

    @property
    def shares(self) -> tuple[tuple[Exact, ...], ...]:
        """Fractions of each resource per user: tasks_i * d_ir / c_r."""
        inst = self.instance
        return tuple(tuple(t * inst.demand_share(i, r) for r in range(inst.m)) for i, t in enumerate(self.tasks))

    @property
    def dominant_shares(self) -> tuple[Exact, ...]:
        """max_r of each user's shares (unweighted)."""
        inst = self.instance
        return tuple(t * inst.dominant_share_per_task(i) for i, t in enumerate(self.tasks))

    @property
    def utilisation(self) -> tuple[Exact, ...]:
        """Fraction of each resource in use: sum_i tasks_i d_ir / c_r."""
        inst = self.instance
        return tuple(
            sum((t * inst.demand_share(i, r) for i, t in enumerate(self.tasks)), Fraction(0)) for r in range(inst.m)
        )

    def __str__(self) -> str:
        """A table of users × resources (tasks, then each resource's share) and the exactness."""
        inst = self.instance
        header = ["user", "tasks", *(f"{r} share" for r in inst.resources)]
        rows = [[inst.users[i], format_exact(t), *(format_exact(s) for s in self.shares[i])]
                for i, t in enumerate(self.tasks)]
        widths = [max(len(str(row[k])) for row in [header, *rows]) for k in range(len(header))]
        line = lambda row: "  ".join(str(v).ljust(w) for v, w in zip(row, widths)).rstrip()  # noqa: E731
        options = ", ".join(f"{k}={format_exact(v) if isinstance(v, Fraction) else v}" for k, v in self.options.items())
        title = f"{self.mechanism}{f' ({options})' if options else ''}: {self.describe_exactness()}"
        return "\n".join([title, line(header), *(line(row) for row in rows), *(f"note: {n}" for n in self.notes)])

    def _repr_html_(self) -> str:
        inst = self.instance
        esc = html.escape
        cells = "".join(f"<th>{esc(r)} share</th>" for r in inst.resources)
        head = f"<tr><th style='text-align:left'>user</th><th>tasks</th>{cells}</tr>"
        body = "".join(
            f"<tr><th style='text-align:left'>{esc(inst.users[i])}</th><td>{esc(format_exact(t))}</td>"
            + "".join(f"<td>{esc(format_exact(s))}</td>" for s in self.shares[i]) + "</tr>"
            for i, t in enumerate(self.tasks))
        caption = f"{esc(self.mechanism)}: {esc(self.describe_exactness())}"
        notes = "".join(f"<br><small>{esc(n)}</small>" for n in self.notes)
        return f"<table><caption>{caption}</caption>{head}{body}</table>{notes}"

    def to_dict(self) -> dict:
        """JSON-ready: every number as an exact string (irrationals to 20 significant digits);
        ``"exactness"`` (and ``"exact"``, the same) says whether they are the exact allocation or an
        approximation, ``"error_bound"`` the approximation's certified relative error bound."""
        inst = self.instance
        fmt = format_exact
        return {
            "mechanism": self.mechanism,
            "options": {k: _jsonable(v) for k, v in self.options.items()},
            "users": list(inst.users),
            "resources": list(inst.resources),
            "tasks": [fmt(t) for t in self.tasks],
            "bundles": [[fmt(b) for b in row] for row in self.bundles],
            "shares": [[fmt(s) for s in row] for row in self.shares],
            "dominant_shares": [fmt(s) for s in self.dominant_shares],
            "utilisation": [fmt(u) for u in self.utilisation],
            "exactness": self.exactness,
            "exact": self.exactness,  # the same word, under the key of earlier versions
            "error_bound": self.error_bound,
            "notes": list(self.notes),
            **self._setting_dict(),
            **{k: _jsonable(v) for k, v in self.extra.items() if k not in _OWN_KEYS},
        }

    def _setting_dict(self) -> dict:
        """The placement / lottery / steps of the machines and dynamic settings (absent otherwise)."""
        out: dict[str, Any] = {}
        inst = self.instance
        if inst.machines is not None:
            out["machines"] = list(inst.machine_names or ())
        if self.placement is not None:
            out["placement"] = [[format_exact(x) for x in row] for row in self.placement]
        if self.lottery is not None:
            out["lottery"] = [{"probability": format_exact(p),
                               "placement": [[format_exact(x) for x in row] for row in pl]} for p, pl in self.lottery]
        if self.steps is not None:
            out["steps"] = [step.to_dict(inst) for step in self.steps]
        return out


#: keys of `Allocation.to_dict` that `extra` may not override (exactness is the field's alone)
_OWN_KEYS = frozenset({"mechanism", "options", "users", "resources", "tasks", "bundles", "shares", "dominant_shares",
                       "utilisation", "exactness", "exact", "error_bound", "notes", "machines", "placement",
                       "lottery", "steps"})


@dataclass(frozen=True)
class Step:
    """The allocation after one event of a dynamic instance (`Instance.events`): `event` is
    ("arrive" | "depart", user), `present` the users then in the system, `tasks[i]` user i's tasks
    (0 for a user not present)."""

    event: tuple[str, int]
    present: tuple[int, ...]
    tasks: tuple[Exact, ...]

    def to_dict(self, instance: Instance) -> dict:
        kind, user = self.event
        return {"event": kind, "user": instance.users[user],
                "present": [instance.users[i] for i in self.present],
                "tasks": [format_exact(t) for t in self.tasks],
                "dominant_shares": [format_exact(t * instance.dominant_share_per_task(i))
                                    for i, t in enumerate(self.tasks)]}


def _jsonable(v: Any) -> Any:
    if isinstance(v, Fraction) or hasattr(v, "ref"):
        return format_exact(v)
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in v.items()}
    return v


def check_feasible(instance: Instance, tasks: Sequence[Exact], who: str) -> None:
    """Raise `InputError` unless `tasks` has one non-negative entry per user, within caps and capacities."""
    if len(tasks) != instance.n:
        raise InputError(f"{who}: returned {len(tasks)} task counts for {instance.n} users")
    for i, t in enumerate(tasks):
        if t < 0:
            raise InputError(f"{who}: user {i} gets a negative number of tasks {format_exact(t)}")
        cap = instance.max_tasks[i]
        if cap is not None and t > cap:
            raise InputError(f"{who}: user {i} gets {format_exact(t)} tasks, above its cap {format_exact(cap)}")
    for r in range(instance.m):
        load = sum((t * instance.demands[i][r] for i, t in enumerate(tasks)), Fraction(0))
        if load > instance.capacities[r]:
            raise InputError(
                f"{who}: infeasible, resource {instance.resources[r]} used {format_exact(load)}"
                f" > capacity {format_exact(instance.capacities[r])}"
            )


def check_setting_allocation(allocation: Allocation, who: str, discrete: bool = False) -> None:
    """Raise `InputError` unless the allocation is complete and exactly feasible for its instance's
    setting — the one check every allocation of the machines and dynamic settings passes (built-in
    or plug-in) before anything is judged:

    * machines: a `placement` (or a `lottery` of placements with positive probabilities summing to
      1) of n rows × k machines, non-negative, whole tasks if `discrete`, within every machine's
      capacity and the users' caps; `tasks` = the row sums (the expected row sums of a lottery);
    * dynamic: one `Step` per event of `Instance.events`, in order, naming that event, `present` the
      users then in the system, absent users 0 tasks, each step within the capacities (and whole
      tasks at every step if `discrete`); `tasks` = the last step's."""
    inst = allocation.instance
    if inst.setting == "machines":
        if (allocation.placement is None) == (allocation.lottery is None):
            raise InputError(f"{who}: an allocation on machines needs a placement or a lottery (exactly one)")
        if allocation.placement is not None:
            _check_placement(inst, allocation.placement, who, discrete)
            expected: tuple[Fraction, ...] = tuple(sum(row, Fraction(0)) for row in allocation.placement)
        else:
            if not allocation.lottery:
                raise InputError(f"{who}: an empty lottery")
            total = Fraction(0)
            sums = [Fraction(0)] * inst.n
            for p, placement in allocation.lottery:
                if not isinstance(p, Fraction) or p <= 0:
                    raise InputError(f"{who}: a lottery probability must be a positive exact number, got {p!r}")
                _check_placement(inst, placement, who, discrete)
                total += p
                sums = [e + p * sum(row, Fraction(0)) for e, row in zip(sums, placement)]
            if total != 1:
                raise InputError(f"{who}: the lottery's probabilities sum to {format_exact(total)}, not 1")
            expected = tuple(sums)
        if tuple(allocation.tasks) != expected:
            raise InputError(f"{who}: tasks {[format_exact(t) for t in allocation.tasks]} are not the placement's "
                             f"row sums {[format_exact(t) for t in expected]}")
    elif inst.setting == "dynamic":
        steps, events = allocation.steps, inst.events or ()
        if steps is None or len(steps) != len(events):
            raise InputError(f"{who}: an allocation over time needs one step per event ({len(events)}), "
                             f"got {0 if steps is None else len(steps)}")
        present: set[int] = set()
        for t, (step, event) in enumerate(zip(steps, events)):
            kind, user = event
            present = present | {user} if kind == "arrive" else present - {user}
            if tuple(step.event) != event or set(step.present) != present:
                raise InputError(f"{who}: step {t + 1} does not follow the instance's events")
            check_feasible(inst, step.tasks, f"{who}: step {t + 1}")
            if discrete:
                whole = [isinstance(x, int | Fraction) and Fraction(x).denominator == 1 for x in step.tasks]
                frac = next((i for i, w in enumerate(whole) if not w), None)
                if frac is not None:
                    raise InputError(f"{who}: step {t + 1} gives {inst.users[frac]} "
                                     f"{format_exact(step.tasks[frac])} tasks, not a whole number")
            absent = [i for i, x in enumerate(step.tasks) if i not in present and x != 0]
            if absent:
                raise InputError(f"{who}: step {t + 1} gives tasks to {inst.users[absent[0]]}, who is not present")
        if tuple(allocation.tasks) != tuple(steps[-1].tasks):
            raise InputError(f"{who}: tasks are not the last step's")
    elif allocation.placement is not None or allocation.lottery is not None or allocation.steps is not None:
        raise InputError(f"{who}: a placement, lottery or steps on an instance of one pool")


def _check_placement(inst: Instance, placement: Sequence[Sequence[Any]], who: str, discrete: bool) -> None:
    if len(placement) != inst.n or any(len(row) != inst.k for row in placement):
        raise InputError(f"{who}: a placement needs {inst.n} rows of {inst.k} machines")
    for i, row in enumerate(placement):
        for k, x in enumerate(row):
            if not isinstance(x, Fraction) or x < 0:
                raise InputError(f"{who}: placement[{i}][{k}] must be a non-negative exact number, got {x!r}")
            if discrete and x.denominator != 1:
                raise InputError(f"{who}: placement[{i}][{k}] = {format_exact(x)} is not a whole number of tasks")
        cap = inst.max_tasks[i]
        if cap is not None and sum(row, Fraction(0)) > cap:
            raise InputError(f"{who}: user {inst.users[i]} gets {format_exact(sum(row, Fraction(0)))} tasks, "
                             f"above its cap {format_exact(cap)}")
    names = inst.machine_names or ()
    for k, machine in enumerate(inst.machines or ()):
        for r in range(inst.m):
            load = sum((placement[i][k] * inst.demands[i][r] for i in range(inst.n)), Fraction(0))
            if load > machine[r]:
                raise InputError(f"{who}: infeasible, machine {names[k]} uses {format_exact(load)} "
                                 f"{inst.resources[r]} > its capacity {format_exact(machine[r])}")


# --------------------------------------------------------------------------- symbolic side
class Constraint(NamedTuple):
    """A named z3 constraint; names make unsat cores readable ("drf.bottleneck[2]")."""

    name: str
    expr: z3.BoolRef


@dataclass
class SymbolicInstance:
    """An instance whose numbers are z3 terms: numerals for a known instance, unknowns for search."""

    capacities: list[z3.ArithRef]
    demands: list[list[z3.ArithRef]]
    weights: list[list[z3.ArithRef]]
    max_tasks: list[z3.ArithRef | None]
    domain: list[Constraint] = field(default_factory=list)
    #: agents over time: user indices in arrival order (None: a static instance, or identity order)
    arrivals: list[int] | None = None
    #: agents over time: the events in order, ("arrive" | "depart", user) (`Instance.events`; None:
    #: a static instance, or arrivals only, in `arrivals` order)
    events: list[tuple[str, int]] | None = None
    #: several machines: machine k's capacity vector (numerals or unknowns; None: one pool). A
    #: machines spec places whole tasks with the Int unknowns `placement(tasks)`
    machines: list[list[z3.ArithRef]] | None = None

    @property
    def n(self) -> int:
        return len(self.demands)

    @property
    def m(self) -> int:
        return len(self.capacities)

    @classmethod
    def from_instance(cls, inst: Instance) -> SymbolicInstance:
        return cls(
            capacities=[z3_value(c) for c in inst.capacities],
            demands=[[z3_value(d) for d in row] for row in inst.demands],
            weights=[[z3_value(w) for w in row] for row in inst.weights],
            max_tasks=[None if t is None else z3_value(t) for t in inst.max_tasks],
            arrivals=None if inst.arrivals is None else list(inst.arrivals),
            events=None if inst.events is None else list(inst.events),
            machines=None if inst.machines is None else [[z3_value(c) for c in row] for row in inst.machines],
        )

    @property
    def k(self) -> int:
        """Number of machines (1 without machines)."""
        return 1 if self.machines is None else len(self.machines)

    def placement(self, tasks: Sequence[z3.ArithRef]) -> list[list[z3.ArithRef]]:
        """The placement unknowns of `tasks` on the machines: ``x[i][k]`` (z3 Int) tasks of user i on
        machine k, named after tasks[i] (the same `tasks` give the same unknowns, so a caller such
        as `fairlab.mechanisms.conformance` can fix them to a numeric placement)."""
        return [[z3.Int(f"{tasks[i]}@m{k}") for k in range(self.k)] for i in range(self.n)]

    @classmethod
    def unknown(cls, n: int, m: int, prefix: str = "", capacities: Any = None, caps: Any = False,
                weights: str = "none") -> SymbolicInstance:
        """Unknown demands ``d[i][r] >= 0`` (each row with a positive entry).

        `capacities`: numerals to fix (normalised capacities 1 by default, which loses no
        generality for scale-invariant mechanisms); pass "unknown" for unknown positive ones.
        `caps`: which users have an unknown task cap ``cap_i >= 0`` (in tasks; 0 allowed, as in an
        `Instance`): True for every user, False for none, or one bool per user (the others have no cap).
        `weights`: "none" (unit weights), "scalar" (an unknown weight ``w_i > 0`` per user, the same
        on every resource) or "vector" (an unknown ``w_ir > 0`` per user and resource, DRF paper §4.3).
        """
        domain: list[Constraint] = []
        if capacities == "unknown":
            cs = [z3.Real(f"{prefix}c{r}") for r in range(m)]
            domain += [Constraint(f"domain.capacity[{r}]>0", c > 0) for r, c in enumerate(cs)]
        else:
            cs = [z3_value(Fraction(c)) for c in (capacities or [1] * m)]
        ds = [[z3.Real(f"{prefix}d{i}_{r}") for r in range(m)] for i in range(n)]
        for i in range(n):
            domain += [Constraint(f"domain.demand[{i}][{r}]>=0", ds[i][r] >= 0) for r in range(m)]
            domain.append(Constraint(f"domain.demand[{i}]!=0", z3.Or([d > 0 for d in ds[i]])))
        capped = [bool(caps)] * n if isinstance(caps, bool) else [bool(c) for c in caps]
        if len(capped) != n:
            raise ValueError(f"caps: expected one bool per user ({n}), got {caps!r}")
        mt: list = [z3.Real(f"{prefix}cap{i}") if c else None for i, c in enumerate(capped)]
        domain += [Constraint(f"domain.cap[{i}]>=0", t >= 0) for i, t in enumerate(mt) if t is not None]
        ws: list[list[z3.ArithRef]]
        if weights == "none":
            ws = [[z3.RealVal(1)] * m for _ in range(n)]
        elif weights == "scalar":
            ws = [[z3.Real(f"{prefix}w{i}")] * m for i in range(n)]
            domain += [Constraint(f"domain.weight[{i}]>0", ws[i][0] > 0) for i in range(n)]
        elif weights == "vector":
            ws = [[z3.Real(f"{prefix}w{i}_{r}") for r in range(m)] for i in range(n)]
            domain += [Constraint(f"domain.weight[{i}][{r}]>0", ws[i][r] > 0) for i in range(n) for r in range(m)]
        else:
            raise ValueError(f"weights: expected none, scalar or vector, got {weights!r}")
        return cls(cs, ds, ws, mt, domain)

    def restrict(self, domain: Domain) -> SymbolicInstance:
        """This symbolic instance with `domain`'s demand constraint added (every d_ir > 0 for
        positive demands); its weights and caps are as built (`unknown`: unit weights, no caps)."""
        if domain.demands == "positive":
            self.domain += [Constraint(f"domain.demand[{i}][{r}]>0", d > 0)
                            for i, row in enumerate(self.demands) for r, d in enumerate(row)]
        return self

    def load(self, tasks: Sequence[z3.ArithRef], r: int) -> z3.ArithRef:
        return z3.Sum([tasks[i] * self.demands[i][r] for i in range(self.n)])

    def feasibility(self, tasks: Sequence[z3.ArithRef], prefix: str) -> list[Constraint]:
        """tasks >= 0, within task caps, and within every capacity."""
        out = [Constraint(f"{prefix}.nonneg[{i}]", tasks[i] >= 0) for i in range(self.n)]
        out += [
            Constraint(f"{prefix}.cap[{i}]", tasks[i] <= cap) for i, cap in enumerate(self.max_tasks) if cap is not None
        ]
        out += [Constraint(f"{prefix}.capacity[{r}]", self.load(tasks, r) <= self.capacities[r]) for r in range(self.m)]
        return out


def z3_max(terms: Sequence[z3.ArithRef]) -> z3.ArithRef:
    """max of z3 terms as an If-chain (a numeral if all terms are numerals)."""
    best = terms[0]
    for t in terms[1:]:
        best = z3.If(t > best, t, best)
    return z3.simplify(best) if all(z3.is_rational_value(z3.simplify(t)) for t in terms) else best


# --------------------------------------------------------------------------- registry
#: The valuation models of the machines setting (`Mechanism.valuation`): how the machines properties value
#: another user's bundle (envy-freeness) and the allocation a misreport earns (strategyproofness).
#: ``pooled``: a bundle on a machine is its pooled resources, valued Leontief per machine (the DRF paper's
#: §6.2 machines, DRFH); ``containers``: a bundle on a machine is a set of containers, one per task, each
#: usable whole or not at all (Friedman, Ghodsi & Psomas, EC 2014). See `fairlab.properties._machines`.
VALUATIONS = ("pooled", "containers")
#: The option that asks the machines properties for a model (``--option model=pooled|containers``). A
#: machines mechanism accepts it always; it reaches the allocator only if the mechanism declares it among
#: its `options` (`ks-lottery`: its envy-free refinement follows the model), else it is the properties' alone.
MODEL_OPTION = "model"


@dataclass(frozen=True)
class Mechanism:
    """A registered mechanism: its numeric allocator and symbolic specification, side by side."""

    name: str
    summary: str
    source: str
    allocate: Callable[..., Allocation]
    spec: Callable[..., list[Constraint]] | None = None
    aliases: tuple[str, ...] = ()
    options: Mapping[str, str] = field(default_factory=dict)
    single_valued: bool = True
    discrete: bool = False
    module: str = ""
    #: For an allocator that may return an approximation (`Allocation.exactness`): the options
    #: that ask it for the exact allocation within `seconds` (it raises `ExactTimeout` if that
    #: does not finish). None: its allocations are always exact, or it has no exact path.
    exact_options: Callable[[Mapping[str, Any], float], dict] | None = None
    #: Declared fact (False, the safe assumption, unless declared): the allocation in tasks is
    #: unchanged when each resource's capacity and every demand on it are scaled by the same
    #: positive factor (the mechanism works on shares d_ir / c_r). Licenses `prove` and the
    #: symbolic `search` engine to fix every capacity to 1 and still cover every capacity vector.
    scale_invariant: bool = False
    #: Declared fact (False unless declared): the spec is symmetric under permuting the users (a
    #: renamed instance gets the renamed allocation). Licenses `prove` to ask only whether user 0
    #: violates a per-user property. For plug-ins both facts are the author's claims (function
    #: attributes `.scale_invariant` / `.anonymous`); conformance does not verify them.
    anonymous: bool = False
    #: Lab's own fact, for built-in mechanisms only (ignored for any other): the spec builds the
    #: same formula for every instance of one shape (size, which users are capped), reading the
    #: instance's numbers only as z3 terms, never testing one in Python. Licenses sp's per-instance
    #: z3 step to build its questions once per shape over unknown parameters and substitute each
    #: instance's numbers (`fairlab.properties._parametric`); tests/properties/test_parametric.py
    #: checks every mechanism that sets it against the instance-by-instance questions.
    parametric_spec: bool = False
    #: the setting it allocates in (`fairlab.core.instance.SETTINGS`): "pool" (one divisible pool),
    #: "machines" (whole tasks on several machines) or "dynamic" (agents arriving over time)
    setting: str = "pool"
    #: True if the mechanism declines a zero demand (its model assumes every d_ir > 0, e.g.
    #: dynamic-drf): conformance samples then draw positive demands only. Kept for callers of
    #: earlier versions; `domain` is the declaration (the two are made to agree)
    positive_demands: bool = False
    #: the instances it is defined on (`fairlab.core.domain.Domain`; default every instance, or
    #: positive demands if `positive_demands`): the engines explore the asked domain ∩ this one
    domain: Domain = ALL
    #: the valuation model of its paper (machines setting, `VALUATIONS`): the model the machines
    #: properties judge it in unless ``model`` is asked; ignored in the other settings
    valuation: str = "pooled"

    def __post_init__(self) -> None:
        if self.valuation not in VALUATIONS:
            raise InputError(f"mechanism {self.name!r}: its valuation {self.valuation!r} is not one of "
                             f"{', '.join(VALUATIONS)}")
        if self.domain is None or self.domain == ALL:  # None: what an older caller may still pass
            declared = Domain(demands="positive") if self.positive_demands else ALL
            object.__setattr__(self, "domain", declared)
        elif not isinstance(self.domain, Domain):
            raise InputError(f"mechanism {self.name!r}: its domain {self.domain!r} is not a fairlab Domain")
        elif self.positive_demands:  # both said: the narrower (a declaration is never widened silently)
            object.__setattr__(self, "domain", self.domain.intersect(Domain(demands="positive")))
        object.__setattr__(self, "positive_demands", self.domain.demands == "positive")
        # every call of the spec gets helper unknowns of its own, whatever names the author wrote
        # (`fairlab.mechanisms.spec_names`)
        from fairlab.mechanisms.spec_names import namespaced

        object.__setattr__(self, "spec", namespaced(self.spec))

    def __call__(self, instance: Instance | Mapping[str, Any] | str | PathLike[str], **options: Any) -> Allocation:
        """The allocation of `instance`: an `Instance`, its JSON-shaped dict, a JSON file or the
        name of a shipped example (`fairlab.core.instance.examples`)."""
        if isinstance(instance, (str, PathLike)):
            instance = Instance.load(instance)
        elif not isinstance(instance, Instance):
            instance = Instance.from_dict(instance)
        self.check_options(options)
        self.check_setting(instance)
        if MODEL_OPTION in options and MODEL_OPTION not in self.options:  # the properties' option, not the allocator's
            options = {k: v for k, v in options.items() if k != MODEL_OPTION}
        allocation = self.allocate(instance, **options)
        if self.setting != "pool":
            check_setting_allocation(allocation, f"mechanism {self.name!r}", self.discrete)
        return allocation

    def check_setting(self, instance: Instance) -> None:
        """Raise `InputError` when `instance` describes another setting than the one this mechanism
        allocates in (a pool mechanism given machines, a static one given arrivals, ...)."""
        if instance.setting != self.setting:
            raise InputError(setting_mismatch(self.name, self.setting, instance.setting))

    def check_options(self, options: Mapping[str, Any]) -> None:
        """Raise `OptionError` for an option key this mechanism does not take (a machines mechanism
        takes ``model``, one of `VALUATIONS`, whether or not it declares it)."""
        machines = self.setting == "machines"
        unknown = [k for k in options if k not in self.options and not (machines and k == MODEL_OPTION)]
        if unknown:
            known = ", ".join([*self.options, *([MODEL_OPTION] if machines and MODEL_OPTION not in self.options
                                                 else [])]) or "none"
            raise OptionError(f"option {unknown[0]!r}: not an option of mechanism {self.name!r} (options: {known})")
        if machines and MODEL_OPTION in options:
            choice(options, MODEL_OPTION, VALUATIONS, self.valuation)


_SETTING_WORDS = {"pool": "one divisible pool", "machines": "whole tasks on several machines",
                  "dynamic": "agents arriving over time"}


def setting_mismatch(name: str, setting: str, instance_setting: str) -> str:
    """The one-line error of a mechanism (or property) given an instance of another setting."""
    what = {"pool": "neither machines nor arrivals", "machines": "machines", "dynamic": "arrivals"}[instance_setting]
    return (f"{name} is for {_SETTING_WORDS[setting]} ({setting}) but the instance has {what} ({instance_setting}); "
            f"see `fairlab mechanisms --setting {instance_setting}`")


#: what the API takes as a mechanism: a registered name or alias, a ``file.py:function`` plug-in,
#: an entry-point name, a `Mechanism`, or a plain allocator function (see docs/howto/plugin-mechanism.md)
MechanismLike = str | Mechanism | Callable[..., Any]

REGISTRY: dict[str, Mechanism] = {}
ALIASES: dict[str, str] = {}


def register(mechanism: Mechanism) -> Mechanism:
    for key in (mechanism.name, *mechanism.aliases):
        if key in REGISTRY or key in ALIASES:
            raise ValueError(f"mechanism name {key!r} registered twice")
    REGISTRY[mechanism.name] = mechanism
    for alias in mechanism.aliases:
        ALIASES[alias] = mechanism.name
    return mechanism


def choice(options: Mapping[str, Any], key: str, allowed: Sequence[str], default: str) -> str:
    """Read a string option that must be one of `allowed`."""
    value = options.get(key, default)
    if value not in allowed:
        raise OptionError(f"option {key}: expected one of {', '.join(allowed)}, got {value!r}")
    return value
