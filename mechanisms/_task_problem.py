"""Integer form of an instance for the whole-task kernels of `drf-tasks` (fast path) and `pdrf`.

Model. Resource r is scaled by the lcm of its denominators so capacities `C[r]` and demands
`D[i][r]` are integers (shares D/C are unchanged). User i's weighted dominant share per task is
sigma_i = max_r d_ir / (c_r w_ir) (DRF paper §4.3); `unit[i] = sigma_i * scale` is an integer, so
the dominant share after j tasks is the integer ``j * unit[i]`` (in units of 1/scale).

Everything is exact integer arithmetic; numpy is used only where a bound check shows int64
cannot overflow (`matvec`). The kernels: `fairlab.mechanisms._pdrf_kernel` (PDRF's closed form)
and `fairlab.mechanisms._drf_loop` (the DRF task loop's exact outcome, fast and literal).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence

import numpy as np

INT64_SAFE = 2**62  # products/sums below this are exact in int64 (one bit of margin)


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
    # computed once, on first use (set by __post_init__)
    _eligible: list[int] | None = field(default=None, init=False, repr=False, compare=False)
    _cap_array: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)
    _dyadic: DyadicArrays | None = field(default=None, init=False, repr=False, compare=False)

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

    def dyadic(self) -> DyadicArrays | None:
        """Arrays of the vectorised exact probes (computed once per problem), or None when the
        instance is outside their int64 bounds."""
        dem = self.np_demand() if self._dyadic is None and self.p is not None and self.q is not None else None
        if dem is not None and self.p is not None and self.q is not None:
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


def ceil_div(a: int, b: int) -> int:
    return -((-a) // b)
