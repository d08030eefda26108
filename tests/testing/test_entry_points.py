"""A mechanism registered by an installed package (entry-point group ``fairlab.mechanisms``) is
available to every verb by name — checked with a real installed distribution, not a monkeypatched
`importlib.metadata`: a module and its ``.dist-info`` folder (what ``pip install their-mechanisms``
leaves in site-packages) on the PYTHONPATH of a fresh ``python -m fairlab`` process.
"""

from __future__ import annotations

import json

import pytest

MODULE = '''
"""A third party's mechanisms, installed as the distribution their-mechanisms."""
from fairlab import mechanisms


def half_drf(instance):
    """Half of what DRF gives every user."""
    return [t / 2 for t in mechanisms.allocate("drf", instance).tasks]
'''


@pytest.fixture
def installed(tmp_path):
    """A folder holding the installed distribution their-mechanisms 1.0; the env that puts it on sys.path."""
    (tmp_path / "their_mechanisms.py").write_text(MODULE)
    info = tmp_path / "their_mechanisms-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: their-mechanisms\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[fairlab.mechanisms]\nhalf-drf = their_mechanisms:half_drf\n")
    return {"PYTHONPATH": str(tmp_path)}


def test_allocate_and_check_take_the_entry_point_name(run_cli, installed):
    out = run_cli("allocate", "half-drf", "drf-paper", "--format", "json", env=installed)
    assert out.returncode == 0, out.stderr
    drf = run_cli("allocate", "drf", "drf-paper", "--format", "json")
    half, full = json.loads(out.stdout), json.loads(drf.stdout)
    assert half["mechanism"] == "half-drf"
    assert full["tasks"] == ["3", "2"] and half["tasks"] == ["3/2", "1"]
    out = run_cli("check", "half-drf", "si", "drf-paper", "--format", "json", env=installed)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["mechanism"] == "half-drf" and result["status"] == "violated"  # half of the equal split's worth


def test_without_the_distribution_the_name_is_unknown(run_cli, assert_one_line_error):
    assert_one_line_error(run_cli("allocate", "half-drf", "drf-paper"), "half-drf", "unknown")


def test_the_listing_shows_installed_mechanisms(run_cli, installed):
    out = run_cli("mechanisms", "--format", "json", env=installed)
    assert out.returncode == 0, out.stderr
    listed = {m["name"]: m for m in json.loads(out.stdout)["items"]}
    assert listed["half-drf"]["entry_point"] == "their_mechanisms:half_drf"
    assert listed["half-drf"]["distribution"] == "their-mechanisms 1.0" and "drf" in listed
    out = run_cli("mechanisms", env={**installed, "COLUMNS": "200"})
    assert out.returncode == 0 and "half-drf" in out.stdout and "their_mechanisms:half_drf" in out.stdout


def test_the_assertions_take_the_entry_point_name(pytester, installed, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", installed["PYTHONPATH"])
    pytester.makepyfile("""
        from fairlab.testing import assert_satisfies, assert_violates

        def test_half_drf():
            found = assert_violates("half-drf", "si", up_to=(2, 1), candidates=5)
            assert found.mechanism == "half-drf"
            assert assert_satisfies("half-drf", "ef", up_to=(2, 1), candidates=5).status == "none-found"
    """)
    pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=300).assert_outcomes(passed=1)
