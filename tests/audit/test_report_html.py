"""The audit report's HTML and SVG without a browser (`fairlab.audit.html`, `fairlab.audit.figures`):
well-formed, self-contained, escaped, deterministic, every violated property drawn, and `write`
atomic with one-line refusals of bad paths. What a browser renders: test_report_browser.py."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import subprocess
import sys
from html import escape
from html.parser import HTMLParser
from pathlib import Path

import pytest

import fairlab
from fairlab import properties
from fairlab.audit import html as report
from fairlab.audit.figures import allocation_svg, panels_svg
from fairlab.core.errors import InputError

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


class Tree(HTMLParser):
    """Checks that tags nest and close, and collects what the tests look for."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.figures: dict[str, list[dict]] = {}   # data-property -> rects inside its figure
        self.rows: dict[str, str] = {}             # data-property -> data-status in table#properties
        self.row_text: dict[str, str] = {}
        self.ids: list[str] = []
        self._figure: str | None = None
        self._row: str | None = None
        self._in_properties = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(a["id"])
        if tag == "table" and a.get("id") == "properties":
            self._in_properties = True
        if tag == "tr" and self._in_properties and "data-property" in a:
            self._row = a["data-property"]
            self.rows[self._row] = a.get("data-status")
            self.row_text[self._row] = ""
        if tag == "figure" and "allocation-figure" in (a.get("class") or "").split():
            self._figure = a.get("data-property")
            self.figures.setdefault(self._figure, [])
        if tag == "rect" and self._figure is not None:
            self.figures[self._figure].append(a)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):  # <rect .../> in SVG
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()
        if tag == "figure":
            self._figure = None
        if tag == "tr":
            self._row = None
        if tag == "table":
            self._in_properties = False

    def handle_data(self, data):
        if self._row is not None:
            self.row_text[self._row] += data


def parse(page: str) -> Tree:
    tree = Tree()
    tree.feed(page)
    tree.close()
    assert not tree.errors, tree.errors[:5]
    assert tree.stack == [], f"unclosed: {tree.stack}"
    return tree


@pytest.fixture
def page(audit_sample) -> str:
    return report.render(audit_sample)


def test_the_page_is_well_formed_html5_with_unique_ids(page):
    assert page.startswith("<!DOCTYPE html>\n<html lang=\"en\">")
    tree = parse(page)
    assert len(tree.ids) == len(set(tree.ids)), sorted(i for i in tree.ids if tree.ids.count(i) > 1)
    assert {"properties", "reference", "reproduce"} <= set(tree.ids)
    assert "<title>fairlab audit: sample</title>" in page


def test_the_page_references_nothing_outside_itself(page):
    # the SVG namespace name is an identifier, never fetched: the one http:// allowed
    text = page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    for needle in ("http://", "https://", "<link", "@import", "<script", "<iframe", "<object", "<embed", "//fonts."):
        assert needle not in text.lower(), needle
    assert not re.search(r"\b(src|href)\s*=\s*(?![\"']?#)", text), "a src/href that is not a fragment link"
    assert re.findall(r"url\((?!#)", text) == [], "a CSS/SVG url() that is not a fragment"


def test_statuses_are_shown_as_words_in_the_property_table(audit_sample, page):
    tree = parse(page)
    props = audit_sample["properties"]
    assert list(tree.rows) == [p["property"] for p in props]
    for p in props:
        assert tree.rows[p["property"]] == p["status"]
        assert p["status"] in tree.row_text[p["property"]]
        assert p["summary"] in " ".join(tree.row_text[p["property"]].split())
    # the sample shows every status but error (a crash row: tests/domain/test_verbs.py renders one)
    assert {p["status"] for p in props} | {"error"} == set(report.STATUSES), "the sample shows every status"
    legend = page[page.index('id="status-legend"'):]
    assert all(status in legend for status in report.STATUSES)


def test_every_violated_property_has_a_figure_with_drawn_segments(audit_sample, page):
    tree = parse(page)
    violated = [p for p in audit_sample["properties"] if p["status"] == "violated"]
    assert {p["property"] for p in violated} == {"si", "sp", "pe", "pm", "rm", "gsp"}
    assert list(tree.figures) == [p["property"] for p in violated]
    for p in violated:
        segments = [r for r in tree.figures[p["property"]] if r.get("class") == "segment"]
        assert segments and all(float(r["width"]) > 0 and float(r["height"]) > 0 for r in segments)
        labels = [a["label"] for a in p["allocations"]]
        assert len(labels) == {"si": 1, "sp": 2, "pe": 2, "pm": 2, "rm": 2, "gsp": 2}[p["property"]]
        assert all(escape(label) in page for label in labels)
    # the figures show the exact values as text: sp's misreport gives user u2 3/4 tasks
    assert "u2 (3/4 tasks)  ◀ witness" in page and "u2 declares &lt;4/3, 1&gt;" in page
    assert "after u1 leaves" in page and "1/n = 1/2" in page


def test_the_sections_carry_the_document(audit_sample, page):
    srf = next(p for p in audit_sample["properties"] if p["property"] == "srf")
    assert all(escape(c) in page for c in srf["core"])
    assert f"Unsat core at 3×1 ({len(srf['core'])} constraints: spec ∧ ¬srf is unsatisfiable" in page
    assert escape(audit_sample["command"]) in page and audit_sample["provenance"]["z3-solver"] in page
    for mech in ("drf", "ceei", "bmf", "asset"):
        assert f'<td class="reference" data-mechanism="{mech}">' in page
    for p in audit_sample["properties"]:
        assert escape(p["summary"]) in page
        if p["status"] not in ("violated", "proved"):
            assert escape(p["explanation"]) in page
    for p in audit_sample["properties"]:
        if p["fixture"]:
            assert p["fixture"] in page


def test_hostile_names_are_escaped_everywhere(audit_sample):
    doc = copy.deepcopy(audit_sample)
    doc["mechanism"] = HOSTILE
    doc["command"] = f"fairlab audit '{HOSTILE}'"
    doc["about"]["title"] = HOSTILE
    for p in doc["properties"]:
        p["summary"] = p["explanation"] = HOSTILE
        for a in p["allocations"]:
            a["label"] = HOSTILE
            a["instance"]["users"] = [f"{HOSTILE}{i}" for i in range(len(a["instance"]["users"]))]
            a["instance"]["resources"] = [f'"{HOSTILE}{j}' for j in range(len(a["instance"]["resources"]))]
        if p["instance"]:
            p["instance"]["users"] = [f"{HOSTILE}{i}" for i in range(len(p["instance"]["users"]))]
        if p["core"]:
            p["core"] = [HOSTILE]
    doc["reference"]["mechanisms"][HOSTILE] = {"si": {"status": HOSTILE, "evidence": HOSTILE}}
    page = report.render(doc)
    assert "<script" not in page and "<img" not in page
    assert "&lt;script&gt;" in page
    parse(page)


def test_render_is_deterministic_across_processes(audit_sample, page):
    assert report.render(copy.deepcopy(audit_sample)) == page
    code = ("import json, sys, hashlib; from fairlab.audit import html; "
            "print(hashlib.sha256(html.render(json.load(open(sys.argv[1]))).encode()).hexdigest())")
    sample = Path(__file__).with_name("audit_sample.json")
    out = subprocess.run([sys.executable, "-c", code, str(sample)], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONHASHSEED": "12345"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == hashlib.sha256(page.encode()).hexdigest()


def test_a_sparse_document_still_renders():
    page = report.render({"mechanism": "m", "properties": [{"property": "si", "status": "violated",
                                                             "allocations": [{"shares": [["x"]]}]}]})
    parse(page)
    assert 'data-status="violated"' in page and "No property was proved" in page


# ------------------------------------------------------------------------------ figures
def _allocation(**changes) -> dict:
    a = fairlab.allocate("asset", {"capacities": [1, 1], "demands": [[1, 1], [0, 1]]})
    out = {"label": "allocation", "tasks": [fairlab.to_dict(t, versioned=False) for t in a.tasks],
           "shares": [[fairlab.to_dict(s, versioned=False) for s in row] for row in a.shares],
           "instance": {"capacities": [1, 1], "demands": [[1, 1], [0, 1]], "users": ["A", "B"],
                        "resources": ["CPU", "GB"]},
           "user": 0, "equal_split": ["1/2", "1/2"]}
    out.update(changes)
    return out


def test_allocation_svg_draws_exact_values_with_cues_beyond_colour():
    svg = allocation_svg(_allocation(), "asset on <1, 1>")
    parse(svg)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "asset on &lt;1, 1&gt;" in svg
    assert svg.count('class="segment"') == 3  # A on CPU and GB, B on GB (B's zero CPU share is not drawn)
    assert "A on CPU: 1/3 of the capacity" in svg  # the exact tooltip
    assert "A (1/3 tasks)  ◀ witness" in svg and 'class="witness"' in svg
    assert svg.count('class="equal-split"') == 2 and "1/n = 1/2" in svg
    assert "capacity 1" in svg and ">CPU<" in svg
    assert svg.count("<pattern ") == 2 and "<path d=" in svg  # one hatch per user, over its colour


def test_panels_keep_a_users_look_across_panels_and_ids_apart():
    before = _allocation(label="before")
    alone = {"capacities": [1, 1], "demands": [[0, 1]], "users": ["B"], "resources": ["CPU", "GB"]}
    after = _allocation(label="after A leaves", tasks=[1], shares=[[0, 1]], user=0, equal_split=None, instance=alone)
    svg = panels_svg([before, after])
    b_fill = re.findall(r'data-user="B"[^>]*fill="url\(#([^)]+)\)"', svg)
    assert len(set(b_fill)) == 1 and len(b_fill) == 2, b_fill  # B looks the same before and after
    assert svg.count('class="panel"') == 2
    assert panels_svg([before, after]) == svg
    assert panels_svg([before]) != panels_svg([after])
    one, two = panels_svg([before], id_prefix="a"), panels_svg([before], id_prefix="b")
    assert 'id="a-s0"' in one and 'id="b-s0"' in two
    assert panels_svg([]) == ""


def test_figures_survive_odd_values_and_long_names():
    long = "x" * 200
    svg = allocation_svg(_allocation(shares=[["0.25", "root of x^2-2"], ["1/0", None]], tasks=["1.5"],
                                     instance={"capacities": [1, 1], "users": [long, "B"], "resources": [long, "r"]},
                                     user=7), long)
    parse(svg)
    assert "xxxxxxxxxxxxxxxxx…" in svg and long in svg  # shortened on the chart, whole in a tooltip
    assert 'class="witness"' not in svg  # no such user


# ------------------------------------------------------------------------------ writing
def test_write_is_atomic_and_replaces(tmp_path, audit_sample):
    target = tmp_path / "report.html"
    target.write_text("old")
    report.write(audit_sample, target)
    assert target.read_text(encoding="utf-8") == report.render(audit_sample)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]
    assert target.stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_write_failure_keeps_the_old_file_and_leaves_no_temporary(tmp_path, audit_sample, monkeypatch):
    target = tmp_path / "report.html"
    target.write_text("old")

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(report.os, "replace", refuse)
    with pytest.raises(InputError, match=r"^--out: cannot write .*report\.html.*Permission denied$"):
        report.write(audit_sample, target)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


@pytest.mark.parametrize("where, words", [
    ("dir", "is a directory"),
    ("missing/report.html", "does not exist"),
    ("file/report.html", "is not a directory"),
    ("", "the file name is empty"),
    ("new/", "names a directory"),
])
def test_write_refuses_bad_paths_in_one_line(tmp_path, audit_sample, where, words):
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("x")
    path = "" if where == "" else f"{tmp_path}/{where}"
    with pytest.raises(InputError, match=words):
        report.check_path(path)  # what `fairlab audit --out` asks before the audit runs
    with pytest.raises(InputError) as caught:
        report.write(audit_sample, path)
    message = str(caught.value)
    assert message.startswith("--out: ") and words in message and "\n" not in message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "file"]
    assert list((tmp_path / "dir").iterdir()) == []


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes into read-only folders")
def test_write_refuses_a_read_only_folder(tmp_path, audit_sample):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(InputError, match="is not writable"):
            report.write(audit_sample, folder / "report.html")
    finally:
        folder.chmod(0o755)


def test_write_never_writes_inside_the_installed_package(audit_sample):
    inside = Path(report.__file__).parent / "report.html"
    with pytest.raises(InputError, match="inside the installed package"):
        report.write(audit_sample, inside)
    assert not inside.exists()


def test_the_sample_is_an_audit_document(audit_sample):
    assert audit_sample["kind"] == "audit" and audit_sample["schema_version"] == 1
    assert [p["property"] for p in audit_sample["properties"]] == list(properties.names())
    assert set(audit_sample["reference"]["mechanisms"]) == {"drf", "ceei", "bmf", "asset"}
    json.dumps(audit_sample)


# ------------------------------------------------------------------------------ the page's structure
class Structure(HTMLParser):
    """The order of the page's landmarks, and what sits inside which <details>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.order: list[str] = []        # ids of sections, tables and details, in page order
        self.header: list[list[str]] = []  # table#properties' header rows (cell texts)
        self.details: list[dict] = []     # each <details>: class, data-property, open, tags inside
        self.open_details: list[dict] = []
        self._in_head = False
        self._cell: list[str] | None = None
        self.sizes = [0, 0]  # per-size tables outside, inside a <details>

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for d in self.open_details:
            d["inside"].append((tag, a.get("class") or ""))
        if tag == "table" and a.get("class") == "sizes":
            self.sizes[bool(self.open_details)] += 1
        if a.get("id") and tag in ("section", "table", "details"):
            self.order.append(f"{tag}#{a['id']}")
        if tag == "table" and a.get("id") == "properties":
            self._in_head = True
        if tag == "tbody":
            self._in_head = False
        if tag == "tr" and self._in_head:
            self.header.append([])
        if tag == "th" and self._in_head:
            self._cell = []
        if tag == "details":
            record = {"class": a.get("class") or "", "property": a.get("data-property"), "open": "open" in a,
                      "inside": []}
            self.details.append(record)
            self.open_details.append(record)

    def handle_endtag(self, tag):
        if tag == "details":
            self.open_details.pop()
        if tag == "th" and self._cell is not None:
            self.header[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def structure(page: str) -> Structure:
    found = Structure()
    found.feed(page)
    return found


def test_the_reference_profiles_sit_beside_the_status_in_the_property_table(audit_sample, page):
    """Not at the bottom of the page: the reference columns follow the audited status in the property
    table itself, their evidence is folded right below it, before the counterexamples."""
    found = structure(page)
    assert found.header[-1] == ["property", "sample", "drf", "ceei", "bmf", "asset", "summary"]
    assert found.order.index("table#properties") < found.order.index("details#reference") \
        < found.order.index("section#counterexamples")
    assert found.order.index("details#reference") == found.order.index("table#properties") + 1
    tree = Tree()
    tree.feed(page)
    for p in audit_sample["properties"]:
        row = tree.row_text[p["property"]]
        for mech in ("drf", "ceei", "bmf", "asset"):
            entry = audit_sample["reference"]["mechanisms"][mech].get(p["property"])
            if entry and entry["status"] != "not established":
                assert entry["status"] in row, (p["property"], mech, row)
    # the audited mechanism is not its own reference column
    drf = copy.deepcopy(audit_sample)
    drf["mechanism"] = "drf"
    assert structure(report.render(drf)).header[-1] == ["property", "drf", "ceei", "bmf", "asset", "summary"]


def test_proofs_and_per_size_records_are_folded(audit_sample, page):
    found = structure(page)
    proofs = [d for d in found.details if "proof" in d["class"].split()]
    proved = [p["property"] for p in audit_sample["properties"]
              if p.get("proved_sizes") or p["status"] == "proved" or p.get("spec_proved_sizes")]
    assert [d["property"] for d in proofs] == proved and proofs
    assert not any(d["open"] for d in found.details), "everything folded is closed"
    srf = next(d for d in proofs if d["property"] == "srf")
    assert ("ul", "core") in srf["inside"]  # the unsat core is inside the fold
    assert ("table", "sizes") in srf["inside"]
    assert "<ul class=\"core\">" not in re.sub(r"<details.*?</details>", "", page, flags=re.S)
    # every per-size table is inside a <details>
    assert found.sizes[0] == 0 and found.sizes[1] == page.count('<table class="sizes">') > 0
    # the summary line says what was proved where
    assert re.search(r"<summary><strong>srf</strong>.*?proved.*? at 1×1, 2×1, 3×1; unsat core of \d+ constraints",
                     page)
