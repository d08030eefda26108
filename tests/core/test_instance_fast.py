"""The fast paths of instance reading give exactly what the entry-by-entry reader gives."""

from fractions import Fraction

import pytest

from fairlab.core.errors import InputError
from fairlab.core.instance import Instance, _int_fraction, _new_fraction
from fairlab.core.json_input import parse_json


def test_fast_fractions_are_fractions():
    for k in (0, 1, 7, 10**40, -3):
        f = _int_fraction(k)
        assert type(f) is Fraction and f == Fraction(k) and hash(f) == hash(Fraction(k))
        assert (f.numerator, f.denominator) == (k, 1)
    g = _new_fraction(3, 4)
    assert g == Fraction(3, 4) and hash(g) == hash(Fraction(3, 4)) and g + Fraction(1, 4) == 1


@pytest.mark.parametrize("text,value", [
    ("0.1", Fraction(1, 10)), ("-0.5", Fraction(-1, 2)), ("-0.0", Fraction(0)), ("2.50", Fraction(5, 2)),
    ("1e3", Fraction(1000)), ("1.5E-2", Fraction(3, 200)), ("123456789.000000001", Fraction(123456789000000001, 10**9)),
])
def test_decimals_exact(text, value):
    assert parse_json(f"[{text}]") == [value]


def test_long_integers_still_range_checked():
    assert parse_json("[" + "9" * 299 + "]") == [int("9" * 299)]
    with pytest.raises(InputError, match="outside the exact number range"):
        parse_json('{"capacities": [' + "9" * 1200 + "]}")


def test_rows_same_as_entry_by_entry():
    data = {"capacities": [10, "5/2"], "demands": [[1, 2], [0.5, 3], [2000, 1], ["1/3", 1]]}
    inst = Instance.from_dict(data)
    assert inst.demands == ((1, 2), (Fraction(1, 2), 3), (2000, 1), (Fraction(1, 3), 1))
    assert all(type(x) is Fraction for row in inst.demands for x in row)
    assert Instance.from_json('{"capacities": [10, 5], "demands": [[1, 2], [0.5, 3]]}').demands[1][0] == Fraction(1, 2)


@pytest.mark.parametrize("rows,message", [
    ([[1, -2]], r"demands\[0\]\[1\]: must be non-negative"),
    ([[0.5, -0.25]], r"demands\[0\]\[1\]: must be non-negative"),
    ([[0, 0]], r"demands\[0\]: all zero"),
    ([[0.0, 0]], r"demands\[0\]: all zero"),
    ([[True, 1]], r"demands\[0\]\[0\]: expected a number"),
])
def test_row_errors_unchanged(rows, message):
    with pytest.raises(InputError, match=message):
        Instance.from_dict({"capacities": [1, 1], "demands": rows})


def test_repeated_and_many_decimal_tokens_read_exactly():
    """Float tokens are remembered per document (`_Decimals`, up to DECIMAL_CACHE_SIZE distinct
    ones): repeats, tokens past the cache size, exponents and equal values written differently all
    read as Fraction(Decimal(token))."""
    import json
    from decimal import Decimal

    from fairlab.core import json_input as module

    tokens = [f"{k / 1000:.3f}" for k in range(1, module.DECIMAL_CACHE_SIZE + 600)]
    tokens += tokens[:50] + ["1.50", "1.5", "15e-1", "0.000", "2.5E3"] * 3
    text = json.dumps({"v": [0]}).replace("[0]", "[" + ", ".join(tokens) + "]")
    got = module.parse_json(text)["v"]
    assert got == [Fraction(Decimal(t)) for t in tokens]
    assert all(type(v) is Fraction for v in got)
    with pytest.raises(InputError, match=r"v\[1\]"):  # the exact-range check still applies, once cached or not
        module.parse_json('{"v": [1.5, 1e999999, 1e999999]}')
