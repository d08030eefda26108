"""Bottleneck max fairness (BMF), Bonald & Roberts, "Multi-resource fairness" §2.4 and §3.3.

Definition (§2.4, fluid model). With normalised requirements ``a_ij = d_ij / c_j`` (share of
resource j one task of user i takes), an allocation φ (tasks per user) is BMF if it is feasible
(``Σ_k φ_k a_kj <= 1`` for every j) and every user i has a *bottleneck*: a resource j it uses
(``a_ij > 0``) that is saturated (``Σ_k φ_k a_kj = 1``) and on which i's amount is maximal,
``φ_i a_ij >= φ_k a_kj`` for every user k.

Extensions decided here (B&R have neither):

* weights: amounts are divided by the weight, ``φ_i a_ij / w_ij >= φ_k a_kj / w_kj`` (a scalar
  weight w_i is the vector (w_i, ..., w_i)); this is B&R §3.3's "local weighted max-min fairness
  at each resource" with the user's weight multiplying the per-resource weight.
* task caps: a user at its cap (φ_i = max_tasks_i) is satisfied and needs no bottleneck. This is
  the same as giving user i a private resource of capacity max_tasks_i that only it uses, so the
  capped model is an instance of the plain one. Capped users still count as competitors on the
  shared resources.

Numeric allocator (§3.3: "testing the feasibility of all possible one-to-one mappings of
transactions to potential bottlenecks"). Each mapping σ of users to a bottleneck option (a resource
they use, or "cap") gives linear constraints, a polytope P_σ; the BMF set is the union of the P_σ.
The feasible mappings are enumerated by a depth-first search with z3's incremental solver (exact
linear real arithmetic; a partial mapping that is already infeasible prunes its whole subtree).
Identical users (same demands, weights and cap) receive the same φ in every BMF allocation (each
is maximal on the other's bottleneck), so they are merged into one group with one bottleneck
choice. The BMF set is in general not a single point (§2.4: a continuum on 3 resources), so one
allocation is returned by a rule that does not depend on the enumeration order:

    the leximin-maximal BMF allocation of the weighted dominant shares
    ``s_i = φ_i · max_j a_ij / w_ij`` (B&R's φ when max_j a_ij = 1 and weights are 1); ties
    between different allocations with the same sorted shares go to the lexicographically
    largest share vector in user order.

Within one polytope the leximin point is unique and found by lexicographic LPs (`fairlab.core.lp`,
exact); across polytopes the best is kept. `Allocation.extra` records the rule, the number of
feasible mappings, the number of solver checks and each user's bottleneck witness.

Budget. The enumeration can grow exponentially with the number of users (a random 50 × 50 instance
does not finish in minutes), so every computation here runs under a budget that never turns into an
answer: ``max_checks`` (solver calls: z3 checks plus LPs, a counted limit: the same instance stops
at the same point on any machine; default `DEFAULT_MAX_CHECKS`, far above the few dozen an instance
of up to 6 × 6 needs), each z3 check bound by the counted resource limit `CHECK_RLIMIT`, and
``timeout`` (seconds of wall-clock time for the whole call: only a safety net, default 600).
Running out raises `BMFBudgetExceeded` (an `InputError`: the CLI prints one line and exits 2, a
search skips the instance). A computation that
takes longer than a second shows a progress display on stderr when stderr is a terminal. The budget
and the display are `fairlab.mechanisms._bmf_budget` (its public names re-exported here).

Also here: `is_bmf(instance, tasks)` (exact membership with a witness per user or the reason it
fails) and `uniqueness(instance)` (is the BMF set a single point? if not, two distinct exact BMF
allocations). §2.4 states that BMF is unique on 2 resources and coincides with PF for n = J = 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Final, Literal, Mapping, Optional, Sequence

import z3

from fairlab.core.errors import InputError, OptionError
from fairlab.core.exact import Algebraic, Exact, format_exact, to_fraction, z3_value
from fairlab.core.instance import Instance
from fairlab.core.lp import OPTIMAL, solve_lp
from fairlab.core.solving import check as solver_check
from fairlab.core.solving import new_solver
from fairlab.mechanisms._bmf_budget import (  # noqa: F401  (re-exported: bmf's public names)
    CHECK_RLIMIT,
    DEFAULT_MAX_CHECKS,
    DEFAULT_TIMEOUT,
    PROGRESS_AFTER,
    BMFBudgetExceeded,
    SolverUndecided,
    _Run,
    _shown,
)
from fairlab.mechanisms.base import Allocation, Constraint, Mechanism, SymbolicInstance, register

CAP: Final = "cap"
RULE = "leximin-max weighted dominant shares over the BMF set; ties -> lexicographically largest shares in user order"

Option = int | Literal["cap"]  # a resource index, or CAP


# --------------------------------------------------------------------------- the model, exactly
@dataclass(frozen=True)
class _Model:
    """Normalised data: a[i][j] = d_ij / c_j, the weighted amount coefficient g[i][j] = a_ij / w_ij."""

    inst: Instance
    a: tuple[tuple[Fraction, ...], ...]
    g: tuple[tuple[Fraction, ...], ...]
    sigma: tuple[Fraction, ...]  # weighted dominant share of one task: max_j a_ij / w_ij
    groups: tuple[tuple[int, ...], ...]  # identical users, each group in user order

    @classmethod
    def of(cls, inst: Instance) -> _Model:
        a = tuple(tuple(inst.demands[i][j] / inst.capacities[j] for j in range(inst.m)) for i in range(inst.n))
        g = tuple(tuple(a[i][j] / inst.weights[i][j] for j in range(inst.m)) for i in range(inst.n))
        sigma = tuple(max(row) for row in g)
        keys: dict = {}
        for i in range(inst.n):
            keys.setdefault((inst.demands[i], inst.weights[i], inst.max_tasks[i]), []).append(i)
        return cls(inst, a, g, sigma, tuple(tuple(v) for v in keys.values()))

    def options(self, i: int) -> list[Option]:
        """Bottleneck options of user i: the resources it uses, and its cap if it has one."""
        out: list[Option] = [j for j in range(self.inst.m) if self.a[i][j] > 0]
        if self.inst.max_tasks[i] is not None:
            out.append(CAP)
        return out


# --------------------------------------------------------------------------- membership
@dataclass(frozen=True)
class BMFCheck:
    """Result of `is_bmf`: `holds`, and per user its bottleneck witness (resource index or "cap")
    when it holds, else `reason` names the first failure."""

    holds: bool
    bottlenecks: tuple[Optional[Option], ...]
    reason: str = ""

    def __bool__(self) -> bool:
        return self.holds


def _as_instance(instance) -> Instance:
    """Accept an `Instance` or its JSON-shaped dict (validated by `Instance.from_dict`)."""
    if isinstance(instance, Instance):
        return instance
    if isinstance(instance, Mapping):
        return Instance.from_dict(instance)
    raise InputError(f"instance: expected an Instance or a JSON object, got {type(instance).__name__}")


def _read_tasks(inst: Instance, tasks: Sequence) -> tuple[Exact, ...]:
    if isinstance(tasks, (str, bytes)) or not hasattr(tasks, "__len__"):
        raise InputError(f"tasks: expected a list of {inst.n} numbers, got {tasks!r}")
    if len(tasks) != inst.n:
        raise InputError(f"tasks: expected {inst.n} entries (one per user), got {len(tasks)}")
    return tuple(t if isinstance(t, Algebraic) else to_fraction(t, f"tasks[{i}]") for i, t in enumerate(tasks))


def is_bmf(instance: Instance, tasks: Sequence) -> BMFCheck:
    """Exact test of the BMF definition (module docstring) for the allocation `tasks`."""
    instance = _as_instance(instance)
    phi = _read_tasks(instance, tasks)
    model = _Model.of(instance)
    inst = instance
    none = (None,) * inst.n
    for i, t in enumerate(phi):
        if t < 0:
            return BMFCheck(False, none, f"user {inst.users[i]} has negative tasks {format_exact(t)}")
        cap = inst.max_tasks[i]
        if cap is not None and t > cap:
            return BMFCheck(False, none, f"user {inst.users[i]} is above its cap {format_exact(cap)}")
    load = [sum((phi[k] * model.a[k][j] for k in range(inst.n)), Fraction(0)) for j in range(inst.m)]
    for j in range(inst.m):
        if load[j] > 1:
            return BMFCheck(False, none, f"resource {inst.resources[j]} over capacity ({format_exact(load[j])} of 1)")
    witnesses: list[Optional[Option]] = []
    for i in range(inst.n):
        why = []
        found: Optional[Option] = None
        for j in range(inst.m):
            if model.a[i][j] == 0:
                continue
            if load[j] != 1:
                why.append(f"{inst.resources[j]} not saturated")
                continue
            mine = phi[i] * model.g[i][j]
            rival = next((k for k in range(inst.n) if phi[k] * model.g[k][j] > mine), None)
            if rival is not None:
                why.append(f"{inst.users[rival]} gets more of {inst.resources[j]}")
                continue
            found = j
            break
        if found is None and inst.max_tasks[i] is not None and phi[i] == inst.max_tasks[i]:
            found = CAP
        if found is None:
            return BMFCheck(False, none, f"user {inst.users[i]} has no bottleneck: {'; '.join(why)}")
        witnesses.append(found)
    return BMFCheck(True, tuple(witnesses))


# --------------------------------------------------------------------------- enumeration of mappings
@dataclass(frozen=True)
class Enumeration:
    """The feasible bottleneck mappings: each maps every user to a resource index or "cap"."""

    mappings: tuple[tuple[Option, ...], ...]
    checks: int  # z3 satisfiability checks made (nodes of the search tree)
    groups: int  # classes of identical users (the search assigns one option per class)


def enumerate_mappings(
    instance: Instance, timeout: Optional[float] = DEFAULT_TIMEOUT,
    max_checks: Optional[int] = DEFAULT_MAX_CHECKS, *,
    _run: Optional[_Run] = None,
) -> Enumeration:
    """All bottleneck mappings σ whose polytope P_σ is non-empty (exact, z3 incremental DFS).

    Under the budget of the module docstring (`timeout` seconds, `max_checks` solver calls; None =
    unlimited): running out raises `BMFBudgetExceeded`, a z3 "unknown" `SolverUndecided`.
    """
    run = _run if _run is not None else _Run(timeout, max_checks)
    try:
        return _enumerate(_as_instance(instance), run)
    finally:
        if _run is None:
            run.close()


def _enumerate(instance: Instance, run: _Run) -> Enumeration:
    model = _Model.of(instance)
    inst = instance
    phi = [z3.Real(f"phi{i}") for i in range(inst.n)]
    solver = new_solver(run.budget())
    for i in range(inst.n):
        solver.add(phi[i] >= 0)
        cap = inst.max_tasks[i]
        if cap is not None:
            solver.add(phi[i] <= z3_value(cap))
    load = [z3.Sum([z3_value(model.a[k][j]) * phi[k] for k in range(inst.n) if model.a[k][j]]) for j in range(inst.m)]
    for j in range(inst.m):
        solver.add(load[j] <= 1)
    for group in model.groups:
        for i in group[1:]:
            solver.add(phi[i] == phi[group[0]])

    def condition(i: int, option: Option) -> z3.BoolRef:
        if option == CAP:
            cap = inst.max_tasks[i]
            assert cap is not None  # only a capped user has the option CAP
            return phi[i] == z3_value(cap)
        j = option
        mine = z3_value(model.g[i][j]) * phi[i]
        rivals = [z3_value(model.g[k][j]) * phi[k] <= mine for k in range(inst.n) if k != i and model.g[k][j]]
        return z3.And(load[j] == 1, *rivals)

    order = sorted(range(len(model.groups)), key=lambda g: (len(model.options(model.groups[g][0])), g))
    found: list[tuple[Option, ...]] = []
    choice: dict[int, Option] = {}
    checks = 0

    def dfs(depth: int) -> None:
        nonlocal checks
        if depth == len(order):
            per_user: list[Option] = [CAP] * inst.n
            for g, opt in choice.items():
                for i in model.groups[g]:
                    per_user[i] = opt
            found.append(tuple(per_user))
            return
        g = order[depth]
        rep = model.groups[g][0]
        for option in model.options(rep):
            solver.push()
            solver.add(condition(rep, option))
            checks += 1
            stage = (f"enumerating bottleneck mappings"
                     f" (depth {depth + 1} of {len(order)} user groups, {len(found)} found)")
            run.charge(stage)
            if run.timeout is not None:
                solver.set("timeout", run.ms_left())
            verdict, reason = solver_check(solver)
            if verdict == "unknown":
                raise run.undecided(stage, reason)
            if verdict == "sat":
                choice[g] = option
                dfs(depth + 1)
                del choice[g]
            solver.pop()

    dfs(0)  # the root (feasibility alone) needs no check: φ = 0 is feasible
    return Enumeration(tuple(sorted(found, key=_mapping_key)), checks, len(model.groups))


def _mapping_key(mapping: Sequence[Option]):
    return tuple((1, 0) if o == CAP else (0, o) for o in mapping)


def _polytope(model: _Model, mapping: Sequence[Option]):
    """LP rows (over φ) of P_σ: capacities, bottleneck conditions, identical-user equalities."""
    inst = model.inst
    n, m = inst.n, inst.m
    a_ub: list[list[Fraction]] = [[model.a[k][j] for k in range(n)] for j in range(m)]
    b_ub: list[Fraction] = [Fraction(1)] * m
    a_eq: list[list[Fraction]] = []
    b_eq: list[Fraction] = []
    saturated = set()
    for i, option in enumerate(mapping):
        if option == CAP:
            row = [Fraction(0)] * n
            row[i] = Fraction(1)
            a_eq.append(row)
            cap = inst.max_tasks[i]
            assert cap is not None  # only a capped user has the option CAP
            b_eq.append(cap)
            continue
        j = option
        saturated.add(j)
        for k in range(n):
            if k != i and model.g[k][j]:
                row = [Fraction(0)] * n
                row[k] += model.g[k][j]
                row[i] -= model.g[i][j]
                a_ub.append(row)
                b_ub.append(Fraction(0))
    for j in sorted(saturated):
        a_eq.append([model.a[k][j] for k in range(n)])
        b_eq.append(Fraction(1))
    for group in model.groups:
        for i in group[1:]:
            row = [Fraction(0)] * n
            row[i], row[group[0]] = Fraction(1), Fraction(-1)
            a_eq.append(row)
            b_eq.append(Fraction(0))
    upper = [inst.max_tasks[i] for i in range(n)]
    return a_ub, b_ub, a_eq, b_eq, upper


def _solve(run: _Run, what: str, *args, **kwargs):
    """`solve_lp` under the run's budget; an "unknown" raises (never an answer)."""
    run.charge(what)
    if run.timeout is not None:
        kwargs["timeout_ms"] = run.ms_left()
    result = solve_lp(*args, **kwargs)
    if result.status == "unknown":
        raise run.undecided(f"{what} (LP returned unknown)")
    return result


def _leximin_point(
    model: _Model, mapping: Sequence[Option], to_beat: Optional[Sequence[Fraction]] = None, run: Optional[_Run] = None
) -> Optional[tuple[Fraction, ...]]:
    """The leximin-maximal point of P_σ in weighted dominant shares s_i = σ_i φ_i (lexicographic LPs).

    Each round maximises the least share t of the unfixed users; users that cannot exceed t while
    every unfixed user keeps t are fixed at t (at least one per round on a convex polytope). The
    levels only grow, so after a round the sorted shares of the final point start with the fixed
    levels followed by t. If that prefix is already below `to_beat` (sorted shares of the best point
    so far) the polytope cannot win and None is returned early.
    """
    n = model.inst.n
    run = run if run is not None else _Run(None)
    a_ub, b_ub, a_eq, b_eq, upper = _polytope(model, mapping)
    sig = model.sigma
    fixed: dict[int, Fraction] = {}
    # Variables: φ_0..φ_{n-1}, t.
    base_ub = [row + [Fraction(0)] for row in a_ub]
    base_eq = [row + [Fraction(0)] for row in a_eq]
    lower = [Fraction(0)] * (n + 1)
    upper_t = list(upper) + [None]
    while len(fixed) < n:
        free = [i for i in range(n) if i not in fixed]
        extra_ub, extra_eq, rhs_eq = [], [], []
        for i in free:  # t - σ_i φ_i <= 0
            row = [Fraction(0)] * (n + 1)
            row[i], row[n] = -sig[i], Fraction(1)
            extra_ub.append(row)
        for i, s in fixed.items():  # σ_i φ_i == s_i
            row = [Fraction(0)] * (n + 1)
            row[i] = sig[i]
            extra_eq.append(row)
            rhs_eq.append(s)
        objective = [Fraction(0)] * n + [Fraction(1)]
        res = _solve(
            run, f"maximising the least share ({len(fixed)} of {n} users fixed)",
            objective, base_ub + extra_ub, b_ub + [Fraction(0)] * len(free), base_eq + extra_eq,
            b_eq + rhs_eq, lower=lower, upper=upper_t, maximize=True,
        )
        if res.status != OPTIMAL:  # z3 said P_σ is non-empty; the exact LP must agree
            raise SolverUndecided(f"bmf: mapping {tuple(mapping)} feasible for z3 but LP says {res.status}")
        level = res.value
        if to_beat is not None:
            prefix = sorted(fixed.values()) + [level]
            if prefix < list(to_beat[: len(prefix)]):
                return None
        # With t fixed at `level`, can user i get more? Users above `level` at this optimum can.
        floor_ub = [row[:] for row in extra_ub]
        for i in free:
            if sig[i] * res.x[i] > level:
                continue
            objective = [Fraction(0)] * (n + 1)
            objective[i] = sig[i]
            best = _solve(
                run, f"testing which users are blocked ({len(fixed)} of {n} users fixed)",
                objective, base_ub + floor_ub, b_ub + [Fraction(0)] * len(free), base_eq + extra_eq
                + [[Fraction(0)] * n + [Fraction(1)]], b_eq + rhs_eq + [level], lower=lower,
                upper=upper_t, maximize=True,
            )
            if best.value == level:
                fixed[i] = level
        if len(fixed) == n - len(free):  # cannot happen on a convex polytope; never loop forever
            raise SolverUndecided("bmf: leximin round fixed no user")
    return tuple(fixed[i] / sig[i] for i in range(n))


def _leximin_key(shares: Sequence[Fraction]):
    return (tuple(sorted(shares)), tuple(shares))


# --------------------------------------------------------------------------- allocator
class NoBMFAllocation(RuntimeError):
    """No bottleneck mapping is feasible: a counterexample to BMF existence (B&R §3.3 leave it open)."""


METHODS = ("enumerate", "levels")
LEVELS_RULE = ("the BMF allocation at the end of progressive filling on resource levels"
               " (fairlab.mechanisms._bmf_levels); a BMF allocation, not always the leximin rule's"
               " (they can differ with weight vectors)")
LEVEL_STEPS = 100_000  # deterministic cap on level steps (each is also a solver call of the budget)


def allocate(instance: Instance, timeout=DEFAULT_TIMEOUT, max_checks=DEFAULT_MAX_CHECKS,
             method="enumerate") -> Allocation:
    """The leximin-maximal BMF allocation (rule in the module docstring), exactly, under the budget
    (`timeout` seconds, `max_checks` solver calls: module docstring).

    ``method="levels"`` (for cluster sizes): one exact BMF allocation by progressive filling
    on the m resource levels (`fairlab.mechanisms._bmf_levels.continuation_point`, then the level
    iteration), polynomial in the users; the point is re-checked with `is_bmf` (exact). It is not always
    the leximin-maximal BMF allocation: with scalar or no weights it was the same allocation on
    every random instance compared (about 9 500), but with weight vectors it can differ (4 of about
    1 700 instances in an audit; the tests keep two), so the default stays the enumeration. If
    neither level procedure reaches a BMF point the enumeration runs (``extra["method"]``
    says which answered)."""
    if method not in METHODS:
        raise OptionError(f"option method: expected one of {', '.join(METHODS)}, got {_shown(method)}")
    run = _Run(timeout, max_checks)
    try:
        if method == "levels":
            found = _allocate_levels(instance, run)
            if found is not None:
                return found
        return _allocate(instance, run)
    finally:
        run.close()


def _allocate_levels(instance: Instance, run: _Run) -> Optional[Allocation]:
    from fairlab.mechanisms import _bmf_levels

    model = _Model.of(instance)
    for procedure in (_bmf_levels.continuation_point, _bmf_levels.level_point):
        found = procedure(model.a, model.g, instance.max_tasks, run.charge, LEVEL_STEPS)
        if found is None:
            continue
        check = is_bmf(instance, found[0])
        if not check.holds:  # a procedure's claim is never an answer without the exact check
            continue
        return Allocation(
            "bmf", instance, found[0],
            options={"method": "levels"},
            notes=("one of possibly many BMF allocations: " + LEVELS_RULE,),
            extra={
                "rule": LEVELS_RULE, "method": f"levels ({procedure.__name__})", "solver_checks": run.checks,
                "bottlenecks": [b if b is None or b == CAP else instance.resources[b] for b in check.bottlenecks],
            },
        )
    return None


def _allocate(instance: Instance, run: _Run) -> Allocation:
    model = _Model.of(instance)
    enum = enumerate_mappings(instance, _run=run)
    if not enum.mappings:
        raise NoBMFAllocation(f"bmf: no feasible bottleneck mapping after {enum.checks} checks")
    best: Optional[tuple[Fraction, ...]] = None
    best_key = None
    skipped = 0
    for k, mapping in enumerate(enum.mappings):
        run.stage = f"leximin LPs of mapping {k + 1} of {len(enum.mappings)}"
        phi = _leximin_point(model, mapping, None if best_key is None else best_key[0], run)
        if phi is None:
            skipped += 1
            continue
        key = _leximin_key(_shares(model, phi))
        if best_key is None or key > best_key:
            best, best_key = phi, key
    if best is None:  # z3 said the polytopes are non-empty; the exact LPs must agree
        raise SolverUndecided("bmf: z3 found feasible mappings but the LP helper found no point")
    check = is_bmf(instance, best)
    if not check.holds:  # the chosen point lies in some P_σ, so this is a bug, never an answer
        raise AssertionError(f"bmf: chosen allocation fails the definition: {check.reason}")
    return Allocation(
        "bmf",
        instance,
        best,
        notes=("one of possibly many BMF allocations: " + RULE,),
        extra={
            "rule": RULE,
            "feasible_mappings": len(enum.mappings),
            "solver_checks": enum.checks,
            "user_groups": enum.groups,
            "mappings_pruned_by_leximin_bound": skipped,
            "bottlenecks": [b if b is None or b == CAP else instance.resources[b] for b in check.bottlenecks],
        },
    )


def _shares(model: _Model, phi: Sequence[Fraction]) -> tuple[Fraction, ...]:
    return tuple(model.sigma[i] * phi[i] for i in range(len(phi)))


# --------------------------------------------------------------------------- uniqueness
@dataclass(frozen=True)
class BMFUniqueness:
    """Result of `uniqueness`: `unique` is True (one BMF point), False (two distinct exact BMF
    allocations in `allocations`) or None when no BMF allocation exists (`allocations` empty)."""

    unique: Optional[bool]
    allocations: tuple[tuple[Fraction, ...], ...]
    feasible_mappings: int
    reason: str = ""


def uniqueness(instance: Instance, timeout=DEFAULT_TIMEOUT, max_checks=DEFAULT_MAX_CHECKS) -> BMFUniqueness:
    """Is the BMF set a single point? Exact, by LPs over every feasible mapping polytope P_σ.

    With p the first point found, P_σ ⊆ {p} iff max c·φ over P_σ is attained only at p for the
    n + 1 directions c = e_1, ..., e_n, -(1, ..., 1): they positively span R^n, so any q ≠ p in
    P_σ has c·q > c·p for one of them, and that LP returns a point other than p.
    Runs under the budget of the module docstring (`timeout` seconds, `max_checks` solver calls).
    """
    run = _Run(timeout, max_checks)
    try:
        return _uniqueness(_as_instance(instance), run)
    finally:
        run.close()


def _uniqueness(instance: Instance, run: _Run) -> BMFUniqueness:
    model = _Model.of(instance)
    enum = enumerate_mappings(instance, _run=run)
    if not enum.mappings:
        return BMFUniqueness(None, (), 0, "no feasible bottleneck mapping: no BMF allocation")
    n = instance.n
    reference: Optional[tuple[Fraction, ...]] = None
    for mapping in enum.mappings:
        a_ub, b_ub, a_eq, b_eq, upper = _polytope(model, mapping)
        directions = [[Fraction(int(k == i)) for k in range(n)] for i in range(n)] + [[Fraction(-1)] * n]
        for d, objective in enumerate(directions):
            res = _solve(run, "testing uniqueness", objective, a_ub, b_ub, a_eq, b_eq, upper=upper, maximize=True)
            if res.status != OPTIMAL:
                raise SolverUndecided(f"bmf: mapping {tuple(mapping)} feasible for z3 but LP says {res.status}")
            if reference is None:
                reference = res.x
                continue
            if res.x != reference:
                for point in (reference, res.x):
                    if not is_bmf(instance, point).holds:  # a bug, never an answer
                        raise AssertionError("bmf: a point of a mapping polytope fails the definition")
                what = f"tasks of {instance.users[d]}" if d < n else "total tasks"
                sense = "max" if d < n else "min"
                return BMFUniqueness(
                    False, (reference, res.x), len(enum.mappings),
                    f"{sense} of {what} over mapping {list(mapping)} differs from the first BMF point",
                )
    assert reference is not None  # enum.mappings is not empty
    return BMFUniqueness(True, (reference,), len(enum.mappings))


# --------------------------------------------------------------------------- symbolic side
def spec(sym: SymbolicInstance, tasks) -> list[Constraint]:
    """§2.4 as z3: feasible, and each user has a bottleneck (an Or over the resources it uses,
    saturated, with its weighted amount maximal) or sits at its task cap."""
    out = sym.feasibility(tasks, "bmf")
    n, m = sym.n, sym.m

    def amount(k: int, r: int):  # weighted amount, up to the common factor 1/c_r
        return tasks[k] * sym.demands[k][r] / sym.weights[k][r]

    for i in range(n):
        options = []
        for r in range(m):
            rivals = [amount(k, r) <= amount(i, r) for k in range(n) if k != i]
            options.append(z3.And(sym.demands[i][r] > 0, sym.load(tasks, r) == sym.capacities[r], *rivals))
        if sym.max_tasks[i] is not None:
            options.append(tasks[i] == sym.max_tasks[i])
        out.append(Constraint(f"bmf.bottleneck[{i}]", z3.Or(options)))
    return out


MECHANISM = register(
    Mechanism(
        name="bmf",
        summary=(
            "Bottleneck max fairness: each user gets a maximal (weighted) amount of some saturated resource it uses;"
            " set-valued, returns the leximin-maximal BMF allocation;"
            " fairlab.mechanisms.bmf.is_bmf tests membership and"
            " fairlab.mechanisms.bmf.uniqueness whether the BMF set is one point"
        ),
        source="Bonald & Roberts, Multi-resource fairness, §2.4 (definition, example) and §3.3 (mapping enumeration)",
        allocate=allocate,
        spec=spec,
        options={
            "timeout": f"seconds of wall-clock time for the whole call (a safety net; default {DEFAULT_TIMEOUT:g})",
            "max_checks": f"solver calls (z3 checks + LPs) allowed: the counted budget (default {DEFAULT_MAX_CHECKS})",
            "method": ("enumerate (default: the leximin-maximal BMF allocation, exponential in users)"
                       " | levels (progressive filling on resource levels, polynomial, exact and re-checked;"
                       " not proved leximin)"),
        },
        single_valued=False,
        scale_invariant=True, anonymous=True,
        module=__name__,
    )
)
