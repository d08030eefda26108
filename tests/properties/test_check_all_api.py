"""`fairlab.check(mechanism, "all", instance)`: every property, as ``fairlab check MECHANISM all INSTANCE``."""

import pytest

import fairlab
from fairlab import properties
from fairlab.core.errors import InputError
from fairlab.core.results import Result, Status


def test_check_all_from_python_is_the_clis_all():
    results = fairlab.check("asset", "all", "thm1-asset-si", evaluations=20)
    assert isinstance(results, list) and all(isinstance(r, Result) for r in results)
    assert [r.property for r in results] == properties.names("pool")
    got = {r.property: r.status for r in results}
    assert got["si"] == Status.VIOLATED  # Theorem 1 of the DRF paper: asset fairness violates si
    # the same verdicts as check_all (the CLI's route) on the same budget
    again = properties.check_all("asset", "thm1-asset-si", evaluations=20)
    assert [(r.property, r.status) for r in again] == [(r.property, r.status) for r in results]


def test_one_property_is_still_one_result():
    # negative twin: a named property is not widened to every property
    result = fairlab.check("asset", "si", "thm1-asset-si")
    assert isinstance(result, Result) and result.property == "si" and result.status == Status.VIOLATED


@pytest.mark.parametrize("typo", ["al", "All", "ALL "])
def test_a_typo_of_all_is_refused_with_a_suggestion(typo):
    with pytest.raises(InputError, match=r"did you mean 'all'\?"):
        fairlab.check("asset", typo, "thm1-asset-si")


def test_all_is_reserved_for_plug_in_properties():
    from fairlab.properties import plugin_properties

    si = properties.get("si")
    with pytest.raises(InputError, match="reserved"):
        plugin_properties.adopt(si, "all", "test object", {"name": "all"})
    assert "all" not in properties.PROPERTIES
