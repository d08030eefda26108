"""Audit plug-in (finding 2): a 2-user mechanism that treats its users differently.

User 0 gets half of its dominant share — or nothing if user 1 reports d1[0]/c0 > d1[1]/c1; user 1
takes the maximum number of tasks that fits in what is left. The spec is exact (conformance
agrees), but the mechanism is NOT anonymous: user 1 can gain by misreporting (on capacities
[1, 1], demands [[1, 1], [1, 1]] (`asym_same.json`) it runs 1/2 task truthfully, and 3/4 by
declaring [4/3, 1], which leaves user 0 nothing), while user 0 cannot. A proof that only lets
user 0 deviate would wrongly say `proved` for sp. It declares neither `.scale_invariant` nor
`.anonymous`.
"""

from fractions import Fraction

import z3

from fairlab.core.errors import InputError
from fairlab.mechanisms.base import Constraint, z3_max


def asym(instance):
    """User 0: half its dominant share unless user 1 leans on resource 0; user 1: the rest."""
    if instance.n != 2:
        raise InputError("2 users only")
    if any(t is not None for t in instance.max_tasks):
        raise InputError("task caps: not modelled")
    c, d = instance.capacities, instance.demands
    dom0 = max(Fraction(d[0][r]) / c[r] for r in range(instance.m))
    fair = instance.m < 2 or d[1][0] * c[1] <= d[1][1] * c[0]
    t0 = Fraction(1, 2) / dom0 if fair else Fraction(0)
    t1 = min((c[r] - t0 * d[0][r]) / d[1][r] for r in range(instance.m) if d[1][r] > 0)
    return [t0, t1]


def _spec(sym, t):
    c, d = sym.capacities, sym.demands
    dom0 = z3_max([d[0][r] / c[r] for r in range(sym.m)])
    fair = d[1][0] * c[1] <= d[1][1] * c[0] if sym.m >= 2 else z3.BoolVal(True)
    out = [Constraint("asym.t0", t[0] == z3.If(fair, 1 / (2 * dom0), 0)), Constraint("asym.t1>=0", t[1] >= 0)]
    out += [Constraint(f"asym.capacity[{r}]", sym.load(t, r) <= c[r]) for r in range(sym.m)]
    out.append(Constraint("asym.saturates", z3.Or([z3.And(d[1][r] > 0, sym.load(t, r) == c[r])
                                                   for r in range(sym.m)])))
    return out


asym.spec = _spec
