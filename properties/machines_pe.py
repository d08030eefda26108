"""Pareto efficiency over placements (DRF paper §3 property 4, on the machines of §6.2).

Violated when some other feasible placement — whole tasks of each user on each machine (any
non-negative numbers for a divisible mechanism), within every machine's capacities and every
user's task cap (rounded down for whole tasks) — gives every user at least as many tasks and some
user strictly more. Decided EXACTLY on the fixed instance by z3: integer (real, for a divisible
mechanism) linear arithmetic over the placement variables y_ik with the instance's exact numbers.
``unsat``: no such placement exists, the property holds; ``sat``: the model's placement is the
witness, re-verified with Fractions (`confirm`); ``unknown`` when the rlimit (the check's
``rlimit`` budget) runs out. Source of the property: Ghodsi et al., NSDI 2011, §3 property 4.

A lottery is judged ex ante: violated when another lottery over feasible placements gives
every user at least its expected tasks and some user more (`LotteryWitness`). For whole tasks the
lotteries' expected task vectors are the convex hull of the integral placements' task vectors, and
only the Pareto-maximal ones matter (`fairlab.mechanisms._placements.frontier`, enumerated exactly):
one exact LP over their probabilities (`fairlab.core.lp.solve_lp`, certified) decides it. (For a
divisible mechanism the placements already form a convex set: the z3 check above on the expected
tasks.) Each placement of the support is also checked alone; one that is dominated is an ex-post
finding (`ExPostWitness` in ``details["ex_post"]``), apart from the ex-ante verdict.

The valuation model (pooled or containers, `fairlab.properties._machines`) does not change this
property: it compares each user's OWN task counts, and the feasible placements are the same packings
in both models; the result records the model with that note.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import cast

import z3

from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact, to_fraction, z3_value
from fairlab.core.lp import OPTIMAL, solve_lp
from fairlab.mechanisms._placements import frontier
from fairlab.mechanisms.base import Constraint
from fairlab.properties._machines import (
    ExPostWitness,
    LotteryWitness,
    Outcomes,
    PlacementProperty,
    PlacementWitness,
    certificate_of,
    expected_totals,
    fmt_outcomes,
    fmt_placement,
    number,
    outcomes_run,
    read_index,
    read_placement,
    totals,
    with_ex_post,
    with_model,
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


def feasible(inst, placement, integral) -> bool:
    """A placement of non-negative (whole, if `integral`) tasks within every machine's capacities and the caps."""
    for i, row in enumerate(placement):
        if any(x < 0 or (integral and x.denominator != 1) for x in row):
            return False
        cap = inst.max_tasks[i]
        if cap is not None and sum(row, Fraction(0)) > (math.floor(cap) if integral else cap):
            return False
    for k, machine in enumerate(inst.machines):
        for r in range(inst.m):
            if sum((placement[i][k] * inst.demands[i][r] for i in range(inst.n)), Fraction(0)) > machine[r]:
                return False
    return True


def dominated_by(inst, placement, improvement, integral) -> int | None:
    """The user who gains if `improvement` is a feasible placement dominating `placement`, else None."""
    if not feasible(inst, improvement, integral):
        return None
    before, after = totals(placement), totals(improvement)
    if any(a < b for a, b in zip(after, before)):
        return None
    gainers = [i for i in range(inst.n) if after[i] > before[i]]
    return gainers[0] if gainers else None


def improve_lottery(inst, current) -> tuple[list, int] | None:
    """A lottery over integral placements whose expected tasks dominate `current` (one user strictly):
    ([(probability, placement)], user), or None (exact LP over the Pareto-maximal task vectors)."""
    points = list(frontier(inst).items())
    size = len(points)
    a = [[-Fraction(v[i]) for v, _ in points] for i in range(inst.n)]
    b = [-c for c in current]
    result = solve_lp([Fraction(sum(v)) for v, _ in points], A_ub=a, b_ub=b, A_eq=[[Fraction(1)] * size],
                      b_eq=[Fraction(1)], maximize=True)
    if result.status != OPTIMAL or result.value is None or result.x is None:
        raise InputError(f"machines-pe: the exact LP over lotteries ended {result.status}")
    if result.value <= sum(current, Fraction(0)):
        return None
    lottery = [(p, placement) for p, (_, placement) in zip(result.x, points) if p > 0]
    after = [sum((p * v[i] for p, (v, _) in zip(result.x, points)), Fraction(0)) for i in range(inst.n)]
    return lottery, next(i for i in range(inst.n) if after[i] > current[i])


def read_lottery(raw, inst) -> Outcomes:
    if not isinstance(raw, (list, tuple)) or not raw:
        raise InputError("witness lottery: expected [[probability, placement], ...]")
    out = []
    for t, pair in enumerate(raw):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise InputError(f"witness lottery[{t}]: expected [probability, placement]")
        out.append((to_fraction(pair[0], f"witness lottery[{t}] probability"),
                    read_placement(pair[1], inst, f"lottery[{t}]")))
    return tuple(out)


def lottery_dominates(inst, outcomes: Outcomes, improvement: Outcomes, integral: bool, user: int) -> bool:
    """`improvement` is a lottery (positive probabilities summing to 1) of feasible placements whose
    expected tasks are at least `outcomes`' for every user and more for `user`."""
    if any(p <= 0 for p, _ in improvement) or sum((p for p, _ in improvement), Fraction(0)) != 1:
        return False
    if not all(feasible(inst, placement, integral) for _, placement in improvement):
        return False
    before, after = expected_totals(outcomes), expected_totals(improvement)
    return all(a >= b for a, b in zip(after, before)) and after[user] > before[user]


class MachinesPE(PlacementProperty):
    def _dominate(self, mech, inst, current, b):
        """(status, PlacementWitness | None, reason): z3 on one placement's (or divisible expected) totals."""
        y, constraints = improvement_constraints(inst, current, mech.discrete)
        status, model, reason = solve_reason(constraints, b)
        if status != "sat":
            return status, None, reason
        improvement = [[number(exact_value(model, v)) for v in row] for row in y]
        after = totals(read_placement(improvement, inst))
        user = next((i for i in range(inst.n) if after[i] > current[i]), 0)
        return status, PlacementWitness(improvement, user), reason

    def _check(self, mech, inst, b):
        return with_model(self._judge(mech, inst, b), mech, b.options, matters=False)

    def _judge(self, mech, inst, b):
        outcomes = outcomes_run(mech, inst, b.options)
        b.used_evaluations = 1
        certificate = certificate_of(outcomes)
        current = expected_totals(outcomes)
        lottery = len(outcomes) > 1
        if lottery and mech.discrete:
            found = improve_lottery(inst, current)
            witness = None if found is None else LotteryWitness(
                [[number(p), [[number(x) for x in row] for row in pl]] for p, pl in found[0]], found[1])
            status, reason = ("unsat" if found is None else "sat"), ""
            how = "exact LP over the lotteries of integral placements (Pareto-maximal task vectors, certified)"
        else:
            status, witness, reason = self._dominate(mech, inst, current, b)
            how = f"z3 ({'integer' if mech.discrete else 'real'} linear arithmetic, exact)"
        post = self._ex_post(mech, inst, outcomes, b) if lottery else None
        if status == "unsat":
            ante = " (ex ante: its expected tasks)" if lottery else ""
            return with_ex_post(verdict(self.name, mech, "holds", b, f"{how}: nothing feasible dominates "
                                        f"{fmt_outcomes(outcomes)}{ante}").replace(
                certificate=certificate, exactness="rational"), post)
        if status == "sat":
            return with_ex_post(violated(self.name, mech, inst, witness, b).replace(
                certificate=certificate, exactness="rational"), post)
        stopped = {"stopped": "time"} if reason == "time" else {}
        return verdict(self.name, mech, "unknown", b, f"z3 answered unknown ({reason}) on the dominating placement",
                       **stopped)

    def _ex_post(self, mech, inst, outcomes, b):
        for t, (p, placement) in enumerate(outcomes):
            status, witness, _ = self._dominate(mech, inst, totals(placement), b)
            if status == "sat" and witness is not None:
                words = self._words(inst, placement, read_placement(witness.improvement, inst), witness.user)
                return ExPostWitness(t, number(p), [[number(x) for x in row] for row in placement],
                                     witness.to_dict()), words
        return None

    @staticmethod
    def _words(inst, placement, improvement, user):
        before, after = totals(placement), totals(improvement)
        return (f"the placement {fmt_placement(improvement)} (users × machines) is feasible and gives every user at "
                f"least its tasks <{', '.join(format_exact(t) for t in before)}>, user {inst.users[user]} "
                f"{format_exact(after[user])} instead of {format_exact(before[user])}")

    def confirm(self, mechanism, instance, witness, options):
        inst = resolve_instance(instance)
        mech = resolve_mechanism(mechanism)
        outcomes = outcomes_run(mech, inst, options)
        if isinstance(witness, LotteryWitness) or (isinstance(witness, dict) and "lottery" in witness):
            lw = LotteryWitness.from_dict(witness)
            user = read_index(lw.user, inst.n, "user")
            improvement = read_lottery(lw.lottery, inst)
            if not lottery_dominates(inst, outcomes, improvement, mech.discrete, user):
                return None
            before, after = expected_totals(outcomes), expected_totals(improvement)
            return (f"{fmt_outcomes(improvement)} (users × machines) gives every user at least its expected tasks "
                    f"<{', '.join(format_exact(t) for t in before)}> under {fmt_outcomes(outcomes)}, user "
                    f"{inst.users[user]} {format_exact(after[user])} instead of {format_exact(before[user])}")
        w = cast(PlacementWitness, self.witness.from_dict(witness))  # this property's witness type
        better = read_placement(w.improvement, inst)
        user = read_index(w.user, inst.n, "user")
        current = expected_totals(outcomes)
        if not feasible(inst, better, mech.discrete):
            return None
        after = totals(better)
        if any(a < c for a, c in zip(after, current)) or after[user] <= current[user]:
            return None
        return (f"the placement {fmt_placement(better)} (users × machines) is feasible and gives every user at "
                f"least its tasks <{', '.join(format_exact(t) for t in current)}>, user {inst.users[user]} "
                f"{format_exact(after[user])} instead of {format_exact(current[user])}")


PROPERTY = register(MachinesPE(
    name=NAME,
    title="Pareto efficiency (machines)",
    definition=("No other feasible placement (whole tasks per user per machine, within every machine's capacities "
                "and the task caps) gives every user at least as many tasks and some user more; a lottery ex ante "
                "(no lottery of placements gives every user at least its expected tasks and some user more). "
                "Decided exactly by z3 integer linear arithmetic (a lottery: an exact LP). Source: DRF paper §3 "
                "property 4, machines of §6.2."),
    source="Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §3 property 4, §6.2",
    witness=PlacementWitness,
    witness_help=('{"improvement": [[tasks of user i on machine k ...] ...], "user": i}  '
                  '(a dominating placement; i gains)'),
))
