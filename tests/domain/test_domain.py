"""The Domain value (fairlab.core.domain): presets, the one parser, membership, algebra, records (issue 27)."""

from __future__ import annotations

import itertools

import pytest

from fairlab.core.domain import ALL, LEVELS, PRESETS, Domain, parse, record
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance


def test_presets_are_the_sources_domains():
    assert PRESETS["all"] == ALL == Domain()
    paper = PRESETS["drf-paper"]
    assert (paper.demands, paper.weights, paper.caps) == ("positive", "none", "none")
    weighted = PRESETS["weighted"]
    assert (weighted.demands, weighted.weights) == ("nonnegative", "vector")
    assert PRESETS["lecture"].departures == "none"
    assert len(set(PRESETS.values())) == len(PRESETS)  # each preset names one domain


@pytest.mark.parametrize("text, expected", [
    ("drf-paper", PRESETS["drf-paper"]),
    ("DRF-PAPER", PRESETS["drf-paper"]),
    ("demands=positive", Domain(demands="positive")),
    ("demands=>0, weights=none", Domain(demands="positive", weights="none")),
    ("drf-paper,caps=allowed", Domain(demands="positive", weights="none", caps="allowed")),
    ("capacity=unit", Domain(capacities="unit")),
    (None, ALL),
    ({"name": "x", "demands": "positive", "weights": "none", "caps": "none"}, PRESETS["drf-paper"]),
])
def test_parse(text, expected):
    assert parse(text) == expected


@pytest.mark.parametrize("text, words", [
    ("nope", ["nope", "unknown domain", "drf-paper"]),
    ("demands=zero-ish", ["demands", "positive"]),
    ("colour=red", ["colour", "keys"]),
    ("drf-paper,positive", ["key=value"]),
    ("", ["empty"]),
])
def test_parse_errors_are_one_line(text, words):
    with pytest.raises(InputError) as info:
        parse(text)
    message = str(info.value)
    assert "\n" not in message and all(w in message for w in words), message


def test_label_reads_back():
    for domain in [*PRESETS.values(), Domain(demands="positive", caps="none"), Domain(capacities="unit")]:
        assert parse(domain.label) == domain
        assert domain.to_dict()["name"] == domain.label


def test_intersect_is_the_narrower_field_and_within_orders():
    every = [Domain(*values) for values in itertools.product(*LEVELS.values())]
    for a, b in itertools.product(every[::5], every[::7]):
        both = a.intersect(b)
        assert both == b.intersect(a)
        assert both.within(a) and both.within(b)
    assert PRESETS["weighted"].intersect(PRESETS["drf-paper"]) == PRESETS["drf-paper"]
    assert not ALL.within(PRESETS["drf-paper"])


def test_contains_says_why_in_one_line():
    zero = Instance.build([1, 1], [[1, 0], [1, 1]])
    assert ALL.contains(zero) is None
    why = PRESETS["drf-paper"].contains(zero)
    assert "demand of u1 on r2 is 0" in why and "drf-paper" in why
    weighted = Instance.build([1, 1], [[1, 1], [1, 2]], weights=[1, 2])
    assert "weight" in PRESETS["drf-paper"].contains(weighted)
    assert PRESETS["bonald-roberts"].contains(weighted) is None  # one weight per user
    vector = Instance.build([1, 1], [[1, 1], [1, 2]], weights=[[1, 2], [1, 1]])
    assert "weight vector" in PRESETS["bonald-roberts"].contains(vector)
    capped = Instance.build([1, 1], [[1, 1], [1, 2]], max_tasks=[None, 1])
    assert "task cap" in PRESETS["drf-paper"].contains(capped)
    assert PRESETS["pdrf"].contains(capped) is None
    assert "capacity" in Domain(capacities="unit").contains(Instance.build([2, 1], [[1, 1]]))
    leaves = Instance.from_dict({"capacities": [1], "demands": [[1], [1]], "arrivals": [0, 1],
                                 "departures": [{"user": 0, "after": 2}]})
    assert "departs" in PRESETS["lecture"].contains(leaves)


def test_record_says_what_the_verdict_is_about():
    plain = record(ALL, ALL)
    assert plain["name"] == "all" and "note" not in plain
    narrowed = record(ALL, Domain(demands="positive"))
    assert narrowed["demands"] == "positive" and "declared" in narrowed["note"]
    sub = record(ALL, ALL, Domain(weights="none", caps="none"))
    assert sub["name"] == "unweighted" and "sub-domain" in sub["note"]
    assert record(PRESETS["drf-paper"], ALL, Domain(weights="none", caps="none"))["name"] == "drf-paper"


def test_a_bad_field_value_is_refused():
    with pytest.raises(InputError, match="demands"):
        Domain(demands="strange")
