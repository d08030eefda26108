"""Regressions of the adversarial audit of `fairlab audit` (issue 16): each test is one attack that
once gave a false or unsafe answer."""

from __future__ import annotations

import json
import os
import sys
import time

from fairlab import properties
from fairlab.audit.run import audit, audit_property
from fairlab.counterexamples.store import Store
from fairlab.testing import PropertyAssertionError, assert_satisfies


def test_a_plugin_spec_never_makes_check_say_holds(plugins):
    """sp_sneak: DRF's spec, an allocator that is not strategyproof at drf-paper."""
    mech = f"{plugins / 'sp_sneak.py'}:sp_sneak"
    assert properties.check(mech, "sp", "drf-paper").status != "holds"
    got = {r.property: r.status.value for r in properties.check_all(mech, "drf-paper")}
    assert got["sp"] != "holds"
    # and the misreport itself is a verified violation
    inst = {"capacities": [9, 18], "demands": [[1, 4], [3, 1]]}
    witness = {"user": 0, "misreport": [1, "37/8"]}
    from fairlab.mechanisms import get
    assert properties.Violation("sp", get(mech), properties.base.resolve_instance(inst),
                                properties.get("sp").witness.from_dict(witness), {}).verify()


def test_a_time_limit_never_turns_a_violation_into_proved():
    """DRF violates pm at 3×2 (zero demands); cut short, the audit may not say `proved`."""
    for seconds in (0.5, 2.0):
        r = audit_property("drf", "pm", 3, 2, time_limit=seconds, candidates=30)
        assert r.status in ("unknown", "violated"), (seconds, r.status, r.explanation)
    assert audit_property("drf", "pm", 3, 2, candidates=30).status == "violated"


def test_require_proof_and_declined_sizes_fail_the_assertion(plugins):
    try:
        assert_satisfies("drf", "pm", up_to=(3, 2), require="proof", time_limit=1)
    except PropertyAssertionError:
        pass
    else:
        raise AssertionError("require='proof' passed with sizes undecided")
    try:  # maxmin declines two resources: nothing is tested at 1×2, 2×2
        assert_satisfies("maxmin", "si", up_to=(2, 2), candidates=20)
    except PropertyAssertionError as exc:
        assert "declined" in str(exc)
    else:
        raise AssertionError("assert_satisfies passed with declined sizes")
    assert assert_satisfies("maxmin", "si", up_to=(2, 1), candidates=20).status == "proved"


def test_a_plugin_that_breaks_later_is_an_error_row_and_stores_only_violations(run_cli, plugins, tmp_path):
    """A crash is a finding (issue 27): the audit completes (exit 0), the properties it crashed on are
    `error` at three users (never stored), the violations found at smaller sizes are stored."""
    store = tmp_path / "store"
    out = run_cli("audit", f"{plugins / 'breaks_at_three.py'}:breaks_at_three", "-n", "3", "-m", "1",
                  "--store", store, "--format", "json", timeout=300)
    assert out.returncode == 0, out.stderr
    rows = {row["property"]: row for row in json.loads(out.stdout)["properties"]}
    errors = [row for row in rows.values() if row["status"] == "error"]
    assert errors and all("boom at three users" in row["explanation"] and len(row["instance"]["demands"]) == 3
                          and row["fixture"] is None for row in errors)
    violated = {p for p, row in rows.items() if row["status"] == "violated"}
    stored = {record["property"] for _, record in Store(store).load_all()}
    assert violated and stored == violated


def test_one_fixture_per_violated_property(tmp_path):
    report = audit("asset", 2, 2, store=tmp_path, properties_=["si"])
    assert report.result("si").status == "violated"
    assert len(Store(tmp_path).load_all()) == 1


def test_out_refuses_a_symbolic_link(run_cli, assert_one_line_error, tmp_path):
    target = tmp_path / "target.html"
    target.write_text("keep me")
    link = tmp_path / "link.html"
    os.symlink(target, link)
    assert_one_line_error(run_cli("audit", "drf", "--out", link, timeout=60), "--out", "symbolic link")
    assert link.is_symlink() and target.read_text() == "keep me"


def test_markdown_carries_no_raw_html_or_broken_fences(run_cli, tmp_path):
    folder = tmp_path / "<script>x```"
    folder.mkdir()
    (folder / "m.py").write_text("from fairlab import mechanisms\n\n"
                                 "def f(instance):\n"
                                 "    return [t / 2 for t in mechanisms.allocate('drf', instance).tasks]\n")
    out = run_cli("audit", f"{folder / 'm.py'}:f", "-n", "1", "-m", "1", "--property", "pe", "--no-store",
                  "--format", "markdown", timeout=120)
    assert out.returncode == 0, out.stderr
    prose, reproduce = out.stdout.split("## Reproduce", 1)
    assert "<script>" not in prose and "&lt;script&gt;" in prose  # in a code block it is only text
    fence = reproduce.strip().splitlines()[0]
    assert set(fence) == {"`"} and len(fence) > 3  # longer than the path's run of three backticks
    assert "--property pe" in reproduce


def test_entry_points_run_in_a_worker(run_cli, tmp_path):
    """An installed package's mechanism is stopped at the time limit and its prints stay off stdout."""
    (tmp_path / "their_mech.py").write_text(
        "import time\nfrom fairlab import mechanisms\n\n"
        "def sleeps(instance):\n    time.sleep(3600)\n\n"
        "def chatty(instance):\n    print('HELLO FROM THE PLUG-IN')\n"
        "    return mechanisms.allocate('drf', instance).tasks\n")
    info = tmp_path / "their_mech-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: their-mech\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[fairlab.mechanisms]\nsleepy = their_mech:sleeps\n"
                                           "chatty = their_mech:chatty\n")
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    start = time.monotonic()
    out = run_cli("check", "sleepy", "si", "drf-paper", "--time-limit", "3", env=env, timeout=60)
    assert out.returncode == 2 and "did not return within 3 s" in out.stderr
    assert time.monotonic() - start < 30
    out = run_cli("audit", "chatty", "-n", "1", "-m", "1", "--property", "si", "--no-store", "--format", "json",
                  env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["mechanism"] == "chatty" and "HELLO" in out.stderr
