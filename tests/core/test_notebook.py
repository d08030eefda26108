"""Notebook display and JSON text (issue 29): `_repr_html_` of Result, Instance, Allocation and
AuditReport; `fairlab.to_json` is text, `fairlab.to_dict` the dict."""

import json
import warnings
from html.parser import HTMLParser

import fairlab
from fairlab import mechanisms
from fairlab.audit.run import audit
from fairlab.core.instance import Instance
from fairlab.core.results import Result


class _Balanced(HTMLParser):
    """Fails on a closing tag that does not match the open one (a broken fragment)."""

    VOID = {"br", "meta", "img", "hr", "input", "col", "wbr", "link"}

    def __init__(self):
        super().__init__()
        self.stack, self.errors = [], []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)


def balanced(fragment: str) -> bool:
    parser = _Balanced()
    parser.feed(fragment)
    return not parser.errors and not parser.stack


def test_to_json_is_text_and_to_dict_the_dict():
    result = fairlab.check("asset", "si", "thm1-asset-si")
    text = fairlab.to_json(result)
    assert isinstance(text, str)
    document = fairlab.to_dict(result)
    assert isinstance(document, dict) and json.loads(text) == document
    assert document["schema_version"] == fairlab.SCHEMA_VERSION and document["status"] == "violated"
    assert Result.from_json(text).status == result.status == Result.from_json(document).status
    assert json.loads(result.to_json()) == result.to_dict() == document


def test_result_html_shows_the_instance_and_the_allocation():
    result = fairlab.check("asset", "si", "thm1-asset-si")
    page = result._repr_html_()
    assert balanced(page)
    assert "<th>CPU</th>" in page and "capacity" in page  # the instance, with its resource names
    assert "allocations" in page and "<td>u2: 12</td>" in page  # asset gives <6, 12>
    holds = fairlab.check("drf", "si", "thm1-asset-si")._repr_html_()
    assert "<td>u2: 12</td>" not in holds and "allocations" in holds and balanced(holds)


def test_sp_counterexample_html_compares_both_allocations():
    result = fairlab.check("ceei", "sp", "thm4-ceei-sp", evaluations=60)
    assert result.status == "violated"
    page = result._repr_html_()
    assert balanced(page)
    compared = result.details["compared"]
    assert [c["label"] for c in compared] == ["allocation", "allocation of the derived instance"]
    assert compared[0]["tasks"] != compared[1]["tasks"]  # the misreport changes the allocation
    for c in compared:
        assert c["label"] in page and all(f"{u}: {t}" in page for u, t in zip(c["users"], c["tasks"]))


def test_instance_and_allocation_html():
    inst = Instance.build([9, 18], [[1, 4], [3, 1]], users=["alice", "bob"], resources=["cpu", "ram"])
    page = inst._repr_html_()
    assert balanced(page) and "alice" in page and "<th>ram</th>" in page and "<td>18</td>" in page
    shown = mechanisms.allocate("drf", inst)._repr_html_()
    assert balanced(shown) and "alice" in shown and "drf" in shown


def test_audit_report_html_and_text():
    report = audit("asset", 2, 1, properties_=["si"], candidates=10, with_examples=False)
    page = report._repr_html_()
    assert balanced(page) and "fairlab-audit" in page and "data-property=\"si\"" in page
    assert "body {" not in page and ":root" not in page  # the style sheet is scoped to the report
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        text = str(report)
    assert text.startswith("#") and "si" in text and "AuditReport(" not in text
