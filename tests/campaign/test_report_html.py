"""The campaign's HTML report (`fairlab campaign report DIR --out report.html`, `fairlab.campaign.html`):
well-formed and self-contained, every user string escaped, the mechanism × property table linking
to each cell, errors and missing cells shown, each audit cell carrying the audit report's own
sections with their figures, how to reproduce, one-line refusals of a bad --out before any work,
and what a real browser renders (headless Chromium, as tests/audit/test_report_browser.py).

The campaign under test runs once per module (about 2 s): an audit of asset at 2×2 for bf
(violated, with a figure) and sp (proved), and a plug-in whose file name and import error are
hostile HTML (two error cells), in a folder whose name needs shell quoting; one cell's result file
is then removed, as an interrupted campaign leaves it."""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import shutil
from html import escape, unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest

import fairlab
from fairlab.audit import html as audit_html
from fairlab.campaign import html as campaign_html
from fairlab.campaign import report, run
from fairlab.core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "campaign" / "done"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
HOSTILE_FILE = '<b onmouseover="alert(1)">&evil.py'
HOSTILE_ERROR = '<script>alert("x")</script> & broken'
PLUGIN = f'''"""A plug-in whose import fails with a hostile message."""
from fairlab.core.errors import InputError

raise InputError({HOSTILE_ERROR!r})


def allocate(instance):
    return None
'''
SPEC = """verb = "audit"
[sweep]
mechanisms = ["asset", '<b onmouseover="alert(1)">&evil.py:allocate']
sizes = [[2, 2]]
properties = ["bf", "sp"]
[budget]
candidates = 20
time_limit = 30
"""


class Tree(HTMLParser):
    """Checks that tags nest and close; collects ids, fragment links, the grid's links, the cells'
    articles and, per audit section, its figures' segments."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.ids: list[str] = []
        self.hrefs: list[str] = []
        self.links: list[dict] = []                 # a.cell-link attributes, in order
        self.articles: dict[str, dict] = {}         # data-cell -> article.cell attributes
        self.audits: dict[str, dict] = {}           # data-cell -> {property: [segment rects]}
        self._audit: str | None = None
        self._figure: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if a.get("id"):
            self.ids.append(a["id"])
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])
        if tag == "a" and "cell-link" in classes:
            self.links.append(a)
        if tag == "article" and "cell" in classes:
            self.articles[a["data-cell"]] = a
        if tag == "section" and "audit-report" in classes:
            self._audit = a["data-cell"]
            self.audits[self._audit] = {}
        if tag == "figure" and "allocation-figure" in classes and self._audit is not None:
            self._figure = a.get("data-property")
            self.audits[self._audit].setdefault(self._figure, [])
        if tag == "rect" and self._figure is not None and a.get("class") == "segment":
            self.audits[self._audit][self._figure].append(a)
        if tag not in VOID:
            self.stack.append((tag, "audit-report" in classes))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1][0] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        _, was_audit = self.stack.pop()
        if tag == "figure":
            self._figure = None
        if was_audit:
            self._audit = None


def parse(page: str) -> Tree:
    tree = Tree()
    tree.feed(page)
    tree.close()
    assert not tree.errors, tree.errors[:5]
    assert tree.stack == [], f"unclosed: {tree.stack}"
    assert len(tree.ids) == len(set(tree.ids)), sorted(i for i in tree.ids if tree.ids.count(i) > 1)
    missing = {h for h in tree.hrefs if h.startswith("#") and h[1:] not in tree.ids}
    assert not missing, f"links to no id: {sorted(missing)[:5]}"
    return tree


def self_contained(page: str) -> None:
    text = page.replace('xmlns="http://www.w3.org/2000/svg"', "")  # an identifier, never fetched
    for needle in ("http://", "https://", "<link", "@import", "<script", "<iframe", "<object", "<embed", "<img"):
        assert needle not in text.lower(), needle
    assert not re.search(r"\b(src|href)\s*=\s*(?![\"']?#)", text), "a src/href that is not a fragment link"
    assert re.findall(r"url\((?!#)", text) == [], "a CSS/SVG url() that is not a fragment"


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """The campaign folder (a name that needs quoting), its rows as read back, and the removed cell's id."""
    base = tmp_path_factory.mktemp("campaign")
    (base / HOSTILE_FILE).write_text(PLUGIN, encoding="utf-8")
    (base / "spec.toml").write_text(SPEC, encoding="utf-8")
    out = base / "out dir's"
    summary = run.run(base / "spec.toml", out, workers=2)
    assert summary["outcomes"] == {"violated": 1, "proved": 1, "error": 2}, summary
    _, rows = report.read(out)
    removed = next(r for r in rows if r["outcome"] == "error")["id"]
    (out / "cells" / f"{removed}.json").unlink()  # as a campaign interrupted before this cell ends
    return out, removed


@pytest.fixture(scope="module")
def page(campaign) -> str:
    out, _ = campaign
    data, rows = report.read(out)
    return campaign_html.render(data, rows, str(out))


# ------------------------------------------------------------------------------ content
def test_the_page_is_well_formed_self_contained_and_deterministic(campaign, page):
    out, _ = campaign
    assert page.startswith('<!DOCTYPE html>\n<html lang="en">')
    parse(page)
    self_contained(page)
    assert f"<title>{escape('fairlab campaign: ' + str(out))}</title>" in page
    data, rows = report.read(out)
    assert campaign_html.render(copy.deepcopy(data), copy.deepcopy(rows), str(out)) == page


def test_hostile_plugin_names_and_error_texts_are_escaped(page):
    assert "<script" not in page and "<b " not in page and 'onmouseover="' not in page
    assert escape(HOSTILE_FILE) in page and escape(HOSTILE_ERROR) in page
    tree = parse(page)
    errors = [a for a in tree.articles.values() if a["data-outcome"] == "error"]
    assert len(errors) == 1
    error_article = page[page.index(f'id="cell-{errors[0]["data-cell"]}"'):]
    error_article = error_article[:error_article.index("</article>")]
    assert '<pre class="error">' in error_article and escape(HOSTILE_ERROR) in error_article


def test_the_table_links_every_cell_and_shows_the_missing_one(campaign, page):
    out, removed = campaign
    _, rows = report.read(out)
    tree = parse(page)
    assert [a["data-cell"] for a in tree.links] == [r["id"] for r in rows]
    assert [a["href"] for a in tree.links] == [f"#cell-{r['id']}" for r in rows]
    outcomes = {a["data-cell"]: a["data-outcome"] for a in tree.links}
    assert outcomes[removed] == "missing" and list(outcomes.values()).count("error") == 1
    assert {a["data-cell"]: a["data-outcome"] for a in tree.articles.values()} == outcomes
    assert "No result file: the campaign stopped before this cell finished" in page
    for left in ("asset bf", "asset sp", f"{HOSTILE_FILE}:allocate bf"):
        assert f'<tr data-row="{escape(left)}">' in page
    tally = re.search(r'<p class="summary" id="tally">(.*?)</p>', page).group(1)
    tally = unescape(re.sub(r"<[^>]+>", "", tally)).replace("\xa0", " ")
    assert tally.startswith("2 done: ✗ 1 violated ✓ 1 proved · not finished: ")
    assert "! error 1" in tally and "… missing 1" in tally


def test_each_audit_cell_holds_the_audit_report_with_its_figures(campaign, page):
    out, _ = campaign
    _, rows = report.read(out)
    tree = parse(page)
    audits = [r for r in rows if r["outcome"] == "done"]
    assert {r["cell"]["property"] for r in audits} == {"bf", "sp"}
    assert set(tree.audits) == {r["id"] for r in audits}
    for row in audits:
        document = row["result"]
        assert document["kind"] == "audit"
        # the same HTML as `fairlab audit --out`: its sections, ids prefixed by the cell's
        assert audit_html.sections(document) in audit_html.render(document)
        assert audit_html.sections(document, ids=f"cell-{row['id']}-") in page
        figures = tree.audits[row["id"]]
        if row["status"] == "violated":
            assert list(figures) == ["bf"]
            assert figures["bf"] and all(float(r["width"]) > 0 and float(r["height"]) > 0 for r in figures["bf"])
        else:
            assert figures == {}
        assert f'id="cell-{row["id"]}-reproduce"' in page and escape(document["command"]) in page


def test_the_reproduction_is_the_run_command_shell_quoted(campaign, page):
    out, _ = campaign
    data, _ = report.read(out)
    section = page[page.index('<section id="reproduce">'):]
    text = unescape(re.sub(r"<[^>]+>", "", section))
    assert f"fairlab campaign run spec.json --out {shlex.quote(str(out))}" in text
    assert shlex.split(f"fairlab campaign run spec.json --out {shlex.quote(str(out))}")[-1] == str(out)
    spec_text = unescape(re.search(r'<code class="spec">(.*?)</code>', section, re.S).group(1))
    assert json.loads(spec_text) == data["spec"]
    assert f"<th>lab</th><td><code>{fairlab.__version__}</code>" in section


def test_unfinished_cells_show_their_outcome_and_error_text():
    cell = {"lab": "0.1.0", "verb": "search", "mechanism": {"name": "drf"}, "property": "si", "size": "2×2",
            "users": 2, "resources": 2, "seed": 0, "instance": None, "loads": None, "requirements": None,
            "options": {}, "budget": {"time_limit": 1}}
    rows = [{"id": f"{k:016x}", "cell": {**cell, "seed": k}, "outcome": outcome, "status": None, "seconds": 11.0,
             "error": f"{outcome}: {HOSTILE_ERROR}", "result": None, "provenance": None}
            for k, outcome in enumerate(("timeout", "crashed", "error"))]
    page = campaign_html.render({"spec": {"verb": "search"}, "cells": []}, rows, "out")
    tree = parse(page)
    assert [a["data-outcome"] for a in tree.links] == ["timeout", "crashed", "error"]
    for outcome in ("timeout", "crashed", "error"):
        assert f'<span class="badge outcome-{outcome}">' in page
        assert f'<pre class="error"><code>{escape(outcome + ": " + HOSTILE_ERROR)}</code></pre>' in page
    assert "<script" not in page
    parse(campaign_html.render({}, [], "empty"))  # nothing recorded: still a page


# ------------------------------------------------------------------------------ the example folder, the CLI
def test_the_committed_example_folder_as_a_report(run_cli, tmp_path):
    target = tmp_path / "report.html"
    done = run_cli("campaign", "report", EXAMPLE, "--out", target)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr.strip() == f"report: {target}"
    page = target.read_text(encoding="utf-8")
    tree = parse(page)
    self_contained(page)
    data, rows = report.read(EXAMPLE)
    assert page == campaign_html.render(data, rows, str(EXAMPLE))
    assert len(tree.articles) == len(rows) == 8 and [a["data-cell"] for a in tree.links] == [r["id"] for r in rows]
    assert [a["data-status"] for a in tree.links] == [r["status"] for r in rows]
    lefts, tops, _ = report.table(rows)
    assert all(f"<th>{escape(top)}</th>" in page for top in tops)
    assert all(f'<tr data-row="{escape(left)}">' in page for left in lefts)
    # a violated search shows its counterexample: the instance and the witness
    violated = next(r for r in rows if r["status"] == "violated")
    article = page[page.index(f'id="cell-{violated["id"]}"'):]
    article = article[:article.index("</article>")]
    assert '<table class="instance">' in article and '<code class="witness">' in article
    assert escape(violated["result"]["explanation"]) in article
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]  # written atomically: no leftovers


def test_out_with_a_format_writes_the_page_and_prints_the_format(run_cli, tmp_path):
    target = tmp_path / "report.html"
    done = run_cli("campaign", "report", EXAMPLE, "--out", target, "--format", "jsonl")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 8 and all(json.loads(line)["id"] for line in done.stdout.splitlines())
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("where, words", [
    ("dir", "is a directory"),
    ("missing/report.html", "does not exist"),
    ("file/report.html", "is not a directory"),
    ("", "the file name is empty"),
    ("new/", "names a directory"),
    ("link.html", "is a symbolic link"),
    ("out/campaign.json", "the campaign's own results"),
    ("out/cells/report.html", "the campaign's own results"),
])
def test_a_bad_out_is_refused_in_one_line(tmp_path, where, words):
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("x")
    (tmp_path / "link.html").symlink_to(tmp_path / "file")
    shutil.copytree(EXAMPLE, tmp_path / "out")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and not p.is_symlink()}
    path = "" if where == "" else f"{tmp_path}/{where}"
    with pytest.raises(InputError) as caught:
        campaign_html.check_path(path, tmp_path / "out")
    with pytest.raises(InputError):
        data, rows = report.read(tmp_path / "out")
        campaign_html.write(data, rows, str(tmp_path / "out"), path)
    message = str(caught.value)
    assert message.startswith("--out: ") and words in message and "\n" not in message
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and not p.is_symlink()} == before
    assert list((tmp_path / "dir").iterdir()) == []


def test_the_cli_refuses_a_bad_out_before_reading_the_folder(run_cli, tmp_path, assert_one_line_error):
    inside = Path(fairlab.__file__).parent / "campaign-report.html"
    # the folder does not exist: the --out error comes first, so the check precedes any work
    assert_one_line_error(run_cli("campaign", "report", tmp_path / "nowhere", "--out", inside),
                          "--out", "inside the installed package")
    assert not inside.exists()
    (tmp_path / "target").write_text("x")
    (tmp_path / "link.html").symlink_to(tmp_path / "target")
    assert_one_line_error(run_cli("campaign", "report", EXAMPLE, "--out", tmp_path / "link.html"),
                          "--out", "symbolic link")
    assert (tmp_path / "target").read_text() == "x"
    assert_one_line_error(run_cli("campaign", "report", tmp_path / "nowhere", "--out", tmp_path / "r.html"),
                          "campaign.json")
    assert not (tmp_path / "r.html").exists()


# ------------------------------------------------------------------------------ a real browser
@pytest.fixture(scope="module")
def loaded(browser, campaign, tmp_path_factory):
    """The campaign's page written to a file and loaded in the headless Chromium of
    tests/conftest.py (skipped without Chromium, failed instead when CI is set): (browser, folder)."""
    folder = tmp_path_factory.mktemp("browser")
    path = folder / "report.html"
    data, rows = report.read(campaign[0])
    campaign_html.write(data, rows, str(campaign[0]), path)
    browser.navigate(path.as_uri())
    return browser, folder


def test_the_browser_renders_the_table_the_cells_and_the_audit_figures(loaded, campaign):
    browser, _ = loaded
    _, removed = campaign
    found = browser.evaluate("""(() => {
        const box = e => { const b = e.getBoundingClientRect(); return [b.width, b.height]; };
        return {
          links: Array.from(document.querySelectorAll('table#grid a.cell-link')).map(a => ({
              cell: a.dataset.cell, outcome: a.dataset.outcome, text: a.innerText, box: box(a),
              target: !!document.getElementById(a.getAttribute('href').slice(1))})),
          rows: Array.from(document.querySelectorAll('table#grid tbody tr')).map(tr => tr.innerText),
          figures: Array.from(document.querySelectorAll('section.audit-report figure.allocation-figure')).map(f => ({
              box: box(f), segments: Array.from(f.querySelectorAll('rect.segment')).map(box),
              text: f.querySelector('svg').textContent})),
          audits: document.querySelectorAll('section.audit-report').length,
          error: (document.querySelector('article.cell[data-outcome="error"] pre.error') || {}).innerText,
          reproduce: document.querySelector('section#reproduce').innerText,
          pageWidth: document.documentElement.scrollWidth, viewport: window.innerWidth}; })()""")
    assert len(found["links"]) == 4 and all(link["target"] for link in found["links"])
    assert all(link["box"][0] > 20 and link["box"][1] > 10 for link in found["links"]), found["links"]
    words = {link["cell"]: link["text"] for link in found["links"]}
    assert "missing" in words[removed] and sorted(w.split()[-1] for w in words.values()) == \
        ["error", "missing", "proved", "violated"]
    assert any(row.startswith("asset bf") and "violated" in row for row in found["rows"])
    assert found["audits"] == 2 and len(found["figures"]) == 1
    figure = found["figures"][0]
    assert min(figure["box"]) > 100 and figure["segments"] and all(w > 10 and h > 0 for w, h in figure["segments"])
    assert "100%" in figure["text"] and "witness" in figure["text"]
    assert HOSTILE_ERROR in found["error"]
    assert "fairlab campaign run spec.json --out" in found["reproduce"]
    assert found["pageWidth"] <= found["viewport"], "the page scrolls sideways"


def test_nothing_failed_and_nothing_was_fetched_and_a_screenshot_is_taken(loaded):
    browser, folder = loaded
    assert browser.problems == []
    shot = browser.screenshot(folder / "campaign-report.png")
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 20_000
    keep = os.environ.get("FAIRLAB_SCREENSHOT_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, Path(keep) / "campaign-report.png")
