"""The exact instance model and its one-line errors for bad input."""

from fractions import Fraction

import pytest
import z3

from fairlab.core.errors import InputError
from fairlab.core.exact import Algebraic, format_exact, to_fraction
from fairlab.core.instance import Instance, examples
from fairlab.core.json_input import parse_json


def test_numbers_are_read_exactly():
    assert to_fraction(0.1, "x") == Fraction(1, 10)
    assert to_fraction("0.75", "x") == Fraction(3, 4)
    assert to_fraction("2/3", "x") == Fraction(2, 3)
    assert to_fraction(" 1.5e2 ", "x") == 150
    assert parse_json('{"a": [0.1, 1e-3, 7]}')["a"] == [Fraction(1, 10), Fraction(1, 1000), 7]


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), True, "abc", "1/0", None, [1], "1/2/3"])
def test_bad_numbers_name_the_field(bad):
    with pytest.raises(InputError, match="capacities\\[0\\]"):
        to_fraction(bad, "capacities[0]")


def test_instance_views_and_round_trip():
    inst = Instance.build([9, 18], [[1, 4], [3, 1]], weights=[1, 2], max_tasks=[None, "5/2"], users=["A", "B"])
    assert inst.n == 2 and inst.m == 2
    assert inst.dominant_share_per_task(0) == Fraction(2, 9)
    assert inst.weighted_dominant_share_per_task(1) == Fraction(1, 6)
    assert inst.solo_tasks(1) == Fraction(5, 2)
    assert inst.scalar_weights() == (1, 2)
    again = Instance.from_dict(inst.to_dict())
    assert again == inst


def test_vector_weights():
    inst = Instance.build([9, 18], [[1, 4], [3, 1]], weights=[[1, 2], [3, 1]])
    assert inst.weights_given == "vector"
    assert inst.scalar_weights() is None
    assert inst.weighted_dominant_share_per_task(0) == max(Fraction(1, 9), Fraction(4, 18) / 2)


BAD = [
    ({"capacities": [9, -1], "demands": [[1, 1]]}, "capacities\\[1\\]: must be positive"),
    ({"capacities": [0, 1], "demands": [[1, 1]]}, "capacities\\[0\\]: must be positive"),
    ({"demands": [[1, 1]]}, "capacities: missing"),
    ({"capacities": [1, 1]}, "demands: missing"),
    ({"capacities": [], "demands": [[1]]}, "capacities: expected a non-empty list"),
    ({"capacities": [1, 1], "demands": [[1, 1], [1]]}, "demands\\[1\\]: has 1 entries but there are 2"),
    ({"capacities": [1, 1], "demands": [[0, 0]]}, "demands\\[0\\]: all zero"),
    ({"capacities": [1, 1], "demands": [[1, -2]]}, "demands\\[0\\]\\[1\\]: must be non-negative"),
    ({"capacities": [1, 1], "demands": [[1, 1]], "weights": [1, 2]}, "weights: expected one weight"),
    ({"capacities": [1, 1], "demands": [[1, 1]], "weights": [[1, 2, 3]]}, "weights\\[0\\]: a weight vector needs 2"),
    ({"capacities": [1, 1], "demands": [[1, 1]], "weights": [0]}, "weights\\[0\\]: must be positive"),
    ({"capacities": [1, 1], "demands": [[1, 1]], "max_tasks": [-1]}, "max_tasks\\[0\\]: must be non-negative"),
    ({"capacities": [1, 1], "demands": [[1, 1]], "colour": 3}, "unknown key 'colour'"),
    ({"capacities": [1, 1], "demands": [[1, 1]], "users": ["a", "b"]}, "users: expected 1 names"),
    ({"capacities": "9,18", "demands": [[1, 1]]}, "capacities: expected a non-empty list"),
    ([1, 2], "instance: expected a JSON object"),
]


@pytest.mark.parametrize("data,message", BAD)
def test_bad_instances_raise_one_line_errors(data, message):
    with pytest.raises(InputError, match=message) as info:
        Instance.from_dict(data)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "text,message",
    [
        ('{"capacities": [1, NaN], "demands": [[1, 1]]}', "NaN is not allowed"),
        ('{"capacities": [Infinity], "demands": [[1]]}', "Infinity is not allowed"),
        ('{"capacities": [1, 1], "demands": [[1, 1]]', "malformed JSON"),
        ("", "malformed JSON"),
    ],
)
def test_bad_json(text, message):
    with pytest.raises(InputError, match=message):
        Instance.from_json(text)


def test_shipped_examples_load():
    assert "drf-paper" in examples()
    for name in examples():
        Instance.load(name)


def test_algebraic_arithmetic_is_exact():
    x = z3.Real("x")
    s = z3.Solver()
    s.add(x * x == 2, x > 0)
    s.check()
    root2 = Algebraic.of(s.model()[x])
    assert isinstance(root2, Algebraic)
    assert root2 * root2 == 2 and isinstance(root2 * root2, Fraction)
    assert Fraction(141421, 100000) < root2 < Fraction(141422, 100000)
    assert root2 - root2 == 0
    assert format_exact(root2).startswith("1.414213562373095048")
    assert format_exact(Fraction(45, 11)) == "45/11" and format_exact(Fraction(3)) == "3"


def test_resolve_accepts_every_way_of_naming_an_instance(tmp_path):
    """`Instance.resolve`: an Instance, its dict, a path (str or Path), or a shipped example's name."""
    by_name = Instance.resolve("thm1-asset-si")
    assert by_name == Instance.load(examples()["thm1-asset-si"])
    assert Instance.resolve(by_name) is by_name
    assert Instance.resolve(by_name.to_dict()) == by_name
    path = tmp_path / "mine.json"
    path.write_text('{"capacities": [9, 18], "demands": [[1, 4], [3, 1]]}')
    assert Instance.resolve(path).capacities == (9, 18)
    assert Instance.resolve(str(path)).demands == ((1, 4), (3, 1))


@pytest.mark.parametrize("bad,needle", [
    ("no-such-example", "no such file or shipped example"),
    ("", "the path is empty"),
    (42, "expected an Instance, a dict, a path or an example name, got int"),
    ({"capacities": [1]}, "demands: missing"),
])
def test_resolve_refuses_with_one_line(bad, needle):
    with pytest.raises(InputError, match=needle) as exc:
        Instance.resolve(bad)
    assert "\n" not in str(exc.value)
