"""The allocations a counterexample involves, for the report's figures (DRF paper Figures 3–4 style).

A violation of an allocation property (si, ef, pe, bf, srf, njc) involves one allocation (pe: and
the feasible allocation that dominates it; si: with the equal split 1/n of every resource); a
violation comparing two instances involves both allocations: truthful vs misreport (sp), before
vs after the capacities grow (rm), before vs after a user leaves (pm). Each is recomputed exactly
by the mechanism (`fairlab.properties.base.run`, the one place allocations are obtained) and
given with every user's share of every resource.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence, cast

from fairlab import properties
from fairlab.core.exact import format_exact
from fairlab.core.instance import Instance
from fairlab.core.results import to_dict
from fairlab.mechanisms.base import Mechanism
from fairlab.properties import leontief
from fairlab.properties.base import run
from fairlab.properties.property import (
    ALLOCATION,
    CAPACITY_CHANGE,
    DEPARTURE,
    MISREPORT,
    DeviationProperty,
    ImprovementWitness,
)


def _vector(values: Sequence) -> str:
    return "<" + ", ".join(format_exact(v) for v in values) + ">"


def allocation_view(label: str, instance: Instance, tasks: Sequence, user: int | None,
                    equal_split: bool = False, other: int | None = None) -> dict:
    """One allocation as the report draws it: tasks per user, and each user's share of each
    resource (tasks × demand / capacity), exact; with `equal_split`, the witness user's
    entitlement (1/n of every resource, weight-proportional for weighted users) as shares."""
    shares = [[t * d / c for d, c in zip(row, instance.capacities)] for t, row in zip(tasks, instance.demands)]
    split = None
    if equal_split and user is not None:
        split = [format_exact(e / c) for e, c in zip(leontief.entitlement(instance, user), instance.capacities)]
    return {
        "label": label, "instance": to_dict(instance, versioned=False), "tasks": [format_exact(t) for t in tasks],
        "shares": [[format_exact(s) for s in row] for row in shares], "user": user, "other": other,
        "equal_split": split,
    }


def involved_allocations(mechanism: Mechanism, prop: str, instance: Instance, witness, options: dict) -> list[dict]:
    """The allocations of `prop`'s violation at `instance` with `witness` (already verified)."""
    module = properties.get(prop)
    raw = to_dict(witness, versioned=False) or {}
    tasks = run(mechanism, instance, options)
    user = raw.get("user")
    if instance.machines is not None:
        return _machines_views(mechanism, instance, raw, tasks, options)
    if instance.events is not None:
        return _dynamic_views(mechanism, instance, raw, tasks, options)
    if module.compares == ALLOCATION:
        views = [allocation_view("allocation", instance, tasks, user, equal_split=prop == "si",
                                 other=raw.get("envied"))]
        if "improvement" in raw:
            better = cast(ImprovementWitness, module.witness.from_dict(raw)).improvement
            views.append(allocation_view("a feasible allocation that dominates it", instance,
                                         [Fraction(t) for t in better], user))
        return views
    assert isinstance(module, DeviationProperty)  # the properties that compare two instances
    deviation, i = module.read(module.witness.from_dict(raw), instance)
    derived = module.derive(instance, deviation)
    after = run(mechanism, derived, options)
    position = dict(module.compared(instance.n, deviation)).get(i)
    names = instance.users
    if hasattr(module, "deviation_label"):  # a coalition's misreports (gsp): the property words them
        labels = ("truthful", module.deviation_label(instance, deviation))
    elif module.compares == MISREPORT:
        labels = ("truthful", f"{names[i]} declares {_vector(deviation[1])}")
    elif module.compares == CAPACITY_CHANGE:
        labels = ("before", f"capacities grow to {_vector(derived.capacities)}")
    elif module.compares == DEPARTURE:
        labels = ("before", f"after {names[deviation]} leaves")
    else:  # a comparison kind this module does not know: show the two allocations plainly
        labels = ("before", "after")
    return [allocation_view(labels[0], instance, tasks, i), allocation_view(labels[1], derived, after, position)]


def _machines_views(mechanism: Mechanism, instance: Instance, raw: dict, tasks, options: dict) -> list[dict]:
    """Several machines: the allocation in tasks; machines-pe's dominating placement
    (its row sums), machines-sp's allocation under the misreport."""
    from fairlab.properties.machines_sp import derive  # the machines setting's own derived instance

    user = raw.get("user")
    views = [allocation_view("allocation", instance, tasks, user, equal_split=False,
                             other=raw.get("envied", raw.get("other")))]
    if "improvement" in raw:
        totals = [sum((Fraction(str(x)) for x in row), Fraction(0)) for row in raw["improvement"]]
        views.append(allocation_view("a feasible placement that dominates it (tasks)", instance, totals, user))
    if "lottery" in raw:  # machines-pe of a lottery, ex ante: the dominating lottery's expected tasks
        pairs = [(Fraction(str(p)), pl) for p, pl in raw["lottery"]]
        totals = [sum((p * sum((Fraction(str(x)) for x in pl[i]), Fraction(0)) for p, pl in pairs), Fraction(0))
                  for i in range(instance.n)]
        views.append(allocation_view("a lottery that dominates it ex ante (expected tasks)", instance, totals, user))
    if "misreports" in raw and isinstance(raw.get("coalition"), list):  # machines-gsp: the coalition's run
        from fairlab.properties.machines_gsp import derive as derive_rows

        rows = [list(row) for row in instance.demands]
        for k, i in enumerate(raw["coalition"]):
            rows[i] = [Fraction(str(x)) for x in raw["misreports"][k]]
        derived = derive_rows(instance, rows)
        said = "; ".join(f"{instance.users[i]} declares {_vector(rows[i])}" for i in raw["coalition"])
        views.append(allocation_view(said, derived, run(mechanism, derived, options), raw["coalition"][0]))
    if "misreport" in raw:
        assert user is not None  # a misreport witness names its user
        declared = [Fraction(str(x)) for x in raw["misreport"]]
        derived = derive(instance, user, declared)
        views.append(allocation_view(f"{instance.users[user]} declares {_vector(declared)}", derived,
                                     run(mechanism, derived, options), user))
    return views


def _dynamic_views(mechanism: Mechanism, instance: Instance, raw: dict, tasks, options: dict) -> list[dict]:
    """Agents over time: the last step's allocation in tasks; dynamic-sp's allocation under the
    misreport (its last step; the witness names the step that gains). The step properties have no
    `read`/`derive` of the one-pool comparisons, so they are drawn here."""
    from fairlab.properties.dynamic_sp import derive  # the dynamic setting's own derived instance

    user = raw.get("user")
    views = [allocation_view("allocation (last step)", instance, tasks, user, other=raw.get("envied"))]
    if "misreport" in raw and user is not None:
        declared = [Fraction(str(x)) for x in raw["misreport"]]
        derived = derive(instance, user, declared)
        views.append(allocation_view(f"{instance.users[user]} declares {_vector(declared)} (last step)", derived,
                                     run(mechanism, derived, options), user))
    return views
