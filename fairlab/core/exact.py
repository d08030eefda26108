"""Exact numbers: rationals as `Fraction`, irrationals as z3 algebraic numbers.

Every verdict of the lab is decided with these types; floats only ever guide a search.

* `to_fraction` reads a user-supplied number (int, decimal text, ``"p/q"``) exactly, so the JSON
  float ``0.1`` is 1/10, and rejects NaN, infinities, booleans and written numbers outside the
  exact range (`in_exact_range`: magnitudes 1e-1000 to 1e+1000, at most 1000 significant digits;
  checked before the integers are built, so ``1e1000000000`` cannot hang) with an `InputError`.
  Text has ASCII digits only (`RATIONAL_PATTERN`, the schema's); the range applies to the value of
  ``"p/q"`` (``"1e-1000/1000000"`` is 1e-1006: refused) and to p and q each.
* `Algebraic` wraps a real algebraic number computed by z3 (e.g. the CEEI optimum of Theorem 5 of
  the DRF paper, a root of 63x^2 - 6250x + 62500). It supports exact arithmetic and comparison
  with `Fraction`s and other `Algebraic`s and collapses to a `Fraction` whenever the value is
  rational.
* `format_exact` writes a value for people and JSON: ``"45/11"``, ``"3"``, or a decimal string with
  20 significant digits for an irrational value.
* `deadline` bounds exact work in time: inside ``with deadline(t):`` arithmetic on `Algebraic`
  numbers that has not finished by `t` (z3 can take minutes to add a few distinct algebraic
  numbers) raises `ExactTimeout` instead of hanging, and `remaining()` tells exact solvers (e.g.
  CEEI's exact optimum) how many seconds they have left. Never an approximate answer: no answer.
* `arithmetic` gives the hot paths (the progressive fills, the LP certificate) their exact numbers:
  GMP's rationals and integers (gmpy2's `mpq`, `mpz`) by default, Python's `Fraction` and `int`
  inside ``with backend("fraction"):`` (the reference the tests and benchmarks compare with).
  Values enter from `Fraction`s and leave as `Fraction`s with Python `int` parts, exactly (numerator
  and denominator; `coprime_fraction` builds a `Fraction` from a coprime pair without a gcd), so
  every output is the same whichever back end computed it.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import numbers
import re
import time
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import cast

import gmpy2
import z3

from fairlab.core.errors import ExactTimeout, InputError

#: a number written as text, as the shipped schema's pattern says it (fairlab/schemas/instance.schema.json,
#: tests/core/test_number_text.py keeps the two equal): ASCII digits and JSON's whitespace only, which
#: ECMA-262 and Python regexes read alike (``\d`` and ``\s`` would let Python accept "٣" or "３/７");
#: a denominator is a positive integer
RATIONAL_PATTERN = (r"^[ \t\n\r]*[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?[ \t\n\r]*"
                    r"(/[ \t\n\r]*0*[1-9][0-9]*[ \t\n\r]*)?$")
_RATIONAL_TEXT = re.compile(RATIONAL_PATTERN)
_JSON_SPACE = " \t\n\r"
MAX_EXPONENT = 1000  # written numbers: 10**-1000 <= |x| < 10**1001 (or 0) ...
MAX_DIGITS = 1000  # ... with at most this many significant digits (exact arithmetic stays fast)
#: the magnitudes of the exact range, for the value of a "p/q" text
SMALLEST, BEYOND = Fraction(1, 10**MAX_EXPONENT), Fraction(10 ** (MAX_EXPONENT + 1))


def in_exact_range(value: Decimal) -> bool:
    """Is a written (finite) number within the exact range? Decided without building its integers."""
    if value.is_zero():
        return True
    significant = "".join(map(str, value.as_tuple().digits)).rstrip("0")
    return -MAX_EXPONENT <= value.adjusted() <= MAX_EXPONENT and len(significant) <= MAX_DIGITS


def range_error(field: str, text: str) -> InputError:
    """The `InputError` for a written number outside the exact range."""
    return InputError(
        f"{field}: {short_text(text)} is outside the exact number range (magnitude 1e-{MAX_EXPONENT} to"
        f" 1e+{MAX_EXPONENT}, at most {MAX_DIGITS} significant digits)"
    )


def short_text(value, limit: int = 60) -> str:
    """repr(value) cut to about `limit` characters (huge numbers written out), for one-line messages."""
    try:
        if isinstance(value, (Fraction, int)) and not isinstance(value, bool):
            small = max(value.numerator.bit_length(), value.denominator.bit_length()) < 130
            text = repr(value) if small else format_exact(value)
        else:
            text = repr(value)
    except ValueError:  # a container holding an integer too long for repr
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def to_fraction(value, field: str) -> Fraction:
    """Read `value` exactly as a rational number, or raise `InputError` naming `field`."""
    if isinstance(value, bool):
        raise InputError(f"{field}: expected a number, got {value!r}")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, numbers.Integral):  # numpy integers too
        return Fraction(int(value))
    if isinstance(value, (float, numbers.Real)) and not isinstance(value, Decimal):
        value = float(value)  # numpy floats: their repr is "np.float64(...)"
        if math.isnan(value) or math.isinf(value):
            raise InputError(f"{field}: expected a finite number, got {value!r}")
        # Through the shortest decimal text, so 0.1 means 1/10 and not the binary double.
        return Fraction(repr(value))
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InputError(f"{field}: expected a finite number, got {value!r}")
        if not in_exact_range(value):
            raise range_error(field, str(value))
        return Fraction(value)
    if isinstance(value, str):
        if not _RATIONAL_TEXT.fullmatch(value):
            raise InputError(f"{field}: expected a number such as 3, 0.75 or 2/3, got {short_text(value)}")
        text = value.strip(_JSON_SPACE)
        num, _, den = text.partition("/")
        try:
            top, bottom = Decimal(num.strip(_JSON_SPACE)), Decimal(den.strip(_JSON_SPACE) or 1)
        except InvalidOperation:  # an exponent too long even for Decimal
            raise range_error(field, text) from None
        if not (in_exact_range(top) and in_exact_range(bottom)):  # each part too (its integer is then small)
            raise range_error(field, text)
        if bottom == 0:
            raise InputError(f"{field}: expected a number such as 3, 0.75 or 2/3, got {short_text(value)}")
        quotient = Fraction(top) / Fraction(bottom)
        if quotient and not SMALLEST <= abs(quotient) < BEYOND:  # the range is about the value p/q
            raise range_error(field, text)
        return quotient
    raise InputError(f"{field}: expected a number, got {short_text(value)}")


def _z3_value(x) -> z3.ArithRef:
    if isinstance(x, Algebraic):
        return x.ref
    if isinstance(x, Fraction):
        return z3.RealVal(f"{x.numerator}/{x.denominator}")
    if isinstance(x, int):
        return z3.RealVal(x)
    raise TypeError(f"not an exact number: {x!r}")


# --------------------------------------------------------------------------- time limits
_MAX_TIMEOUT_MS = 2**31 - 1  # z3 takes a 32-bit number of milliseconds (about 24 days)
_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("fairlab_exact_deadline", default=None)


@contextlib.contextmanager
def deadline(when: float | None):
    """Exact work inside the block must finish by `when` (a `time.monotonic()` value; None: no
    limit). Nested blocks keep the earlier of the two limits."""
    outer = _DEADLINE.get()
    if when is not None and outer is not None:
        when = min(when, outer)
    token = _DEADLINE.set(when if when is not None else outer)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def remaining() -> float | None:
    """Seconds left before the current `deadline` (may be <= 0), or None if there is none."""
    when = _DEADLINE.get()
    return None if when is None else when - time.monotonic()


def _simplify(expr: z3.ExprRef, what: str) -> z3.ExprRef:
    """z3.simplify, bounded by the current `deadline` (`ExactTimeout` when it did not finish).

    z3's simplifier has no resource limit for algebraic-number arithmetic, but it honours a
    wall-clock timeout: it then returns the expression not fully evaluated, which the callers
    detect (a numeral, or true/false, is expected) and never use."""
    left = remaining()
    if left is None:
        return z3.simplify(expr)
    if left <= 0:
        raise ExactTimeout(f"exact arithmetic on algebraic numbers ({what}): the time limit was already spent")
    try:
        return z3.simplify(expr, timeout=max(1, min(int(left * 1000), _MAX_TIMEOUT_MS)))
    except z3.Z3Exception as exc:  # canceled
        raise _unfinished(what) from exc


def decide(condition: z3.BoolRef, what: str = "a condition") -> bool:
    """Is a z3 condition on numerals (rationals, algebraic numbers) true? Decided by simplifying
    it, within the current `deadline` (`ExactTimeout` if that did not finish)."""
    result = _simplify(condition, what)
    if z3.is_true(result):
        return True
    if z3.is_false(result):
        return False
    if remaining() is not None:
        raise _unfinished(what)
    raise ValueError(f"{what} not decided by z3: {result}")


def _unfinished(what: str) -> ExactTimeout:
    return ExactTimeout(f"exact arithmetic on algebraic numbers ({what}) did not finish within the time limit")


def _collapse(ref: z3.ArithRef) -> Exact:
    """Simplify a z3 numeral expression to a `Fraction` if rational, else an `Algebraic`."""
    ref = _simplify(ref, "evaluating a value")
    if z3.is_rational_value(ref):
        return Fraction(ref.numerator_as_long(), ref.denominator_as_long())
    if z3.is_algebraic_value(ref):
        return Algebraic(ref)
    if remaining() is not None:
        raise _unfinished("evaluating a value")
    raise ValueError(f"not a numeral after simplification: {ref}")


class Algebraic:
    """A real algebraic number held exactly by z3 (irrational; rationals are `Fraction`s)."""

    __slots__ = ("ref",)

    def __init__(self, ref: z3.ArithRef):
        self.ref = ref

    @staticmethod
    def of(ref: z3.ArithRef) -> Exact:
        """The exact value of a z3 numeral (rational or algebraic) as a `Fraction` or `Algebraic`."""
        return _collapse(ref)

    def _op(self, other, fn):
        if not isinstance(other, (Algebraic, Fraction, int)):
            return NotImplemented
        return _collapse(fn(_z3_value(self), _z3_value(other)))

    def __add__(self, other):
        return self._op(other, lambda a, b: a + b)

    def __radd__(self, other):
        return self._op(other, lambda a, b: b + a)

    def __sub__(self, other):
        return self._op(other, lambda a, b: a - b)

    def __rsub__(self, other):
        return self._op(other, lambda a, b: b - a)

    def __mul__(self, other):
        return self._op(other, lambda a, b: a * b)

    def __rmul__(self, other):
        return self._op(other, lambda a, b: b * a)

    def __truediv__(self, other):
        return self._op(other, lambda a, b: a / b)

    def __rtruediv__(self, other):
        return self._op(other, lambda a, b: b / a)

    def __neg__(self):
        return _collapse(-self.ref)

    def __abs__(self):
        return -self if self < 0 else self

    def _cmp(self, other, fn) -> bool:
        if not isinstance(other, (Algebraic, Fraction, int)):
            return NotImplemented
        return decide(fn(_z3_value(self), _z3_value(other)), "a comparison")

    def __lt__(self, other):
        return self._cmp(other, lambda a, b: a < b)

    def __le__(self, other):
        return self._cmp(other, lambda a, b: a <= b)

    def __gt__(self, other):
        return self._cmp(other, lambda a, b: a > b)

    def __ge__(self, other):
        return self._cmp(other, lambda a, b: a >= b)

    def __eq__(self, other):
        if not isinstance(other, (Algebraic, Fraction, int)):
            return NotImplemented
        return self._cmp(other, lambda a, b: a == b)

    def __hash__(self):
        return hash(self.decimal(40))

    def __float__(self):
        return float(self.decimal(20))

    def decimal(self, digits: int = 20) -> str:
        """The value as a decimal string with `digits` significant digits (truncated)."""
        return _algebraic_decimal(self.ref, digits)

    def polynomial(self) -> list[int]:
        """Integer coefficients (constant term first) of a polynomial that has this value as a root."""
        return [int(str(c)) for c in self.ref.poly()]

    def __repr__(self):
        return f"Algebraic({self.decimal(20)}…, root of {self.polynomial()})"

    __str__ = decimal


Exact = Fraction | Algebraic


def _algebraic_decimal(ref: z3.ArithRef, digits: int) -> str:
    # z3 gives a rational interval endpoint with `precision` bits after the point;
    # ask for enough bits that `digits` significant digits are right.
    approx = ref.approx(digits + 10)
    value = Fraction(approx.numerator_as_long(), approx.denominator_as_long())
    return _fraction_decimal(value, digits)


def _fraction_decimal(value: Fraction, digits: int) -> str:
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    value = abs(value)
    exponent = math.floor(math.log10(value.numerator) - math.log10(value.denominator))
    # Fix the exponent exactly (the float estimate can be off by one).
    while Fraction(10) ** exponent > value:
        exponent -= 1
    while Fraction(10) ** (exponent + 1) <= value:
        exponent += 1
    scale = digits - 1 - exponent
    scaled = value * Fraction(10) ** scale
    integer = scaled.numerator // scaled.denominator
    text = str(integer)
    if scale <= 0:
        return sign + text + "0" * (-scale)
    if len(text) <= scale:
        text = "0" * (scale - len(text) + 1) + text
    whole, frac = text[:-scale], text[-scale:]
    frac = frac.rstrip("0")
    return sign + whole + ("." + frac if frac else "")


def _int_text(n: int) -> str:
    """str(n), also beyond Python's 4300-digit limit on int -> str conversion."""
    return str(n) if n.bit_length() < 14000 else str(Decimal(n))


def format_exact(value: Exact | int) -> str:
    """``"45/11"``, ``"3"`` for rationals; a 20-significant-digit decimal for irrationals."""
    if isinstance(value, Algebraic):
        return value.decimal(20)
    value = Fraction(value)
    if value.denominator == 1:
        return _int_text(value.numerator)
    return f"{_int_text(value.numerator)}/{_int_text(value.denominator)}"


def format_short(value: Exact, digits: int = 6) -> str:
    """A compact form for tables: exact when short (``45/11``), else a decimal approximation."""
    if isinstance(value, Fraction) and len(format_exact(value)) <= 12:
        return format_exact(value)
    if isinstance(value, Fraction):
        return "≈" + _fraction_decimal(value, digits)
    return "≈" + value.decimal(digits)


def to_float(value: Exact) -> float:
    return float(value)


def z3_value(value: Exact) -> z3.ArithRef:
    """The z3 numeral of an exact value (to substitute into symbolic specifications)."""
    return _z3_value(value)



def fraction_sum(values) -> Fraction:
    """The exact sum of `Fraction`s (and ints), fast when there are many distinct denominators.

    ``sum(values, Fraction(0))`` reduces after every addition, and with n distinct denominators
    the running denominator grows to their lcm: n gcds of ever larger integers, quadratic in n.
    Here the sum is `ratio_sum` of the (numerator, denominator) pairs, reduced once at the end:
    the same exact value."""
    num, den = ratio_sum((v.numerator, v.denominator) for v in values)
    return Fraction(num, den)


def ratio_sum(pairs) -> tuple[int, int]:
    """The sum of the rationals n/d given as integer pairs (n, d), d > 0, as an unreduced pair.

    Numerators of equal denominators are added as integers, then the distinct denominators are
    combined pairwise in a balanced tree (integer products only, no gcd): the cost is about one
    product of all distinct denominators. The pair is exact but not in lowest terms (reduce it
    with ``Fraction(num, den)`` when needed); its denominator is positive."""
    by_den: dict[int, int] = {}
    for n, d in pairs:
        by_den[d] = by_den.get(d, 0) + n
    terms = [(d, n) for d, n in by_den.items() if n]
    if not terms:
        return 0, 1
    while len(terms) > 1:
        merged = []
        for k in range(0, len(terms) - 1, 2):
            (d1, n1), (d2, n2) = terms[k], terms[k + 1]
            merged.append((d1 * d2, n1 * d2 + n2 * d1))
        if len(terms) % 2:
            merged.append(terms[-1])
        terms = merged
    d, n = terms[0]
    return n, d


class _LowestTerms:
    """A numerator and a denominator already in lowest terms (denominator > 0), registered as a
    `numbers.Rational` so that ``Fraction(pair)`` reads them as they are: the constructor's
    one-argument form copies a Rational's numerator and denominator without a gcd (CPython 3.11
    to 3.14), where ``Fraction(num, den)`` recomputes one (quadratic in the digits)."""

    __slots__ = ("numerator", "denominator")

    def __init__(self, numerator: int, denominator: int):
        self.numerator = numerator
        self.denominator = denominator


numbers.Rational.register(_LowestTerms)


def coprime_fraction(num: int, den: int) -> Fraction:
    """``Fraction(num, den)`` for Python integers the caller knows to be coprime, ``den > 0``.

    No gcd is computed (a gcd of two integers of thousands of digits costs milliseconds): the pair
    goes through `Fraction`'s public one-argument form (`_LowestTerms`), no private API of Python.
    A pair that is not in lowest terms would make an unreduced `Fraction`: callers pass only pairs
    they know to be coprime (GMP's `mpq` always is; `scale_fraction`'s product is)."""
    return Fraction(cast(numbers.Rational, _LowestTerms(num, den)))  # registered above (mypy reads no register)


# --------------------------------------------------------------------------- arithmetic back ends
#: the back ends of the hot paths' exact arithmetic: "gmp" (gmpy2's `mpq` and `mpz`, the default) and
#: "fraction" (Python's `Fraction` and `int`, the reference); every result leaves as a `Fraction`
BACKENDS = ("gmp", "fraction")
_BACKEND: contextvars.ContextVar[str] = contextvars.ContextVar("fairlab_exact_backend", default="gmp")


@contextlib.contextmanager
def backend(name: str):
    """Run the block with the named arithmetic back end (`BACKENDS`): the tests and benchmarks
    compare the two on the same inputs. Results are the same `Fraction`s either way."""
    if name not in BACKENDS:
        raise ValueError(f"unknown exact arithmetic back end {name!r}; known: {', '.join(BACKENDS)}")
    token = _BACKEND.set(name)
    try:
        yield
    finally:
        _BACKEND.reset(token)


class Arithmetic:
    """Exact rationals and integers of one back end, for a hot path's inner loops.

    `rational` brings a `Fraction` (or int) in, `ratio(n, d)` reduces a pair, `integer` brings an int
    in, `gcd` is the back end's, `scale(big, num, den, cache)` is ``big * num/den`` for small coprime
    num, den > 0 (as `scale_fraction`), and `fraction` takes a value out as a `Fraction`, exactly
    (numerator and denominator, no rounding). Both back ends' numbers have the same operators and
    ``.numerator`` / ``.denominator``, so one loop serves both."""

    __slots__ = ("name", "rational", "ratio", "integer", "gcd", "scale", "fraction")

    def __init__(self, name: str):
        self.name = name
        if name == "gmp":
            self.rational = _gmp_rational
            self.ratio = gmpy2.mpq
            self.integer = gmpy2.mpz
            self.gcd = gmpy2.gcd
            self.scale = _scale_gmp
            self.fraction = _gmp_fraction
        else:
            self.rational = _as_fraction
            self.ratio = Fraction
            self.integer = int
            self.gcd = math.gcd
            self.scale = scale_fraction
            self.fraction = _as_fraction


def arithmetic() -> Arithmetic:
    """The current back end's `Arithmetic` (GMP unless inside ``with backend("fraction")``)."""
    return _ARITHMETIC[_BACKEND.get()]


def _as_fraction(value) -> Fraction:
    return value if type(value) is Fraction else Fraction(value)


def _gmp_rational(value):
    """A `Fraction` or int (or a subclass of either, such as a plug-in's `ExactNumber`) as an `mpq`:
    gmpy2 reads exact `Fraction`s and ints by type, so a subclass goes through its numerator and
    denominator."""
    kind = type(value)
    if kind is Fraction or kind is int or kind is _MPQ or kind is _MPZ:
        return gmpy2.mpq(value)
    return gmpy2.mpq(int(value.numerator), int(value.denominator))


_MPQ = type(gmpy2.mpq(0))
_MPZ = type(gmpy2.mpz(0))


def _gmp_fraction(value) -> Fraction:
    """An `mpq` or `mpz` (GMP keeps an mpq in lowest terms, denominator > 0) as the equal `Fraction`,
    without a gcd; a `Fraction` or int as itself."""
    if type(value) is Fraction:
        return value
    if type(value) is int:
        return Fraction(value)
    return coprime_fraction(int(value.numerator), int(value.denominator))


def _scale_gmp(big, num, den, cache: dict | None = None) -> Fraction:
    """`scale_fraction` for an `mpq` `big`, returned as a `Fraction`: the two cross gcds from GMP
    remainders (a big integer modulo a small one), exact divisions and products in GMP, and the
    two results converted to Python integers (no gcd: they are coprime). `cache` is not needed."""
    a, b = big.numerator, big.denominator
    num, den = gmpy2.mpz(num), gmpy2.mpz(den)
    g1 = gmpy2.gcd(a % den, den)
    g2 = gmpy2.gcd(num, b % num)
    if g1 > 1:
        a, den = gmpy2.divexact(a, g1), gmpy2.divexact(den, g1)
    if g2 > 1:
        b, num = gmpy2.divexact(b, g2), gmpy2.divexact(num, g2)
    return coprime_fraction(int(a * num), int(b * den))


def scale_fraction(big: Fraction, num: int, den: int, cache: dict | None = None) -> Fraction:
    """``big * Fraction(num, den)`` for coprime ``num, den > 0`` small next to `big`, reduced, fast.

    The product is (A/g1 · num/g2) / (B/g2 · den/g1) with A/B = big, g1 = gcd(A, den) and
    g2 = gcd(num, B), which is in lowest terms (as in ``Fraction.__mul__``). A gcd of a big and a
    small integer costs a division of the big one, so: g1 comes from one ``divmod(A, den)`` (when
    den divides A, as it does for a level that is a common multiple of the users' denominators, the
    quotient is A/g1 at once), and the B side depends on `num` only, so it is kept in `cache`
    (pass the same dict for the same `big`)."""
    A, B = big.numerator, big.denominator
    quotient, rest = divmod(A, den)
    if rest == 0:
        a_part, den_left = quotient, 1
    else:
        g1 = math.gcd(rest, den)
        a_part, den_left = (A // g1, den // g1) if g1 > 1 else (A, den)
    key = num
    found = None if cache is None else cache.get(key)
    if found is None:
        g2 = math.gcd(num, B)
        found = (num // g2, B // g2)
        if cache is not None:
            cache[key] = found
    num_left, b_part = found
    return coprime_fraction(a_part * num_left, b_part * den_left)


_ARITHMETIC = {name: Arithmetic(name) for name in BACKENDS}  # after the helpers they name
