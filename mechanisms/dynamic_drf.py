"""DYNAMIC DRF (Kash, Procaccia & Shah, "No agent left behind: dynamic fair division of multiple
resources", AAMAS 2013; JAIR 51 (2014) 579-603, §5, the mechanism DYNAMIC DRF).

Model (KPS §2): n agents, n known in advance, arrive one at a time (step k: the k-th arrival);
agents never leave; allocations are irrevocable (an agent's allocation never decreases). Demands are
Leontief; x_i is agent i's dominant share (its tasks times the dominant share of one task).

The mechanism, as the lab implements it (the water-filling reading of KPS's step LP): at step k,
with x_i^{k-1} the dominant shares after step k-1 (0 for the newcomer),

    M^k = max { M : sum_{i <= k} max(M, x_i^{k-1}) * d_ir / (c_r * sigma_i) <= k/n  for every resource r }
    x_i^k = max(M^k, x_i^{k-1})                      (sigma_i: dominant share of one task of i)

i.e. the smallest dominant shares are raised together (water-filling) as far as possible while at
most a k/n fraction of each resource is in use; an agent already above the level keeps its
allocation. One level per step: once some resource reaches k/n the step stops, also for agents
that do not use that resource (KPS's step LP maximises the minimum dominant share M^k; their
agents' allocations x_i^k >= M^k are not raised beyond what is needed — the reading named here;
with a zero demand on the saturated resource this leaves that agent where it is).

Source note: the lab's reference search reached only the paper's opening pages (title, abstract,
introduction: JAIR page copies at vdocuments.us and paperzz.com) and the lecture slide ("no
reallocation allowed [Kash, Procaccia, Shah 2013]"); the definitions here follow KPS's wording as
the lab's brief states it (water-filling with at most k/n of each resource; DEF's exact words), and the
section numbers cited are to be checked against JAIR 51:579-603.

Everything is exact (`Fraction`). Departures are not part of KPS's model: an instance with
departures is declined (InputError). KPS's model also assumes strictly positive demands (d_ir > 0
for every agent and resource); with them the step LP has the single optimum x_i = max(M, x_i^{k-1})
implemented here. With a zero demand the LP has many optima and one water level is only one of them
(it can violate DPO: capacities <2, 2>, demands <0,1>, <0,1>, <1,0>), so an instance with a zero
demand is declined too (InputError naming the user), and the spec states d_ir > 0 as constraints:
spec and allocator have the same domain. The allocation's ``steps`` are the allocation after each
arrival; ``extra["fairness_ratio"]`` the lecture's fairness ratio (`fairlab.mechanisms._dynamic`).

The spec (`spec`) characterises the whole run step by step for z3 (users in the symbolic
instance's ``arrivals`` order, identity if it has none): x^k as above, loads within k/n, and M^k
maximal: some resource is at k/n and some agent at or below the level (so rising with it) uses it.

Example (hand computation, tests/dynamic_agents): capacities <1, 1>, demands A <1, 1/2>,
B <1/2, 1>, arrivals A, B (n = 2). Step 1: A alone, at most 1/2 of each resource: M^1 = 1/2 (its
first resource), x_A = 1/2. Step 2: at most all of each: for M > 1/2 both resources carry
M + M/2 <= 1, so M^2 = 2/3: A 2/3, B 2/3 (both resources full).
"""

from __future__ import annotations

from fractions import Fraction

import z3

from fairlab.core.domain import Domain
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.mechanisms import _dynamic
from fairlab.mechanisms.base import Allocation, Constraint, Mechanism, Step, SymbolicInstance, register, z3_max

NAME = "dynamic-drf"


def level(a: dict[int, tuple[Fraction, ...]], x: dict[int, Fraction], limit: Fraction, m: int) -> Fraction:
    """max M with sum_i a_i[r] * max(M, x_i) <= limit for every r (the agents of `a` present)."""
    best: Fraction | None = None
    for r in range(m):
        users = sorted(a, key=lambda i: x[i])
        base = sum((a[i][r] * x[i] for i in users), Fraction(0))  # load at M = 0 (everyone at x_i)
        slope = Fraction(0)
        level_r: Fraction | None = None
        value = Fraction(0)  # current M (a breakpoint)
        load = base
        for i in users:
            # segment [value, x_i]: agents users[:k] move with M
            if x[i] > value:
                end = load + slope * (x[i] - value)
                if end > limit:
                    level_r = value + (limit - load) / slope
                    break
                load, value = end, x[i]
            slope += a[i][r]
        if level_r is None:
            if slope == 0:
                continue  # nobody present uses r: no bound from it
            level_r = value + (limit - load) / slope
        best = level_r if best is None else min(best, level_r)
    if best is None:  # cannot happen: every agent uses its dominant resource
        raise InputError(f"{NAME}: no resource bounds the level")
    return best


def allocate(instance: Instance) -> Allocation:
    events = _dynamic.dynamic_events(instance, NAME)
    if any(kind == "depart" for kind, _ in events):
        raise InputError(f"{NAME}: departures are not in Kash, Procaccia & Shah's model (agents never leave); "
                         "use drf-rerun for an instance with departures")
    n, m = instance.n, instance.m
    for i in range(n):
        for r in range(m):
            if instance.demands[i][r] == 0:
                raise InputError(f"{NAME}: user {instance.users[i]} has a zero demand for resource "
                                 f"{instance.resources[r]}; Kash, Procaccia & Shah's model assumes strictly positive "
                                 "demands (with a zero demand their step LP has many optima)")
    sigma = [instance.dominant_share_per_task(i) for i in range(n)]
    a: dict[int, tuple[Fraction, ...]] = {}
    x: dict[int, Fraction] = {}
    steps = []
    levels = []
    for k, (_, i) in enumerate(events, start=1):
        a[i] = _dynamic.normalised(instance, i)
        x[i] = Fraction(0)
        lv = level(a, x, Fraction(k, n), m)
        levels.append(lv)
        x = {j: max(lv, xj) for j, xj in x.items()}
        tasks = tuple(x.get(j, Fraction(0)) / sigma[j] for j in range(n))
        steps.append(Step(("arrive", i), tuple(sorted(x)), tasks))
    extra = {"levels": levels, **_dynamic.with_ratio(instance, steps)}
    return Allocation(NAME, instance, steps[-1].tasks, extra=extra, steps=tuple(steps))


def spec(sym: SymbolicInstance, tasks) -> list:
    """The run step by step (see the module docstring); fresh variables named after `tasks`."""
    n, m = sym.n, sym.m
    order = list(getattr(sym, "arrivals", None) or range(n))
    tag = str(tasks[0]) if n else "t"
    sigma = [z3_max([sym.demands[i][r] / sym.capacities[r] for r in range(m)]) for i in range(n)]
    a = [[sym.demands[i][r] / (sym.capacities[r] * sigma[i]) for r in range(m)] for i in range(n)]
    # the allocator's domain: every demand strictly positive (KPS's assumption; `allocate` declines a zero)
    out: list[Constraint] = [Constraint(f"{NAME}.positive[{i}][{r}]", sym.demands[i][r] > 0)
                             for i in range(n) for r in range(m)]
    prev: dict[int, z3.ArithRef] = {}
    for k, newcomer in enumerate(order, start=1):
        lv = z3.Real(f"{tag}.dyn.M{k}")
        before = {**prev, newcomer: z3.RealVal(0)}
        now = {i: z3.Real(f"{tag}.dyn.x{k}_{i}") for i in before}
        limit = z3.RealVal(Fraction(k, n))
        out.append(Constraint(f"{NAME}.level[{k}]>=0", lv >= 0))
        out += [Constraint(f"{NAME}.x[{k}][{i}]", now[i] == z3.If(lv > before[i], lv, before[i])) for i in now]
        loads = [z3.Sum([a[i][r] * now[i] for i in now]) for r in range(m)]
        out += [Constraint(f"{NAME}.within[{k}][{r}]", loads[r] <= limit) for r in range(m)]
        out.append(Constraint(f"{NAME}.maximal[{k}]", z3.Or([
            z3.And(loads[r] == limit, z3.Or([z3.And(a[i][r] > 0, before[i] <= lv) for i in now]))
            for r in range(m)])))
        prev = now
    out += [Constraint(f"{NAME}.tasks[{i}]", tasks[i] * sigma[i] == prev[i]) for i in range(n)]
    return out


MECHANISM = register(
    Mechanism(
        name=NAME,
        summary="Dynamic DRF: at each arrival, water-fill the dominant shares with at most k/n of each resource "
                "in use, never taking back (agents over time)",
        source="Kash, Procaccia & Shah, No agent left behind (AAMAS 2013; JAIR 51, 2014), §5 DYNAMIC DRF",
        allocate=allocate,
        spec=spec,
        scale_invariant=True,
        module=__name__,
        setting="dynamic",
        domain=Domain(demands="positive"),  # its model: every d_ir > 0 (declines a zero demand)
    )
)
