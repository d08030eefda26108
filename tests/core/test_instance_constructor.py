"""`Instance(capacities=..., demands=...)`: the constructor reads raw values like `Instance.build`, with
documented defaults for the fields left out; the lab's own fully-normalised construction is unchanged."""

import dataclasses
from fractions import Fraction

import pytest

import fairlab
from fairlab.core.errors import InputError
from fairlab.core.instance import FIELDS, Instance


def test_capacities_and_demands_are_enough():
    inst = fairlab.Instance(capacities=[9, 18], demands=[[1, 4], [3, 1]])
    assert inst == Instance.build([9, 18], [[1, 4], [3, 1]])  # the DRF paper's §4.1 example
    assert inst.capacities == (Fraction(9), Fraction(18)) and inst.demands[1] == (Fraction(3), Fraction(1))
    assert inst.weights == ((1, 1), (1, 1)) and inst.weights_given == "none"  # default: weight 1
    assert inst.max_tasks == (None, None)  # default: no caps
    assert inst.users == ("u1", "u2") and inst.resources == ("r1", "r2")  # default names


def test_given_fields_are_read_exactly():
    inst = Instance(capacities=["1/3", 2], demands=[[1, 1]], weights=[2], users=["A"], max_tasks=[5])
    assert inst.capacities[0] == Fraction(1, 3) and inst.weights_given == "scalar" and inst.users == ("A",)
    assert inst.max_tasks == (Fraction(5),)
    positional = Instance([9, 18], [[1, 4], [3, 1]], [1, 2])
    assert positional.weights_given == "scalar" and positional.weights[1] == (2, 2)


@pytest.mark.parametrize("kwargs, message", [
    (dict(capacities=[9, 0], demands=[[1, 4]]), "capacities[1]: must be positive"),
    (dict(capacities=[9, 18], demands=[[1, 4, 2]]), "ragged"),
    (dict(capacities=[9, 18], demands=[[0, 0]]), "all zero"),
    (dict(capacities=[9, 18], demands=[[1, 4]], users=["A", "B"]), "users"),
    (dict(capacities=[9], demands=[[1]], events=(("arrive", 0),)), "arrivals/departures"),
])
def test_bad_raw_values_are_one_line_input_errors(kwargs, message):
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")) as err:
        Instance(**kwargs)
    assert "\n" not in str(err.value)


def test_the_labs_normalised_fields_are_taken_as_they_are():
    inst = Instance.build([9, 18], [[1, 4], [3, 1]], users=["A", "B"])
    assert [f.name for f in dataclasses.fields(Instance)] == list(FIELDS)
    renamed = dataclasses.replace(inst, users=("X", "Y"))
    assert renamed.users == ("X", "Y") and renamed.capacities is inst.capacities  # not re-read
    # negative twin: a list is raw input and is read (a tuple of Fractions would have been kept as is)
    assert Instance(list(inst.capacities), inst.demands).capacities is not inst.capacities
