"""Single-resource fairness (DRF paper §3, nice-to-have property 1), weighted.

With a single resource the allocation must be max-min fair: weighted water-filling of the
resource (shares divided by weights), capped by task caps (the notes' example: demands 2, 2.6,
4, 5 on capacity 10 give 2, 2.6, 2.7, 2.7). Instances with more than one resource satisfy it
vacuously. It is bottleneck fairness (`fairlab.properties.bf`) restricted to m = 1.
"""

from __future__ import annotations

import z3

from fairlab.mechanisms.base import Constraint
from fairlab.properties import bf
from fairlab.properties.base import (
    Encoding, fresh_tasks, model_index, read_index, resolve_instance, resolve_mechanism, run, static_check,
)

NAME = "srf"
TITLE = "single-resource fairness"
DEFINITION = (
    "With a single resource, the allocation is max-min fair (weighted: on shares divided by the "
    "users' weights; users stop at their task caps). Source: §3 of the DRF paper "
    "('single resource fairness'); max-min water-filling as in the notes on the DRF paper."
)
WITNESS = '{"user": i}  (0-based index of a user below its max-min fair share)'


def find(instance, tasks, integral=False):
    """`integral` (discrete mechanisms) is ignored: this property compares shares, not whole tasks."""
    if instance.m != 1:
        return None
    i = bf.short_user(instance, tasks, 0)
    return None if i is None else {"user": i}


def check(mechanism, instance, **budget):
    verdict = static_check(NAME, mechanism, instance, budget, find)
    inst = resolve_instance(instance)
    if inst.m != 1 and verdict.verdict == "holds":
        verdict.explanation = f"vacuous: the instance has {inst.m} resources"
    return verdict


def confirm(mechanism, instance, witness, options):
    inst = resolve_instance(instance)
    i = read_index(witness.get("user"), inst.n, "user")
    if inst.m != 1:
        return None
    return bf.explain_short(inst, run(resolve_mechanism(mechanism), inst, options), 0, i)


def encode(sym, spec, prefix: str = "srf") -> Encoding:
    """spec(sym, t) and, if m = 1, t not max-min fair on the resource (unsat for m > 1)."""
    tasks = fresh_tasks(prefix, sym.n)
    if sym.m != 1:
        choices = []
        violated = z3.BoolVal(False)
    else:
        choices = [(i, bf.z3_not_max_min_on(sym, tasks, 0, i)) for i in range(sym.n)]
        violated = z3.Or([g for _, g in choices])
    constraints = list(spec(sym, tasks)) + [Constraint(f"{prefix}.violated", violated)]
    return Encoding(constraints, lambda model: {"user": model_index(model, choices)}, {"tasks": tasks})
