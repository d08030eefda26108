"""Instances, runs and mechanism schemas of unknown size (`fairlab.search.all_sizes.logic`'s vocabulary).

* `Inst`: demands d(i, r), capacities c(r) (unknown positive reals: no normalisation), and its
  dominant share per task s(i) = max_r d(i, r) / c(r) — an `Aggregate` over resources, so the
  facts "d(i, r) / c(r) <= s(i)" and "s(i) is attained at dom(i)" are lemmas proved by induction.
  `with_row` is the instance with one user's row replaced (a misreport).
* `Run`: one run of a mechanism on an instance — its tasks t(i) and the `Axiom`s of its spec.
* A **schema** is a function ``(inst, tag) -> Run``: the mechanism's spec written once for every
  size. `drf` is DRF's (the quantified form of `fairlab.mechanisms.drf.spec`, itself
  `fairlab.mechanisms._filling.bottleneck_spec`); the gates compare it with that spec by z3 at small
  sizes (`fairlab.search.all_sizes.gates`). `drf_from` is the large-size mutant every all-size
  proof of DRF is run against (its positive control at large sizes).
* `domain_axioms`: the instance domain (capacities > 0; demands > 0, or >= 0 with a positive entry
  per row).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import z3

from fairlab.search.all_sizes.logic import INT, RESOURCE, USER, Aggregate, Axiom, Frame


class Inst:
    """An instance of the frame's size: demands `d` (a fresh function unless given), capacities c."""

    def __init__(self, frame: Frame, name: str = "", demand: Callable | None = None, parent: Inst | None = None):
        self.frame, self.name = frame, name or "inst"
        self.d = demand or frame.fn("d", USER, RESOURCE)
        self.c: Callable = parent.c if parent is not None else frame.fn("c", RESOURCE)
        self.share = Aggregate(frame, f"{self.name}.share", RESOURCE, (USER,), lambda r, i: self.d(i, r) / self.c(r),
                               f"f(r) = d(i, r) / c(r) over resources r of {self.name}: the dominant share s(i) "
                               "is max(m)")
        self._loads: dict[str, Aggregate] = {}

    @property
    def n(self):
        return self.frame.n

    @property
    def m(self):
        return self.frame.m

    def s(self, i):
        """Dominant share of one task of user i: max_r d(i, r) / c(r)."""
        return self.share.max(self.frame.m, i)

    def dom(self, i):
        """A dominant resource of user i (where `s` is attained)."""
        return self.share.argmax(self.frame.m, i)

    def load(self, tasks: Callable, tag: str) -> Aggregate:
        """The fold over users of t(k) d(k, r) (parameter r): its sum at n is resource r's load."""
        if tag not in self._loads:
            self._loads[tag] = Aggregate(self.frame, f"{tag}.load", USER, (RESOURCE,),
                                         lambda k, r: tasks(k) * self.d(k, r),
                                         f"f(k) = t(k) d(k, r) over users k of run {tag}: the load of r is sum(n)")
        return self._loads[tag]

    def with_row(self, user, row: Callable, name: str) -> Inst:
        """This instance with `user`'s demands replaced by ``row(r)`` (the same capacities)."""
        d = self.d
        return Inst(self.frame, name, lambda i, r: z3.If(i == user, row(r), d(i, r)), parent=self)


@dataclass
class Run:
    """One run of a mechanism on `inst`: its tasks and the axioms of its spec (`Axiom`, kind
    "mechanism"); `terms` are index terms its definition names (e.g. the mutant's last user)."""

    inst: Inst
    tag: str
    tasks: Callable[[z3.ArithRef], z3.ArithRef]
    axioms: list[Axiom]
    aggregates: list[Aggregate] = field(default_factory=list)
    terms: dict[str, list] = field(default_factory=lambda: {USER: [], RESOURCE: []})

    def load(self) -> Aggregate:
        return self.inst.load(self.tasks, self.tag)


Schema = Callable[[Inst, str], Run]


def drf(inst: Inst, tag: str = "drf", tasks: Callable | None = None) -> Run:
    """DRF without weights or caps, for every size: `fairlab.mechanisms.drf.spec`, i.e.
    `bottleneck_spec` with sigma_i = max_r d_ir / c_r —

    * ``drf.nonneg``: t(i) >= 0;  ``drf.capacity``: the load of every resource is at most c(r);
    * ``drf.bottleneck``: every user i has a resource b(i) it uses (d > 0), saturated (load = c),
      on which no other user k of b(i) has a larger dominant share: t(k) s(k) <= t(i) s(i).

    `tasks`: the tasks as terms of others (a mutant's), instead of a fresh function."""
    frame = inst.frame
    t = tasks or frame.fn(f"{tag}.t", USER)
    load = inst.load(t, tag)

    def saturated(i, r):
        return z3.And(inst.d(i, r) > 0, load.sum(frame.n, r) == inst.c(r))

    def not_larger(i, r, k):
        return z3.Implies(z3.And(k != i, inst.d(k, r) > 0), t(k) * inst.s(k) <= t(i) * inst.s(i))

    axioms = [
        Axiom(f"{tag}.nonneg", "mechanism", (USER,), head=lambda i: t(i) >= 0, text="t(i) >= 0"),
        Axiom(f"{tag}.capacity", "mechanism", (RESOURCE,), head=lambda r: load.sum(frame.n, r) <= inst.c(r),
              text="load(r) <= c(r)"),
        Axiom(f"{tag}.bottleneck", "mechanism", (USER,), (RESOURCE,), (USER,), head=saturated, body=not_larger,
              text="d(i, b) > 0, load(b) = c(b), and t(k) s(k) <= t(i) s(i) for every other user k with d(k, b) > 0"),
    ]
    return Run(inst, tag, t, axioms, [load, inst.share])


def drf_from(first: int = 5) -> Callable[[Inst, str], Run]:
    """The large-size mutant of DRF: DRF's allocation, except that from `first` users on the last
    user gets half its tasks unless resource 0 is one of its dominant resources. It agrees with DRF
    below `first` users, and from there violates si, ef, pe (identical users) and sp (the last
    user gains by declaring resource 0 dominant). Written without hidden unknowns: its tasks t are
    DRF's tasks u with u(i) = 2 t(i) where halved, else t(i) (so DRF's axioms hold of u)."""

    def schema(inst: Inst, tag: str = "mutant") -> Run:
        frame = inst.frame
        t = frame.fn(f"{tag}.t", USER)
        zero = z3.IntVal(0)

        def undone(i):
            halved = z3.And(frame.n >= first, i == frame.n - 1, inst.d(i, zero) / inst.c(zero) < inst.s(i))
            return z3.If(halved, 2 * t(i), t(i))

        base = drf(inst, f"{tag}.drf", tasks=undone)
        return Run(inst, tag, t, base.axioms, [*base.aggregates, base.load()],
                   terms={USER: [frame.n - 1], RESOURCE: [zero]})

    schema.__doc__ = f"DRF, except from {first} users on (the large-size mutant)"
    return schema


def domain_axioms(inst: Inst, positive: bool, tag: str = "domain", capacities: bool = True) -> list[Axiom]:
    """The instance domain: c(r) > 0; d(i, r) > 0 (`positive`), else d(i, r) >= 0 with a positive
    entry in every row (its witness a Skolem function)."""
    out = []
    if capacities:
        out.append(Axiom(f"{tag}.capacity>0", "domain", (RESOURCE,), head=lambda r: inst.c(r) > 0, text="c(r) > 0"))
    if positive:
        out.append(Axiom(f"{tag}.demand>0", "domain", (USER, RESOURCE), head=lambda i, r: inst.d(i, r) > 0,
                         text="d(i, r) > 0"))
    else:
        out.append(Axiom(f"{tag}.demand>=0", "domain", (USER, RESOURCE), head=lambda i, r: inst.d(i, r) >= 0,
                         text="d(i, r) >= 0"))
        out.append(Axiom(f"{tag}.row!=0", "domain", (USER,), (RESOURCE,), head=lambda i, r: inst.d(i, r) > 0,
                         text="some d(i, r) > 0"))
    return out


__all__ = ["Inst", "Run", "Schema", "drf", "drf_from", "domain_axioms", "INT"]
