"""The numbers a plug-in mechanism is given and what it gives back, read so that a float never decides.

* `ExactNumber` — the instance's numbers as a plug-in sees them: a `Fraction` that stays one through
  the arithmetic of an LP builder and of pulp. pulp keeps the constant of a sum (``pulp.lpSum``) as
  the float ``0.0``; with a plain `Fraction`, ``0.0 - Fraction(1, 3)`` is the float
  ``-0.3333333333333333`` and the model pulp holds is no longer the one the author wrote. An
  `ExactNumber` meeting an integer-valued float (pulp's ``0.0``, ``1.0``) gives the exact number; any
  other float makes the result a float, as a `Fraction` does (and a float in a model or an answer is
  never read as exact). Results of arithmetic with ints, `Fraction` s and `ExactNumber` s are
  `ExactNumber` s, so the numbers a builder derives from the instance stay exact too; a builder may
  wrap a constant of its own, ``ExactNumber(1, 3)``, for the same effect.
* `exact_view` — the instance handed to a plug-in: the same `Instance` with its numbers as
  `ExactNumber` s.
* `read_number` — one number of a plug-in's answer (tasks, a placement, a probability, an LP
  coefficient): ints, `Fraction` s, `Decimal` s and number text are exact; a float is read through
  its shortest decimal text, and reported as a float (the caller then labels the allocation
  approximate: no verdict rests on it). `integer_floats` accepts integer-valued floats below 2^53
  as exact (the floats pulp itself makes of integers: ``lpSum(x) <= 5`` holds the constant ``-5.0``).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import operator
from fractions import Fraction

from fairlab.core.exact import to_fraction
from fairlab.core.instance import Instance

#: integer-valued floats up to this magnitude are exact integers (every integer below 2^53 is a float)
FLOAT_INTEGERS = 2**53


def _exact_operand(other) -> Fraction | int | float | None:
    """`other` as an exact int or Fraction, or the float it is (not integer-valued), or None (not a number we take)."""
    if isinstance(other, (int, Fraction)):
        return int(other) if isinstance(other, bool) else other
    if isinstance(other, float):
        if math.isfinite(other) and other.is_integer() and abs(other) <= FLOAT_INTEGERS:
            return int(other)
        return other
    return None


#: how often an `ExactNumber` met a float that is not an integer or was turned into a float (`float_uses`)
_FLOAT_USES = [0]


def float_uses() -> int:
    """A counter of the times an `ExactNumber` was turned into a float, or met a float that is not an
    integer (arithmetic or comparison): code that compares its value before and after a call knows
    whether the call's answer rests on floats (a plug-in property's rule: `fairlab.properties.plugin_properties`)."""
    return _FLOAT_USES[0]


class ExactNumber(Fraction):
    """A `Fraction` whose arithmetic with ints, Fractions and integer-valued floats stays an `ExactNumber`
    (see the module docstring); with any other float it gives a float, as `Fraction` does (and counts
    it: `float_uses`)."""

    __slots__ = ()

    def _binary(self, other, fn, reflected: bool, exact):
        value = _exact_operand(other)
        if value is None:
            return NotImplemented
        if isinstance(value, float):  # a float that is not an integer: the result is a float, never exact
            _FLOAT_USES[0] += 1
            a = Fraction.__float__(self)
            return fn(value, a) if reflected else fn(a, value)
        # Fraction's own operator on the exact operand (an unbound method: no recursion into this class)
        return _wrap(exact(self, value))

    def __add__(self, o): return self._binary(o, operator.add, False, Fraction.__add__)  # noqa: E704
    def __radd__(self, o): return self._binary(o, operator.add, True, Fraction.__radd__)  # noqa: E704
    def __sub__(self, o): return self._binary(o, operator.sub, False, Fraction.__sub__)  # noqa: E704
    def __rsub__(self, o): return self._binary(o, operator.sub, True, Fraction.__rsub__)  # noqa: E704
    def __mul__(self, o): return self._binary(o, operator.mul, False, Fraction.__mul__)  # noqa: E704
    def __rmul__(self, o): return self._binary(o, operator.mul, True, Fraction.__rmul__)  # noqa: E704
    def __truediv__(self, o): return self._binary(o, operator.truediv, False, Fraction.__truediv__)  # noqa: E704
    def __rtruediv__(self, o): return self._binary(o, operator.truediv, True, Fraction.__rtruediv__)  # noqa: E704

    def _compare(self, other, fn):
        if isinstance(other, float) and not (math.isfinite(other) and other.is_integer()):
            _FLOAT_USES[0] += 1  # decided against a float's binary value, not a number the author wrote
        return fn(Fraction(self), other)

    def __lt__(self, other): return self._compare(other, lambda a, b: a < b)  # noqa: E704
    def __le__(self, other): return self._compare(other, lambda a, b: a <= b)  # noqa: E704
    def __gt__(self, other): return self._compare(other, lambda a, b: a > b)  # noqa: E704
    def __ge__(self, other): return self._compare(other, lambda a, b: a >= b)  # noqa: E704
    def __eq__(self, other): return self._compare(other, lambda a, b: a == b)  # noqa: E704
    __hash__ = Fraction.__hash__

    def __float__(self) -> float:
        _FLOAT_USES[0] += 1
        return Fraction.__float__(self)

    def __pow__(self, other, modulo=None):  # an int power stays exact
        if modulo is None and isinstance(other, int) and not isinstance(other, bool):
            return _wrap(Fraction(self) ** other)
        if modulo is not None:
            return pow(Fraction(self), other, modulo)
        if isinstance(other, float):
            _FLOAT_USES[0] += 1
        return Fraction(self) ** other

    def __neg__(self): return ExactNumber(-self.numerator, self.denominator)  # noqa: E704
    def __pos__(self): return self  # noqa: E704
    def __abs__(self): return ExactNumber(abs(self.numerator), self.denominator)  # noqa: E704

    def __repr__(self) -> str:
        return f"ExactNumber({self.numerator}, {self.denominator})"

    def __reduce__(self):
        return (ExactNumber, (self.numerator, self.denominator))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _wrap(value):
    if isinstance(value, Fraction) and not isinstance(value, ExactNumber):
        return ExactNumber(value.numerator, value.denominator)
    return value


def plain(value):
    """A `Fraction` (not a subclass) for an `ExactNumber`; anything else unchanged."""
    if isinstance(value, ExactNumber):
        return Fraction(value.numerator, value.denominator)
    return value


def exact_view(instance: Instance) -> Instance:
    """`instance` with its numbers as `ExactNumber` s (what a plug-in is given)."""
    wrap = (lambda v: ExactNumber(v.numerator, v.denominator))  # noqa: E731
    return dataclasses.replace(
        instance,
        capacities=tuple(wrap(c) for c in instance.capacities),
        demands=tuple(tuple(wrap(d) for d in row) for row in instance.demands),
        weights=tuple(tuple(wrap(w) for w in row) for row in instance.weights),
        max_tasks=tuple(None if t is None else wrap(t) for t in instance.max_tasks),
        machines=None if instance.machines is None else tuple(tuple(wrap(c) for c in row) for row in instance.machines),
    )


def is_float(value) -> bool:
    """A binary float (Python's, numpy's): a number whose exact value the author did not write."""
    return isinstance(value, float) or (isinstance(value, numbers.Real) and not isinstance(
        value, (numbers.Rational, bool)) and type(value).__module__ == "numpy")


def read_number(value, where: str, floats: list[str] | None = None, integer_floats: bool = False) -> Fraction:
    """`value` (one number of a plug-in's answer) as a `Fraction`: exact for ints, Fractions, Decimals and
    number text. A float is read through its shortest decimal text and ``where = value`` is appended to
    `floats` (the answer is then not exact); with `integer_floats`, an integer-valued float below 2^53 is
    exact (that integer) and not reported."""
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float):
        if integer_floats and math.isfinite(value) and value.is_integer() and abs(value) <= FLOAT_INTEGERS:
            return Fraction(int(value))
        out = to_fraction(value, where)  # finite, or a one-line error
        if floats is not None:
            floats.append(f"{where} = {value!r}")
        return out
    return plain(to_fraction(value, where))


def float_note(floats: list[str], what: str = "answer") -> str:
    """The note of an allocation read from floats: which numbers were floats (the first few)."""
    shown = "; ".join(floats[:3]) + (f"; and {len(floats) - 3} more" if len(floats) > 3 else "")
    return (f"not exact: its {what} holds floats ({shown}); a float is not the exact number it stands for, "
            "so no verdict rests on this allocation")
