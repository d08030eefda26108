"""Every engine honours the domain: instance streams, shrinking, search, check, prove, mechanisms'
declarations, crashes as findings (issue 27)."""

from __future__ import annotations

import itertools

import pytest

from fairlab import mechanisms, properties
from fairlab.core.domain import ALL, PRESETS, Domain
from fairlab.core.errors import InputError, PluginCrash
from fairlab.core.instance import Instance
from fairlab.search import engines, space
from fairlab.search.proof import prove
from fairlab.search.shrink import shrink

PAPER = PRESETS["drf-paper"]


@pytest.fixture
def mechs(plugins):
    return lambda name: mechanisms.get(f"{plugins / 'domain_mechs.py'}:{name}")


def test_grid_and_random_stay_in_the_domain():
    for domain in (PAPER, Domain(capacities="unit", demands="positive")):
        for inst in itertools.islice(space.grid(2, 3, domain=domain), 200):
            assert domain.contains(inst) is None
        for inst in itertools.islice(space.random_instances(3, 2, seed=1, domain=domain), 200):
            assert domain.contains(inst) is None
        for inst in itertools.islice(space.grid(2, 2, discrete=True, domain=domain), 100):
            assert domain.contains(inst) is None
    # the union's streams are those of earlier versions: zero demands do appear
    assert any(0 in row for inst in itertools.islice(space.grid(2, 2), 50) for row in inst.demands)
    default = [i.to_dict() for i in itertools.islice(space.random_instances(2, 2, seed=3), 20)]
    assert default == [i.to_dict() for i in itertools.islice(space.random_instances(2, 2, seed=3, domain=ALL), 20)]


def test_shrinking_never_leaves_the_domain():
    start = Instance.build([5, 7], [[3, 4], [2, 6]])
    # every candidate of 2 users × 2 resources "violates": shrink lowers the entries as far as it goes
    everything = lambda inst: "violated" if (inst.n, inst.m) == (2, 2) else None  # noqa: E731
    small, *_ = shrink(start, "violated", everything, trials=400)
    assert (small.n, small.m) == (2, 2) and any(0 in row for row in small.demands)  # unrestricted: zeros
    small, *_ = shrink(start, "violated", everything, trials=400, domain=PAPER)
    assert (small.n, small.m) == (2, 2) and PAPER.contains(small) is None


def test_mechanisms_declare_their_domain(mechs):
    dynamic = mechanisms.get("dynamic-drf")
    assert dynamic.domain.demands == "positive" and dynamic.positive_demands
    assert mechanisms.get("drf").domain == ALL
    declared = mechs("positive_only")
    assert declared.domain == Domain(demands="positive")
    assert mechs("equal_split").domain == ALL


def test_a_bad_domain_attribute_is_one_line(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text("def f(instance):\n    return [0] * instance.n\nf.domain = 'sideways'\n")
    with pytest.raises(InputError, match="domain attribute"):
        mechanisms.get(f"{path}:f")


def test_check_refuses_an_instance_outside_the_asked_or_declared_domain(mechs):
    zero = {"capacities": [1, 1], "demands": [[1, 0], [1, 1]]}
    with pytest.raises(InputError, match="outside the domain drf-paper"):
        properties.check("drf", "si", zero, domain="drf-paper")
    with pytest.raises(InputError, match="declares"):
        properties.check(mechs("positive_only"), "si", zero)
    result = properties.check("drf", "si", zero)
    assert result.domain["name"] == "all" and result.to_dict()["domain"]["name"] == "all"


def test_deviations_stay_in_the_domain(mechs):
    """sp of raw_drf on a positive instance: its misreports with a zero demand crash it on all, but
    are no deviations on drf-paper."""
    inst = {"capacities": [1, 1], "demands": [[1, 1]]}
    with pytest.raises(PluginCrash):
        properties.check(mechs("raw_drf"), "sp", inst, evaluations=60)
    assert properties.check(mechs("raw_drf"), "sp", inst, evaluations=60, domain="drf-paper").status != "violated"


def test_search_explores_asked_and_declared_and_records_it(mechs):
    on_all = engines.search(mechanisms.get("drf"), "pm", 3, 2, engines=["grid"], candidates=300, time_limit=120)
    assert on_all.status == "violated" and on_all.domain["name"] == "all"
    assert any(0 in row for row in on_all.instance.demands)
    on_paper = engines.search(mechanisms.get("drf"), "pm", 3, 2, engines=["grid"], candidates=300, time_limit=120,
                              domain="drf-paper")
    assert on_paper.status == "none-found" and on_paper.domain["name"] == "drf-paper"
    # equal_split ignores weights: the weighted candidates catch it, inside the declared positive demands
    declared = engines.search(mechs("positive_only"), "si", 2, 2, engines=["grid", "random"], candidates=40)
    assert declared.status == "violated" and declared.instance.weights_given != "none"
    assert all(d > 0 for row in declared.instance.demands for d in row)
    assert declared.domain["demands"] == "positive" and "declared" in declared.domain["note"]
    unweighted = engines.search(mechs("positive_only"), "si", 2, 2, engines=["grid", "random"], candidates=40,
                                domain="weights=none")
    assert unweighted.status == "none-found"
    assert unweighted.domain["demands"] == "positive" and "declared" in unweighted.domain["note"]


def test_a_crash_is_a_finding_shrunk_with_the_plugins_line(mechs, plugins):
    # raw_drf ignores weights (a weighted si violation would be the answer): unweighted instances
    result = engines.search(mechs("raw_drf"), "si", 2, 2, engines=["grid", "random"], time_limit=120,
                            domain="weights=none")
    assert result.status == "error"
    assert result.instance.to_dict()["demands"] in ([[0, 1]], [[1, 0]])  # the smallest: one user, one zero
    where = result.certificate["where"]
    assert where.startswith(str(plugins / "domain_mechs.py")) and "ZeroDivisionError" in result.certificate[
        "exception"]
    lines = (plugins / "domain_mechs.py").read_text().splitlines()
    assert "rate[r]" in lines[int(where.rsplit(":", 1)[1]) - 1]
    assert result.to_dict()["status"] == "error"
    # on positive demands it never crashes: the same search is a verdict there
    assert engines.search(mechs("raw_drf"), "si", 2, 2, engines=["grid", "random"], candidates=100,
                          domain="drf-paper").status == "none-found"


def test_prove_records_the_domain_it_covers():
    # the whole domain (weight vectors): DRF does not give each user its weight share of each resource
    on_all = prove(mechanisms.get("drf"), "si", 2, 2)
    assert on_all.status == "refuted" and on_all.domain["name"] == "all" and "note" not in on_all.domain
    assert on_all.instance["weights"] and any(len(set(map(str, row))) > 1 for row in on_all.instance["weights"])
    scalar = prove(mechanisms.get("drf"), "si", 2, 2, domain="weighted,weights=scalar,caps=none")
    assert scalar.status == "proved" and scalar.domain["weights"] == "scalar" and "note" not in scalar.domain
    on_paper = prove(mechanisms.get("drf"), "si", 2, 2, domain="drf-paper")
    assert on_paper.status == "proved" and on_paper.domain["name"] == "drf-paper" and "note" not in on_paper.domain
    flag = prove(mechanisms.get("drf"), "si", 2, 2, positive_demands=True, domain="unweighted")
    assert flag.domain["demands"] == "positive"
    refuted = prove(mechanisms.get("drf"), "pm", 3, 2, domain="unweighted")
    assert refuted.status == "refuted" and refuted.domain["name"] == "unweighted"


def test_prove_in_another_setting_refuses_a_narrower_domain():
    with pytest.raises(InputError, match="--domain"):
        prove(mechanisms.get("dynamic-drf"), "dynamic-si", 2, 1, domain="weights=none")


def test_a_crash_does_not_hide_a_violation_found_later(mechs, plugins):
    """The grid meets a zero demand (a crash) before a two-user instance (a violation): the answer
    is the violation, and its notes count the crashes; the crash alone is the answer only when no
    violation is found (the audit: a violation outranks an error)."""
    result = engines.search(mechs("greedy_first"), "si", 2, 2, engines=["grid"], candidates=200, time_limit=120)
    assert result.status == "violated"
    assert all(d > 0 for row in result.instance.demands for d in row)
    assert result.details["crashed"]["grid"] >= 1
    assert any("also raised" in note for note in result.details["notes"])
    alone = engines.search(mechs("greedy_first"), "si", 1, 2, engines=["grid"], candidates=50, time_limit=120)
    assert alone.status == "error"  # one user cannot be denied its share, but the zero demand crashes it
    lines = (plugins / "domain_mechs.py").read_text().splitlines()
    divides = next(k for k, line in enumerate(lines, 1) if "raises when some d is 0" in line)
    assert alone.certificate["where"].endswith(f"domain_mechs.py:{divides}")  # the line that divides


def test_none_found_covers_the_part_of_the_domain_the_candidates_were_drawn_from():
    """The engines draw weights and caps: a none-found on `all` covers all of it; where the mechanism
    declares one weight per user (asset), it draws only there and says it covers only that."""
    from fairlab.mechanisms import get

    result = engines.search(get("drf"), "pe", 2, 2, engines=["grid"], candidates=30, time_limit=120)
    assert result.status == "none-found"
    assert result.domain["name"] == "all" and "note" not in result.domain
    drawn = result.details["drawn"]
    assert drawn["vector_weights"] and drawn["weighted"] > drawn["vector_weights"] and drawn["capped"]
    assert drawn["evaluated"] == 30 and drawn["weighted"] + drawn["capped"] <= 15  # half of them plain
    declined = engines.search(get("asset"), "pe", 2, 2, engines=["grid"], candidates=30, time_limit=120)
    # drawn only where asset is defined
    assert declined.status == "none-found" and declined.details["drawn"]["vector_weights"] == 0
    assert declined.domain["weights"] == "scalar" and declined.domain["caps"] == "allowed"
    assert declined.domain["asked"] == "all" and "explored all ∩ weights=scalar" in declined.domain["note"]
    unweighted = engines.search(get("drf"), "pe", 2, 2, engines=["grid"], candidates=30, time_limit=120,
                                domain="unweighted")
    assert unweighted.domain["name"] == "unweighted" and unweighted.details["drawn"]["weighted"] == 0
