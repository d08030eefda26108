"""The steps of an all-size proof. Each step shows one universal statement: "hypotheses ∧ ¬statement"
is impossible at every size.

1. **abstraction** (`abstraction_steps`): each statement of the mechanism's abstraction
   (`fairlab.search.all_sizes.families`) follows from its schema on an arbitrary instance of the
   domain — the soundness of the abstraction for every n and m;
2. **theorem** (`theorem_step`): the property follows from the abstraction of every run it compares
   (or, without an abstraction, from the schema itself).

A step is built by a function of a frame and the violating indices (`Step.parts`), so it renders
both ways: symbolic (`Step.ground`: Skolem constants, the ground query of
`fairlab.search.all_sizes.ground`, which must be UNSAT) and at a concrete size (`Step.unrolled`:
the finite formula, used by the positive controls and the conformance of the abstraction, whose
models are concrete instances). A model of the unrolled query is a model of the ground one (the
aggregates read as the explicit folds satisfy their definitions and lemmas, the witnesses as the
indices they name), so a control found at a concrete size is a control of the symbolic step too.

The abstraction is proved for an instance whose demands are an uninterpreted function, so it holds
for every instance of the domain, the misreported instance of sp included (the liar's declared row
is in the domain, the other rows are unchanged).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Callable

import z3

from fairlab.mechanisms.base import Constraint
from fairlab.search.all_sizes.families import Family
from fairlab.search.all_sizes.ground import Ground, ground
from fairlab.search.all_sizes.logic import RESOURCE, USER, Aggregate, Axiom, Frame
from fairlab.search.all_sizes.negations import WITNESSES, violation
from fairlab.search.all_sizes.schema import Inst, Run, Schema, domain_axioms


@dataclass
class Parts:
    """What a step is made of, in one frame at given violating indices."""

    axioms: list[Axiom]  # hypotheses: the domain and the statements assumed
    goal: list[Axiom]  # the negated statement at the violating indices (no outer indices)
    insts: list[Inst]
    runs: list[Run]
    folds: list[tuple[Aggregate, str]] = field(default_factory=list)
    fold_axioms: list[Axiom] = field(default_factory=list)

    def aggregates(self) -> list[Aggregate]:
        out: list[Aggregate] = []
        every = [*[i.share for i in self.insts], *[a for r in self.runs for a in (*r.aggregates, r.load())],
                 *[a for a, _ in self.folds]]
        for a in every:
            if all(a is not b for b in out):
                out.append(a)
        return out


@dataclass
class Step:
    """One step: its name, the statement it shows, the sorts of its violating indices, which kind
    of constraint its positive control drops ("mechanism" or "abstraction"), and its builder."""

    name: str
    text: str
    sorts: tuple[str, ...]
    hypotheses: str
    parts: Callable[[Frame, list], Parts]
    _ground: Ground | None = None

    def witnesses(self, frame: Frame) -> list:
        return [z3.Int(f"{self.name}.x{k}") for k in range(len(self.sorts))]

    def ground(self) -> Ground:
        """The symbolic ground query (built once)."""
        if self._ground is None:
            frame = Frame()
            ws = self.witnesses(frame)
            p = self.parts(frame, ws)
            inside = Axiom(f"{self.name}.indices", "goal",
                           head=lambda: z3.And([frame.guard(s, w) for s, w in zip(self.sorts, ws)] or [True]))
            runs_users = [u for r in p.runs for u in r.terms.get(USER, [])]
            runs_resources = [x for r in p.runs for x in r.terms.get(RESOURCE, [])]
            self._ground = ground(frame, p.axioms, [inside, *p.goal], p.aggregates(), instances=p.insts,
                                  folds=p.folds, fold_axioms=p.fold_axioms,
                                  users=[w for s, w in zip(self.sorts, ws) if s == USER] + runs_users,
                                  resources=[w for s, w in zip(self.sorts, ws) if s == RESOURCE] + runs_resources)
        return self._ground

    def unrolled(self, n: int, m: int, choice: tuple[int, ...] | None = None, drop: frozenset[str] = frozenset(),
                 goal: bool = True) -> tuple[list[Constraint], Parts]:
        """The step at n users × m resources, the violating indices fixed to `choice` (default the
        first valid one: 0, 1, ...), without the statements named in `drop`; without the negated
        statement if not `goal`."""
        frame = Frame(n, m)
        if choice is None:
            choice = tuple(range(len(self.sorts)))
        p = self.parts(frame, [z3.IntVal(v) for v in choice])
        out = [Constraint(ax.name, ax.unrolled(frame)) for ax in p.axioms if ax.name not in drop]
        if goal:
            out += [Constraint(ax.name, ax.unrolled(frame)) for ax in p.goal]
        return out, p


def _negated(statement: Axiom, xs: list) -> Axiom:
    """¬(exists witnesses: head) at the violating indices `xs`: for every witness, ¬head."""
    head = statement.head
    assert head is not None and statement.body is None, "an abstraction statement has a head only"
    if statement.exists:
        return Axiom(f"not.{statement.name}", "goal", inner=statement.exists,
                     body=lambda *ys: z3.Not(head(*xs, *ys)), text=f"not: {statement.text}")
    return Axiom(f"not.{statement.name}", "goal", head=lambda: z3.Not(head(*xs)), text=f"not: {statement.text}")


def abstraction_steps(family: Family, positive: bool, schema: Schema | None = None) -> list[Step]:
    """Stage 1: one step per abstraction statement (none when the proof uses the schema itself)."""
    if not positive or family.abstraction is None:
        return []
    schema = schema or family.schema
    abstraction = family.abstraction
    probe = abstraction(schema(Inst(Frame()), "mech"))
    assumed = dict(family.assumed)
    out = []
    for k, statement in enumerate(probe):
        if statement.name.rsplit(".", 1)[-1] in assumed:
            continue  # argued by hand: no z3 step (the proof is then `proved-by-lemma`)

        def parts(frame: Frame, xs: list, k=k) -> Parts:
            inst = Inst(frame)
            run = schema(inst, "mech")
            stated = abstraction(run)[k]
            return Parts([*domain_axioms(inst, positive), *run.axioms], [_negated(stated, xs)], [inst], [run])

        short = statement.name.rsplit(".", 1)[-1]
        out.append(Step(f"abstraction.{short}", statement.text, statement.outer, "mechanism", parts))
    return out


def theorem_step(family: Family, prop: str, positive: bool, schema: Schema | None = None) -> Step:
    """Stage 2: the property from the abstraction (or the schema) of every run it compares."""
    schema = schema or family.schema
    uses_abstraction = positive and family.abstraction is not None

    def parts(frame: Frame, xs: list) -> Parts:
        inst = Inst(frame)
        run = schema(inst, "mech")
        neg = violation(prop, inst, run, schema, positive, xs)
        runs = [run, *neg.runs]
        statements = [s for r in runs for s in family.statements(r, positive)]
        return Parts([*domain_axioms(inst, positive), *statements], neg.axioms, [inst, *neg.insts], runs,
                     neg.folds, family.statements(run, positive))

    name = f"theorem.{prop}"
    return Step(name, f"{prop} from the {'abstraction' if uses_abstraction else 'schema'}", (USER,) * WITNESSES[prop],
                "abstraction" if uses_abstraction else "mechanism", parts)


def statements_of(names: list[str], kinds: dict[str, str], kind: str) -> list[str]:
    """The statements (axiom names) whose instances of `kind` are among `names`, in order."""
    out: list[str] = []
    for name in names:
        if kinds.get(name) == kind:
            base = name.split("[", 1)[0]
            if base not in out:
                out.append(base)
    return out


def choices(sorts: tuple[str, ...], n: int, m: int) -> list[tuple[int, ...]]:
    """Every choice of violating indices at n × m (users distinct from each other)."""
    ranges = [range(n) if s == USER else range(m) for s in sorts]
    return [c for c in itertools.product(*ranges)
            if len({v for v, s in zip(c, sorts) if s == USER}) == sum(1 for s in sorts if s == USER)]


__all__ = ["Step", "Parts", "abstraction_steps", "theorem_step", "statements_of", "choices"]
