"""The DRF task loop (Algorithm 1 of the DRF paper) on whole tasks: its exact outcome, fast and literal.

Everything here is exact integer arithmetic; numpy is used only where a bound check shows int64
cannot overflow (`matvec`), and floats only *guide* the search for a level (`_dyadic_bracket`)
and propose the order of the keys around it (`_window_order`), every decision being re-checked
exactly.

Model: the integer form of `fairlab.mechanisms._task_problem` (dominant share after j tasks of
user i is the integer ``j * unit[i]``, in units of 1/scale).

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
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from fairlab.mechanisms import _task_problem
from fairlab.mechanisms._task_problem import INT64_SAFE, K_MARGIN, TaskProblem, ceil_div


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
    assert problem.mult is not None  # set by TaskProblem.__post_init__
    unused = [Fraction(c - u) if k == 1 else Fraction(c - u, k)
              for c, u, k in zip(problem.capacity, used, problem.mult)]
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
        window_users = [(i, min(ceil_div(hi, unit[i]), lim)) for i, lim in zip(active, limit)]
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
    if not bad.any():
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
        usage = _task_problem.matvec(prefix(level), problem, active)
        return all(u <= rem for u, rem in zip(usage, remaining))

    def everything_fits_at(level: int) -> bool:
        return capped and all(lim != math.inf and ceil_div(level, u) >= lim for u, lim in zip(units, limit))

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
    t0: int | np.ndarray
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
    all_capped = any_cap and lim is not None and bool((lim < 2**62).all())
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
    usage = _task_problem.matvec(take, problem, active)
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
