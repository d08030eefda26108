"""DRFH: DRF for heterogeneous servers (Wang, Li & Liang, "Dominant Resource Fairness in Cloud Computing
Systems with Heterogeneous Servers", INFOCOM 2014), cited beside the lecture's "Beyond DRF" slide.

Lab's reading (only the abstract was readable; the reading notes rate the definition medium): each
server l has a capacity vector c_l; a user's *global dominant share* is sum_l x_il * sigma_i, where
x_il >= 0 are its tasks on server l (divisible within a server, never spanning servers) and
sigma_i = max_r d_ir / C_r is the dominant share of one task against the pool's totals C
(the sum of the servers). DRFH is max-min fairness — here the
leximin — of the global dominant shares subject to every server's capacity and the task caps.

Domain: the machines setting (`Instance.machines`), tasks divisible within a server, zero demand
entries allowed (a user can use server l when l has every resource it needs), task caps; unit
weights (the instance format has no weights with machines).
A user that can use no server gets nothing (noted). Valuation model: pooled (`Mechanism.valuation`'s
default; `fairlab.properties._machines`): a user values what it holds on a server by the tasks it
runs there, Leontief, summed over the servers — DRFH's utility as the reading notes give it [M].

Computation, exact: a sequence of linear programs (`fairlab.core.lp.solve_lp`: HiGHS basis re-solved
in Fractions with an exact optimality certificate, z3 otherwise). Step: maximise the common level t of
the active users' shares, the frozen ones keeping theirs; then a user is frozen at t when the most its
share can reach, the others keeping theirs and the active ones at least t, is t. At least one user is
frozen per step, so at most 2n LPs per step and n steps. The shares (hence the task totals) are the
unique leximin vector; placements reaching them need not be unique, so the lab breaks the tie: the
lexicographically greatest placement (`core.lp.lexicographic_max`, users then servers), never the
vertex an LP solver's version happens to return. No z3 spec: a leximin over placements has no closed characterisation
without the LPs' dual certificates (numeric only, like `drf-tasks` with ``skip``).

The abstract claims envy-freeness, Pareto optimality and truthfulness (not sharing incentive); the
audit on the machines setting decides each at small sizes (the paper-check ledger, ``drfh-*``).
"""

from __future__ import annotations

from fractions import Fraction
from types import MappingProxyType

from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact
from fairlab.core.instance import Instance
from fairlab.core.lp import OPTIMAL, floor_rows, lexicographic_max, solve_lp
from fairlab.mechanisms.base import Allocation, Mechanism, register


def global_sigma(instance: Instance, i: int) -> Fraction:
    """max_r d_ir / (C_r w_ir) against the pooled capacities C (resources no server has are skipped:
    a user needing one can use no server)."""
    caps = instance.capacities
    return max((instance.demands[i][r] / caps[r] for r in range(instance.m) if caps[r] > 0), default=Fraction(0))


def usable(instance: Instance, i: int, k: int) -> bool:
    """Server k has some of every resource user i needs."""
    machines = instance.machines or ()
    return all(machines[k][r] > 0 for r in range(instance.m) if instance.demands[i][r] > 0)


class _Program:
    """The LP data of one instance: variables x_(i,k) for usable pairs, then t (when asked)."""

    def __init__(self, instance: Instance):
        self.inst = instance
        self.pairs = [(i, k) for i in range(instance.n) for k in range(instance.k) if usable(instance, i, k)]
        self.sigma = [global_sigma(instance, i) for i in range(instance.n)]

    def rows(self, extra: int):
        """Capacity and cap rows (A_ub, b_ub) over the x variables plus `extra` trailing zeros."""
        inst, a, b = self.inst, [], []
        for k in range(inst.k):
            for r in range(inst.m):
                row = [inst.demands[i][r] if kk == k else Fraction(0) for i, kk in self.pairs]
                if any(row):
                    a.append(row + [Fraction(0)] * extra)
                    b.append((inst.machines or ())[k][r])
        for i, cap in enumerate(inst.max_tasks):
            if cap is not None:
                a.append([Fraction(1) if ii == i else Fraction(0) for ii, _ in self.pairs] + [Fraction(0)] * extra)
                b.append(cap)
        return a, b

    def share_row(self, i: int, extra: int):
        return [self.sigma[i] if ii == i else Fraction(0) for ii, _ in self.pairs] + [Fraction(0)] * extra

    def solve(self, objective, a, b, who: str):
        result = solve_lp(objective, A_ub=a, b_ub=b, maximize=True)
        if result.status != OPTIMAL:
            raise InputError(f"drfh: the exact LP ({who}) ended {result.status}; no allocation")
        return result


def leximin(instance: Instance):
    """(levels, placement): the leximin global dominant shares and one exact placement reaching them."""
    if instance.machines is None:
        raise InputError("drfh: the instance lists no machines")
    prog = _Program(instance)
    n, size = instance.n, len(prog.pairs)
    levels: list[Fraction | None] = [None] * n
    for i in range(n):
        if instance.max_tasks[i] == 0 or not any(ii == i for ii, _ in prog.pairs) or prog.sigma[i] == 0:
            levels[i] = Fraction(0)

    def floors(floor_of, extra: int):
        """Rows share_i >= floor_of(i) (share_i >= t when None), with t's column when extra."""
        return floor_rows([prog.share_row(i, extra) for i in range(n)], [floor_of(i) for i in range(n)])

    base1, base0 = prog.rows(1), prog.rows(0)
    while any(level is None for level in levels):
        active = [i for i in range(n) if levels[i] is None]
        a, b = floors(lambda i: levels[i], 1)
        t = prog.solve([Fraction(0)] * size + [Fraction(1)], base1[0] + a, base1[1] + b, "common level").value
        a, b = floors(lambda i, t=t: t if levels[i] is None else levels[i], 0)
        frozen = [i for i in active
                  if prog.solve(prog.share_row(i, 0), base0[0] + a, base0[1] + b,
                                f"{instance.users[i]}'s most").value == t]
        if not frozen:
            raise RuntimeError("drfh: a leximin step froze no user (an LP answer is inconsistent)")
        for i in frozen:
            levels[i] = t
    a, b = floors(lambda i: levels[i], 0)
    # the lab's tie-break among the placements reaching the levels: the lexicographically greatest (in the
    # order of prog.pairs), a function of the instance, not of the vertex an LP solver's version returns
    status, point = lexicographic_max(size, base0[0] + a, base0[1] + b)
    if point is None:
        raise InputError(f"drfh: an exact LP of the placement's tie-break ended {status}; no allocation")
    placement = [[Fraction(0)] * instance.k for _ in range(n)]
    for (i, k), x in zip(prog.pairs, point):
        placement[i][k] = x
    return levels, placement


def allocate(instance: Instance, **options) -> Allocation:
    levels, placement = leximin(instance)
    rows = tuple(tuple(row) for row in placement)
    tasks = tuple(sum(row, Fraction(0)) for row in rows)
    notes = []
    for i in range(instance.n):
        if not any(usable(instance, i, k) for k in range(instance.k)):
            notes.append(f"{instance.users[i]}: no server has every resource it needs; it gets no tasks")
    shares = ", ".join(f"{u} {format_exact(s)}" for u, s in zip(instance.users, levels))
    notes.append(f"global dominant shares {shares}")
    notes.append("the placement reaching them is the lab's tie-break (lexicographically greatest); the task totals "
                 "are unique, the split over servers need not be")
    return Allocation("drfh", instance, tasks, options=MappingProxyType({}), notes=tuple(notes),
                      extra=MappingProxyType({"global_dominant_shares": list(levels)}), placement=rows)


MECHANISM = register(
    Mechanism(
        name="drfh",
        summary="DRFH (heterogeneous servers, tasks divisible within a server): leximin of global dominant shares "
                "under every server's capacity, exact LPs (lab's reading)",
        source="Wang, Li & Liang, INFOCOM 2014 (abstract; lab's reading of the definition)",
        allocate=allocate,
        spec=None,
        options={},
        discrete=False,
        scale_invariant=False, anonymous=False,
        module=__name__,
        setting="machines",
    )
)
