"""sp's per-instance z3 questions built once per instance shape, over parameters (lab's own method).

The per-instance z3 step of a per-user deviation property (sp) builds, at every instance, the
mechanism's spec on the truthful instance and on each user's misreport, namespaces it, checks the
two runs independent and checks the scaling symmetry (`fairlab.core.scaling`): measured at drf
3 x 3, about 100 ms of Python per instance where z3 then answers in about 30 ms. For a built-in
mechanism whose spec reads the instance's numbers only as z3 terms (`Mechanism.parametric_spec`)
all of that is done once per *shape* (size, which users are capped), on an instance whose
capacities, demands, weights and caps are unknowns ``param.*``; each instance's questions are then
the template's with its numbers substituted (``z3.substitute``, in z3's C code).

Why the answers are the same: the spec's constraints on the parametric instance, with the numbers
substituted, are its constraints on the instance (that is what `parametric_spec` says, and what
tests/properties/test_parametric.py checks against the instance-by-instance questions on random
instances with zero demands, thirds, weights and caps). The scaling lemma is checked on the
parametric encoding with the parameters of degree 0, and with capacities and weights declared
positive, which every `Instance` guarantees (checked again here before any substitution): a
denominator made of them is of degree 0 and never zero, so for each instance's numbers the
substituted encoding keeps the symmetry and its three cases answer as it does.

Not used for plug-ins (their spec is foreign code), other settings (machines, agents over time)
nor properties without the per-user split; those build their questions at the instance as before.
Witnesses are read through `fairlab.core.scaling.Pinned` with the numbers substituted, and every
one is re-verified by a fresh exact run, as before.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

import z3

from fairlab.core import scaling
from fairlab.core.exact import z3_value
from fairlab.mechanisms.base import Constraint, SymbolicInstance
from fairlab.mechanisms.registry import is_builtin
from fairlab.properties import _search
from fairlab.properties.base import Budget

#: the name prefix of the parameters (unknowns standing for the instance's numbers)
PREFIX = "param"
#: templates kept per process (least recently used first out)
KEPT = 32


@dataclass(frozen=True)
class Shape:
    """What a template depends on besides the mechanism, its options and the property."""

    n: int
    m: int
    #: per user: "" no task cap, "0" a cap of 0 (kept as the numeral: the scaling check accepts
    #: ``T <= 0``, which it cannot know of an unknown cap), "cap" a positive cap
    caps: tuple[str, ...]


@dataclass
class Template:
    """The questions over the parameters `sym`."""

    sym: SymbolicInstance
    questions: list
    #: the property and mechanism it was built for (their ids are in the cache key)
    owners: tuple = ()


_templates: OrderedDict[tuple, Template] = OrderedDict()
_lock = threading.Lock()


def shape_of(inst) -> Shape | None:
    """The instance's shape, or None for an instance the templates do not cover (several machines,
    agents over time, a capacity or weight that is not positive)."""
    if inst.machines is not None or inst.arrivals is not None or inst.events is not None:
        return None
    if any(c <= 0 for c in inst.capacities) or any(w <= 0 for row in inst.weights for w in row):
        return None
    return Shape(inst.n, inst.m, tuple("" if t is None else "0" if t == 0 else "cap" for t in inst.max_tasks))


def parameters(shape: Shape) -> tuple[SymbolicInstance, list]:
    """An instance of `shape` whose numbers are unknowns (``param.c<r>``, ``param.d<i>_<r>``,
    ``param.w<i>_<r>``, ``param.cap<i>`` for each user with a positive cap; a cap of 0 stays the
    numeral), and those declared positive (the capacities and weights)."""
    cs = [z3.Real(f"{PREFIX}.c{r}") for r in range(shape.m)]
    ds = [[z3.Real(f"{PREFIX}.d{i}_{r}") for r in range(shape.m)] for i in range(shape.n)]
    ws = [[z3.Real(f"{PREFIX}.w{i}_{r}") for r in range(shape.m)] for i in range(shape.n)]
    caps = [None if kind == "" else z3.RealVal(0) if kind == "0" else z3.Real(f"{PREFIX}.cap{i}")
            for i, kind in enumerate(shape.caps)]
    return SymbolicInstance(cs, ds, ws, caps), cs + [w for row in ws for w in row]


def values(sym: SymbolicInstance, inst) -> list[tuple[Any, Any]]:
    """(parameter, the instance's number) pairs for ``z3.substitute``."""
    pairs = list(zip(sym.capacities, map(z3_value, inst.capacities)))
    for i in range(inst.n):
        pairs += zip(sym.demands[i], map(z3_value, inst.demands[i]))
        pairs += zip(sym.weights[i], map(z3_value, inst.weights[i]))
        if sym.max_tasks[i] is not None and not z3.is_rational_value(sym.max_tasks[i]):
            pairs.append((sym.max_tasks[i], z3_value(inst.max_tasks[i])))
    return pairs


def eligible(mech, budget: Budget) -> bool:
    return mech.spec is not None and budget.symbolic and mech.parametric_spec and is_builtin(mech)


def built() -> int:
    """How many templates this process keeps (one per mechanism, options and shape asked)."""
    with _lock:
        return len(_templates)


def forget() -> None:
    """Drop every kept template (the next check of each shape builds it again)."""
    with _lock:
        _templates.clear()


def applies(mech, inst, budget: Budget) -> bool:
    """The questions at `inst` come from a template."""
    return shape_of(inst) is not None and eligible(mech, budget)


def template(key: tuple, build: Callable[[], Template]) -> Template:
    with _lock:
        found = _templates.get(key)
        if found is not None:
            _templates.move_to_end(key)
            return found
    made = build()
    with _lock:
        _templates[key] = made
        while len(_templates) > KEPT:
            _templates.popitem(last=False)
    return made


def symbolic_at(prop, mech, inst, budget: Budget, concrete: Callable[[], list] | None
                ) -> Callable[[], list] | None:
    """The z3 step's questions for `fairlab.properties._search.search`: from the shape's template
    when `eligible` (`questions(sym, spec, positive=...)` of the property, built once), else
    `concrete` (the questions built at the instance)."""
    if not applies(mech, inst, budget):
        return concrete
    shape = shape_of(inst)
    assert shape is not None
    options = budget.options

    def spec(s, t):
        return mech.spec(s, t, **options)

    def build() -> Template:
        sym, positive = parameters(shape)
        # a question z3's simplifier rewrites to false over the parameters is so at every instance
        # (every T = -1 case: tasks >= 0): dropped once here rather than at each instance
        kept = [q for q in prop.questions(sym, spec, positive=positive)
                if not (isinstance(q, _search.Question) and _search.trivially_unsat(q))]
        return Template(sym, kept, (prop, mech))

    # the objects' identities, not only their names; the template keeps both alive, so an id is
    # never reused by another object while its entry lasts
    key = (id(prop), prop.name, id(mech), mech.name, repr(sorted(options.items())), shape)

    def questions() -> list:
        made = template(key, build)
        pairs = values(made.sym, inst)
        numbers = scaling.Substitution(pairs)
        out: list = []
        for question in made.questions:
            if isinstance(question, _search.Question):
                out.append(instantiate(question, pairs, numbers))
            else:  # the whole question, built only if asked, at the instance's numbers
                out.append(_search.Fallback(_later(question, pairs, numbers)))
        return out

    return questions


def _later(fallback: _search.Fallback, pairs: list, numbers: scaling.Substitution
           ) -> Callable[[], _search.Question]:
    return lambda: instantiate(fallback.make(), pairs, numbers)


def instantiate(question: _search.Question, pairs: list, numbers: scaling.Substitution) -> _search.Question:
    """`question` with the instance's numbers (`pairs`, as `numbers`) for the parameters; its
    witness read with them."""
    constraints = [Constraint(c.name, numbers.formula(c.expr)) for c in question.constraints]
    return _search.Question(question.label, constraints, _search.pinned_reader(question.witness, pairs),
                            question.scaled)
