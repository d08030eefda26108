"""Strategyproofness in the dynamic model (Kash, Procaccia & Shah, JAIR 51 (2014) §3, SP): no agent
can misreport its demand vector and be strictly better off at ANY step, whatever the others report.

Utility model: an agent that declares d'_i receives, at each step, t'_i tasks of its declared
demand, i.e. the bundle t'_i d'_i; what it is worth to it is its true Leontief utility, the tasks of
its TRUE demand that bundle runs, min over r with d_ir > 0 of t'_i d'_ir / d_ir. A violation: at
some step s, with the same arrival order and the others' reports unchanged, that true utility is
larger than the tasks the truthful report gets at s.

Checked by an exact, deterministic candidate search (`evaluations` misreports at most: scaled
coordinates, other users' rows, then seeded random rows), each compared at every step; finding
nothing is ``none-found`` with the count, never ``holds`` (the misreports are a continuum).
"""

from __future__ import annotations

import random
from fractions import Fraction

from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact
from fairlab.core.instance import Instance
from fairlab.core.results import Status
from fairlab.properties import _dynamic
from fairlab.properties.base import resolve_instance, resolve_mechanism, verdict, violated
from fairlab.properties.property import MISREPORT, register

FACTORS = (Fraction(0), Fraction(1, 2), Fraction(2, 3), Fraction(3, 2), Fraction(2), Fraction(3))


def derive(inst: Instance, i: int, row) -> Instance:
    data = inst.to_dict()
    data["demands"][i] = [str(v) for v in row]
    return Instance.from_dict(data)


def gain_step(inst, steps, lied_steps, i, row):
    """The first step at which i's true utility of its misreport allocation beats the truth, or None."""
    for s, (step, lied) in enumerate(zip(steps, lied_steps), start=1):
        if i not in step.present:
            continue
        worth = _dynamic.utility(inst, i, _dynamic.bundle(inst, i, lied.tasks[i], row))
        if worth > step.tasks[i]:
            return s
    return None


def candidates(inst: Instance, seed: int):
    """(user, misreported row) pairs: structured first, then seeded random ones (endless)."""
    seen = set()
    for i in range(inst.n):
        row = inst.demands[i]
        tries = []
        for r in range(inst.m):
            for f in FACTORS:
                new = list(row)
                new[r] = row[r] * f if row[r] > 0 else max(row) * f
                tries.append(new)
        tries += [list(inst.demands[j]) for j in range(inst.n) if j != i]
        for new in tries:
            key = (i, tuple(new))
            if any(v > 0 for v in new) and tuple(new) != tuple(row) and key not in seen:
                seen.add(key)
                yield i, tuple(new)
    rng = random.Random(seed)
    while True:
        i = rng.randrange(inst.n)
        scale = max(inst.demands[i])
        drawn = tuple(scale * Fraction(rng.randint(0, 8), 4) for _ in range(inst.m))
        if any(v > 0 for v in drawn) and drawn != tuple(inst.demands[i]):
            yield i, drawn


def _check(self, mech, inst, b):
    steps = _dynamic.run_steps(mech, inst, b.options)
    b.used_evaluations = 1
    declined = 0
    for i, row in candidates(inst, b.seed):
        if b.exhausted():
            break
        if b.time_up():
            return verdict(self.name, mech, "unknown", b, f"stopped by the time limit after "
                           f"{b.used_evaluations - 1} misreports; no verdict", stopped="time")
        b.used_evaluations += 1
        try:
            lied = _dynamic.run_steps(mech, derive(inst, i, row), b.options)
        except InputError:
            declined += 1
            continue
        s = gain_step(inst, steps, lied, i, row)
        if s is not None:
            w = _dynamic.StepMisreportWitness(s, i, [_dynamic.number(v) for v in row])
            return violated(self.name, mech, inst, w, b).replace(exactness="rational")
    tried = b.used_evaluations - 1
    note = f" ({declined} declined by the mechanism)" if declined else ""
    return verdict(self.name, mech, Status.NONE_FOUND.value, b,
                   f"{tried} misreports evaluated exactly at every one of the {len(steps)} steps{note}; none gains",
                   misreports=tried).replace(exactness="rational")


def _confirm(self, mechanism, instance, witness, options):
    inst = resolve_instance(instance)
    w = self.witness.from_dict(witness)
    i, s = w.user, w.step
    if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < inst.n:
        return None
    if isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= len(inst.events or ()):
        return None
    row = _dynamic.read_vector(w.misreport, inst.m, "witness misreport")
    if row is None or any(v < 0 for v in row) or not any(v > 0 for v in row):
        return None
    mech = resolve_mechanism(mechanism)
    steps = _dynamic.run_steps(mech, inst, options)
    lied = _dynamic.run_steps(mech, derive(inst, i, row), options)
    if i not in steps[s - 1].present:
        return None
    worth = _dynamic.utility(inst, i, _dynamic.bundle(inst, i, lied[s - 1].tasks[i], row))
    truth = steps[s - 1].tasks[i]
    if not worth > truth:
        return None
    return (f"at step {s} user {inst.users[i]} declaring <{', '.join(format_exact(v) for v in row)}> gets "
            f"{format_exact(lied[s - 1].tasks[i])} declared tasks, worth {format_exact(worth)} true tasks, "
            f"more than the {format_exact(truth)} of the truth")


class DynamicSP(_dynamic.StepProperty):
    _check = _check
    confirm = _confirm


PROPERTY = register(DynamicSP(
    name="dynamic-sp",
    title="dynamic strategyproofness",
    definition=("No agent can misreport its demand and run more true tasks at any step, whatever the others "
                "report (true utility of the bundle received for the declared demand)."),
    source="Kash, Procaccia & Shah, No agent left behind (JAIR 51, 2014), §3, strategyproofness (SP)",
    witness=_dynamic.StepMisreportWitness,
    witness_help='{"step": s, "user": i, "misreport": [d...]}  (declaring it, i runs more true tasks at step s)',
    compares=MISREPORT,
    setting="dynamic",
))
