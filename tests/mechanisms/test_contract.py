"""Contract tests from the registry: every mechanism `fairlab.mechanisms.names()` lists, and a
plug-in, a plain callable and an entry-point mechanism, behave the same way:

* with a spec: the spec and the numeric allocator agree on a seeded sample (conformance);
* on seeded instances (`fairlab.strategies`): an exact (rational or algebraic), feasible allocation,
  or a one-line `InputError` declining the instance.
"""

from __future__ import annotations

import json
import sys
import types
from importlib import metadata

import pytest
from hypothesis import HealthCheck, given, settings

import fairlab
from fairlab import mechanisms, strategies
from fairlab.core.errors import InputError, PluginError
from fairlab.core.instance import Instance
from fairlab.core.results import Result, to_dict
from fairlab.mechanisms import conformance, registry
from fairlab.mechanisms.base import Allocation, Mechanism, check_feasible

WITH_SPEC = [name for name in mechanisms.names() if mechanisms.get(name).spec is not None]
#: BMF is exact by enumeration and slower: fewer instances (each allocation still exact)
EXAMPLES = {"bmf": 8}


def test_the_registry_lists_every_mechanism_with_its_spec():
    assert {"drf", "asset", "ceei", "bmf", "ks", "maxmin", "drf-tasks", "pdrf"} <= set(mechanisms.names())
    assert set(WITH_SPEC) == set(mechanisms.names())


@pytest.mark.parametrize("name", WITH_SPEC)
def test_spec_and_allocator_agree_on_a_seeded_sample(name):
    checked = 0
    for n, m in [(2, 2), (2, 1)]:
        result = fairlab.conformance(name, n, m, samples=4, seed=11)
        assert isinstance(result, Result) and result.kind == "conformance"
        statuses = {r.status for r in conformance.results_of(result)}
        assert statuses <= {"agrees", "skipped"}, result.explanation
        checked += "agrees" in statuses
    assert checked, f"{name}: the allocator declined every sampled instance"


def _assert_exact_feasible(mechanism: Mechanism, instance: Instance) -> None:
    try:
        allocation = mechanism(instance)
    except InputError as exc:  # a mechanism may decline an instance, in one line
        assert "\n" not in str(exc)
        return
    assert isinstance(allocation, Allocation) and allocation.is_exact(), allocation.describe_exactness()
    check_feasible(instance, allocation.tasks, mechanism.name)


@pytest.mark.parametrize("name", mechanisms.names())
def test_every_mechanism_gives_an_exact_feasible_allocation(name):
    mechanism = mechanisms.get(name)

    @settings(max_examples=EXAMPLES.get(name, 20), deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(strategies.instances(users=(1, 3), resources=(1, 3)))
    def run(instance):
        _assert_exact_feasible(mechanism, instance)

    run()


# --------------------------------------------------------------------------- other ways to name one
def equal_split(instance):
    """Each user gets its tasks of the equal split c/n."""
    return [min(c / instance.n / d for c, d in zip(instance.capacities, row) if d > 0) for row in instance.demands]


def drf_by_hand(instance):
    return mechanisms.allocate("drf", instance).tasks


drf_by_hand.spec = mechanisms.get("drf").spec
drf_by_hand.scale_invariant = True


def test_a_callable_is_a_mechanism_like_a_built_in(plugins):
    mech = fairlab.mechanism(equal_split)
    assert mech.name == f"callable {__name__}.equal_split" and mech.summary.startswith("Each user")
    assert not mech.anonymous and not mech.scale_invariant and mech.spec is None
    assert mechanisms.get(equal_split) is mech  # the same callable, the same Mechanism
    a = fairlab.allocate(equal_split, "drf-paper")
    plugged = fairlab.allocate(f"{plugins / 'unfair.py'}:equal_split", "drf-paper")
    assert a.tasks == plugged.tasks and a.is_exact_rational()

    @settings(max_examples=15, deadline=None, derandomize=True, database=None)
    @given(strategies.instances(users=(1, 3), resources=(1, 3)))
    def run(instance):
        _assert_exact_feasible(mech, instance)

    run()


def test_a_callable_named_like_a_built_in_is_not_reported_as_it():
    """Audit: ``def drf(instance)`` checked from Python gave Result(mechanism="drf"), the built-in's name."""

    def drf(instance):
        return [instance.solo_tasks(0)] + [0] * (instance.n - 1)

    mech = mechanisms.get(drf)
    assert mech.name == f"callable {__name__}.{drf.__qualname__}" and mech is not mechanisms.get("drf")
    assert mech.name not in mechanisms.names()
    result = fairlab.check(drf, "si", "drf-paper")
    assert result.mechanism == mech.name and result.mechanism != "drf" and result.status == "violated"
    assert fairlab.check("drf", "si", "drf-paper").status == "holds"


def test_a_callable_with_a_spec_passes_conformance_like_the_built_in():
    mech = mechanisms.get(drf_by_hand)
    assert mech.scale_invariant and not mech.anonymous
    assert fairlab.conformance(drf_by_hand, 2, 2, samples=3).status == "agrees"


def test_a_spec_attached_after_first_use_is_read_not_ignored():
    """A newcomer's path: use the function, then attach its spec. The lab read the attributes once and kept the
    first Mechanism, so conformance said "no symbolic specification" and a proof would have run without it."""

    def late(instance):
        return drf_by_hand(instance)

    first = mechanisms.get(late)
    assert first.spec is None and mechanisms.get(late) is first  # unchanged attributes: the same Mechanism
    late.spec = mechanisms.get("drf").spec
    late.scale_invariant = True
    again = mechanisms.get(late)
    assert again is not first and again.spec is not None and again.scale_invariant
    assert fairlab.conformance(late, 2, 2, samples=3).status == "agrees"
    del late.spec
    assert mechanisms.get(late).spec is None


def test_a_failing_callable_is_a_plugin_error_and_a_refusal_an_input_error():
    def boom(instance):
        raise RuntimeError("no")

    def refuses(instance):
        raise InputError("not this one")

    def infeasible(instance):
        return [10**6] * instance.n

    with pytest.raises(PluginError, match="boom.*RuntimeError: no"):
        fairlab.allocate(boom, "drf-paper")
    with pytest.raises(InputError, match="not this one"):
        fairlab.allocate(refuses, "drf-paper")
    with pytest.raises(PluginError, match="infeasible"):
        fairlab.allocate(infeasible, "drf-paper")
    with pytest.raises(InputError, match="expected a name, a Mechanism or a callable"):
        mechanisms.get(42)


def _entry_points(monkeypatch, *points):
    fake = types.SimpleNamespace(entry_points=lambda group: [p for p in points if p.group == group])
    monkeypatch.setattr(registry, "metadata", fake)
    monkeypatch.setattr(registry, "_ENTRY_POINTS", {})


def test_an_entry_point_mechanism_is_loaded_on_lookup(monkeypatch, plugins):
    monkeypatch.syspath_prepend(str(plugins))
    _entry_points(monkeypatch, metadata.EntryPoint("split", "unfair:equal_split", "fairlab.mechanisms"),
                  metadata.EntryPoint("drf2", "fairlab.mechanisms.drf:MECHANISM", "fairlab.mechanisms"))
    mech = mechanisms.get("split")
    assert mech.name == "split" and mechanisms.get("split") is mech
    assert fairlab.allocate("split", "drf-paper").tasks == fairlab.allocate(equal_split, "drf-paper").tasks
    assert mechanisms.get("drf2") is mechanisms.get("drf")
    with pytest.raises(InputError, match="unknown"):
        mechanisms.get("not-an-entry-point")


def test_a_broken_entry_point_is_one_line(monkeypatch, plugins):
    monkeypatch.syspath_prepend(str(plugins))
    _entry_points(monkeypatch, metadata.EntryPoint("broken", "broken_import:anything", "fairlab.mechanisms"))
    sys.modules.pop("broken_import", None)
    with pytest.raises(PluginError) as err:
        mechanisms.get("broken")
    assert "\n" not in str(err.value) and "entry point 'broken_import:anything' does not load" in str(err.value)


# --------------------------------------------------------------------------- what a user sees
def test_allocation_str_and_html():
    a = fairlab.allocate("drf", "drf-paper")
    text = str(a)
    assert text.splitlines()[0] == "drf: exact (rational)"
    assert text.splitlines()[1].split() == ["user", "tasks", "CPU", "share", "GB", "share"]
    assert text.splitlines()[2].split() == ["A", "3", "1/3", "2/3"]
    page = a._repr_html_()
    assert page.startswith("<table>") and "<td>2/3</td>" in page and "exact (rational)" in page


def test_conformance_json_is_a_result_document():
    data = to_dict(fairlab.conformance("drf", 2, 2, samples=2))
    assert data["schema_version"] == 1 and data["kind"] == "conformance" and data["status"] == "agrees"
    assert json.loads(json.dumps(data)) == data



def test_conformance_from_python_has_the_cli_size_defaults():
    """``fairlab conformance drf`` samples 2 users × 2 resources; so does ``fairlab.conformance("drf")``."""
    report = fairlab.conformance("drf", samples=2)
    assert report.status == "agrees"
    assert (report.details["users"], report.details["resources"]) == (2, 2)
    assert all(len(r.instance["demands"]) == 2 and len(r.instance["capacities"]) == 2
               for r in conformance.results_of(report))
