"""Reading JSON exactly: every number becomes an int or a Fraction (a decimal is read through its
digits, never a float), numbers outside the exact range, duplicate keys, NaN/Infinity and nesting
deeper than `MAX_NESTING` are refused with a one-line `InputError`, and a stream is read up to
`MAX_FILE_BYTES` (so /dev/zero does not hang). `fairlab.core.instance` builds instances on it."""

from __future__ import annotations

import contextlib
import gc
import json
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import IO, Any, Callable, Iterator, NoReturn

from fairlab.core.errors import InputError
from fairlab.core.exact import in_exact_range, range_error, short_text

MAX_FILE_BYTES = 64 * 2**20  # instance files; more is refused (and /dev/zero does not hang)


def read_capped(file: IO[bytes], what: str) -> str:
    """UTF-8 text of a binary stream, at most MAX_FILE_BYTES (an endless one such as /dev/zero is
    refused, not read forever); `what` names it in the one-line error."""
    data = file.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"instance: {what} is larger than {MAX_FILE_BYTES // 2**20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"instance: cannot read {what}: {exc}") from None


def _reject_constant(name: str) -> NoReturn:
    raise InputError(f"number {name} is not allowed; numbers must be finite")


class _OutOfRange(str):
    """A JSON number outside the exact range, kept as text until `parse_json` finds its path."""


_POWERS_OF_TEN = tuple(10**k for k in range(401))
#: a run of digits long enough that an integer token may exceed the 300 characters read by `int`
_LONG_DIGITS = re.compile(r"[0-9]{250}")


def _json_number(text: str, integer: bool) -> int | Fraction | _OutOfRange:
    """A JSON number read exactly; out-of-range ones stay `_OutOfRange` text, before any big integer
    is built (``1e1000000000`` would take forever as a Fraction)."""
    if integer and len(text) <= 300:
        return int(text)
    try:
        value = Decimal(text)
    except InvalidOperation:  # an exponent too long even for Decimal
        return _OutOfRange(text)
    if not in_exact_range(value):
        return _OutOfRange(text)
    return int(text) if integer else Fraction(value)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = set()
    for key, _ in pairs:
        if key in keys:
            raise InputError(f"duplicate key {short_text(key)}")
        keys.add(key)
    return dict(pairs)


def _out_of_range_path(data: Any) -> str | None:
    """Where (``capacities[0]``) the first `_OutOfRange` number sits in parsed JSON, or None."""
    stack = [(data, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, _OutOfRange):
            return path or "value"
        if isinstance(value, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((v, f"{path}[{i}]") for i, v in reversed(list(enumerate(value))))
    return None


#: distinct float tokens of one document remembered by `_Decimals`
DECIMAL_CACHE_SIZE = 4096


class _Decimals(dict):
    """JSON float token -> its exact value, computed once per distinct token of one document: a
    repeated token (instances repeat their demands) is a C-level dict hit, not a Python call; a new
    one costs one Python frame (`__missing__`). Values are immutable Fractions, safe to share."""

    __slots__ = ("slow",)

    def __init__(self, slow: Callable[[str], Any]) -> None:
        super().__init__()
        self.slow = slow  # the general reader (exponents, long tokens, the exact-range check)

    def __missing__(self, text: str) -> Any:
        """A token (valid: the scanner matched it) without exponent and with at most 400 characters
        is within the exact range (`fairlab.core.exact.MAX_DIGITS`, `MAX_EXPONENT`): the value
        Fraction(Decimal(text)) has, read as an integer over a power of ten."""
        if len(text) <= 400 and "e" not in text and "E" not in text:
            whole, _, decimals = text.partition(".")
            digits = int(whole + decimals)
            scale = _POWERS_OF_TEN[len(decimals)]
            value = Fraction(digits, scale)  # the public constructor reduces it (no private attributes)
        else:
            value = self.slow(text)
        if len(self) < DECIMAL_CACHE_SIZE:  # beyond it the tokens hardly repeat: keep the dict small
            self[text] = value
        return value


#: arrays and objects nested deeper than this are refused: an instance needs a handful of levels,
#: and how deep Python's own parser goes before a RecursionError differs between versions (3.13's
#: reads 5,000 levels), so the lab sets the limit itself
MAX_NESTING = 64
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_EMPTY_PAIRS = re.compile(r"\[\]|\{\}")


def nested_too_deeply(text: str | bytes) -> bool:
    """Whether the JSON `text` nests arrays and objects deeper than `MAX_NESTING` (strings aside).
    Each pass deletes the innermost empty pairs of the bracket skeleton (at the regex engine's
    speed), so a document of depth d takes d passes; unbalanced brackets are left to the parser."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    skeleton = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    for _ in range(MAX_NESTING):
        reduced = _EMPTY_PAIRS.sub("", skeleton)
        if not reduced or reduced == skeleton:
            return False
        skeleton = reduced
    return True


def parse_json(text: str, source: str = "input") -> Any:
    """Parse JSON with numbers read exactly (0.1 -> 1/10) and NaN/Infinity, numbers outside the exact
    range (`fairlab.core.exact.in_exact_range`), duplicate keys and nesting deeper than
    `MAX_NESTING` refused."""
    if nested_too_deeply(text):
        raise InputError(f"{source}: JSON nested too deeply (more than {MAX_NESTING} levels)")
    with without_collector():
        return _parse_json(text, source)


@contextlib.contextmanager
def without_collector() -> Iterator[None]:
    """Pause Python's cyclic garbage collector: reading an instance makes no reference cycles, and
    the collector would only re-scan the numbers just made (a third of the reading time of 100 000
    decimals). Reference counting frees memory as usual; the previous state is restored."""
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _parse_json(text: str, source: str) -> Any:
    out_of_range = []

    def number(text: str, integer: bool = False) -> int | Fraction | _OutOfRange:
        value = _json_number(text, integer)
        if isinstance(value, _OutOfRange):
            out_of_range.append(value)
        return value

    # No integer token can exceed 300 characters without a run of 250 digits: then json's own
    # int() reads each one exactly as `_json_number` would, without a Python call per number.
    ints_plain = isinstance(text, str) and _LONG_DIGITS.search(text) is None
    try:
        data = json.loads(
            text,
            parse_float=_Decimals(number).__getitem__,
            parse_int=int if ints_plain else (lambda text: number(text, integer=True)),
            parse_constant=_reject_constant,
            object_pairs_hook=_unique_keys,
        )
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise InputError(f"{source}: JSON nested too deeply") from None
    except ValueError as exc:
        raise InputError(f"{source}: malformed JSON: {exc}") from None
    if out_of_range:
        raise range_error(f"{source}: {_out_of_range_path(data)}", out_of_range[0])
    return data
