"""Pareto efficiency over placements (DRF paper §3 property 4, on the machines of §6.2).

Violated when some other feasible placement — whole tasks of each user on each machine (any
non-negative numbers for a divisible mechanism), within every machine's capacities and every
user's task cap (rounded down for whole tasks) — gives every user at least as many tasks and some
user strictly more. Decided EXACTLY on the fixed instance by z3: integer (real, for a divisible
mechanism) linear arithmetic over the placement variables y_ik with the instance's exact numbers.
``unsat``: no such placement exists, the property holds; ``sat``: the model's placement is the
witness, re-verified with Fractions (`confirm`); ``unknown`` when the rlimit (the check's
``rlimit`` budget) runs out. Source of the property: Ghodsi et al., NSDI 2011, §3 property 4.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import cast

import z3

from fairlab.core.exact import format_exact, z3_value
from fairlab.mechanisms.base import Constraint
from fairlab.properties._machines import (
    PlacementProperty,
    PlacementWitness,
    fmt_placement,
    number,
    placement_run,
    read_index,
    read_placement,
    totals,
)
from fairlab.properties.base import resolve_instance, resolve_mechanism, solve_reason, verdict, violated
from fairlab.properties.property import register

NAME = "machines-pe"


def improvement_constraints(inst, current, integral):
    """z3: a placement y (n × K) feasible, within caps, dominating `current` totals, one user strictly."""
    make = z3.Int if integral else z3.Real
    y = [[make(f"y{i}_{k}") for k in range(inst.k)] for i in range(inst.n)]
    out = [Constraint(f"nonneg[{i}][{k}]", y[i][k] >= 0) for i in range(inst.n) for k in range(inst.k)]
    for k, machine in enumerate(inst.machines):
        for r in range(inst.m):
            load = z3.Sum([y[i][k] * z3_value(inst.demands[i][r]) for i in range(inst.n)])
            out.append(Constraint(f"capacity[{k}][{r}]", load <= z3_value(machine[r])))
    row = [z3.Sum(y[i]) for i in range(inst.n)]
    for i, cap in enumerate(inst.max_tasks):
        if cap is not None:
            bound = Fraction(math.floor(cap)) if integral else cap
            out.append(Constraint(f"cap[{i}]", row[i] <= z3_value(bound)))
    out += [Constraint(f"dominates[{i}]", row[i] >= z3_value(current[i])) for i in range(inst.n)]
    out.append(Constraint("strictly", z3.Or([row[i] > z3_value(current[i]) for i in range(inst.n)])))
    return y, out


def exact_value(model, var) -> Fraction:
    """A linear-arithmetic model value as a Fraction (integers, or rationals for a divisible mechanism)."""
    value = model.eval(var, model_completion=True)
    if z3.is_int_value(value):
        return Fraction(value.as_long())
    return Fraction(value.numerator_as_long(), value.denominator_as_long())


def dominated_by(inst, placement, improvement, integral) -> int | None:
    """The user who gains if `improvement` is a feasible placement dominating `placement`, else None."""
    for i, row in enumerate(improvement):
        if any(x < 0 or (integral and x.denominator != 1) for x in row):
            return None
        cap = inst.max_tasks[i]
        if cap is not None and sum(row, Fraction(0)) > (math.floor(cap) if integral else cap):
            return None
    for k, machine in enumerate(inst.machines):
        for r in range(inst.m):
            if sum((improvement[i][k] * inst.demands[i][r] for i in range(inst.n)), Fraction(0)) > machine[r]:
                return None
    before, after = totals(placement), totals(improvement)
    if any(a < b for a, b in zip(after, before)):
        return None
    gainers = [i for i in range(inst.n) if after[i] > before[i]]
    return gainers[0] if gainers else None


class MachinesPE(PlacementProperty):
    def _check(self, mech, inst, b):
        placement = placement_run(mech, inst, b.options)
        b.used_evaluations = 1
        current = totals(placement)
        y, constraints = improvement_constraints(inst, current, mech.discrete)
        status, model, reason = solve_reason(constraints, b)
        certificate = {"placement": [[number(x) for x in row] for row in placement]}
        if status == "unsat":
            return verdict(self.name, mech, "holds", b,
                           f"z3 ({'integer' if mech.discrete else 'real'} linear arithmetic, exact): no feasible "
                           f"placement dominates {fmt_placement(placement)}").replace(
                               certificate=certificate, exactness="rational")
        if status == "sat":
            improvement = [[number(exact_value(model, v)) for v in row] for row in y]
            gained = dominated_by(inst, placement, read_placement(improvement, inst), mech.discrete)
            user = 0 if gained is None else gained
            return violated(self.name, mech, inst, PlacementWitness(improvement, user), b).replace(
                certificate=certificate, exactness="rational")
        stopped = {"stopped": "time"} if reason == "time" else {}
        return verdict(self.name, mech, "unknown", b, f"z3 answered unknown ({reason}) on the dominating placement",
                       **stopped)

    def confirm(self, mechanism, instance, witness, options):
        inst = resolve_instance(instance)
        mech = resolve_mechanism(mechanism)
        w = cast(PlacementWitness, self.witness.from_dict(witness))  # this property's witness type
        improvement = read_placement(w.improvement, inst)
        user = read_index(w.user, inst.n, "user")
        placement = placement_run(mech, inst, options)
        if dominated_by(inst, placement, improvement, mech.discrete) is None:
            return None
        before, after = totals(placement), totals(improvement)
        if after[user] <= before[user]:
            return None
        return (f"the placement {fmt_placement(improvement)} (users × machines) is feasible and gives every user at "
                f"least its tasks <{', '.join(format_exact(t) for t in before)}>, user {inst.users[user]} "
                f"{format_exact(after[user])} instead of {format_exact(before[user])}")


PROPERTY = register(MachinesPE(
    name=NAME,
    title="Pareto efficiency (machines)",
    definition=("No other feasible placement (whole tasks per user per machine, within every machine's capacities and "
                "the task caps) gives every user at least as many tasks and some user more. Decided exactly by z3 "
                "integer linear arithmetic on the instance. Source: DRF paper §3 property 4, machines of §6.2."),
    source="Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §3 property 4, §6.2",
    witness=PlacementWitness,
    witness_help=('{"improvement": [[tasks of user i on machine k ...] ...], "user": i}  '
                  '(a dominating placement; i gains)'),
))
