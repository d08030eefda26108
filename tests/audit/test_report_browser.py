"""The audit report in a real browser: headless Chromium (the `browser` fixture of conftest.py)
loads the written file and the test checks what was RENDERED — the property table's text, each
allocation figure with a non-empty box and drawn segments, the reference table, no console errors
and no request leaving the file — then takes a full-page screenshot (into pytest's tmp_path, and
into $FAIRLAB_SCREENSHOT_DIR when set). Skipped without Chromium, failed instead when CI is set."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from fairlab.audit import html as report


@pytest.fixture(scope="module")
def loaded(browser, tmp_path_factory):
    """The sample report written to a file and loaded in the browser: (browser, document, folder)."""
    sample = json.loads(Path(__file__).with_name("audit_sample.json").read_text(encoding="utf-8"))
    folder = tmp_path_factory.mktemp("report")
    path = folder / "report.html"
    report.write(sample, path)
    browser.navigate(path.as_uri())
    return browser, sample, folder


def test_the_property_table_shows_each_property_and_its_status_word(loaded):
    browser, sample, _ = loaded
    rows = browser.evaluate("""Array.from(document.querySelectorAll('table#properties tbody tr')).map(tr => ({
        property: tr.dataset.property, status: tr.dataset.status, text: tr.innerText,
        visible: tr.getBoundingClientRect().height > 0}))""")
    assert [r["property"] for r in rows] == [p["property"] for p in sample["properties"]]
    for row, p in zip(rows, sample["properties"]):
        assert row["visible"], row
        assert row["status"] == p["status"]
        cells = row["text"].split("\t")
        assert cells[0].split()[0] == p["property"] and p["status"] in cells[1], row["text"]
    title = browser.evaluate("document.title")
    assert title == f"fairlab audit: {sample['mechanism']}"


def test_each_figure_is_drawn(loaded):
    browser, sample, _ = loaded
    figures = browser.evaluate("""Array.from(document.querySelectorAll('figure.allocation-figure')).map(f => {
        const box = f.getBoundingClientRect(), svg = f.querySelector('svg');
        const segments = svg ? Array.from(svg.querySelectorAll('rect.segment')).map(r => {
            const b = r.getBoundingClientRect(); return [b.width, b.height]; }) : [];
        return {property: f.dataset.property, width: box.width, height: box.height,
                svg: svg ? [svg.getBoundingClientRect().width, svg.getBoundingClientRect().height] : null,
                segments: segments, text: svg ? svg.textContent : ''}; })""")
    violated = [p["property"] for p in sample["properties"] if p["status"] == "violated"]
    assert [f["property"] for f in figures] == violated
    for figure in figures:
        assert figure["width"] > 100 and figure["height"] > 100, figure
        assert figure["svg"] and min(figure["svg"]) > 100, figure
        assert figure["segments"] and all(w > 10 and h > 0 for w, h in figure["segments"]), figure
        assert "100%" in figure["text"] and "witness" in figure["text"]


def test_the_reference_profiles_and_the_reproduction_are_rendered(loaded):
    """The reference columns are drawn in the property table, beside the status: each of its rows has
    a visible cell per reference mechanism, on the same line as the property."""
    browser, sample, _ = loaded
    found = browser.evaluate("""(() => {
        const t = document.querySelector('table#properties'), r = document.querySelector('section#reproduce');
        const rows = Array.from(t.querySelectorAll('tbody tr')).map(tr => {
            const cells = Array.from(tr.querySelectorAll('td.reference'));
            const first = tr.cells[0].getBoundingClientRect(), status = tr.cells[1].getBoundingClientRect();
            return {property: tr.dataset.property, refs: cells.map(c => c.dataset.mechanism),
                    texts: cells.map(c => c.innerText.trim()),
                    beside: cells.every(c => Math.abs(c.getBoundingClientRect().top - first.top) < 2
                                             && c.getBoundingClientRect().left >= status.right - 1)}; });
        return {rows: rows, width: t.getBoundingClientRect().width, reproduce: r.innerText,
                pageWidth: document.documentElement.scrollWidth, viewport: window.innerWidth}; })()""")
    assert found["width"] > 600
    for row in found["rows"]:
        assert row["refs"] == ["drf", "ceei", "bmf", "asset"] and row["beside"], row
    sp = next(r for r in found["rows"] if r["property"] == "sp")
    assert "violated" in sp["texts"][1] and "proved" in sp["texts"][0]  # ceei violates sp, drf is proved
    assert sample["command"] in found["reproduce"] and sample["provenance"]["lab"] in found["reproduce"]
    assert found["pageWidth"] <= found["viewport"], "the page scrolls sideways"


def test_the_page_is_a_few_screens_long(loaded):
    """The sample at 1280 px wide stays a few screens long: about 4,800 px with 11 properties, 6
    counterexamples drawn and reference cells that name the domain of their evidence (about 4,000
    with 9 properties and 5 counterexamples; about 11,000 before proofs and per-size records were
    folded and the figures put beside their instances). A 2×2 audit of drf measures about 2,700 px."""
    browser, _, _ = loaded
    height = browser.evaluate("document.documentElement.scrollHeight")
    assert 1500 < height < 5200, height
    folded = browser.evaluate("""Array.from(document.querySelectorAll('details')).map(d => d.open)""")
    assert folded and not any(folded)


def test_nothing_failed_and_nothing_was_fetched_and_a_screenshot_is_taken(loaded):
    browser, _, folder = loaded
    assert browser.problems == []
    shot = browser.screenshot(folder / "report.png")
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 20_000
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width >= 1000 and height > 1500, (width, height)  # the full page, not the viewport
    keep = os.environ.get("FAIRLAB_SCREENSHOT_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, Path(keep) / "audit-report.png")
