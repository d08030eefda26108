"""A mechanism that is not one of the lab's built-ins must answer the same question the same way:
`fairlab.properties.base.run` runs it twice and a mismatch is a wrong answer (`PluginBadAnswer`: a
one-line error in a check, an error finding in a search), never a verdict (audit: a plug-in
alternating between a dictator and DRF was reported violating sp and rm on drf-paper, though neither
behaviour does)."""

import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fairlab
from fairlab import mechanisms, properties
from fairlab.core.errors import PluginError
from fairlab.core.instance import Instance
from fairlab.mechanisms.registry import is_builtin
from fairlab.properties.base import run
from fairlab.search.engines import search

PLUGINS = Path(__file__).parents[1] / "plugins"
FLIP = f"{PLUGINS / 'flip.py'}:flip"
NOT_DETERMINISTIC = "not a deterministic mechanism; no verdict"


def fairlab_cli(*args, timeout=120):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.run([sys.executable, "-m", "fairlab.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, env=env)




def alternating():
    calls = itertools.count()

    def alternate(instance):
        if next(calls) % 2 == 0:
            return [instance.solo_tasks(0)] + [0] * (instance.n - 1)
        return fairlab.allocate("drf", instance).tasks

    return alternate


@pytest.mark.parametrize("prop", ["sp", "rm"])
def test_check_of_a_flipping_plugin_is_a_one_line_error(prop, assert_one_line_error):
    out = fairlab_cli("check", FLIP, prop, "drf-paper", "--format", "json")
    assert_one_line_error(out, "returned different allocations for the same instance", NOT_DETERMINISTIC)


def test_search_of_a_flipping_plugin_reports_an_error_finding(tmp_path):
    """A different answer to the same question is a wrong answer (issue 35): the search's status is
    error, naming both allocations, never a verdict, and nothing is stored."""
    out = fairlab_cli("search", FLIP, "sp", "--store", tmp_path / "store", "--time-limit", "60")
    assert out.returncode == 0 and "error (the mechanism raised or answered wrongly)" in out.stdout
    assert NOT_DETERMINISTIC in out.stdout and "violated" not in out.stdout
    assert not any((tmp_path / "store").rglob("*.json"))
    result = search(mechanisms.get(FLIP), "rm", 2, 2, time_limit=60)
    assert result.status == "error" and NOT_DETERMINISTIC in result.explanation


@pytest.mark.parametrize("prop", ["sp", "rm", "si"])
def test_an_alternating_callable_gets_no_verdict(prop):
    with pytest.raises(PluginError, match=NOT_DETERMINISTIC):
        fairlab.check(alternating(), prop, "drf-paper")


def test_the_mismatch_names_both_allocations():
    mech = mechanisms.get(alternating())
    inst = Instance.load("drf-paper")
    with pytest.raises(PluginError) as err:
        run(mech, inst, {})
    assert "(<9/2, 0> then <3, 2>)" in str(err.value)


def test_deterministic_foreign_mechanisms_still_get_verdicts():
    def drf_copy(instance):
        return fairlab.allocate("drf", instance).tasks

    assert not is_builtin(mechanisms.get(drf_copy))
    assert properties.check(drf_copy, "si", "drf-paper").status == "holds"
    assert properties.check(drf_copy, "sp", "drf-paper").status in ("none-found", "holds")


def test_every_registered_mechanism_is_a_builtin():
    assert all(is_builtin(mechanisms.get(name)) for name in mechanisms.names())


def test_a_plugin_allocation_is_cached_only_after_its_two_runs_agreed():
    """Inside `allocation_cache()` a foreign mechanism is run twice on a new instance (the check)
    and not again on the same one; an alternating one is still refused at its first instance."""
    calls = itertools.count()

    def counted(instance):
        next(calls)
        return fairlab.allocate("drf", instance).tasks

    mech, inst = mechanisms.get(counted), Instance.load("drf-paper")
    with properties.base.allocation_cache():
        first, again = run(mech, inst, {}), run(mech, inst, {})
        assert first == again and next(calls) == 2
        with pytest.raises(PluginError, match=NOT_DETERMINISTIC):
            run(mechanisms.get(alternating()), inst, {})
    run(mech, inst, {})  # outside the block: run twice again
    assert next(calls) == 5
