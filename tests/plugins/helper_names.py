"""CEEI with its KKT spec written twice (issue 29, "specs without traps"): `fixed` names its helper
unknowns (the prices nu_r, the cap prices mu_i) with fixed names, as a first-time spec author
would; `fresh` names them after the call's tasks, as the lab's own specs do. The lab namespaces
every call itself, so both must give the same verdicts."""

import z3

from fairlab import mechanisms
from fairlab.mechanisms.ceei import kkt_constraints


def _allocate(instance):
    return mechanisms.allocate("ceei", instance, method="exact").tasks


def _spec(tag):
    def spec(sym, tasks):
        prefix = tag(tasks)
        prices = [z3.Real(f"{prefix}nu{r}") for r in range(sym.m)]
        cap_prices = [None if cap is None else z3.Real(f"{prefix}mu{i}") for i, cap in enumerate(sym.max_tasks)]
        return kkt_constraints(sym, tasks, [row[0] for row in sym.weights], prices, cap_prices, "ceei")

    return spec


def fixed(instance):
    """CEEI, spec helpers with fixed names (nu0, nu1, ...)."""
    return _allocate(instance)


def fresh(instance):
    """CEEI, spec helpers named after the call's tasks."""
    return _allocate(instance)


fixed.spec = _spec(lambda tasks: "")
fresh.spec = _spec(lambda tasks: f"{tasks[0]}.")
for _fn in (fixed, fresh):
    _fn.scale_invariant = True
    _fn.anonymous = True
