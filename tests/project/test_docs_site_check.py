"""The documentation site's browser check (.ci/check_site.py) finds what it must, on a tiny site made here.

CI runs the check on the built site (bash .ci/docs); these tests show it can fail: a link to no file,
a link to a missing id, a console error, an uncaught exception, a request off the site (to another
loopback address: nothing leaves the machine) and an empty page are each reported, and a clean site
passes. Without Chromium they are skipped, unless CI is set.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def checker():
    spec = importlib.util.spec_from_file_location("check_site", ROOT / ".ci" / "check_site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def check():
    module = checker()
    executable = module.load_browser().chromium_executable()
    if not executable or not os.access(executable, os.X_OK):
        if os.environ.get("CI"):
            pytest.fail("Chromium not found; CI is set, so this is a failure, not a skip")
        pytest.skip("Chromium not found (install the system package `chromium`, or set FAIRLAB_CHROMIUM)")
    return lambda site: module.check(site, module.load_browser())


HEAD = "<head><title>{}</title><link rel='icon' href='data:,'></head>"  # no request for /favicon.ico


def page(title: str, body: str) -> str:
    return f"<!doctype html><html>{HEAD.format(title)}<body><article>{body}</article></body></html>"


def write(site: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text, encoding="utf-8")
    return site


def test_a_clean_site_passes(check, tmp_path):
    site = write(tmp_path, {"index.html": page("Home", '<a href="a/">A</a> <a href="a/#part">part</a>'),
                            "a/index.html": page("A", '<h2 id="part">Part</h2><a href="../">home</a>')})
    problems, pages, links = check(site)
    assert problems == [] and pages == 2 and links == 3


def test_every_kind_of_problem_is_reported(check, tmp_path):
    site = write(tmp_path, {
        "index.html": page("Home", '<a href="missing/">x</a> <a href="a/#nope">y</a> <a href="a/">z</a>'),
        "a/index.html": page("A", '<script>console.error("boom"); notDefined();</script>'
                                  '<img src="http://127.0.0.2:9/x.png">text'),
        "empty/index.html": f"<!doctype html><html>{HEAD.format('')}<body></body></html>",
    })
    problems, _, _ = check(site)
    text = "\n".join(problems)
    assert "/: link /missing/ names no file of the site" in text
    assert "/: link /a/#nope: no element with that id" in text
    assert "/a/: console: boom" in text
    assert "/a/: exception:" in text and "notDefined" in text
    assert "/a/: request off the site: http://127.0.0.2:9/x.png" in text
    assert "/empty/: rendered empty" in text
