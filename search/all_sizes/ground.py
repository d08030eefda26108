"""Ground queries of all-size proofs: universal statements instantiated at a finite set of index
terms, with a negated goal, posed to z3 (`fairlab.search.all_sizes.logic`'s vocabulary).

Which instances (`ground`): the goal's violating users (its Skolem constants) and the index terms
the runs name; the users attaining the folds the goal names (`folds`: e.g. the user with the largest
bundle of a resource, the user whose bundle moved least between two runs) at the resources the
`fold_axioms` name for the violating users (their saturated resources); then every user's dominant
resource in each instance and the witness resources of every axiom about it. Every axiom is
instantiated at every combination of these terms (users for user indices, resources for resource
indices) and every aggregate lemma at the full prefix (j = n for folds over users, at the fold
resources; j = m for folds over resources, at every user). This instantiation is fixed and
mechanism-independent: the same for DRF and for its mutants; the unsat core says which instances a
proof used.

Soundness does not depend on the choice: each instance is implied by its universal statement (the
axioms hold of every instance of the domain and its allocation; the aggregate lemmas are proved by
induction, `fairlab.search.all_sizes.logic.Lemma`), so UNSAT means no instance of any size violates
the goal.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Sequence

import z3

from fairlab.mechanisms.base import Constraint
from fairlab.search.all_sizes.logic import RESOURCE, USER, Aggregate, Axiom, Frame, show


@dataclass
class Ground:
    """A ground query: named constraints, each with its kind ("mechanism", "abstraction",
    "domain", "goal", "lemma", "size"), the aggregate lemma behind each "lemma" constraint, and
    the index terms used (with short names for reading a core)."""

    constraints: list[Constraint]
    kinds: dict[str, str]
    lemmas: dict[str, tuple[Aggregate, str]]
    users: list
    resources: list
    names: dict[str, str] = field(default_factory=dict)  # short name -> the term it stands for

    def of_kind(self, *kinds: str) -> list[str]:
        return [c.name for c in self.constraints if self.kinds[c.name] in kinds]


def _key(term) -> str:
    return term.sexpr()


def _unique(terms: list) -> list:
    seen, out = set(), []
    for t in terms:
        key = _key(t)
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out


def ground(frame: Frame, axioms: list[Axiom], goal: list[Axiom], aggregates: list[Aggregate], *,
           instances: list, folds: Sequence[tuple[Aggregate, str]] = (), fold_axioms: Sequence[Axiom] = (),
           users: Sequence = (), resources: Sequence = ()) -> Ground:
    """The ground query of `axioms` ∧ `goal` (the goal's axioms have no outer indices; their
    witnesses are the violating users and resources). `instances`: the `Inst`s whose dominant
    resources are named; `users`, `resources`: extra index terms (a run's named indices)."""
    skolems: dict[str, list] = {USER: [], RESOURCE: []}
    for ax in goal:
        assert not ax.outer, "a goal names its violating indices as witnesses"
        for s, w in zip(ax.exists, ax.witness(frame, [])):
            skolems[s].append(w)
    for ax in axioms:  # witnesses of axioms without outer indices (e.g. the misreport's positive entry)
        if not ax.outer:
            for s, w in zip(ax.exists, ax.witness(frame, [])):
                skolems[s].append(w)
    first = _unique(skolems[USER] + list(users))

    def witnesses_of(u, among) -> list:
        return [w for ax in among if ax.outer == (USER,) for s, w in zip(ax.exists, ax.witness(frame, [u]))
                if s == RESOURCE]

    fold_at = _unique([w for u in first for w in witnesses_of(u, fold_axioms)])
    all_users = _unique(first + [getattr(agg, kind)(frame.n, r) for agg, kind in folds for r in fold_at])
    all_resources = list(skolems[RESOURCE]) + list(resources)
    for u in all_users:
        all_resources += [i.dom(u) for i in instances] + witnesses_of(u, [*axioms, *goal])
    all_resources = _unique(all_resources)
    terms = {USER: all_users, RESOURCE: all_resources}

    names: dict[str, str] = {}
    short: dict[str, str] = {}
    for k, u in enumerate(all_users):
        short[_key(u)] = f"u{k}"
        names[f"u{k}"] = show(u)
    for k, r in enumerate(all_resources):
        short[_key(r)] = f"r{k}"
        names[f"r{k}"] = show(r)

    def label(terms_) -> str:
        return ",".join(short.get(_key(a), show(a)) for a in terms_)

    constraints: list[Constraint] = []
    kinds: dict[str, str] = {}
    lemma_of: dict[str, tuple[Aggregate, str]] = {}

    def add(name: str, kind: str, expr: z3.BoolRef):
        if name not in kinds:
            kinds[name] = kind
            constraints.append(Constraint(name, expr))

    add("size.n>=1", "size", frame.n >= 1)
    add("size.m>=1", "size", frame.m >= 1)
    for ax in [*axioms, *goal]:
        for outer in itertools.product(*[terms[s] for s in ax.outer]):
            where = f"[{label(outer)}]" if ax.outer else ""
            if ax.exists or ax.head is not None:
                add(f"{ax.name}{where}", ax.kind, ax.head_instance(frame, outer))
            if ax.body is not None:
                for inner in itertools.product(*[terms[s] for s in ax.inner]):
                    add(f"{ax.name}{where}[{label(inner)}]", ax.kind, ax.body_instance(frame, outer, inner))
    for agg in aggregates:
        j = frame.bound(agg.over)
        places = {USER: all_users, RESOURCE: fold_at if agg.over == USER else all_resources}
        for kind, (_, start, extra, statement) in agg.statements().items():
            for params in itertools.product(*[places[s] for s in agg.params]):
                for more in itertools.product(*[terms[s] for s in extra]):
                    name = f"lemma.{agg.name}.{kind}[{label((*params, *more))}]"
                    add(name, "lemma", z3.Implies(j >= start, statement(j, *params, *more)))
                    lemma_of[name] = (agg, kind)
    return Ground(constraints, kinds, lemma_of, all_users, all_resources, names)


__all__ = ["Ground", "ground"]
