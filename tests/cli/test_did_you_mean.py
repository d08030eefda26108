""""Did you mean ...?" for unknown names: one line on stderr, exit 2, the close known name suggested."""

import pytest

from fairlab import mechanisms, properties
from fairlab.core.domain import parse as parse_domain
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.core.names import close, did_you_mean, unknown
from fairlab.search import engines


def test_close_matches_names_and_other_spellings():
    assert close("drf-papr", ["drf", "drf-paper", "drf-paper-weighted"]) == ["drf-paper"]
    assert close("envy-free", ["si", "ef"], also={"envy-freeness": "ef"}) == ["ef"]
    assert close("ENVY-FREENESS", ["si", "ef"], also={"envy-freeness": "ef"}) == ["ef"]  # case-insensitive
    assert close("zzz", ["si", "ef"]) == []
    assert did_you_mean("zzz", ["si"]) == ""
    assert did_you_mean("sii", ["si", "sp"]) == "; did you mean 'si'?"


def test_unknown_keeps_the_known_list():
    assert unknown("property", "envy-free", ["si", "ef"], also={"envy-freeness": "ef"}, tail="; or X") == \
        "property 'envy-free': unknown; did you mean 'ef'? (known: si, ef; or X)"
    assert unknown("engine", "zzz", ["grid"]) == "engine 'zzz': unknown (known: grid)"


@pytest.mark.parametrize("call, suggested", [
    (lambda: properties.get("envy-free"), "'ef'"),
    (lambda: properties.get("sharing-incentive"), "'si'"),  # a property's long name
    (lambda: mechanisms.get("drff"), "'drf'"),
    (lambda: mechanisms.get("nashh"), "'ceei'"),  # an alias suggests the mechanism it names
    (lambda: Instance.resolve("drf-papr"), "'drf-paper'"),
    (lambda: parse_domain("drf-papr"), "'drf-paper'"),
    (lambda: engines.search(mechanisms.get("drf"), "si", 2, 2, engines=["symbolc"]), "'symbolic'"),
])
def test_registries_suggest(call, suggested):
    with pytest.raises(InputError) as err:
        call()
    assert f"did you mean {suggested}?" in str(err.value), str(err.value)


@pytest.mark.parametrize("args, words", [
    (["check", "drf", "envy-free", "drf-paper"], ["property 'envy-free'", "did you mean 'ef'?", "known: si"]),
    (["allocate", "drf", "drf-papr"], ["'drf-papr'", "did you mean 'drf-paper'?"]),
    (["search", "drf", "si", "--domian", "drf-paper"], ["'--domian'", "did you mean '--domain'?",
                                                        "fairlab search --help"]),
    (["serch", "drf", "si"], ["command 'serch'", "did you mean 'search'?"]),
    (["mechanisms", "--setting", "pol"], ["did you mean 'pool'?"]),
    (["store", "lst"], ["command 'lst'", "did you mean 'list'?", "fairlab store --help"]),
    (["check", "drf", "si", "drf-paper", "--evaluatons", "3"], ["did you mean '--evaluations'?"]),
])
def test_cli_suggests_in_one_line(run_cli, assert_one_line_error, args, words):
    assert_one_line_error(run_cli(*args), *words)


def test_no_suggestion_when_nothing_is_close(run_cli, assert_one_line_error):
    out = run_cli("check", "drf", "qqqq", "drf-paper")
    assert_one_line_error(out, "property 'qqqq': unknown (known:")
    assert "did you mean" not in out.stderr


def test_a_prefix_of_a_long_name_is_close():
    assert close("pareto", ["si", "pe"], also={"pareto efficiency": "pe"}) == ["pe"]
    assert close("par", ["si", "pe"], also={"pareto efficiency": "pe"}) == []  # negative twin: too short a prefix
    assert close("xyzeto", ["si", "pe"], also={"pareto efficiency": "pe"}) == []  # not a prefix, nor one with a typo


def test_a_typo_in_a_prefix_or_in_a_short_name_is_close():
    """A newcomer's "paretto" (a typo in the start of "pareto efficiency") and "s1" (one character
    off "si" and "sp") are suggested; two characters off a short name is not."""
    long_names = {"pareto efficiency": "pe"}
    assert close("paretto", ["si", "pe"], also=long_names) == ["pe"]
    assert close("xareto", ["si", "pe"], also=long_names) == ["pe"]
    assert close("s1", ["si", "sp", "pe"]) == ["si", "sp"]
    assert close("x1", ["si", "sp", "pe"]) == []  # negative twin: two characters off
    assert close("s12", ["si", "srf"]) == []


@pytest.mark.parametrize("args, words", [
    (["check", "drf", "pareto", "drf-paper"], ["property 'pareto'", "did you mean 'pe'"]),
    (["check", "drf", "paretto", "drf-paper"], ["property 'paretto'", "did you mean 'pe'"]),
    (["check", "drf", "al", "drf-paper"], ["property 'al'", "did you mean 'all'?"]),  # check takes all
    (["check", "drf", "si,sii", "drf-paper"], ["not a comma-separated list", "property 'sii'",
                                               "did you mean 'si'?"]),
    (["audit", "drf", "--property", "si,ef"], ["property 'si,ef'", "not a comma-separated list"]),
])
def test_property_typos_suggest_in_one_line(run_cli, assert_one_line_error, args, words):
    assert_one_line_error(run_cli(*args), *words)


def test_all_is_suggested_only_where_it_is_taken(run_cli, assert_one_line_error):
    out = run_cli("prove", "drf", "al", "-n", "2", "-m", "2")  # prove takes one property, never all
    assert_one_line_error(out, "property 'al': unknown")
    assert "'all'" not in out.stderr
