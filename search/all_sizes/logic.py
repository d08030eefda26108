"""The vocabulary of all-size proofs: an instance of UNKNOWN size as z3 terms over integer indices.

A fixed-size proof (`fairlab.search.proof`) writes one z3 unknown per demand d_ir of an n × m
instance. Here n and m are themselves unknown integers, users and resources are integer indices
(user i: 0 <= i < n, resource r: 0 <= r < m), and the numbers are uninterpreted functions of the
indices: ``d(i, r)``, ``c(r)``, ``t(i)``. A statement about "every user" is an `Axiom` (a
universally quantified formula, with its existential witnesses named by Skolem functions), and a
statement about the whole population — a load Σ_k t_k d_kr, a dominant share max_r d_ir / c_r — is
an `Aggregate`: uninterpreted functions of a prefix length j (the sum, max and min of the first j
terms, with an argmax and an argmin) tied to its terms by their recursive definitions, and lemmas
proved from those definitions by induction on j (`Lemma`: base and step, each a z3 query).

Every query is quantifier-free: a universal statement enters a query only as ground instances at
chosen index terms, each guarded by its range (0 <= term < n). An instance is implied by the
statement, so "the instances and the negated property are UNSAT" shows the statement's negation
impossible at every size (the rules used: ground instantiation, Skolemisation, and induction on the
naturals for the lemmas).

The same vocabulary renders at a CONCRETE size (`Frame(n, m)`): quantifiers become finite
conjunctions and disjunctions, aggregates explicit folds — the form the lab's own spec and property
rules have, so the two can be compared by z3 (`fairlab.search.all_sizes.gates`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Callable, Sequence

import z3

from fairlab.mechanisms.base import Constraint

USER, RESOURCE = "user", "resource"
INT, REAL = z3.IntSort(), z3.RealSort()


class Frame:
    """Where the vocabulary is rendered: symbolic (``Frame()``: n, m unknown integers >= 1, every size
    at once) or unrolled at one size (``Frame(n, m)``: n, m numerals)."""

    def __init__(self, n: int | None = None, m: int | None = None):
        self.symbolic = n is None
        if self.symbolic:
            self.n, self.m = z3.Int("n"), z3.Int("m")
            self.size: tuple[int, int] | None = None
        else:
            assert n is not None and m is not None
            self.n, self.m = z3.IntVal(n), z3.IntVal(m)
            self.size = (n, m)
        self._functions: dict[str, z3.FuncDeclRef] = {}

    def fn(self, name: str, *args: str, result: z3.SortRef = REAL) -> z3.FuncDeclRef:
        """The uninterpreted function `name` of index arguments (the same object for the same name)."""
        found = self._functions.get(name)
        if found is None:
            found = z3.Function(name, *([INT] * len(args)), result)
            self._functions[name] = found
        return found

    def bound(self, sort: str) -> z3.ArithRef:
        return self.n if sort == USER else self.m

    def guard(self, sort: str, term) -> z3.BoolRef:
        """The index `term` is a user (0 <= term < n) or a resource (0 <= term < m)."""
        return z3.And(term >= 0, term < self.bound(sort))

    def indices(self, sort: str) -> list[z3.ArithRef]:
        """Every index of a sort (a concrete frame only)."""
        assert self.size is not None, "indices of an unknown size"
        return [z3.IntVal(k) for k in range(self.size[0] if sort == USER else self.size[1])]


def concrete(j) -> int:
    """A numeral index as a Python int (an unrolled frame's fold length)."""
    if isinstance(j, int):
        return j
    value = z3.simplify(j)
    if not z3.is_int_value(value):
        raise ValueError(f"{j} is not a numeral: an unrolled fold needs a concrete length")
    return value.as_long()


# --------------------------------------------------------------------------- aggregates
def _greater(a, b):
    return a > b


def _less(a, b):
    return a < b


@dataclass
class Lemma:
    """A statement about an aggregate for every prefix length j >= `start` (and every value of its
    parameters and `extra` indices), proved by induction on j: `base` and `step` are z3 queries
    expected UNSAT (built by `Aggregate.lemmas`)."""

    name: str
    text: str
    start: int
    statement: Callable[..., z3.BoolRef]  # (j, *params, *extra) -> Bool
    params: tuple[str, ...]
    extra: tuple[str, ...] = ()
    base: list[Constraint] = field(default_factory=list)
    step: list[Constraint] = field(default_factory=list)

    def instance(self, j, params: Sequence, extra: Sequence = ()) -> z3.BoolRef:
        return z3.Implies(j >= self.start, self.statement(j, *params, *extra))


class Aggregate:
    """A fold over the first j indices of one sort (`over`: users or resources) of the term
    ``f(k, *params)``: its sum, its max and min, with the index attaining each.

    Symbolic frame: uninterpreted functions of (j, *params), tied to f by recursive definitions
    (sum: S(0) = 0, S(j+1) = S(j) + f(j); max: M(1) = f(0), M(j+1) = f(j) if f(j) > M(j) else M(j),
    its argmax likewise; min the same with <), and `lemmas` proved from the definitions by induction.
    Unrolled frame: the explicit folds, in the order the lab's `z3_max` writes them."""

    def __init__(self, frame: Frame, name: str, over: str, params: tuple[str, ...],
                 term: Callable[..., z3.ArithRef], text: str = ""):
        self.frame, self.name, self.over, self.params, self.term = frame, name, over, params, term
        self.text = text  # f in words, e.g. "f(k) = t(k) d(k, r), over users k"
        self._cache: dict = {}  # unrolled folds, by (kind, length, parameters)

    # the values -------------------------------------------------------------
    def _uf(self, kind: str, result=REAL):
        return self.frame.fn(f"{self.name}.{kind}", "j", *self.params, result=result)

    def _key(self, kind: str, j, p) -> tuple:
        return (kind, concrete(j), *[x.sexpr() for x in p])

    def sum(self, j, *p):
        if self.frame.symbolic:
            return self._uf("sum")(j, *p)
        key = self._key("sum", j, p)
        if key not in self._cache:
            terms = [self.term(z3.IntVal(k), *p) for k in range(concrete(j))]
            self._cache[key] = z3.Sum(terms) if terms else z3.RealVal(0)
        return self._cache[key]

    def _fold(self, j, p, better):
        key = self._key(better.__name__, j, p)
        if key not in self._cache:
            best, at = self.term(z3.IntVal(0), *p), z3.IntVal(0)
            for k in range(1, concrete(j)):
                value = self.term(z3.IntVal(k), *p)
                best, at = z3.If(better(value, best), value, best), z3.If(better(value, best), z3.IntVal(k), at)
            self._cache[key] = (best, at)
        return self._cache[key]

    def max(self, j, *p):
        return self._uf("max")(j, *p) if self.frame.symbolic else self._fold(j, p, _greater)[0]

    def argmax(self, j, *p):
        return self._uf("argmax", INT)(j, *p) if self.frame.symbolic else self._fold(j, p, _greater)[1]

    def min(self, j, *p):
        return self._uf("min")(j, *p) if self.frame.symbolic else self._fold(j, p, _less)[0]

    def argmin(self, j, *p):
        return self._uf("argmin", INT)(j, *p) if self.frame.symbolic else self._fold(j, p, _less)[1]

    # the definitions (symbolic frame) ---------------------------------------------
    def definitions(self, j, p) -> list[z3.BoolRef]:
        """The recursive definitions at prefix length j (j = 0 gives the sum's first equation too)."""
        f = self.term
        step_max = f(j, *p) > self.max(j, *p)
        step_min = f(j, *p) < self.min(j, *p)
        return [
            self.sum(0, *p) == 0,
            z3.Implies(j >= 0, self.sum(j + 1, *p) == self.sum(j, *p) + f(j, *p)),
            self.max(1, *p) == f(z3.IntVal(0), *p), self.argmax(1, *p) == 0,
            self.min(1, *p) == f(z3.IntVal(0), *p), self.argmin(1, *p) == 0,
            z3.Implies(j >= 1, z3.And(
                self.max(j + 1, *p) == z3.If(step_max, f(j, *p), self.max(j, *p)),
                self.argmax(j + 1, *p) == z3.If(step_max, j, self.argmax(j, *p)),
                self.min(j + 1, *p) == z3.If(step_min, f(j, *p), self.min(j, *p)),
                self.argmin(j + 1, *p) == z3.If(step_min, j, self.argmin(j, *p)))),
        ]

    # the lemmas -------------------------------------------------------------------
    def statements(self) -> dict[str, tuple[str, int, tuple[str, ...], Callable]]:
        """name -> (text, first j, extra index sorts, statement(j, *params, *extra))."""
        f = self.term
        return {
            "max.attained": ("0 <= argmax(j) < j and max(j) = f(argmax(j))", 1, (),
                             lambda j, *p: z3.And(self.argmax(j, *p) >= 0, self.argmax(j, *p) < j,
                                                  self.max(j, *p) == f(self.argmax(j, *p), *p))),
            "max.bound": ("f(k) <= max(j) for every 0 <= k < j", 1, (self.over,),
                          lambda j, *pk: z3.Implies(z3.And(pk[-1] >= 0, pk[-1] < j),
                                                    f(pk[-1], *pk[:-1]) <= self.max(j, *pk[:-1]))),
            "min.attained": ("0 <= argmin(j) < j and min(j) = f(argmin(j))", 1, (),
                             lambda j, *p: z3.And(self.argmin(j, *p) >= 0, self.argmin(j, *p) < j,
                                                  self.min(j, *p) == f(self.argmin(j, *p), *p))),
            "min.bound": ("min(j) <= f(k) for every 0 <= k < j", 1, (self.over,),
                          lambda j, *pk: z3.Implies(z3.And(pk[-1] >= 0, pk[-1] < j),
                                                    self.min(j, *pk[:-1]) <= f(pk[-1], *pk[:-1]))),
            "sum.upper": ("sum(j) <= j * max(j)", 1, (),
                          lambda j, *p: self.sum(j, *p) <= z3.ToReal(j) * self.max(j, *p)),
            "sum.lower": ("sum(j) >= j * min(j)", 1, (),
                          lambda j, *p: self.sum(j, *p) >= z3.ToReal(j) * self.min(j, *p)),
        }

    def lemma(self, kind: str) -> Lemma:
        """The lemma `kind` (see `statements`) with its base and step queries: fresh constants for j,
        the parameters and the extra indices; the step assumes the statement at j for the same
        parameters and extra indices (an instance of the induction hypothesis) and the definitions."""
        text, start, extra, statement = self.statements()[kind]
        j = z3.Int(f"{self.name}.{kind}.j")
        p = [z3.Int(f"{self.name}.{kind}.p{k}") for k in range(len(self.params))]
        e = [z3.Int(f"{self.name}.{kind}.k{k}") for k in range(len(extra))]
        about = f" ({self.text})" if self.text else ""
        lem = Lemma(f"{self.name}.{kind}", f"for every j >= {start}: {text}{about}", start, statement, self.params,
                    extra)
        b = z3.IntVal(start)
        lem.base = [Constraint(f"def[{k}]", x) for k, x in enumerate(self.definitions(z3.IntVal(0), p))]
        lem.base.append(Constraint("not-statement", z3.Not(statement(b, *p, *e))))
        lem.step = [Constraint("j>=start", j >= start), Constraint("hypothesis", statement(j, *p, *e))]
        lem.step += [Constraint(f"def[{k}]", x) for k, x in enumerate(self.definitions(j, p))]
        lem.step.append(Constraint("not-statement", z3.Not(statement(j + 1, *p, *e))))
        return lem


class Difference(Aggregate):
    """The fold of ``a.f(k) - b.f(k)`` over every k except one index `skip` (0 there): how a
    population's load moves between two runs, the deviating user left out. Its extra lemma
    ``split`` ties its sum to the two sums: S(j) = S_a(j) - S_b(j) - [0 <= skip < j](a.f(skip) - b.f(skip))."""

    def __init__(self, frame: Frame, name: str, a: Aggregate, b: Aggregate, skip):
        assert a.over == b.over and a.params == b.params
        self.a, self.b, self.skip = a, b, skip
        super().__init__(frame, name, a.over, a.params,
                         lambda k, *p: z3.If(k == skip, z3.RealVal(0), a.term(k, *p) - b.term(k, *p)),
                         f"f(k) = [{a.text}] - [{b.text}], 0 at the skipped index")

    def statements(self):
        out = super().statements()
        a, b, skip = self.a, self.b, self.skip

        def split(j, *p):
            inside = z3.And(skip >= 0, skip < j)
            return self.sum(j, *p) == a.sum(j, *p) - b.sum(j, *p) - z3.If(inside, a.term(skip, *p) - b.term(skip, *p),
                                                                           z3.RealVal(0))

        out["split"] = (f"sum(j) = sum of {a.name} - sum of {b.name} - (the skipped index's difference if it is < j)",
                        0, (), split)
        return out

    def definitions(self, j, p):
        return super().definitions(j, p) + self.a.definitions(j, p) + self.b.definitions(j, p)


# --------------------------------------------------------------------------- axioms
@dataclass
class Axiom:
    """``for every outer index: exists witnesses: head and (for every inner index: body)``.

    The witnesses are Skolem functions of the outer indices (`witness`). `kind`: "mechanism" (a
    condition of the mechanism's spec: a positive control may drop it), "domain" (the instance
    domain), or "property" (the negated property: no outer indices, its witnesses are the
    violating users)."""

    name: str
    kind: str
    outer: tuple[str, ...] = ()
    exists: tuple[str, ...] = ()
    inner: tuple[str, ...] = ()
    head: Callable[..., z3.BoolRef] | None = None  # (*outer, *witnesses) -> Bool
    body: Callable[..., z3.BoolRef] | None = None  # (*outer, *witnesses, *inner) -> Bool
    text: str = ""

    def witness(self, frame: Frame, outer_terms: Sequence) -> list:
        return [frame.fn(f"{self.name}.w{k}", *self.outer, result=INT)(*outer_terms) if self.outer
                else z3.Int(f"{self.name}.w{k}") for k in range(len(self.exists))]

    def head_instance(self, frame: Frame, outer_terms: Sequence) -> z3.BoolRef:
        """The instance at `outer_terms`: the witnesses are indices of their sorts and the head holds."""
        ws = self.witness(frame, outer_terms)
        parts = [frame.guard(s, w) for s, w in zip(self.exists, ws)]
        if self.head is not None:
            parts.append(self.head(*outer_terms, *ws))
        return z3.Implies(z3.And([frame.guard(s, a) for s, a in zip(self.outer, outer_terms)]), z3.And(parts))

    def body_instance(self, frame: Frame, outer_terms: Sequence, inner_terms: Sequence) -> z3.BoolRef:
        assert self.body is not None
        ws = self.witness(frame, outer_terms)
        guards = [frame.guard(s, a) for s, a in zip(self.outer, outer_terms)]
        guards += [frame.guard(s, a) for s, a in zip(self.inner, inner_terms)]
        return z3.Implies(z3.And(guards), self.body(*outer_terms, *ws, *inner_terms))

    def unrolled(self, frame: Frame, witnesses: Sequence | None = None) -> z3.BoolRef:
        """The axiom at a concrete size: a conjunction over the outer indices of a disjunction over
        the witnesses (or the given `witnesses` for an axiom without outer indices)."""
        outs = []
        for outer in itertools.product(*[frame.indices(s) for s in self.outer]):
            options = []
            choices = [tuple(witnesses)] if witnesses is not None else \
                itertools.product(*[frame.indices(s) for s in self.exists])
            for ws in choices:
                parts = [] if self.head is None else [self.head(*outer, *ws)]
                if self.body is not None:
                    parts += [self.body(*outer, *ws, *inner)
                              for inner in itertools.product(*[frame.indices(s) for s in self.inner])]
                options.append(z3.And(parts))
            outs.append(z3.Or(options))
        return z3.And(outs)


def show(term) -> str:
    """A short readable name of an index term (for constraint names)."""
    return str(term).replace(" ", "")
