"""Integer kernels for the discrete task schedulers `drf-tasks` (fast path) and `pdrf`.

Everything here is exact integer arithmetic; numpy is used only where a bound check shows int64
cannot overflow (`matvec`), and floats only *guide* the search for a level (`_dyadic_bracket`)
and propose the order of the keys around it (`_window_order`), every decision being re-checked
exactly.

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
Against PDRF's closed form (one pass over the demands) the exact outcome needs at least a second,
certifying pass and the ordered window: at 1000 x 10 the kernels take ~0.15 ms vs ~0.04 ms
(benchmarks/bench_drf_tasks.py).
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
    # sigma_i = p[i] / q[i] as int64 arrays and scale = lcm * 2**shift, when small enough for the
    # vectorised exact probes of `_dyadic_bracket` (None otherwise: big-integer path only).
    p: np.ndarray | None = None
    q: np.ndarray | None = None
    shift: int = 0

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

    def dyadic(self) -> "DyadicArrays | None":
        """Arrays of the vectorised exact probes (computed once per problem), or None when the
        instance is outside their int64 bounds."""
        if self._dyadic is None and self.p is not None and self.np_demand() is not None:
            dem = self.np_demand()
            demf = dem.astype(float)
            inv = self.q / self.p  # tasks per unit of share (guidance only)
            self._dyadic = DyadicArrays(self.p << self.shift, inv, demf, np.ones(self.n) @ demf,
                                        int(self.p.min()), int(self.p.max()), int(self.q.max()))
        return self._dyadic

    def eligible_users(self) -> list[int]:
        """The users that can ever launch a task, in index order."""
        if self._eligible is None:
            if not self.too_big and not self.any_cap:
                self._eligible = list(range(self.n))
            else:
                self._eligible = [i for i in range(self.n) if self.eligible(i)]
        return list(self._eligible)

    def cap_array(self) -> np.ndarray:
        """Caps as int64 with 2**62 for "unlimited" (for the vectorised probes)."""
        if self._cap_array is None:
            self._cap_array = np.array([2**62 if c is None else min(c, 2**62) for c in self.cap], dtype=np.int64)
        return self._cap_array

    def eligible(self, i: int) -> bool:
        """Can user i ever launch a task (fits alone and a cap of at least one)?"""
        return i not in self._too_big_set and self.cap[i] != 0

    def __post_init__(self):
        self._too_big_set = set(self.too_big)
        self._eligible = None
        self._cap_array = None
        self._dyadic = None
        self.any_cap = any(c is not None for c in self.cap)
        self.max_demand = max((max(row) for row in self.demand), default=0)
        if self.mult is None:
            self.mult = [1] * len(self.capacity)


@dataclass
class DyadicArrays:
    """Per-problem arrays of the vectorised probes: den_i = p_i 2**shift (user i's prefix at probe
    level a has ceil(a q_i / den_i) tasks), the float guidance (tasks per unit of share q_i / p_i,
    demands, their column sums) and the bounds of sigma_i = p_i / q_i for the int64 checks."""

    den: np.ndarray
    inv: np.ndarray
    demf: np.ndarray
    column_sums: np.ndarray
    p_min: int
    p_max: int
    q_max: int


def from_integers(capacity: Sequence[int], demand: Sequence[Sequence[int]], cap=None) -> TaskProblem:
    """Unweighted integer instance (e.g. a random PDRF-table run); sigma_i = max_r D_ir / C_r.

    The dominant resource is picked with floats and then *verified* by exact integer cross-
    multiplication (int64 when the bound allows, Python ints otherwise)."""
    capacity = [int(c) for c in capacity]
    n, m = len(demand), len(capacity)
    cap = list(cap) if cap is not None else [None] * n
    lcm = math.lcm(*capacity)
    if max(capacity) < 2**31 and (n == 0 or max(max(row) for row in demand) < 2**31):
        dem = np.asarray(demand, dtype=np.int64).reshape(n, m)
        caps = np.asarray(capacity, dtype=np.int64)
        best = np.argmax(dem / caps, axis=1)
        # exact check: D[i,b] * C[r] >= D[i,r] * C[b] for all r
        rows = np.arange(n)
        ok = (dem[rows, best][:, None] * caps[None, :] >= dem * caps[best][:, None]).all(axis=1)
        for i in np.flatnonzero(~ok).tolist():
            best[i] = _exact_argmax(demand[i], capacity)
        num, den = dem[rows, best], caps[best]
        g = np.gcd(num, den)
        p, q = num // g, den // g
        shift = _dyadic_shift(int(p.max(initial=1)), int(q.max(initial=1)))
        scale = lcm << shift
        factor = [scale // c for c in capacity]
        demand_list = dem.tolist()
        unit = [d * factor[b] for d, b in zip(num.tolist(), best.tolist())]
        too_big = np.flatnonzero((dem > caps[None, :]).any(axis=1)).tolist()
        problem = TaskProblem(capacity, demand_list, unit, scale, cap, too_big, None, dem,
                              p if shift else None, q if shift else None, shift)
        return problem
    demand_list = [[int(d) for d in row] for row in demand]
    best = [_exact_argmax(row, capacity) for row in demand_list]
    too_big = [i for i, row in enumerate(demand_list) if any(d > c for d, c in zip(row, capacity))]
    factor = [lcm // c for c in capacity]
    unit = [demand_list[i][b] * factor[b] for i, b in enumerate(best)]
    return TaskProblem(capacity, demand_list, unit, lcm, cap, too_big)


def _dyadic_shift(p_max: int, q_max: int) -> int:
    """Bits K of the dyadic probe levels a / 2**K: p << K and a * q (shares up to 4) stay < 2**62."""
    shift = min(40, 61 - p_max.bit_length(), 59 - K_MARGIN - q_max.bit_length())
    return shift if shift >= 8 else 0


K_MARGIN = 2  # shares up to 2**K_MARGIN are probed in int64


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
    p_max = max(s.numerator for s in sigma)
    q_max = max(s.denominator for s in sigma)
    shift = _dyadic_shift(p_max, q_max) if p_max < 2**31 and q_max < 2**40 else 0
    scale = math.lcm(*(s.denominator for s in sigma)) << shift
    unit = [s.numerator * (scale // s.denominator) for s in sigma]
    too_big = [i for i in range(n) if any(demand[i][r] > capacity[r] for r in range(m))]
    p = np.array([s.numerator for s in sigma], dtype=np.int64) if shift else None
    q = np.array([s.denominator for s in sigma], dtype=np.int64) if shift else None
    return TaskProblem(capacity, demand, unit, scale, cap, too_big, mult, None, p, q, shift)


# --------------------------------------------------------------------------- helpers
def matvec(counts: Sequence[int], problem: TaskProblem, users: Sequence[int]) -> list[int]:
    """Exact resource usage sum_i counts[k] * D[users[k]][r], in int64 when provably safe."""
    dem = problem.np_demand()
    if dem is not None and len(users) and int(max(counts)) * problem.max_demand * len(users) < INT64_SAFE:
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
    users = problem.eligible_users()
    counts = [0] * problem.n
    if not users:
        return counts
    if problem.p is not None and problem.np_demand() is not None:
        fast = _pdrf_counts_int64(problem, users)
        if fast is not None:
            return fast
    p, q = [], []
    for i in users:
        g = math.gcd(problem.unit[i], problem.scale)
        p.append(problem.unit[i] // g)
        q.append(problem.scale // g)
    big_p = math.lcm(*p)
    coef = [qi * (big_p // pi) for pi, qi in zip(p, q)]  # = P / ds_i
    totals = matvec(coef, problem, users)  # N_r = P * sum_i D_ir / ds_i
    best = _pdrf_binding(problem, totals)
    num, den = problem.capacity[best] * big_p, totals[best]
    for k, i in enumerate(users):
        t = (num * q[k]) // (den * p[k])
        cap = problem.cap[i]
        counts[i] = t if cap is None else min(t, cap)
    return counts


def _pdrf_binding(problem: TaskProblem, totals) -> int:
    """The resource minimising C_r / N_r (cross-multiplied), i.e. the one that bounds k."""
    best = None
    for r, total in enumerate(totals):
        if total > 0 and (best is None or problem.capacity[r] * totals[best] < problem.capacity[best] * total):
            best = r
    if best is None:  # unreachable: every user demands some resource
        raise AssertionError("no resource is demanded")
    return best


def _pdrf_counts_int64(problem: TaskProblem, users) -> list[int] | None:
    """`pdrf_counts` vectorised in int64 when every intermediate provably fits (else None)."""
    whole = len(users) == problem.n
    idx = None if whole else np.asarray(users, dtype=np.intp)
    p, q = (problem.p, problem.q) if whole else (problem.p[idx], problem.q[idx])
    big_p = math.lcm(*set(p.tolist()))
    q_max, p_max = int(q.max()), int(p.max())
    if big_p * q_max * problem.max_demand * len(users) >= INT64_SAFE:
        return None
    coef = q * (big_p // p)
    totals = (coef @ (problem.np_demand() if whole else problem.np_demand()[idx])).tolist()
    best = _pdrf_binding(problem, totals)
    num, den = problem.capacity[best] * big_p, totals[best]
    if num * q_max >= INT64_SAFE or den * p_max >= INT64_SAFE:
        return None
    tasks = (num * q) // (den * p)
    if problem.any_cap:
        np.minimum(tasks, problem.cap_array() if whole else problem.cap_array()[idx], out=tasks)
    if whole:
        return tasks.tolist()
    counts = np.zeros(problem.n, dtype=np.int64)
    counts[idx] = tasks
    return counts.tolist()


# --------------------------------------------------------------------------- DRF task loop, fast
@dataclass
class LoopOutcome:
    counts: list[int]
    blocked: list[tuple[int, int]]  # (user, resource) whose next task did not fit, in order
    unused: list[Fraction]  # capacity left per resource, in the instance's units
    trace: list[int] | None = None


def tie_key(problem: TaskProblem, tie: str, i: int) -> int:
    """Second key component: `paper` launches the larger per-task dominant share first (PDRF §3.1
    reading of the DRF paper's Table 1), `index` only the user index (third component)."""
    return -problem.unit[i] if tie == "paper" else 0


def fast_loop(problem: TaskProblem, tie: str = "paper", on_blocked: str = "stop", trace: bool = False) -> LoopOutcome:
    """The exact final allocation of the DRF task loop without simulating it task by task."""
    counts = [0] * problem.n
    used = [0] * problem.m
    active = problem.eligible_users()
    blocked: list[tuple[int, int]] = []
    first = True
    while active:
        active, done = _fast_phase(problem, tie, counts, used, active, on_blocked, blocked, first)
        first = False
        if done:
            break
    unused = [Fraction(c - u) if k == 1 else Fraction(c - u, k) for c, u, k in zip(problem.capacity, used, problem.mult)]
    out = LoopOutcome(counts, blocked, unused)
    if trace:
        out.trace = trace_of(problem, tie, counts)
    return out


def trace_of(problem: TaskProblem, tie: str, counts: Sequence[int]) -> list[int]:
    """The loop's launch order for final `counts`: launches come in increasing key order."""
    keys = [(j * problem.unit[i], tie_key(problem, tie, i), i) for i in range(problem.n) for j in range(counts[i])]
    keys.sort()
    return [k[2] for k in keys]


def _fast_phase(problem, tie, counts, used, active, on_blocked, blocked, first=False):
    """One phase: from the current state, launch the prefix of the merged key order up to the first
    task that does not fit. Returns (users still active, whether the loop has ended).
    `first`: no task launched yet (every count is 0)."""
    unit, caps, capacity, dem = problem.unit, problem.cap, problem.capacity, problem.demand
    remaining = [capacity[r] - used[r] for r in range(problem.m)]
    lo = 0 if first else min(counts[i] * unit[i] for i in active)
    bracket = _dyadic_bracket(problem, active, counts, remaining, lo, first)
    if bracket == "all":  # every remaining task fits: caps end the loop
        _launch(problem, counts, used, active, [caps[i] - counts[i] for i in active])
        return [], True
    who = None  # the window's keys in the loop's order, as users (None: sort `window_keys` below)
    if bracket is not None:
        take_lo, take_hi, start, idx, usage_lo = bracket
        extra = take_hi - take_lo
        between = np.flatnonzero(extra)
        users = between if idx is None else idx[between]
        who = _window_order(problem, tie, users, (start + take_lo)[between], extra[between])
        if who is not None and on_blocked == "stop" and _window_fits_int64(problem, who):
            if _stop_in_window(problem, who, counts, used, blocked, idx, take_lo, usage_lo):
                return [], True
            who = who[:0]  # all launched (the window ended below the blocking level); continue as usual
        else:
            _add_counts(counts, idx, take_lo)
            for r, u in enumerate(usage_lo.tolist()):
                used[r] += u
        if who is None:
            window_users = [(i, counts[i] + k) for i, k in zip(users.tolist(), extra[between].tolist())]
    else:
        limit = [math.inf if caps[i] is None else caps[i] for i in active]
        start = [counts[i] for i in active]
        prefix, fits, everything_fits_at = _bigint_probes(problem, active, start, limit, remaining)
        lo, hi = _bigint_bracket(problem, active, prefix, fits, everything_fits_at, lo, start, remaining)
        _launch(problem, counts, used, active, prefix(lo))
        if hi is None:
            return [], True
        window_users = [(i, min(_ceil_div(hi, unit[i]), lim)) for i, lim in zip(active, limit)]
    if who is None:
        paper = tie == "paper"
        # Keys with lo <= share < hi, in the loop's order; the first one that does not fit decides.
        window_keys = [
            (j * unit[i], -unit[i] if paper else 0, i) for i, stop_at in window_users for j in range(counts[i], stop_at)
        ]
        window_keys.sort()
        who = np.fromiter((k[2] for k in window_keys), dtype=np.intp, count=len(window_keys))
    if on_blocked == "stop" and len(who) and problem.np_demand() is not None and _window_fits_int64(problem, who):
        if _stop_in_window(problem, who, counts, used, blocked):
            return [], True
        who = who[:0]
    frozen = set()
    for i in who.tolist():
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
    still = [i for i in active if i not in frozen and (caps[i] is None or counts[i] < caps[i])]
    return still, not still


def _window_order(problem, tie, users, start, extra):
    """The window's keys -- tasks start[k] .. start[k] + extra[k] - 1 of user users[k] (users in
    increasing index order) -- in the loop's order (share, tie-break, index), as an array of users.

    Floats only propose the order (share j p_i / q_i); every adjacent pair is then checked exactly
    by int64 cross-multiplication, so a strictly increasing chain proves it is the sorted order.
    None when the bounds do not allow the int64 check or it fails (the caller sorts big integers)."""
    total = int(extra.sum())
    if total == 0:
        return users[:0]
    p, q = problem.p[users], problem.q[users]
    arrays = problem.dyadic()
    if int((start + extra).max()) * arrays.p_max * arrays.q_max >= INT64_SAFE:
        return None
    pos = np.repeat(np.arange(len(users)), extra)  # position in `users`, non-decreasing
    first_key = np.cumsum(extra) - extra
    j = np.arange(total, dtype=np.int64) + np.repeat(start - first_key, extra)
    pk, qk = p[pos], q[pos]
    num = j * pk  # share of the key = num / qk
    share = num / qk
    if tie == "paper":  # equal shares: larger per-task share sigma = p / q first, then index
        order = np.lexsort((pos, -(pk / qk), share))
    else:  # equal shares: index order; `pos` is already non-decreasing, so a stable sort keeps it
        order = np.argsort(share, kind="stable")
    num, qk, pk, pos = num[order], qk[order], pk[order], pos[order]
    left, right = num[:-1] * qk[1:], num[1:] * qk[:-1]
    index_first = pos[:-1] < pos[1:]
    if tie == "paper":
        sig_left, sig_right = pk[:-1] * qk[1:], pk[1:] * qk[:-1]
        index_first = (sig_left > sig_right) | ((sig_left == sig_right) & index_first)
    if not bool(((left < right) | ((left == right) & index_first)).all()):
        return None
    return users[pos]


def _window_fits_int64(problem, who) -> bool:
    """Can `_stop_in_window` add up the window's demands in int64?"""
    return max(problem.capacity) + len(who) * problem.max_demand < INT64_SAFE


def _stop_in_window(problem, who, counts, used, blocked, idx=None, take_lo=None, usage_lo=None) -> bool:
    """`stop` within the sorted window (`who`: its keys' users), vectorised: first launch `take_lo`
    (tasks per user of `idx`, None = all users and every count still 0; usage `usage_lo`), then the
    window's keys until the first that overflows. True if the loop has ended there."""
    base = np.asarray(used, dtype=np.int64)
    if usage_lo is not None:
        base += usage_lo
    load = np.cumsum(problem.np_demand()[who], axis=0)
    load += base
    over = load > np.asarray(problem.capacity, dtype=np.int64)
    bad = over.any(axis=1)
    first = int(bad.argmax())
    if not bad[first]:
        first = len(who)
    add = np.bincount(who[:first], minlength=problem.n)
    if take_lo is not None and idx is None:
        counts[:] = (add + take_lo).tolist()
    else:
        if take_lo is not None:
            add[idx] += take_lo
        counts[:] = (add + np.asarray(counts, dtype=np.int64)).tolist()
    used[:] = (load[first - 1] if first else base).tolist()
    if first < len(who):
        blocked.append((int(who[first]), int(over[first].argmax())))
        return True
    return False


def _add_counts(counts, idx, take):
    """counts[idx[k]] += take[k] (idx None: every user, all counts still 0)."""
    if idx is None:
        counts[:] = take.tolist()
    else:
        for i, k in zip(idx.tolist(), take.tolist()):
            counts[i] += k


def _bigint_probes(problem, active, start, limit, remaining):
    """prefix(level), fits(level), everything_fits_at(level) in exact big-integer arithmetic."""
    unit = problem.unit
    units = [unit[i] for i in active]
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

    return prefix, fits, everything_fits_at


def _bigint_bracket(problem, active, prefix, fits, everything_fits_at, lo, start, remaining):
    """Levels lo < hi (1/scale units) with prefix(lo) fitting, prefix(hi) not, and few keys between;
    hi None if every remaining task fits at lo. Big-integer fallback of `_dyadic_bracket`."""
    hi = None
    guess_lo, guess_hi = _fluid_guesses(problem, active, start, remaining)
    if guess_lo is not None and guess_lo > lo:
        if fits(guess_lo):
            lo = guess_lo
        else:
            hi = guess_lo
    if hi is None:
        probe = max(guess_hi if guess_hi is not None else lo + 1, lo + 1)
        step = probe - lo
        while fits(probe):  # gallop: the step doubles
            if everything_fits_at(probe):
                return probe, None
            lo, step = probe, 2 * step
            probe = lo + step
        hi = probe
    batch = 4 * len(active) + 64
    while hi - lo > 1:
        if sum(prefix(hi)) - sum(prefix(lo)) <= batch:
            break
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo, hi


WINDOW = 256  # stop bisecting once this few keys separate the two probe levels


def _dyadic_bracket(problem, active, counts, remaining, lo_units, first):
    """Like `_bigint_bracket` but probing only levels a / 2**shift, where the prefix counts
    ceil(a q_i / (p_i 2**shift)) and the usage are exact in int64 (vectorised). Returns
    (take_lo, take_hi, start, idx, usage_lo): the tasks each active user launches below the lower
    level (which fits) and below the upper one (which does not), the counts before this phase (0 on
    the first phase), the active users as an array (None for all), and the exact usage of take_lo. "all" if
    every remaining task fits; None when the instance is outside the int64 bounds (the caller then
    uses big integers)."""
    arrays = problem.dyadic()
    if arrays is None:
        return None
    shift = problem.shift
    any_cap = problem.any_cap
    if first and len(active) == problem.n:
        idx, t0, fresh = None, 0, True
        q, den, inv, rows, rowsf = problem.q, arrays.den, arrays.inv, problem.np_demand(), arrays.demf
        lim = problem.cap_array() if any_cap else None
        one_each, q_max, p_min = arrays.column_sums, arrays.q_max, arrays.p_min
    else:
        idx = np.asarray(active, dtype=np.intp)
        q, den, inv = problem.q[idx], arrays.den[idx], arrays.inv[idx]
        rows, rowsf = problem.np_demand()[idx], arrays.demf[idx]
        lim = problem.cap_array()[idx] if any_cap else None
        fresh = first
        t0 = 0 if first else np.asarray(counts, dtype=np.int64)[idx]
        one_each, q_max, p_min = np.ones(len(idx)) @ rowsf, int(q.max()), int(problem.p[idx].min())
    all_capped = any_cap and bool((lim < 2**62).all())
    rem = np.asarray(remaining, dtype=np.int64)
    a_max = 2 ** (shift + K_MARGIN)
    # Every probe takes at most ceil(a_max q_i / den_i) tasks per user; if that bound keeps the usage
    # within int64 no probe needs its own check.
    bound = INT64_SAFE // max(1, problem.max_demand * len(q))
    check_each = (a_max * q_max) // (p_min << shift) + 1 >= bound
    den_minus_1 = den - 1

    def take(a: int):
        tops = (a * q + den_minus_1) // den  # ceil(a q_i / den_i), a >= 0
        if lim is not None:
            np.minimum(tops, lim, out=tops)
        if not fresh:
            tops -= t0
            np.maximum(tops, 0, out=tops)
        return tops

    def usage(tk):
        if check_each and int(tk.max(initial=0)) >= bound:
            raise OverflowError
        return tk @ rows

    try:
        # prefix(a_lo) is empty: it fits (a_lo <= every active user's current share)
        a_lo = lo_units // (problem.scale >> shift)
        t_lo = u_lo = None
        # Floats guide the probes: the fluid level minus half a task per user (the expected
        # rounding up of ceil), then steps of about WINDOW / 2 keys (keys per probe unit:
        # sum_i q_i / (p_i 2**shift)); exact checks decide.
        rate = inv @ rowsf  # resource per unit of share
        base = rem if fresh else t0 @ rowsf + rem
        positive = rate > 0
        if bool(positive.all()):
            mid = float(((base - one_each / 2) / rate).min())
        elif bool(positive.any()):
            mid = float(((base - one_each / 2)[positive] / rate[positive]).min())
        else:
            mid = math.inf
        keys_per_unit = float(inv.sum()) / 2.0**shift
        step = max(1, int(WINDOW / 2 / keys_per_unit)) if keys_per_unit > 0 else 1
        probe = int(mid * 2.0**shift) if math.isfinite(mid) else a_lo + 1
        probe = min(max(probe, a_lo + 1), a_max)
        a_hi = t_hi = None
        while True:  # gallop up from a feasible level
            tk = take(probe)
            uk = usage(tk)
            if bool((uk <= rem).all()):
                if all_capped and bool(((tk + t0) >= lim).all()):
                    return "all"
                a_lo, t_lo, u_lo = probe, tk, uk
                if probe >= a_max:
                    return None
                probe = min(probe + step, a_max)
                step *= 2
            else:
                a_hi, t_hi = probe, tk
                break
        if a_lo < a_hi - step:  # the first probe did not fit: gallop down
            down = step
            while a_hi - down > a_lo:
                probe = a_hi - down
                tk = take(probe)
                uk = usage(tk)
                if bool((uk <= rem).all()):
                    a_lo, t_lo, u_lo = probe, tk, uk
                    break
                a_hi, t_hi, down = probe, tk, down * 2
        if u_lo is None:  # nothing above the phase start fits: the window starts there
            t_lo, u_lo = np.zeros(len(q), dtype=np.int64), np.zeros(problem.m, dtype=np.int64)
        keys, stalled = int((t_hi - t_lo).sum()), 0
        while a_hi - a_lo > 1 and keys > WINDOW and stalled < 2:  # bisect to a few keys
            probe = (a_lo + a_hi) // 2
            tk = take(probe)
            uk = usage(tk)
            if bool((uk <= rem).all()):
                a_lo, t_lo, u_lo = probe, tk, uk
            else:
                a_hi, t_hi = probe, tk
            fewer = int((t_hi - t_lo).sum())
            stalled = stalled + 1 if fewer == keys else 0  # equal shares: a tie group cannot be split
            keys = fewer
        return t_lo, t_hi, t0, idx, u_lo
    except OverflowError:
        return None


def _launch(problem, counts, used, active, take):
    """Add `take[k]` tasks to user active[k]."""
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
        # tasks per unit of share; int / int is correctly rounded even when both overflow a float
        inv = np.array([problem.scale / problem.unit[i] for i in active])
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
