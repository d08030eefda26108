"""PDRF's closed form on whole tasks (Metin, PDRF Algorithm 1), in exact integers.

The kernel behind `fairlab.mechanisms.pdrf` and the PDRF Tables statistics
(`fairlab.paper_checks.pdrf_tables`); the instance is in the integer form of
`fairlab.mechanisms._task_problem`.
"""

from __future__ import annotations

import math

import numpy as np

from fairlab.mechanisms import _task_problem
from fairlab.mechanisms._task_problem import INT64_SAFE, TaskProblem


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
    totals = _task_problem.matvec(coef, problem, users)  # N_r = P * sum_i D_ir / ds_i
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
    demand = problem.np_demand()
    if problem.p is None or problem.q is None or demand is None:
        return None
    idx = None if whole else np.asarray(users, dtype=np.intp)
    p, q = (problem.p, problem.q) if whole else (problem.p[idx], problem.q[idx])
    big_p = math.lcm(*set(p.tolist()))
    q_max, p_max = int(q.max()), int(p.max())
    if big_p * q_max * problem.max_demand * len(users) >= INT64_SAFE:
        return None
    coef = q * (big_p // p)
    totals = (coef @ (demand if whole else demand[idx])).tolist()
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
