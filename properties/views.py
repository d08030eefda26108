"""The two views a property's rule is written against (`fairlab.properties.property`): `ExactView`
(Fractions or algebraic numbers, Python bools) and `Z3View` (z3 terms): the same small arithmetic
interface (``all``, ``any``, ``not_``, ``implies``, ``prefers``, ``entitlement``, ``load``, ...)."""

from __future__ import annotations

import builtins
from fractions import Fraction
from typing import Any, Callable, ClassVar, Iterable, Sequence

import z3

from fairlab.core.exact import Exact, z3_value
from fairlab.core.instance import Instance
from fairlab.mechanisms.base import SymbolicInstance
from fairlab.properties import leontief


# --------------------------------------------------------------------------- the two views
class ExactView:
    """The instance's numbers exactly (Fractions; tasks may be algebraic); booleans are Python bools.

    `integral`: tasks are whole (discrete mechanisms): utilities count whole tasks (floors)."""

    symbolic: ClassVar[bool] = False

    def __init__(self, instance: Instance, integral: bool = False):
        self.instance = instance
        self.integral = integral
        self.n, self.m = instance.n, instance.m
        self.capacities, self.demands = instance.capacities, instance.demands
        self.weights, self.max_tasks = instance.weights, instance.max_tasks

    # logic (arguments may be callables, evaluated lazily left to right)
    @staticmethod
    def all(terms: Iterable) -> bool:
        return builtins.all(t() if callable(t) else t for t in terms)

    @staticmethod
    def any(terms: Iterable) -> bool:
        return builtins.any(t() if callable(t) else t for t in terms)

    @staticmethod
    def not_(term: bool) -> bool:
        return not term

    @staticmethod
    def implies(condition: bool, then: bool | Callable[[], bool]) -> bool:
        return (not condition) or (then() if callable(then) else then)

    # Leontief utilities and the instance's numbers
    def prefers(self, i: int, bundle: Sequence[Exact], tasks_i: Exact, demand_row: Sequence[Fraction] | None = None
                ) -> bool:
        """u_i(bundle) > tasks_i (user i's Leontief utility, whole tasks if `integral`)."""
        return leontief.utility(self.instance, i, bundle, self.integral, demand_row) > tasks_i

    def at_least(self, i: int, bundle: Sequence[Exact], tasks_i: Exact) -> bool:
        """u_i(bundle) >= tasks_i (a weak gain; whole tasks if `integral`)."""
        return leontief.utility(self.instance, i, bundle, self.integral) >= tasks_i

    def below_cap(self, i: int, tasks_i: Exact) -> bool:
        return leontief.below_cap(self.instance, i, tasks_i)

    def within_cap(self, i: int, tasks_i: Exact) -> bool:
        cap = self.max_tasks[i]
        return cap is None or tasks_i <= cap

    def entitlement(self, i: int) -> tuple:
        return leontief.entitlement(self.instance, i)

    def load(self, tasks: Sequence[Exact], r: int) -> Exact:
        return leontief.load(self.instance, tasks, r)

    def common_bottleneck(self, r: int) -> bool:
        return r in leontief.common_bottlenecks(self.instance)

    def short_of_max_min(self, tasks: Sequence, r: int, i: int) -> bool:
        """User i gets fewer tasks than the weighted max-min fair (water-filling) allocation of r."""
        return tasks[i] < leontief.max_min_on(self.instance, r)[i]


class Z3View:
    """The same interface over z3 terms (a `SymbolicInstance`): every answer is a z3 Bool.

    `concrete`: the `Instance` whose numerals `sym` holds, if it has one; derived numbers (the
    entitlements) are then computed exactly once instead of as z3 terms."""

    symbolic: ClassVar[bool] = True

    def __init__(self, sym: SymbolicInstance, integral: bool = False, concrete: Instance | None = None):
        self.instance = sym
        self.concrete = concrete
        self.integral = integral
        self.n, self.m = sym.n, sym.m
        self.capacities, self.demands = sym.capacities, sym.demands
        self.weights, self.max_tasks = sym.weights, sym.max_tasks

    @staticmethod
    def all(terms: Iterable) -> z3.BoolRef:
        return z3.And([t() if callable(t) else t for t in terms])

    @staticmethod
    def any(terms: Iterable) -> z3.BoolRef:
        return z3.Or([t() if callable(t) else t for t in terms])

    @staticmethod
    def not_(term: z3.BoolRef) -> z3.BoolRef:
        return z3.Not(term)

    @staticmethod
    def implies(condition: z3.BoolRef, then: z3.BoolRef | Callable[[], z3.BoolRef]) -> z3.BoolRef:
        return z3.Implies(condition, then() if callable(then) else then)

    def prefers(self, i: int, bundle: Sequence[Any], tasks_i: Any, demand_row: Sequence[Any] | None = None
                ) -> z3.BoolRef:
        return leontief.z3_prefers(self.instance, i, bundle, tasks_i, demand_row, integral=self.integral)

    def at_least(self, i: int, bundle: Sequence[Any], tasks_i: Any) -> z3.BoolRef:
        return leontief.z3_at_least(self.instance, i, bundle, tasks_i)

    def below_cap(self, i: int, tasks_i: Any) -> z3.BoolRef:
        return leontief.z3_below_cap(self.instance, i, tasks_i)

    def within_cap(self, i: int, tasks_i: Any) -> z3.BoolRef:
        cap = self.max_tasks[i]
        return z3.BoolVal(True) if cap is None else tasks_i <= cap

    def entitlement(self, i: int) -> list:
        if self.concrete is not None:
            return [z3_value(x) for x in leontief.entitlement(self.concrete, i)]
        return leontief.z3_entitlement(self.instance, i)

    def load(self, tasks: Sequence[Any], r: int) -> Any:  # a z3 term
        return self.instance.load(tasks, r)

    def common_bottleneck(self, r: int) -> z3.BoolRef:
        return leontief.z3_common_bottleneck(self.instance, r)

    def short_of_max_min(self, tasks: Sequence, r: int, i: int) -> z3.BoolRef:
        """z3: the bottleneck characterisation fails at user i (some user does iff the allocation is
        not the water-filling of r; `leontief.z3_not_max_min_on`)."""
        return leontief.z3_not_max_min_on(self.instance, tasks, r, i)
