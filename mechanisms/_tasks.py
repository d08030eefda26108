"""Integer kernels for the discrete task schedulers `drf-tasks` (fast path) and `pdrf`.

Everything here is exact integer arithmetic; numpy is used only where a bound check shows int64
cannot overflow (`matvec`), and floats only *guide* the search for a level (`_fast_phase`), every
decision being re-checked exactly.

Model. Resource r is scaled by the lcm of its denominators so capacities `C[r]` and demands
`D[i][r]` are integers (shares D/C are unchanged). User i's weighted dominant share per task is
sigma_i = max_r d_ir / (c_r w_ir) (DRF paper §4.3); `unit[i] = sigma_i * scale` is an integer, so
the dominant share after j tasks is the integer ``j * unit[i]`` (in units of 1/scale).

Why a closed form exists (the observation behind PDRF §3.3, made exact). The DRF task loop
(Algorithm 1 of the DRF paper) launches, at each step, the task with the smallest key
``(share before the task, tie-break)`` among the users' next tasks. Each user's keys increase, so
the loop launches tasks in the *sorted merge* of all users' key streams. With ``on_blocked=stop``
it launches the longest prefix of that merge whose total demand fits (demand only accumulates, so
feasibility of prefixes is monotone); with ``skip`` a user whose next task does not fit is frozen
for good (usage never shrinks) and the merge continues without it. So the outcome is found by
searching the share level lambda at which the prefix {keys with share < lambda} stops fitting
(a bisection guided by the fluid level, checked exactly), then resolving the O(n) keys around it
in key order. Cost: O(n m) per probe, O(log(capacities)) probes, instead of one step per task.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence

import numpy as np

INT64_SAFE = 2**62  # products/sums below this are exact in int64 (one bit of margin)


# --------------------------------------------------------------------------- problem
@dataclass
class TaskProblem:
    """An instance in integer form for the task kernels (see the module docstring)."""

    capacity: list[int]
    demand: list[list[int]]
    unit: list[int]  # sigma_i * scale
    scale: int
    cap: list[int | None]  # whole-task caps (floor of max_tasks), None = unlimited
    too_big: list[int] = field(default_factory=list)  # users with a task exceeding a capacity
    mult: list[int] | None = None  # resource r was multiplied by mult[r] to make it integral
    _np_demand: np.ndarray | None = None

    @property
    def n(self) -> int:
        return len(self.demand)

    @property
    def m(self) -> int:
        return len(self.capacity)

    def sigma(self, i: int) -> Fraction:
        return Fraction(self.unit[i], self.scale)

    def np_demand(self) -> np.ndarray | None:
        """The demand matrix as int64, or None if some entry needs more than 31 bits."""
        if self._np_demand is None:
            if self.max_demand >= 2**31:
                return None
            self._np_demand = np.array(self.demand, dtype=np.int64).reshape(self.n, self.m)
        return self._np_demand

    def eligible(self, i: int) -> bool:
        """Can user i ever launch a task (fits alone and a cap of at least one)?"""
        return i not in self._too_big_set and self.cap[i] != 0

    def __post_init__(self):
        self._too_big_set = set(self.too_big)
        self.max_demand = max((max(row) for row in self.demand), default=0)
        if self.mult is None:
            self.mult = [1] * len(self.capacity)


def from_integers(capacity: Sequence[int], demand: Sequence[Sequence[int]], cap=None) -> TaskProblem:
    """Unweighted integer instance (e.g. a random PDRF-table run); sigma_i = max_r D_ir / C_r.

    The dominant resource is picked with floats and then *verified* by exact integer cross-
    multiplication (int64 when the bound allows, Python ints otherwise)."""
    capacity = [int(c) for c in capacity]
    n, m = len(demand), len(capacity)
    cap = list(cap) if cap is not None else [None] * n
    scale = math.lcm(*capacity)
    if max(capacity) < 2**31 and (n == 0 or max(max(row) for row in demand) < 2**31):
        dem = np.asarray(demand, dtype=np.int64).reshape(n, m)
        caps = np.asarray(capacity, dtype=np.int64)
        best = np.argmax(dem / caps, axis=1)
        # exact check: D[i,b] * C[r] >= D[i,r] * C[b] for all r
        ok = (dem[np.arange(n), best][:, None] * caps[None, :] >= dem * caps[best][:, None]).all(axis=1)
        best = best.tolist()
        for i in np.flatnonzero(~ok).tolist():
            best[i] = _exact_argmax(demand[i], capacity)
        demand_list = dem.tolist()
        too_big = np.flatnonzero((dem > caps[None, :]).any(axis=1)).tolist()
        factor = [scale // c for c in capacity]
        unit = [demand_list[i][b] * factor[b] for i, b in enumerate(best)]
        problem = TaskProblem(capacity, demand_list, unit, scale, cap, too_big)
        problem._np_demand = dem
        return problem
    else:
        demand_list = [[int(d) for d in row] for row in demand]
        best = [_exact_argmax(row, capacity) for row in demand_list]
        too_big = [i for i, row in enumerate(demand_list) if any(d > c for d, c in zip(row, capacity))]
    factor = [scale // c for c in capacity]
    unit = [demand_list[i][b] * factor[b] for i, b in enumerate(best)]
    return TaskProblem(capacity, demand_list, unit, scale, cap, too_big)


def _exact_argmax(row: Sequence[int], capacity: Sequence[int]) -> int:
    best = 0
    for r in range(1, len(capacity)):
        if row[r] * capacity[best] > row[best] * capacity[r]:
            best = r
    return best


def from_instance(instance) -> TaskProblem:
    """Integer form of an `Instance` (caps floored to whole tasks; weights per DRF §4.3)."""
    n, m = instance.n, instance.m
    cap = [None if t is None else math.floor(t) for t in instance.max_tasks]
    if all(c.denominator == 1 for c in instance.capacities) and all(
        d.denominator == 1 for row in instance.demands for d in row
    ):
        capacity = [c.numerator for c in instance.capacities]
        demand = [[d.numerator for d in row] for row in instance.demands]
        mult = [1] * m
    else:
        capacity, demand, mult = [], [[0] * m for _ in range(n)], []
        for r in range(m):
            mult.append(math.lcm(instance.capacities[r].denominator, *(row[r].denominator for row in instance.demands)))
            capacity.append(int(instance.capacities[r] * mult[r]))
            for i in range(n):
                demand[i][r] = int(instance.demands[i][r] * mult[r])
    if instance.weights_given == "none" or all(w == 1 for row in instance.weights for w in row):
        problem = from_integers(capacity, demand, cap)
        problem.mult = mult
        return problem
    sigma = [instance.weighted_dominant_share_per_task(i) for i in range(n)]
    scale = math.lcm(*(s.denominator for s in sigma))
    unit = [s.numerator * (scale // s.denominator) for s in sigma]
    too_big = [i for i in range(n) if any(demand[i][r] > capacity[r] for r in range(m))]
    return TaskProblem(capacity, demand, unit, scale, cap, too_big, mult)


# --------------------------------------------------------------------------- helpers
def matvec(counts: Sequence[int], problem: TaskProblem, users: Sequence[int]) -> list[int]:
    """Exact resource usage sum_i counts[k] * D[users[k]][r], in int64 when provably safe."""
    dem = problem.np_demand()
    if dem is not None and users and max(counts) * problem.max_demand * len(users) < INT64_SAFE:
        vec = np.asarray(counts, dtype=np.int64)
        return (vec @ dem[np.asarray(users, dtype=np.intp)]).tolist()
    usage = [0] * problem.m
    for k, i in zip(counts, users):
        if k:
            row = problem.demand[i]
            for r in range(problem.m):
                usage[r] += k * row[r]
    return usage


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


# --------------------------------------------------------------------------- PDRF
def pdrf_counts(problem: TaskProblem) -> list[int]:
    """PDRF Algorithm 1 (Metin §3.4), exactly: tasks_i = floor(k * ds*/ds_i) with
    k = min_r R_r / sum_i (ds*/ds_i) D_ir over the users that can run a task.

    In exact arithmetic k * ds*/ds_i = K / ds_i with K = min_r R_r / sum_i (D_ir / ds_i) (the
    paper's k', §3.4); it is computed with integers: ds_i = p_i / q_i reduced, P = lcm(p_i).
    Users that cannot run a task (too big, cap 0) take no part; caps clamp the counts."""
    users = [i for i in range(problem.n) if problem.eligible(i)]
    counts = [0] * problem.n
    if not users:
        return counts
    p, q = [], []
    for i in users:
        g = math.gcd(problem.unit[i], problem.scale)
        p.append(problem.unit[i] // g)
        q.append(problem.scale // g)
    big_p = math.lcm(*p)
    coef = [qi * (big_p // pi) for pi, qi in zip(p, q)]  # = P / ds_i
    totals = matvec(coef, problem, users)  # N_r = P * sum_i D_ir / ds_i
    best = None  # K = C_r * P / N_r, minimised by cross-multiplication
    for r, total in enumerate(totals):
        if total > 0 and (best is None or problem.capacity[r] * totals[best] < problem.capacity[best] * total):
            best = r
    if best is None:  # unreachable: every user demands some resource
        raise AssertionError("no resource is demanded")
    num, den = problem.capacity[best] * big_p, totals[best]
    for k, i in enumerate(users):
        t = (num * q[k]) // (den * p[k])
        cap = problem.cap[i]
        counts[i] = t if cap is None else min(t, cap)
    return counts


# --------------------------------------------------------------------------- DRF task loop, fast
@dataclass
class LoopOutcome:
    counts: list[int]
    blocked: list[tuple[int, int]]  # (user, resource) whose next task did not fit, in order
    unused: list[Fraction]  # capacity left per resource, in the instance's units
    trace: list[int] | None = None


def tie_keys(problem: TaskProblem, tie: str) -> list[int]:
    """Second key component: `paper` launches the larger per-task dominant share first (PDRF §3.1
    reading of the DRF paper's Table 1), `index` only the user index (third component)."""
    if tie == "paper":
        return [-u for u in problem.unit]
    return [0] * problem.n


def fast_loop(problem: TaskProblem, tie: str = "paper", on_blocked: str = "stop", trace: bool = False) -> LoopOutcome:
    """The exact final allocation of the DRF task loop without simulating it task by task."""
    n = problem.n
    tb = tie_keys(problem, tie)
    counts = [0] * n
    used = [0] * problem.m
    active = [i for i in range(n) if problem.eligible(i)]
    blocked: list[tuple[int, int]] = []
    while active:
        active, done = _fast_phase(problem, tb, counts, used, active, on_blocked, blocked)
        if done:
            break
    unused = [Fraction(problem.capacity[r] - used[r], problem.mult[r]) for r in range(problem.m)]
    out = LoopOutcome(counts, blocked, unused)
    if trace:
        out.trace = trace_of(problem, tb, counts)
    return out


def trace_of(problem: TaskProblem, tb: Sequence[int], counts: Sequence[int]) -> list[int]:
    """The loop's launch order for final `counts`: launches come in increasing key order."""
    keys = [(j * problem.unit[i], tb[i], i) for i in range(problem.n) for j in range(counts[i])]
    keys.sort()
    return [k[2] for k in keys]


def _fast_phase(problem, tb, counts, used, active, on_blocked, blocked):
    """One phase: from the current state, launch the prefix of the merged key order up to the first
    task that does not fit. Returns (users still active, whether the loop has ended)."""
    unit, caps, capacity, dem = problem.unit, problem.cap, problem.capacity, problem.demand
    limit = [math.inf if caps[i] is None else caps[i] for i in active]
    start = [counts[i] for i in active]
    units = [unit[i] for i in active]
    remaining = [capacity[r] - used[r] for r in range(problem.m)]
    capped = any(lim != math.inf for lim in limit)
    fresh = not any(start)
    memo: dict[int, list[int]] = {}

    def prefix(level: int) -> list[int]:
        """Tasks each active user launches among keys with share < level (in 1/scale units)."""
        if level in memo:
            return memo[level]
        neg = -level
        tops = [-(neg // u) for u in units]  # ceil(level / unit_i)
        if capped:
            tops = [min(top, lim) for top, lim in zip(tops, limit)]
        take = [max(0, top) for top in tops] if fresh else [max(0, top - t0) for top, t0 in zip(tops, start)]
        memo[level] = take
        return take

    def fits(level: int) -> bool:
        usage = matvec(prefix(level), problem, active)
        return all(u <= rem for u, rem in zip(usage, remaining))

    def everything_fits_at(level: int) -> bool:
        return capped and all(lim != math.inf and _ceil_div(level, u) >= lim for u, lim in zip(units, limit))

    lo = min(t0 * unit[i] for i, t0 in zip(active, start))
    # Floats guide the first probes (the fluid level of the remaining resources); exact checks decide.
    hi = None
    guess_lo, guess_hi = _fluid_guesses(problem, active, start, remaining)
    if guess_lo is not None and guess_lo > lo:
        if fits(guess_lo):
            lo = guess_lo
        else:
            hi = guess_lo
    if hi is None:
        probe = max(guess_hi if guess_hi is not None else lo + 1, lo + 1)
        while fits(probe):
            if everything_fits_at(probe):  # every remaining task fits: caps end the loop
                take = prefix(probe)
                _launch(problem, counts, used, active, take)
                return [], True
            lo, probe = probe, lo + 2 * (probe - lo)
        hi = probe
    batch = 4 * len(active) + 64
    while hi - lo > 1:
        window = sum(prefix(hi)) - sum(prefix(lo))
        if window <= batch:
            break
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    _launch(problem, counts, used, active, prefix(lo))
    # Keys with lo <= share < hi, in the loop's order; the first one that does not fit decides.
    window_keys = []
    for i, lim in zip(active, limit):
        stop_at = min(_ceil_div(hi, unit[i]), lim)
        for j in range(counts[i], stop_at):
            window_keys.append((j * unit[i], tb[i], i))
    window_keys.sort()
    frozen = set()
    for _, _, i in window_keys:
        if i in frozen:
            continue
        row = dem[i]
        over = next((r for r in range(problem.m) if used[r] + row[r] > capacity[r]), None)
        if over is None:
            counts[i] += 1
            for r in range(problem.m):
                used[r] += row[r]
            continue
        blocked.append((i, over))
        if on_blocked == "stop":
            return [], True
        frozen.add(i)
    still = [i for i, lim in zip(active, limit) if i not in frozen and counts[i] < lim]
    return still, not still


def _launch(problem, counts, used, active, take):
    usage = matvec(take, problem, active)
    for k, i in enumerate(active):
        counts[i] += take[k]
    for r in range(problem.m):
        used[r] += usage[r]


def _fluid_guesses(problem, active, start, remaining):
    """Float estimates (in 1/scale units) just below and just above the level where the prefix
    stops fitting: the fluid level minus / plus one task per user. Guidance only."""
    try:
        dem = problem.np_demand()
        rows = np.array([problem.demand[i] for i in active], dtype=float) if dem is None else dem[active].astype(float)
        scale = float(problem.scale)
        inv = np.array([scale / problem.unit[i] for i in active])  # tasks per unit of share
        rate = inv @ rows  # resource per unit share (share in [0, 1])
        base = np.asarray(start, dtype=float) @ rows + np.asarray(remaining, dtype=float)
        slack = rows.sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            level = np.where(rate > 0, base / rate, np.inf)
            level_lo = np.where(rate > 0, (base - slack) / rate, np.inf)
        top, bottom = float(level.min()), float(level_lo.min())
        if not math.isfinite(top):
            return None, None
        lo = int(Fraction(bottom) * problem.scale) if math.isfinite(bottom) and bottom > 0 else None
        hi = int(Fraction(top * (1 + 1e-9)) * problem.scale) + 1
        return lo, hi
    except (OverflowError, ZeroDivisionError, ValueError):
        return None, None


# --------------------------------------------------------------------------- DRF task loop, literal
def reference_loop(instance, tie: str = "paper", on_blocked: str = "stop", trace: bool = False) -> LoopOutcome:
    """Algorithm 1 of the DRF paper task by task, in `Fraction`s straight from the `Instance`
    (deliberately independent of the integer machinery above: it is the oracle for `fast_loop`).

    A binary heap holds (dominant share, tie-break, user); the chosen user launches a task if
    consumed + D_i <= R, and its share becomes max_j u_ij / (r_j w_ij)."""
    n, m = instance.n, instance.m
    caps = instance.capacities
    sigma = [instance.weighted_dominant_share_per_task(i) for i in range(n)]
    limit = [math.inf if t is None else math.floor(t) for t in instance.max_tasks]
    consumed = [Fraction(0)] * m
    amount = [[Fraction(0)] * m for _ in range(n)]
    tasks = [0] * n
    order: list[int] = []
    blocked: list[tuple[int, int]] = []
    tiebreak = [(-s if tie == "paper" else 0) for s in sigma]
    heap = []
    for i in range(n):
        fits_alone = all(instance.demands[i][r] <= caps[r] for r in range(m))
        if fits_alone and limit[i] > 0:
            heap.append((Fraction(0), tiebreak[i], i))
    heapq.heapify(heap)
    while heap:
        _, _, i = heapq.heappop(heap)
        demand = instance.demands[i]
        over = next((r for r in range(m) if consumed[r] + demand[r] > caps[r]), None)
        if over is not None:
            blocked.append((i, over))
            if on_blocked == "stop":
                break
            continue
        for r in range(m):
            consumed[r] += demand[r]
            amount[i][r] += demand[r]
        tasks[i] += 1
        order.append(i)
        if tasks[i] < limit[i]:
            share = max(amount[i][r] / (caps[r] * instance.weights[i][r]) for r in range(m))
            heapq.heappush(heap, (share, tiebreak[i], i))
    unused = [caps[r] - consumed[r] for r in range(m)]
    return LoopOutcome(tasks, blocked, unused, order if trace else None)
