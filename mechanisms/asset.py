"""Asset fairness (DRF paper §5.1): max-min fairness on aggregate shares sum_r s_ir.

"1% of CPU is worth as much as 1% of memory": progressive filling on each user's total share,
with the same rounds as DRF (users of a saturated resource freeze, the others keep growing).
Scalar weights divide the aggregate share; vector weights are not defined for asset fairness.

Example (§5.1): <9, 18>, A <1, 4>, B <3, 1> -> x = 2.52 = 63/25, y = 2.16 = 54/25 (6x = 7y).

Speed: `fill` makes the rounds of `fairlab.mechanisms._filling.fill` with integer
arithmetic over common denominators (`fairlab.core.exact.ratio_sum`, `scale_fraction`). 1/sigma_i
has a different denominator for nearly every user, so the generic engine's Fraction-by-Fraction
sums (a gcd of ever larger integers per term, every round) were quadratic in the users. The
result is the same exact allocation and the same rounds: `allocate_reference` keeps the generic
path callable and the tests compare the two; `benchmarks/bench_asset.py` times both against DRF.
"""

from __future__ import annotations

import math
from fractions import Fraction

import z3

from fairlab.core.domain import Domain
from fairlab.core.errors import InputError
from fairlab.core.exact import Arithmetic, arithmetic, ratio_sum
from fairlab.core.instance import Instance
from fairlab.mechanisms import _filling
from fairlab.mechanisms.base import Allocation, Mechanism, SymbolicInstance, register


def sigma(instance: Instance):
    """Aggregate share of one task, divided by the user's scalar weight."""
    weights = instance.scalar_weights()
    if weights is None:
        raise InputError("weights: asset fairness takes one scalar weight per user, not weight vectors")
    caps = instance.capacities
    if all(d.denominator == 1 for row in instance.demands for d in row):
        # integer demands: sum_r d_ir / c_r = (sum_r d_ir * (L / c_r)) / L over one common L
        common = math.lcm(*(c.numerator for c in caps))
        per_unit = [common // c.numerator * c.denominator for c in caps]  # L / c_r, an integer
        return [
            Fraction(sum(d.numerator * u for d, u in zip(instance.demands[i], per_unit)) * w.denominator,
                     common * w.numerator)
            for i, w in enumerate(weights)
        ]
    return sigma_generic(instance)


def sigma_generic(instance: Instance):
    """`sigma` by Fraction sums of the demand shares (any demands; the original code, kept as the baseline)."""
    weights = instance.scalar_weights()
    if weights is None:
        raise InputError("weights: asset fairness takes one scalar weight per user, not weight vectors")
    return [
        sum((instance.demand_share(i, r) for r in range(instance.m)), Fraction(0)) / weights[i]
        for i in range(instance.n)
    ]


_GUIDE_BITS = 96  # fixed-point bits of the first round's rate bounds (they only pick the resources to sum exactly)


def fill(instance: Instance, sig) -> tuple[tuple[Fraction, ...], list[dict]]:
    """`_filling.fill` (same rounds, same exact tasks) with sums over common denominators.

    Per user i and resource r, q_ir = d_ir / sigma_i is the load user i puts on r per unit of
    level; the rate of resource r is the active users' sum of q_ir, an exact unreduced integer
    pair (`ratio_sum`); a frozen user's tasks are level / sigma_i (`Arithmetic.scale`) and its load
    level * q_ir, so the frozen users' load is the level times their sum. Resource limits are
    compared by cross-multiplication; only the level is reduced.

    First round: the exact rates of all resources would cost m sums of n terms with big
    denominators, so each rate is first bounded in integer fixed point (floor and ceiling of
    q_ir * 2^96, exact integer arithmetic); only a resource whose limit interval reaches the
    smallest upper bound (the one that saturates, and any exact or near tie) is summed exactly.
    The others are certified to stay below capacity at the level (their lower bound exceeds it).
    Later rounds keep exact rates, reduced by the frozen users' sum each round.

    Integers and rationals are the current back end's (`fairlab.core.exact.arithmetic`: GMP by
    default); tasks and levels come back as `Fraction`s."""
    ar = arithmetic()
    big, rational = ar.integer, ar.rational
    n, m = instance.n, instance.m
    caps = instance.max_tasks
    demands = instance.demands
    capacities = [rational(c) for c in instance.capacities]
    rho = [(big(s.denominator), big(s.numerator)) for s in sig]  # 1 / sigma_i as a coprime pair, both > 0
    q = [[(d.numerator * rho[i][0], d.denominator * rho[i][1]) for d in demands[i]] for i in range(n)]
    cap_level = [None if caps[i] is None else rational(caps[i] * sig[i]) for i in range(n)]
    tasks = [rational(0)] * n
    active = [i for i in range(n) if caps[i] != 0]
    rate: list = [None] * m  # exact unreduced pairs (positive denominators), once known
    used = [rational(0)] * m  # load of frozen users
    rounds: list[dict] = []
    first = True
    while active:
        bound: list = [None] * m  # first round: (lower, upper) bounds of each resource's limit
        if first:
            bound = _first_round_bounds(instance, rho, active, ar)
            uppers = [b[1] for b in bound if b is not None and b[1] is not None]
            uppers += [cap_level[i] for i in active if cap_level[i] is not None]
            top = min(uppers) if uppers else None
            for r in range(m):
                if bound[r] is not None and (top is None or bound[r][1] is None or bound[r][0] <= top):
                    rate[r] = ratio_sum(q[i][r] for i in active)
        room: list = [None] * m  # (capacity left) / rate as an unreduced pair, where it is known and positive
        best = None
        for r in range(m):
            if rate[r] is not None and rate[r][0] > 0:
                left = capacities[r] - used[r]
                room[r] = (left.numerator * rate[r][1], left.denominator * rate[r][0])
                if best is None or room[r][0] * best[1] < best[0] * room[r][1]:
                    best = room[r]
        for i in active:
            c = cap_level[i]
            if c is not None and (best is None or c.numerator * best[1] < best[0] * c.denominator):
                best = (c.numerator, c.denominator)
        assert best is not None  # an active user has a positive rate or a cap
        level = ar.ratio(*best)
        ln, ld = level.numerator, level.denominator
        saturated = [r for r in range(m) if room[r] is not None and room[r][0] * ld == ln * room[r][1]]
        frozen = {i for i in active if cap_level[i] is not None and cap_level[i] == level}
        for r in saturated:
            frozen.update(i for i in active if demands[i][r] > 0)
        order = sorted(frozen)
        cache: dict = {}
        for i in order:
            tasks[i] = ar.scale(level, rho[i][0], rho[i][1], cache)
        rounds.append({"level": ar.fraction(level), "saturated": saturated, "frozen": order})
        active = [i for i in active if i not in frozen]
        if not active:
            break
        for r in range(m):
            gn, gd = ratio_sum(q[i][r] for i in order)
            if gn != 0:
                used[r] += level * ar.ratio(gn, gd)
            if rate[r] is None:  # not summed in the first round: the remaining users' sum
                rate[r] = ratio_sum(q[i][r] for i in active)
            elif gn != 0:
                rest = ar.ratio(rate[r][0] * gd - gn * rate[r][1], rate[r][1] * gd)
                rate[r] = (rest.numerator, rest.denominator)
        first = False
    return tuple(ar.fraction(t) for t in tasks), rounds


def _first_round_bounds(instance: Instance, rho, active, ar: Arithmetic) -> list:
    """Per resource, exact rational bounds (lower, upper) of capacity / rate when no load is frozen
    yet (None where no active user uses it); upper is None when the lower rate bound is 0.

    rate_r = sum_i d_ir * rho_i with rho_i = 1 / sigma_i; rho_i is bracketed by integers
    floor/ceil(rho_i * 2^96) (one division per user), and d_ir * rho_i by the demand times them."""
    lo_hi = []
    for i in active:
        part, rest = divmod(rho[i][0] << _GUIDE_BITS, rho[i][1])
        lo_hi.append((i, part, part + (rest != 0)))
    out: list = []
    for r in range(instance.m):
        low = high = 0
        users = 0
        for i, lo, hi in lo_hi:
            d = instance.demands[i][r]
            if d:
                users += 1
                if d.denominator == 1:
                    low += d.numerator * lo
                    high += d.numerator * hi
                else:
                    low += d.numerator * lo // d.denominator
                    high += -(-d.numerator * hi // d.denominator)
        if not users:
            out.append(None)
            continue
        cap = instance.capacities[r]
        lower = ar.ratio(cap.numerator << _GUIDE_BITS, cap.denominator * high)
        upper = ar.ratio(cap.numerator << _GUIDE_BITS, cap.denominator * low) if low else None
        out.append((lower, upper))
    return out


def allocate(instance: Instance) -> Allocation:
    tasks, rounds = fill(instance, sigma(instance))
    return Allocation("asset", instance, tasks, extra={"rounds": rounds})


def allocate_reference(instance: Instance) -> Allocation:
    """The generic path (`sigma_generic`, `_filling.fill`, Fraction by Fraction; the code
    before the fast path): the baseline the fast path must equal."""
    tasks, rounds = _filling.fill(instance, sigma_generic(instance))
    return Allocation("asset", instance, tasks, extra={"rounds": rounds})


def spec(sym: SymbolicInstance, tasks) -> list:
    """Bottleneck characterisation on aggregate shares (weights: first entry of each row)."""
    sig = [
        z3.Sum([sym.demands[i][r] / sym.capacities[r] for r in range(sym.m)]) / sym.weights[i][0]
        for i in range(sym.n)
    ]
    return _filling.bottleneck_spec(sym, tasks, sig, "asset")


MECHANISM = register(
    Mechanism(
        name="asset",
        summary="Asset fairness: progressive filling on aggregate (summed) shares",
        source="DRF paper §5.1; lecture 'Candidate #1'",
        allocate=allocate,
        spec=spec,
        scale_invariant=True, anonymous=True, parametric_spec=True,
        # one weight per user (the allocator declines weight vectors)
        domain=Domain(weights="scalar"),
        module=__name__,
    )
)
