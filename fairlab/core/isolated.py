"""z3 queries whose outcome does not depend on what ran before them in the process.

z3's search depends on more than the formula: on the history of its context (the order in which
terms were created, which fixes their internal ids) and on the names of the constants. Measured
on `prove drf si -n 3 -m 3`: seed 2 proves it in 2 million resource units in a fresh process, but
ran for minutes (on 2 million units: the rlimit never fired) in z3's main context after two
earlier attempts; CEEI's spec names its multipliers with a per-process counter, so the same
proof query spent 34 000, 46 000 or 39 000 units depending on how many specs were built before.

`Isolated` poses a query the same way every time: the constraints are copied into a fresh z3
context with their free constants renamed ``k!0, k!1, …`` in order of first appearance. With the
same seed and resource limit (`fairlab.core.solving`) the answer and the resource count are then the
same whatever ran before. Models come back as `IsolatedModel`, which evaluates terms written in
the original constants (in z3's main context), as the lab's witness readers expect.
"""

from __future__ import annotations

import contextlib
from typing import Iterable, Sequence

import z3

from fairlab.core.solving import SolverBudget, new_solver


def free_constants(exprs: Iterable[z3.ExprRef]) -> list[z3.ExprRef]:
    """The uninterpreted constants of `exprs`, in order of first appearance (depth first)."""
    seen: set[int] = set()
    found: dict[int, z3.ExprRef] = {}
    order: list[int] = []
    for root in exprs:
        stack = [root]
        while stack:
            e = stack.pop()
            key = e.get_id()
            if key in seen:
                continue
            seen.add(key)
            if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
                if key not in found:
                    found[key] = e
                    order.append(key)
                continue
            if z3.is_app(e):
                stack.extend(reversed(e.children()))
            elif z3.is_quantifier(e):
                stack.append(e.body())
    return [found[k] for k in order]


class IsolatedModel:
    """A model of an isolated query, read with terms in the original constants."""

    def __init__(self, model: z3.ModelRef, pairs: Sequence[tuple[z3.ExprRef, z3.ExprRef]]):
        self._model = model  # in z3's main context, over the renamed constants
        self._pairs = list(pairs)

    def eval(self, term: z3.ExprRef, model_completion: bool = False) -> z3.ExprRef:
        renamed = z3.substitute(term, *self._pairs) if self._pairs else term
        return self._model.eval(renamed, model_completion=model_completion)

    def evaluate(self, term: z3.ExprRef, model_completion: bool = False) -> z3.ExprRef:
        return self.eval(term, model_completion)


class Isolated:
    """`exprs` (main context) copied into a fresh context, free constants renamed canonically."""

    def __init__(self, exprs: Sequence[z3.ExprRef]):
        self.ctx = z3.Context()
        constants = free_constants(exprs)
        self.pairs = [(c, z3.Const(f"k!{k}", c.sort())) for k, c in enumerate(constants)]
        self.exprs = [self.copy(e) for e in exprs]

    def copy(self, expr: z3.ExprRef) -> z3.ExprRef:
        """A term of the original constants, as a term of this query's context."""
        renamed = z3.substitute(expr, *self.pairs) if self.pairs else expr
        return renamed.translate(self.ctx)

    def model(self, solver: z3.Solver) -> IsolatedModel:
        return IsolatedModel(solver.model().translate(z3.main_ctx()), self.pairs)


@contextlib.contextmanager
def global_params(params: Sequence[tuple[str, object]]):
    """z3 global parameters set for the duration and restored after (z3 reads some modules'
    options, e.g. nlsat's, only from its global parameters, not from a solver's)."""
    old = [(key, z3.get_param(key)) for key, _ in params]
    try:
        for key, value in params:
            z3.set_param(key, value)
        yield
    finally:
        for key, value in old:
            z3.set_param(key, value)


def isolated_solver(budget: SolverBudget, unsat_core: bool = False) -> tuple[z3.Solver, z3.Context]:
    """A solver with `new_solver`'s settings (rlimit, seed, outer time stop) in a fresh z3 context.

    Add constraints with ``expr.translate(ctx)`` and translate models back with
    ``model.translate(z3.main_ctx())``. Why: in the shared main context z3's term ids, and with
    them its search order and the work it spends, depend on every term the process built before,
    so the same question asked twice in one process was seen to hit the rlimit once and be
    decided the next time. A fresh context sees only the question: the same question, the same
    answer within the same rlimit."""
    ctx = z3.Context()
    return new_solver(budget, unsat_core=unsat_core, ctx=ctx), ctx
