"""Does a mechanism's numeric allocator agree with its symbolic specification?

For one instance: (1) the exact numeric allocation satisfies the spec (z3 finds the constraints
sat with the tasks fixed to the numeric values), and (2) for single-valued mechanisms, the spec
admits no other allocation (spec ∧ tasks ≠ numeric is unsat). Used by the tests of every
mechanism and available to researchers for their own plug-ins with a spec.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from fairlab.exact import z3_value
from fairlab.instance import Instance
from mechanisms.base import Mechanism, SymbolicInstance


@dataclass(frozen=True)
class Conformance:
    satisfies: str  # "yes" | "no" | "unknown"
    unique: str  # "yes" | "no" | "unknown" | "not-checked"
    other: tuple | None = None  # a different allocation the spec admits, when unique == "no"

    @property
    def ok(self) -> bool:
        return self.satisfies == "yes" and self.unique in ("yes", "not-checked")


def _answer(result: z3.CheckSatResult, yes_if: z3.CheckSatResult) -> str:
    if result == z3.unknown:
        return "unknown"
    return "yes" if result == yes_if else "no"


def check(mechanism: Mechanism, instance: Instance, timeout_ms: int = 20000, **options) -> Conformance:
    allocation = mechanism(instance, **options)
    if not allocation.is_exact():  # an approximation neither satisfies nor violates the spec: undecided
        return Conformance("unknown", "unknown" if mechanism.single_valued else "not-checked")
    sym = SymbolicInstance.from_instance(instance)
    tasks = [z3.Real(f"t{i}") for i in range(instance.n)]
    constraints = [c.expr for c in mechanism.spec(sym, tasks, **options)]
    fixed = [tasks[i] == z3_value(v) for i, v in enumerate(allocation.tasks)]

    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(*constraints, *fixed)
    satisfies = _answer(solver.check(), z3.sat)
    if not mechanism.single_valued:
        return Conformance(satisfies, "not-checked")

    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(*constraints, z3.Not(z3.And(*fixed)))
    result = solver.check()
    unique = _answer(result, z3.unsat)
    other = None
    if result == z3.sat:
        model = solver.model()
        other = tuple(model.eval(t, model_completion=True) for t in tasks)
    return Conformance(satisfies, unique, other)
