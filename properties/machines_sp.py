"""Strategyproofness on several machines (DRF paper §3 property 2, on the machines of §6.2), in the
mechanism's valuation model.

A user i declares a demand vector d'_i instead of its true d_i; the mechanism places x'_ik tasks of
d'_i on each machine k. What that allocation is worth to i — its REAL tasks — depends on the
valuation model (`fairlab.mechanisms.base.VALUATIONS`; the mechanism's declared one unless ``model``
is asked; the result records which in ``details["model"]``):

* ``containers`` (Friedman, Ghodsi & Psomas, EC 2014; the lab's reading, see below): i receives
  x'_ik containers sized d'_i on machine k, and a container runs ONE real task if the task fits in
  it (d_i <= d'_i on every resource), none otherwise. So an under-report (d'_ir < d_ir for some r,
  even with other entries raised) runs nothing — utility 0, which is the lecture's "under-reporting
  gives zero utility" derived rather than assumed — and an over-report runs sum_k x'_ik real tasks:
  a container larger than needed still runs one task, the slack is wasted. A misreport gains only
  by earning more containers. Whole tasks only (a divisible mechanism has no containers: n/a).
* ``pooled`` (the lab's reading for the DRF paper's machines and DRFH): utility 0 after an
  under-report (the lecture's assumption, taken as the rule); after an over-report i pools what it
  holds on machine k, x'_ik d'_i, and runs ``floor(min over r with d_ir > 0 of x'_ik d'_ir /
  d_ir)`` real tasks there (no floor for a divisible mechanism) — slack from several over-sized
  tasks on one machine can add up to another real task.

Either way summed over machines and capped by its true task cap; violated when that exceeds its
truthful tasks. Source of the property: Ghodsi et al., NSDI 2011, §3 property 2 (strategy-proofness).
Confidence: the containers are in FGP's abstract [read]; "one real task per container, none if it
does not fit" is the lab's reading of them; which misreports FGP's truthfulness result ranges over
could not be recovered (reading notes [L]), so the lab ranges over every declared vector.

The misreports form a continuum; under-reports never gain (utility 0 in both models), so the check
tries over-reports only: structured ones first (one entry raised by a step, the entry raised to
another user's demand or to the max-task, the vector scaled), then seeded random ones, each
evaluated by a fresh exact run, within the check's ``evaluations`` budget: ``violated``
(re-verified) or ``none-found`` with the count — never ``holds``.

A lottery is judged ex ante: the misreport gains when the user's EXPECTED real tasks under
the lottery for the declared demand (each placement valued by the rule above) exceed its expected
tasks when truthful (lab's reading of ex-ante strategyproofness).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import cast

from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact, to_fraction
from fairlab.core.instance import Instance
from fairlab.properties._machines import (
    PlacementProperty,
    UnreadablePlacement,
    capped,
    expected,
    expected_totals,
    fmt_vec,
    misreport_tally,
    model_context,
    model_sentence,
    outcomes_run,
    read_index,
    runs,
    with_model,
)
from fairlab.properties.base import number, resolve_instance, resolve_mechanism, verdict, violated
from fairlab.properties.property import MISREPORT, MisreportWitness, register

NAME = "machines-sp"


def derive(inst: Instance, i: int, declared) -> Instance:
    data = inst.to_dict()
    data["demands"] = [[str(x) for x in declared] if k == i else row for k, row in enumerate(data["demands"])]
    return Instance.from_dict(data)


def true_tasks(inst: Instance, i: int, declared, row_after, integral, model: str = "pooled") -> Fraction:
    """Real tasks user i runs with `row_after[k]` tasks of `declared` on each machine k, in `model`."""
    truth = inst.demands[i]
    if any(d < t for d, t in zip(declared, truth)):
        return Fraction(0)  # under-reported: its real task fits no container / does not run on what it gets
    if model == "containers":  # one real task per container (each is at least the real task's size)
        total = sum((Fraction(x) for x in row_after), Fraction(0))
    else:
        total = sum((runs(inst, i, [x * d for d in declared], integral) for x in row_after), Fraction(0))
    return capped(inst, i, total, integral)


def structured(inst: Instance):
    """Over-reports (user, declared) worth trying first, deduplicated, the truth excluded."""
    seen = set()
    big = [max(inst.demands[i][r] for i in range(inst.n)) for r in range(inst.m)]
    for i in range(inst.n):
        d = inst.demands[i]
        options = []
        for r in range(inst.m):
            for step in (Fraction(1), Fraction(1, 2), Fraction(2), Fraction(3)):
                options.append(tuple(x + step if s == r else x for s, x in enumerate(d)))
            options.append(tuple(max(x, big[r]) if s == r else x for s, x in enumerate(d)))
            for j in range(inst.n):
                options.append(tuple(max(x, inst.demands[j][r]) if s == r else x for s, x in enumerate(d)))
        options.append(tuple(max(a, b) for a, b in zip(d, big)))
        for j in range(inst.n):
            options.append(tuple(max(a, b) for a, b in zip(d, inst.demands[j])))
        for factor in (Fraction(3, 2), Fraction(2), Fraction(3)):
            options.append(tuple(x * factor for x in d))
        for option in options:
            if option != d and (i, option) not in seen:
                seen.add((i, option))
                yield i, option


def randomised(inst: Instance, seed: int):
    rng = random.Random(seed)
    while True:
        i = rng.randrange(inst.n)
        d = inst.demands[i]
        top = max(d)
        option = tuple(x + (top * Fraction(rng.randint(0, 8), 4) if rng.random() < 0.6 else 0) for x in d)
        if option != d:
            yield i, option


class MachinesSP(PlacementProperty):
    def _gain(self, mech, inst, before, i, declared, options):
        model = model_context(mech, inst, options)
        after = outcomes_run(mech, derive(inst, i, declared), options)
        return expected(after, lambda pl: true_tasks(inst, i, declared, pl[i], mech.discrete, model)), before[i]

    def _check(self, mech, inst, b):
        try:
            model_context(mech, inst, b.options)
        except InputError as exc:  # the asked model does not apply to this mechanism (containers of a divisible one)
            return with_model(verdict(self.name, mech, "n/a", b, str(exc)), mech, b.options)
        return with_model(self._search(mech, inst, b), mech, b.options)

    def _search(self, mech, inst, b):
        before = expected_totals(outcomes_run(mech, inst, b.options))
        b.used_evaluations = 1
        tried = evaluated = declined = 0
        unreadable: list[str] = []
        gen_random = randomised(inst, b.seed)
        for source in (structured(inst), gen_random):
            for i, declared in source:
                if b.exhausted():
                    break
                if b.time_up():
                    return verdict(self.name, mech, "unknown", b, f"stopped by the time limit after {tried} "
                                   "misreports; no verdict", stopped="time", misreports=tried)
                b.used_evaluations += 1
                tried += 1
                try:
                    gain, truth = self._gain(mech, inst, before, i, declared, b.options)
                except UnreadablePlacement as exc:  # it ran, but returned nothing a placement check can read
                    unreadable.append(str(exc))
                    continue
                except InputError:
                    declined += 1  # the mechanism declines the derived instance: no allocation to compare
                    continue
                evaluated += 1
                if gain > truth:
                    return violated(self.name, mech, inst, MisreportWitness(i, [number(x) for x in declared]), b,
                                    misreports=tried).replace(exactness="rational")
            if b.exhausted():
                break
        note, counts = misreport_tally(tried, evaluated, declined, unreadable)
        if not evaluated:
            return verdict(self.name, mech, "unknown", b,
                           f"none of the {tried} over-reports tried could be evaluated{note}; no verdict", **counts)
        return verdict(self.name, mech, "none-found", b,
                       f"no gain among {evaluated} over-reports evaluated exactly, of {tried} tried{note} "
                       "(under-reports give utility 0; the misreports are a continuum, so this is not a proof)",
                       **counts)

    def confirm(self, mechanism, instance, witness, options):
        inst = resolve_instance(instance)
        mech = resolve_mechanism(mechanism)
        w = cast(MisreportWitness, self.witness.from_dict(witness))  # this property's witness type
        i = read_index(w.user, inst.n, "user")
        if not isinstance(w.misreport, (list, tuple)) or len(w.misreport) != inst.m:
            raise InputError(f"witness misreport: expected {inst.m} numbers")
        declared = tuple(to_fraction(x, "witness misreport") for x in w.misreport)
        before = expected_totals(outcomes_run(mech, inst, options))
        gain, truth = self._gain(mech, inst, before, i, declared, options)
        if gain <= truth:
            return None
        lottery = len(outcomes_run(mech, inst, options)) > 1 or len(outcomes_run(mech, derive(inst, i, declared),
                                                                                 options)) > 1
        ante = " (expected tasks, ex ante)" if lottery else ""
        return (f"user {inst.users[i]} runs {format_exact(truth)} tasks when truthful but {format_exact(gain)} of its "
                f"real tasks by declaring {fmt_vec(declared)}{ante}; {model_sentence(mech, options)}")


PROPERTY = register(MachinesSP(
    name=NAME,
    title="strategyproofness (machines)",
    definition=("No user runs more of its real tasks by declaring another demand vector, valued in the mechanism's "
                "model. Under-reporting any resource gives utility 0 (the lecture; in the containers model the real "
                "task fits no container). Over-reporting: containers (Friedman, Ghodsi & Psomas), one real task per "
                "container it receives; pooled, on each machine floor(min_r allocated_r / d_r) real tasks; summed and "
                "capped; a lottery ex ante (expected real tasks). Option model=pooled|containers asks the other "
                "model. Source: DRF paper §3 property 2, machines of §6.2."),
    source="Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §3 property 2, §6.2; lecture (under-reporting); "
           "containers: Friedman, Ghodsi & Psomas (EC 2014)",
    witness=MisreportWitness,
    compares=MISREPORT,
    model_matters=True,
    witness_help='{"user": i, "misreport": [demand vector]}  (0-based user; the declared demand it gains with)',
))
