"""A BMF allocation by exact iteration on resource levels (BMF at cluster sizes).

Bonald & Roberts §3.3 find BMF allocations by "testing the feasibility of all possible one-to-one
mappings of transactions to potential bottlenecks", exponential in the users (`bmf.allocate`'s
enumeration). SimGrid's BMF solver (Donassolo et al.) instead iterates on an assignment of each
flow to one bottleneck and the per-resource fair shares it implies; the idea here is the same,
written independently and in exact arithmetic.

Level form of the definition (§2.4, module `bmf`'s notation, g_ij = a_ij / w_ij): in a BMF
allocation φ let L_j = max_k φ_k g_kj on each bottleneck resource j. A user i with bottleneck j has
φ_i = L_j / g_ij, and φ_i g_ij' <= L_j' on every other bottleneck resource j', so

    φ_i = min( min_{j in S, g_ij > 0} L_j / g_ij , cap_i )                                   (*)

with S the set of bottleneck resources, each saturated. Conversely, levels L on a set S such that
every resource of S is saturated by (*), no resource is over capacity and every user's minimum in
(*) is finite give a BMF allocation (the minimum is a saturated resource on which the user's
weighted amount is maximal, or its cap). So a BMF allocation is m numbers, not a mapping of n users.

Iteration: an assignment b (each user to a resource or its cap) makes (*) linear, and "every
resource of S = b(users) saturated" is |S| linear equations in the |S| levels, solved exactly
(Fractions). The new assignment is each user's minimiser in (*) (ties keep the current choice),
plus, for a resource outside S that is over capacity, its users of largest weighted amount (they
are the first to be capped by a finite level there); a level <= 0 drops its resource from S. It
stops at a consistent assignment (a BMF allocation: the caller re-checks it with `bmf.is_bmf`), or
when an assignment repeats or the step budget ends (no answer). It starts from each user's
dominant resource (the assignment of equal levels). Each step costs O(n m) exact operations and
one m × m solve.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Optional, Sequence

CAP = "cap"


def _solve(matrix: list[list[Fraction]], rhs: list[Fraction]) -> Optional[list[Fraction]]:
    """Exact Gaussian elimination; None if the matrix is singular."""
    k = len(rhs)
    rows = [matrix[r][:] + [rhs[r]] for r in range(k)]
    for col in range(k):
        pivot = next((r for r in range(col, k) if rows[r][col] != 0), None)
        if pivot is None:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        p = rows[col][col]
        inv = 1 / p
        rows[col] = [v * inv for v in rows[col]]
        for r in range(k):
            if r != col and rows[r][col] != 0:
                f = rows[r][col]
                rows[r] = [v - f * w for v, w in zip(rows[r], rows[col])]
    return [rows[r][k] for r in range(k)]


def level_point(
    a: Sequence[Sequence[Fraction]], g: Sequence[Sequence[Fraction]], caps: Sequence[Optional[Fraction]],
    step: Callable[[str], None], max_steps: int,
) -> Optional[tuple[tuple[Fraction, ...], tuple]]:
    """(φ, assignment) at a consistent assignment, or None if the iteration repeats or runs out of
    `max_steps`. `step(stage)` is called once per step (the caller's budget: it may raise)."""
    n = len(a)
    m = len(a[0]) if n else 0
    used = [[j for j in range(m) if g[i][j] > 0] for i in range(n)]
    # Starts: each user on a dominant resource (the assignment of equal levels); a user with several
    # breaks the tie towards the resource that equal levels saturate first (the largest sum_i a_ij
    # / max_j g_ij), then the first, then the last index.
    pressure = [sum((a[i][j] / max(g[i]) for i in range(n)), Fraction(0)) for j in range(m)]
    starts: list = []
    for rank in (lambda j: (-pressure[j], j), lambda j: j, lambda j: -j):
        start = []
        for i in range(n):
            best = max(g[i][j] for j in used[i])
            start.append(min((j for j in used[i] if g[i][j] == best), key=rank))
        if start not in starts:
            starts.append(start)
    for start in starts:
        found = _iterate(a, g, caps, step, max_steps, used, start)
        if found is not None:
            return found
    return None


def _iterate(a, g, caps, step, max_steps, used, assignment):
    n = len(a)
    m = len(a[0]) if n else 0
    seen: set = set()
    for count in range(max_steps):
        key = tuple(assignment)
        if key in seen:
            return None
        seen.add(key)
        step(f"level iteration step {count + 1} ({len({b for b in assignment if b != CAP})} bottleneck resources)")
        S = sorted({b for b in assignment if b != CAP})
        index = {j: k for k, j in enumerate(S)}
        matrix = [[Fraction(0)] * len(S) for _ in S]
        rhs = [Fraction(1)] * len(S)
        for i, b in enumerate(assignment):
            if b == CAP:
                for j in S:
                    if a[i][j]:
                        rhs[index[j]] -= a[i][j] * caps[i]
            else:
                inv = 1 / g[i][b]
                for j in S:
                    if a[i][j]:
                        matrix[index[j]][index[b]] += a[i][j] * inv
        levels = _solve(matrix, rhs)
        if levels is None:
            return None
        level = dict(zip(S, levels))
        dropped = {j for j in S if level[j] <= 0}
        phi: list = []
        new: list = []
        for i in range(n):
            options = [(level[j] / g[i][j], j) for j in used[i] if j in level and j not in dropped]
            if caps[i] is not None:
                options.append((caps[i], CAP))
            if not options:  # no finite level bounds this user: its dominant resource becomes one
                phi.append(None)
                best = max(g[i][j] for j in used[i])
                new.append(next(j for j in used[i] if g[i][j] == best))
                continue
            low = min(v for v, _ in options)
            ties = [o for v, o in options if v == low]
            phi.append(low)
            new.append(assignment[i] if assignment[i] in ties else ties[0])
        if not dropped and None not in phi:
            over = False
            for j in range(m):
                if j in level:
                    continue
                load = sum((phi[i] * a[i][j] for i in range(n) if a[i][j]), Fraction(0))
                if load > 1:
                    over = True
                    top = max(phi[i] * g[i][j] for i in range(n) if g[i][j])
                    for i in range(n):
                        if g[i][j] and phi[i] * g[i][j] == top:
                            new[i] = j
            if not over and new == assignment:
                return tuple(phi), tuple(assignment)
        assignment = new
    return None


# --------------------------------------------------------------------------- continuation in t
def continuation_point(
    a: Sequence[Sequence[Fraction]], g: Sequence[Sequence[Fraction]], caps: Sequence[Optional[Fraction]],
    step: Callable[[str], None], max_steps: int,
) -> Optional[tuple[tuple[Fraction, ...], tuple]]:
    """Progressive filling on levels: every resource not yet saturated ("free") has the common
    level t, the saturated ones (S) have the levels that keep them exactly saturated, and t grows.

    Users are "free" (φ_i = t / G_i, G_i = max over free resources of g_ij), bottlenecked on a
    resource b of S (φ_i = L_b / g_ib) or at their cap. On each segment the levels are affine in t
    (|S| linear equations, exact). A segment ends at the first t where a free user's or a
    bottlenecked user's minimum in (*) moves to another option, or a free resource saturates (it
    joins S at level t). When no user is free any more, the levels no longer depend on t: every
    user's minimum is a saturated resource or its cap, a BMF allocation (the caller re-checks).
    A saturated resource's level never reaches 0 (its users' amounts are bounded by its level), but
    it falls while free users keep growing on it: a capped user is then taken over by that level
    once it drops below the cap, like any other user (a capped user is not frozen). Users only
    leave the free set. None if the budget of steps ends or an assignment repeats."""
    n = len(a)
    m = len(a[0]) if n else 0
    used = [[j for j in range(m) if g[i][j] > 0] for i in range(n)]
    S: list[int] = []  # saturated resources
    state: list[Any] = ["free"] * n  # "free", a resource index in S, or CAP
    for i in range(n):
        if caps[i] == 0:
            state[i] = CAP
    t = Fraction(0)
    seen: set = set()
    for count in range(max_steps):
        step(f"level continuation step {count + 1} ({len(S)} saturated resources)")
        key = (tuple(S), tuple(state))
        if key in seen:
            return None
        seen.add(key)
        free_res = [j for j in range(m) if j not in S]
        G: list[Any] = [max((g[i][j] for j in used[i] if j in free_res), default=None) for i in range(n)]
        for i in range(n):
            if state[i] == "free" and G[i] is None:
                return None  # inconsistent: a free user with no free resource
        # levels L_j = alpha_j + beta_j t on S
        index = {j: k for k, j in enumerate(S)}
        matrix = [[Fraction(0)] * len(S) for _ in S]
        rhs0 = [Fraction(1)] * len(S)
        rhs1 = [Fraction(0)] * len(S)
        for i in range(n):
            for j in S:
                if not a[i][j]:
                    continue
                if state[i] == CAP:
                    rhs0[index[j]] -= a[i][j] * (caps[i] or 0)  # a capped user has a cap
                elif state[i] == "free":
                    rhs1[index[j]] -= a[i][j] / G[i]
                else:
                    matrix[index[j]][index[state[i]]] += a[i][j] / g[i][state[i]]
        alpha = _solve(matrix, rhs0) if S else []
        beta = _solve(matrix, rhs1) if S else []
        if alpha is None or beta is None:
            return None
        L = {j: (alpha[k], beta[k]) for j, k in index.items()}

        # at t itself each user must already be on its least option by (value, slope) under this
        # segment's slopes: the choice at an event used the old segment's slopes for the resources
        # that had just saturated, and a tie broken that way is corrected here before t moves on
        least = [_least_option(state[i], used[i], g[i], caps[i], L, free_res, t) for i in range(n)]
        if least != state:
            state = least
            continue
        phis = [_segment_phi(state[i], caps[i], G[i], L, g[i]) for i in range(n)]  # φ_i = p + q t
        if all(st != "free" for st in state):
            point = tuple(p + q * t for p, q in phis)
            return point, tuple(state)
        # next event: the smallest t' > t where an affine difference changes sign
        roots: list = []

        def consider(p, q, roots=roots, t=t):  # the option p + q t' falls below the current φ
            if q < 0 and -p / q > t:
                roots.append(-p / q)

        for i in range(n):  # a capped user too: a saturated level falling below its cap takes it over
            pi, qi = phis[i]
            for j in used[i]:
                if j in L and j != state[i]:
                    p, q = L[j]
                    consider(p / g[i][j] - pi, q / g[i][j] - qi)
            cap = caps[i]
            if cap is not None:
                consider(cap - pi, -qi)
        for k in free_res:
            p = sum((a[i][k] * phis[i][0] for i in range(n) if a[i][k]), Fraction(0))
            q = sum((a[i][k] * phis[i][1] for i in range(n) if a[i][k]), Fraction(0))
            consider(1 - p, -q)
        if not roots:
            return None
        t = min(roots)
        # at t: saturated free resources join S; every non-capped user takes its minimum option
        # by (value at t, slope), the slopes of the new S-levels taken from the old segment
        for k in free_res:
            load = sum((a[i][k] * (phis[i][0] + phis[i][1] * t) for i in range(n) if a[i][k]), Fraction(0))
            if load >= 1:
                S.append(k)
                L[k] = (Fraction(0), Fraction(1))  # level t, rising with t until re-solved
        S.sort()
        free_res = [j for j in range(m) if j not in S]
        for i in range(n):
            state[i] = _least_option(state[i], used[i], g[i], caps[i], L, free_res, t)
    return None


def _least_option(current, used_i, g_row, cap, L, free_res, t):
    """A user's least option at t by (value at t, slope): a resource of S (level L_j / g_ij), its
    cap, or "free" (t / G_i); a tied current option is kept."""
    options: list[tuple[Fraction, Fraction, int, Any]] = []  # (value at t, slope, kind, state)
    for j in used_i:
        if j in L:
            p, q = L[j]
            options.append(((p + q * t) / g_row[j], q / g_row[j], 0, j))
    if cap is not None:
        options.append((cap, Fraction(0), 1, CAP))
    if any(j in free_res for j in used_i):
        Gi = max(g_row[j] for j in used_i if j in free_res)
        options.append((t / Gi, 1 / Gi, 2, "free"))
    best = min(options, key=lambda o: (o[0], o[1], o[2]))
    if current in [o[3] for o in options if (o[0], o[1]) == (best[0], best[1])]:
        return current
    return best[3]


def _segment_phi(state, cap, G, L, g_row) -> tuple[Fraction, Fraction]:
    """(p, q) with φ = p + q t on the current segment, for a user in `state`."""
    if state == CAP:
        return cap, Fraction(0)
    if state == "free":
        return Fraction(0), 1 / G
    p, q = L[state]
    return p / g_row[state], q / g_row[state]
