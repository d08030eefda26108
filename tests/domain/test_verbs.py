"""The verbs take --domain and every JSON result carries it; audits per domain; crashes in an audit;
reference profiles per domain; campaigns, fairlab.testing and the strategies (issue 27)."""

from __future__ import annotations

import json

import pytest

from fairlab.audit import reference
from fairlab.audit.run import audit
from fairlab.campaign.spec import expand
from fairlab.core import schemas
from fairlab.core.domain import ALL, PRESETS
from fairlab.core.errors import InputError

PAPER = PRESETS["drf-paper"]
ZERO = {"capacities": [1, 1], "demands": [[1, 0], [1, 1]]}


def test_reference_profiles_are_per_domain():
    on_paper = reference.profile("drf", PAPER)
    on_all = reference.profile("drf", ALL)
    assert on_paper["pm"]["status"] == "proved"
    assert on_all["pm"]["status"] == "violated"
    zero = on_all["pm"]["instance"]["demands"]
    assert any(str(d) == "0" for row in zero for d in row)  # the violation needs a zero demand
    # with weight vectors DRF violates si (a catalogue refutation inside the union); pe is proved on the union
    assert on_all["si"]["status"] == "violated" and on_paper["si"]["status"] == "proved"
    assert on_all["pe"]["status"] == "proved" and on_paper["pe"]["status"] == "proved"
    # a proof on unit weights and no caps is not a proof on the union: it says so
    assert on_all["bf"]["status"] == "proved (restricted)"
    assert reference.profiles(domain=PAPER)["domain"] == "drf-paper"


def test_audit_of_a_crashing_plugin_is_a_profile_with_error_rows(plugins, tmp_path):
    mech = f"{plugins / 'domain_mechs.py'}:raw_drf"
    report = audit(mech, 1, 2, candidates=30, time_limit=120, store=tmp_path / "store", properties_=["si", "pe"])
    rows = {r.property: r for r in report.results}
    assert rows["si"].status == "error" and rows["pe"].status == "error"
    assert rows["si"].instance.to_dict()["demands"] in ([[0, 1]], [[1, 0]])
    assert rows["si"].certificate["where"].startswith(str(plugins / "domain_mechs.py"))
    assert "zero demand" in rows["si"].details["summary"]
    document = report.to_dict()
    schemas.validate(document, "audit")
    assert document["properties"][0]["crash"]["exception"].startswith("ZeroDivisionError")
    assert not list((tmp_path / "store").glob("**/*.json"))  # nothing is stored for an error
    on_paper = audit(mech, 1, 2, candidates=30, time_limit=120, properties_=["si"], domain="drf-paper")
    assert on_paper.results[0].status == "none-found" and on_paper.domain["name"] == "drf-paper"


def test_equal_split_on_the_paper_domain_has_no_si_violation(plugins):
    mech = f"{plugins / 'domain_mechs.py'}:equal_split"
    on_all = audit(mech, 2, 2, candidates=20, time_limit=120, properties_=["si"])
    assert on_all.results[0].status == "violated"
    assert on_all.results[0].instance.weights_given != "none"  # the weighted example, shrunk
    on_paper = audit(mech, 2, 2, candidates=20, time_limit=120, properties_=["si"], domain="drf-paper")
    assert on_paper.results[0].status != "violated"
    assert on_paper.results[0].domain["name"] == "drf-paper"
    assert "--domain drf-paper" in on_paper.command


def test_verbs_take_domain_and_json_carries_it(run_cli, assert_one_line_error):
    out = run_cli("check", "drf", "si", "drf-paper", "--domain", "drf-paper", "--format", "json")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    assert document["domain"]["name"] == "drf-paper"
    schemas.validate(document, "result")
    out = run_cli("prove", "drf", "si", "--domain", "drf-paper", "--format", "json")
    assert out.returncode == 0 and json.loads(out.stdout)["domain"]["name"] == "drf-paper"
    out = run_cli("search", "drf", "si", "--domain", "drf-paper", "--engine", "grid", "--candidates", "20",
                  "--no-store", "--format", "json")
    assert out.returncode == 0 and json.loads(out.stdout)["domain"]["name"] == "drf-paper"
    for verb in (["search", "drf", "si"], ["prove", "drf", "si"], ["audit", "drf"], ["matrix"],
                 ["check", "drf", "si", "drf-paper"]):
        assert_one_line_error(run_cli(*verb, "--domain", "sideways"), "--domain", "sideways")


def test_check_outside_the_domain_is_exit_2(run_cli, assert_one_line_error, tmp_path):
    path = tmp_path / "zero.json"
    path.write_text(json.dumps(ZERO))
    assert_one_line_error(run_cli("check", "drf", "si", path, "--domain", "drf-paper"), "outside the domain")
    assert_one_line_error(run_cli("check", "dynamic-drf", "all", path), "declares")


def test_audit_takes_several_domains(run_cli, plugins):
    mech = f"{plugins / 'domain_mechs.py'}:equal_split"
    out = run_cli("audit", mech, "-n", "1", "-m", "1", "--property", "si", "--candidates", "5", "--no-store",
                  "--domain", "drf-paper", "--domain", "all", "--format", "json")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    schemas.validate(document, "audit-domains")
    assert [p["domain"]["name"] for p in document["profiles"]] == ["drf-paper", "all"]
    assert document["profiles"][0]["reference"]["domain"] == "drf-paper"


def test_campaign_sweeps_domains(tmp_path):
    spec = {"verb": "search", "sweep": {"mechanisms": ["drf"], "properties": ["si"], "sizes": [[2, 2]],
                                        "domains": ["drf-paper", "all"]}}
    cells = expand(spec, tmp_path)
    assert [c.description["domain"] for c in cells] == ["drf-paper", "all"]
    plain = expand({**spec, "sweep": {k: v for k, v in spec["sweep"].items() if k != "domains"}}, tmp_path)
    assert "domain" not in plain[0].description  # the cells of earlier versions
    with pytest.raises(InputError, match="sweep.domains"):
        expand({**spec, "sweep": {**spec["sweep"], "domains": ["nowhere"]}}, tmp_path)


def test_testing_and_strategies_take_a_domain(plugins):
    from hypothesis import given, settings

    from fairlab import strategies
    from fairlab.testing import PropertyAssertionError, assert_satisfies

    mech = f"{plugins / 'domain_mechs.py'}:raw_drf"
    result = assert_satisfies(mech, "si", up_to=(1, 2), candidates=20, domain="drf-paper")
    assert result.domain["name"] == "drf-paper"
    with pytest.raises(PropertyAssertionError, match="error"):
        assert_satisfies(mech, "si", up_to=(1, 2), candidates=20)

    @settings(max_examples=40, deadline=None)
    @given(strategies.instances(domain="drf-paper"))
    def inside(instance):
        assert PAPER.contains(instance) is None

    inside()


def test_reports_show_an_error_row_and_the_domain(plugins):
    from fairlab.audit import html, markdown

    mech = f"{plugins / 'domain_mechs.py'}:raw_drf"
    document = audit(mech, 1, 2, candidates=20, time_limit=120, properties_=["si"]).to_dict()
    page = html.render(document)
    assert "status-error" in page and "domain_mechs.py:" in page and "Instance domain" in page
    text = markdown.render(document)
    assert "**error at 1×2**" in text and "## Errors (raises and wrong answers)" in text
    assert "Instance domain: **all**" in text


def test_audit_of_a_plugin_that_crashes_somewhere_exits_0_with_error_rows_and_violations(run_cli, plugins):
    """The issue's shape: the audit ends (exit 0); a property whose search met only crashes is an
    `error` row with its smallest crashing instance and the plug-in's own line; si, violated on an
    instance with positive demands, is `violated` although the search met a crash first."""
    mech = f"{plugins / 'domain_mechs.py'}:greedy_first"
    out = run_cli("audit", mech, "-n", "2", "-m", "2", "--property", "si", "--property", "rm", "--no-store",
                  "--candidates", "60", "--format", "json", "--progress", "none")
    assert out.returncode == 0, out.stderr
    rows = {p["property"]: p for p in json.loads(out.stdout)["properties"]}
    si, rm = rows["si"], rows["rm"]
    assert si["status"] == "violated"
    assert all(d != "0" and d != 0 for row in si["instance"]["demands"] for d in row)
    assert rm["status"] == "error"
    assert rm["instance"]["demands"] == [[0, 1]] or rm["instance"]["demands"] == [["0", "1"]]
    lines = (plugins / "domain_mechs.py").read_text().splitlines()
    divides = next(k for k, line in enumerate(lines, 1) if "raises when some d is 0" in line)
    assert rm["crash"]["where"].endswith(f"domain_mechs.py:{divides}")


def test_rediscover_takes_a_domain_and_every_claim_result_records_it(run_cli):
    """On the DRF paper's domain, Theorem 1's counterexample is found again with positive demands;
    without --domain every claim's result still records its domain (all)."""
    args = ["rediscover", "--claim", "thm1-asset-si", "--no-store", "--format", "json", "--progress", "none"]
    plain = run_cli(*args)
    assert plain.returncode == 0, plain.stderr
    (result,) = json.loads(plain.stdout)["results"]
    assert result["domain"]["asked"] == "all"  # asset fairness takes one weight per user: explored all ∩ that
    paper = run_cli(*args, "--domain", "drf-paper")
    assert paper.returncode == 0, paper.stderr
    (result,) = json.loads(paper.stdout)["results"]
    assert result["status"] == "found" and result["domain"]["name"] == "drf-paper"
    assert all(int(d) > 0 for row in result["instance"]["demands"] for d in row)

