"""The pytest plugin as a researcher's suite meets it: each test runs a small test file in a fresh
pytest process (`pytester`), where the plugin is loaded by its ``pytest11`` entry point."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import fairlab

ROOT = Path(__file__).resolve().parents[2]


def run(pytester, *args):
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args, timeout=300)


def test_the_header_names_the_lab_and_the_budget(pytester):
    pytester.makepyfile("def test_nothing(): pass")
    out = run(pytester)
    out.assert_outcomes(passed=1)
    out.stdout.fnmatch_lines([f"fairlab {fairlab.__version__} (z3-solver *)"])
    assert "assertions:" not in out.stdout.str()  # no option given: the engine's defaults, nothing to say
    out = run(pytester, "--fairlab-seed", "4", "--fairlab-candidates", "9")
    out.stdout.fnmatch_lines([f"fairlab {fairlab.__version__} *, assertions: seed 4, candidates 9"])


def test_the_options_reach_the_fixtures_and_the_plain_assertions(pytester, tmp_path):
    pytester.makepyfile(f"""
        import fairlab.testing as t

        def test_budget(fairlab_budget, fairlab):
            expected = t.Budget(seed=4, candidates=9, time_limit=12.5, store={str(tmp_path)!r})
            assert fairlab_budget == expected and fairlab.budget == expected
            assert t.current_budget() == expected  # what assert_satisfies uses for keywords left at None
    """)
    run(pytester, "--fairlab-seed=4", "--fairlab-candidates=9", "--fairlab-time-limit=12.5",
        f"--fairlab-store={tmp_path}").assert_outcomes(passed=1)


def test_without_options_the_engine_defaults_stay(pytester):
    pytester.makepyfile("""
        import sys
        import fairlab.testing as t

        def test_defaults(fairlab_budget):
            assert fairlab_budget == t.Budget() == t.current_budget()
            assert fairlab_budget.store is None  # nothing is stored
            assert "z3" not in sys.modules  # the plugin loaded nothing heavy
    """)
    run(pytester).assert_outcomes(passed=1)


@pytest.mark.parametrize("option", ["--fairlab-candidates=0", "--fairlab-seed=-1", "--fairlab-time-limit=soon"])
def test_a_bad_option_is_a_usage_error(pytester, option):
    pytester.makepyfile("def test_nothing(): pass")
    out = run(pytester, option)
    assert out.ret == pytest.ExitCode.USAGE_ERROR
    assert option.split("=")[0] in out.stderr.str()


def test_it_can_be_turned_off(pytester):
    pytester.makepyfile("def test_fixture(fairlab): pass")
    out = run(pytester, "-p", "no:fairlab")
    out.assert_outcomes(errors=1)
    out.stdout.fnmatch_lines(["*fixture 'fairlab' not found*"])
    assert "fairlab 0" not in out.stdout.str()


def test_assertions_pass_fail_and_show_the_counterexample(pytester, plugins):
    dictator = f"{plugins / 'unfair.py'}:dictator"
    pytester.makepyfile(f"""
        from fairlab.testing import assert_satisfies, assert_violates

        def test_drf_is_sharing_incentive():
            assert assert_satisfies("drf", "si", up_to=(2, 2), domain="unweighted").status == "proved"

        def test_asset_is_not():
            assert_satisfies("asset", "si", up_to=(2, 2))

        def test_a_dictator_violates_it(fairlab):
            result = fairlab.violates({dictator!r}, "si", up_to=(2, 2))
            assert result.status == "violated" and result.instance.n == 2

        def test_the_options_reach_the_engine(fairlab):
            result = fairlab.satisfies("asset", "ef", up_to=(2, 1))
            assert (result.budget["seed"], result.budget["candidates"]) == (3, 7)
    """)
    out = run(pytester, "--fairlab-seed", "3", "--fairlab-candidates", "7")
    out.assert_outcomes(passed=3, failed=1)
    text = out.stdout.str()
    out.stdout.fnmatch_lines([
        "*PropertyAssertionError: asset does not satisfy si up to 2×2: violated",
        "*counterexample (smallest found, verified exactly): 2 users × 2 resources",
        "*capacities: *",
        "* demands <*>",
        "*witness: user * runs * tasks but its equal-split bundle <*> runs *",
        "*sizes tried: 1×1 *",
        "*reproduce:",
        "*echo '{\"capacities\": *}' > instance.json",
        "*fairlab check asset si instance.json",
        "*fairlab audit asset --property si --users 2 --resources 2 --seed 3 --candidates 7",
    ])
    assert "test_asset_is_not" in text and "FAILED" in text


def test_the_example_folder_passes_as_a_user_runs_it():
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "examples/pytest"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "4 passed" in out.stdout


def test_the_domain_option_reaches_the_assertions(pytester):
    """--fairlab-domain: the assertions' instance domain (issue 27); the verdict records it."""
    pytester.makepyfile("""
        import fairlab.testing as t

        def test_domain(fairlab_budget, fairlab):
            assert fairlab_budget.domain == "drf-paper" and t.current_budget().domain == "drf-paper"
            result = fairlab.satisfies("drf", "si", up_to=(1, 2), candidates=5)
            assert result.domain["name"] == "drf-paper"
    """)
    run(pytester, "--fairlab-domain=drf-paper").assert_outcomes(passed=1)
