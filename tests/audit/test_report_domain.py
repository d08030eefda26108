"""Reports never overstate: the audit's JSON, HTML header and table, markdown and LaTeX name the
domain explored and, for a property whose evidence covers only a sub-domain, which one."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairlab.audit import html, latex, markdown
from fairlab.audit.run import audit
from fairlab.core import schemas

PLUGINS = Path(__file__).resolve().parents[1] / "plugins"


@pytest.fixture(scope="module")
def documents():
    mech = f"{PLUGINS / 'domain_mechs.py'}:scalar_split"
    on_all = audit(mech, 2, 2, candidates=20, time_limit=300, properties_=["si", "ef"]).to_dict()
    on_scalar = audit(mech, 2, 2, candidates=20, time_limit=300, properties_=["si", "ef"],
                      domain="weights=scalar").to_dict()
    return on_all, on_scalar


def test_json_names_the_sub_domain_a_searched_property_covers(documents):
    on_all, on_scalar = documents
    schemas.validate(on_all, "audit")
    schemas.validate(on_scalar, "audit")
    rows = {p["property"]: p for p in on_all["properties"]}
    assert rows["si"]["status"] == "none-found"  # it declined every weight vector: searched on scalar weights
    assert rows["si"]["domain"]["name"] == "weights=scalar" and "sub-domain" in rows["si"]["domain"]["note"]
    assert "the candidates evaluated cover only weights=scalar" in rows["si"]["summary"]
    assert on_all["domain"]["name"] == "all" and on_all["domain"]["sub_domains"]["si"] == "weights=scalar"
    sizes = {(s["users"], s["resources"]): s for s in rows["si"]["sizes"]}
    assert sizes[(2, 2)]["covered"] == "weights=scalar" and sizes[(2, 1)]["covered"] == "all"  # one resource
    # asked on scalar weights: the whole domain is covered, nothing qualified
    assert on_scalar["domain"]["sub_domains"] == {}
    assert all("note" not in p["domain"] for p in on_scalar["properties"])


def test_html_header_and_table_say_which_rows_cover_less(documents):
    on_all, on_scalar = documents
    page = html.render(on_all)
    assert "Instance domain: <b>all</b>; the evidence of si covers only weights=scalar" in page
    assert 'class="muted sub-domain"' in page and ">on weights=scalar</span>" in page
    assert "the lab knows neither a counterexample in this domain nor a proof" in page  # the legend's dash
    plain = html.render(on_scalar)
    assert "every verdict covers all of it" in plain and 'class="muted sub-domain"' not in plain


def test_markdown_and_latex_say_it_too(documents):
    on_all, on_scalar = documents
    text = markdown.render(on_all)
    assert "**none-found (on weights=scalar)**" in text
    assert "Instance domain: **all**; the evidence of si covers only weights=scalar" in text
    assert "— (not established: the lab knows neither a counterexample in this domain nor a proof)" in text
    assert "(on weights=scalar)" not in markdown.render(on_scalar)
    table = latex.table(on_all)
    assert r"si covers only \emph{weights=scalar}" in table and "none-found (on weights=scalar)" in table
    assert "Every verdict covers the whole domain." in latex.table(on_scalar)


def test_a_proof_covers_the_explored_domain_and_the_header_says_which():
    """A built-in's proof covers the domain the audit explored, here the asked `all` ∩ the domain
    asset is declared on (one weight per user, caps): the row is unqualified and the header says
    which part of `all` was explored; asked on unweighted, nothing is qualified either."""
    report = audit("asset", 1, 2, properties_=["pe"], candidates=10, time_limit=300).to_dict()
    row = report["properties"][0]
    assert row["status"] == "proved" and "(on" not in markdown.status_word(row)
    assert report["domain"]["sub_domains"] == {} and report["domain"]["weights"] == "scalar"
    assert report["domain"]["asked"] == "all" and "explored all ∩ weights=scalar" in report["domain"]["note"]
    assert "explored all ∩ weights=scalar" in markdown.render(report)
    unweighted = audit("asset", 1, 2, properties_=["pe"], candidates=10, time_limit=300, domain="unweighted")
    assert unweighted.to_dict()["domain"]["sub_domains"] == {}
    assert "(on" not in markdown.status_word(unweighted.to_dict()["properties"][0])
