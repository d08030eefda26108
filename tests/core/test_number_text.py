"""Numbers written as text (issue 26, audit finding 2): the instance reader and the shipped schema
(`fairlab/schemas/instance.schema.json`, checked with a standard validator, jsonschema) give the
same answer on the same crafted strings: ASCII digits only (no "٣", "３/７", "1e१०"), JSON's
whitespace only. The exact range is about the value of "p/q" ("1e-1000/1000000" is 1e-1006).

Where they differ, the reader is the stricter, and only on what a pattern cannot say: the exact
range (magnitudes 1e-1000 to 1e+1000, of a number, of p and of q and of the value p/q; at most 1000
significant digits). `RANGE` lists those strings; every other one must get the same answer.
"""

from __future__ import annotations

import copy

import pytest

from fairlab.core import schemas
from fairlab.core.errors import InputError
from fairlab.core.exact import RATIONAL_PATTERN, to_fraction
from fairlab.core.instance import Instance

jsonschema = pytest.importorskip("jsonschema")

VALID = ["3", "0.75", "2/3", " 2 / 3 ", "-1.5e-3", "+4", ".5", "5.", "1e1000", "1e-1000", "1e-999/10",
         "12/4", "\t7\n", "0", "0/5", "1e3/7", "-0", "1e1000/1", "1e-999/10", "10/0005"]
CRAFTED = ["٣", "３/７", "1e१०", "3/٧", "٣.5", "1\u00a0/2", "\u20033", "3\u000b", "3\x1c", "", " ", "/3", "3/",
           "1/2/3", "3/-4", "1e", "e3", "--1", "0x10", "1_000", "3/0.5", "∞", "NaN", "inf", "١e3", "3\n/4\n",
           "1/0", "1/00", "0/0"]
#: accepted by the schema (a pattern cannot say the exact range), refused by the reader
RANGE = ["1e-1000/1000000", "1e-1000/2", "1e-999/1000", "1e1001", "1e-1001", "1/1" + "0" * 1001, "1" * 1001,
         "1e-1000000", "1e999999999999999999999", "1e-1001/1e0"[:0] or "0.1e-1000"]


def reader_accepts(text: str) -> bool:
    """The instance reader's answer: every number of an instance is read by `to_fraction`."""
    try:
        to_fraction(text, "demands[0][0]")
    except InputError:
        return False
    return True


def schema_accepts(text: str) -> bool:
    """The shipped schema's answer on a number (its ``$defs/number``, what every number field refers to)."""
    schema = schemas.load("instance")
    number = {"$schema": schema["$schema"], **schema["$defs"]["number"]}
    return jsonschema.Draft202012Validator(number).is_valid(text)


def instance_accepts(text: str) -> tuple[bool, bool]:
    """(reader, schema) on a whole instance with `text` as a demand."""
    document = {"capacities": [1, 1], "demands": [[text, 1], [1, 1]]}
    try:
        Instance.from_dict(copy.deepcopy(document))
        read = True
    except InputError:
        read = False
    return read, jsonschema.Draft202012Validator(schemas.load("instance")).is_valid(document)


@pytest.mark.parametrize("text", VALID + CRAFTED)
def test_the_reader_and_the_schema_agree(text):
    assert reader_accepts(text) == schema_accepts(text), (text, reader_accepts(text))


@pytest.mark.parametrize("text", VALID)
def test_valid_texts_are_accepted(text):
    assert reader_accepts(text) and schema_accepts(text)


@pytest.mark.parametrize("text", ["٣", "３/７", "1e१०", "3/٧"])
def test_non_ascii_digits_are_refused(text):
    assert not reader_accepts(text) and not schema_accepts(text)
    assert instance_accepts(text) == (False, False)  # as a whole instance too
    assert instance_accepts("3/7") == (True, True)


@pytest.mark.parametrize("text", RANGE)
def test_only_the_exact_range_makes_the_reader_stricter_than_the_schema(text):
    assert schema_accepts(text) and not reader_accepts(text)


def test_the_range_is_about_the_value_of_p_over_q():
    with pytest.raises(InputError, match="outside the exact number range"):
        Instance.from_dict({"capacities": [1], "demands": [["1e-1000/1000000"], [1]]})
    inst = Instance.from_dict({"capacities": [1], "demands": [["1e-999/10"], ["1e1000/10"]]})
    assert inst.demands[0][0] * 10**1000 == 1 and inst.demands[1][0] == 10**999


def test_the_readers_pattern_is_the_schemas():
    assert schemas.load("instance")["$defs"]["number"]["anyOf"][1]["pattern"] == RATIONAL_PATTERN
