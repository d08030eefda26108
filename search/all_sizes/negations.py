"""The negated properties of all-size proofs, in the vocabulary of `fairlab.search.all_sizes.logic`.

Each is the lab's rule (`fairlab.properties.si`, `ef`, `pe`, `sp`, on unit weights and no caps)
written for an instance of unknown size, at given violating users (`witnesses`: Skolem constants in
a proof, numerals at a concrete size). The gates compare each with the lab's own rule at every
choice of users, by z3, at small sizes (`fairlab.search.all_sizes.gates`). A property also names
the folds over users through which the rest of the population enters its proof — the abstraction
(`Violation.folds`): for si the load of the violating user's resources (the others' bundles are
each at most the largest one), for sp how the other users' loads move between the truthful and
the misreported run (`fairlab.search.all_sizes.logic.Difference`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import z3

from fairlab.mechanisms.base import SymbolicInstance
from fairlab.properties import get as get_property
from fairlab.properties.property import Z3View
from fairlab.search.all_sizes.logic import RESOURCE, USER, Aggregate, Axiom, Difference, Frame
from fairlab.search.all_sizes.schema import Inst, Run, Schema

#: the properties with an all-size negation, and how many violating users each names
WITNESSES = {"si": 1, "ef": 2, "pe": 1, "sp": 1}


@dataclass
class Violation:
    """The negated property at `witnesses`: its axioms (kind "property": the rule; kind "domain":
    a deviation's domain), the runs it compares besides the truthful one, and the folds over users
    whose attaining users (argmin/argmax) enter the proof: (aggregate, "argmax" | "argmin")."""

    prop: str
    witnesses: list
    axioms: list[Axiom]
    runs: list[Run] = field(default_factory=list)
    insts: list[Inst] = field(default_factory=list)
    folds: list[tuple[Aggregate, str]] = field(default_factory=list)
    #: the lab's rule at these witnesses (a concrete frame): () -> z3 Bool
    lab: Callable[[], z3.BoolRef] | None = None
    text: str = ""


def lab_instance(inst: Inst) -> SymbolicInstance:
    """The lab's `SymbolicInstance` of a concrete frame's instance (unit weights, no caps), its
    numbers the vocabulary's terms d(i, r), c(r)."""
    frame = inst.frame
    users, resources = frame.indices(USER), frame.indices(RESOURCE)
    return SymbolicInstance(capacities=[inst.c(r) for r in resources],
                            demands=[[inst.d(i, r) for r in resources] for i in users],
                            weights=[[z3.RealVal(1)] * len(resources) for _ in users],
                            max_tasks=[None] * len(users))


def violation(prop: str, inst: Inst, run: Run, schema: Schema, positive: bool, witnesses: list) -> Violation:
    """The negation of `prop` for `run` (the mechanism `schema` on `inst`) at the users `witnesses`."""
    frame = inst.frame
    d, c, t = inst.d, inst.c, run.tasks
    if prop == "si":
        (i,) = witnesses
        rule = Axiom("si.violated", "property", inner=(RESOURCE,),
                     body=lambda r: z3.Implies(d(i, r) > 0, t(i) * d(i, r) < c(r) / z3.ToReal(frame.n)),
                     text="t(i) d(i, r) < c(r) / n on every resource i uses")
        out = Violation(prop, witnesses, [rule], folds=[(run.load(), "argmax")] +
                        [(a, "argmax") for a in run.aggregates if a.over == USER and a is not run.load()])
    elif prop == "ef":
        i, j = witnesses
        rule = Axiom("ef.violated", "property", inner=(RESOURCE,), head=lambda: i != j,
                     body=lambda r: z3.Implies(d(i, r) > 0, t(i) * d(i, r) < t(j) * d(j, r)),
                     text="i != j and t(i) d(i, r) < t(j) d(j, r) on every resource i uses")
        out = Violation(prop, witnesses, [rule])
    elif prop == "pe":
        (i,) = witnesses
        load = run.load()
        rule = Axiom("pe.violated", "property", inner=(RESOURCE,),
                     body=lambda r: z3.Implies(d(i, r) > 0, load.sum(frame.n, r) < c(r)),
                     text="no resource i uses is saturated")
        out = Violation(prop, witnesses, [rule])
    elif prop == "sp":
        (i,) = witnesses
        lie = frame.fn("sp.lie", RESOURCE)
        told = inst.with_row(i, lie, "sp.inst")
        other = schema(told, "sp." + run.tag)
        t2 = other.tasks
        rule = Axiom("sp.violated", "property", inner=(RESOURCE,),
                     body=lambda r: z3.Implies(d(i, r) > 0, t(i) * d(i, r) < t2(i) * lie(r)),
                     text="declaring lie, i gets t'(i) tasks of it: t(i) d(i, r) < t'(i) lie(r) on every resource "
                          "i uses")
        axioms = [rule]
        if positive:
            axioms.append(Axiom("sp.lie>0", "domain", inner=(RESOURCE,), body=lambda r: lie(r) > 0,
                                text="the misreport lies in the domain: lie(r) > 0"))
        else:
            axioms.append(Axiom("sp.lie>=0", "domain", inner=(RESOURCE,), body=lambda r: lie(r) >= 0,
                                text="lie(r) >= 0"))
            axioms.append(Axiom("sp.lie!=0", "domain", exists=(RESOURCE,), head=lambda r: lie(r) > 0,
                                text="some lie(r) > 0"))
        moved = Difference(frame, "sp.moved", other.load(), run.load(), i)
        out = Violation(prop, witnesses, axioms, [other], [told],
                        [(moved, "argmin")])
    else:
        raise KeyError(prop)

    def lab() -> z3.BoolRef:
        """The lab's rule (`fairlab.properties`) at these witnesses, on the concrete frame."""
        sym = lab_instance(inst)
        view = Z3View(sym)
        users = frame.indices(USER)
        tasks = [t(u) for u in users]
        module: Any = get_property(prop)  # an AllocationProperty or (sp) a DeviationProperty: both have .rule
        choice = [z3.simplify(w).as_long() for w in witnesses]
        if prop != "sp":
            if prop == "ef" and choice[0] == choice[1]:
                return z3.BoolVal(False)  # the lab's choices are pairs of distinct users
            return module.rule(view, tasks, *choice)
        liar = choice[0]
        declared = [lie(r) for r in frame.indices(RESOURCE)]
        return module.rule(view, liar, tasks[liar], out.runs[0].tasks(users[liar]), (liar, declared))

    out.lab = lab
    out.text = out.axioms[0].text
    return out


__all__ = ["Violation", "violation", "lab_instance", "WITNESSES", "Frame"]
