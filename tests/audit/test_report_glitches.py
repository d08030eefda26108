"""The report's words agree with what happened: how a counterexample was found (a shipped example
only when it IS one, the search engine by name), a shrunk instance's default names numbered as its
indices (r1, r2; not r2, r3), `prove`'s unsat-core count agreeing with the names listed, and the
terminal table's summary column wide enough to read."""

from __future__ import annotations

import re

import pytest

from fairlab.audit import html as report
from fairlab.audit import markdown
from fairlab.audit.markdown import how_found
from fairlab.audit.run import audit
from fairlab.cli.commands.audit import SUMMARY_WIDTH, print_table
from fairlab.cli.commands.prove import core_count
from fairlab.core.instance import Instance, examples
from fairlab.search.shrink import shrink


@pytest.mark.parametrize("row, words, absent", [
    ({"found_by": "example", "origin": {"engine": "example", "example": "drf-paper", "shrink_steps": 0}},
     "among the shipped examples: it is the example drf-paper", "shrinking"),
    ({"found_by": "example", "origin": {"engine": "example", "example": "drf-paper", "shrink_steps": 8}},
     "by shrinking the shipped example drf-paper (8 steps; it is not itself a shipped example)", "among"),
    ({"found_by": "example", "origin": None}, "starting from a shipped example", "among"),
    ({"found_by": "search", "origin": {"engine": "grid", "example": None, "shrink_steps": 1}},
     "by the grid search engine, then shrunk in 1 step", "example"),
    ({"found_by": "search"}, "by the search engines", "example"),
    ({"found_by": "proof", "origin": {"engine": "prove", "example": None, "shrink_steps": 0}},
     "from a model of spec ∧ ¬property", "shrunk"),
])
def test_how_found_names_the_engine_and_the_example_only_when_it_is_one(row, words, absent):
    text = how_found(row)
    assert words in text and absent not in text, text


def test_a_shrunk_example_is_not_called_a_shipped_example(audit_sample):
    """A real audit: asym's si counterexample starts from a shipped example and is shrunk; the
    document names the example, counts the steps, and the report does not say "among the shipped
    examples"; the instance is indeed not that example's."""
    # unweighted: asym ignores weights, and a weighted violation found by the search would be plainer
    doc = audit("tests/plugins/asym.py:asym", 2, 2, properties_=["si"], time_limit=120, domain="unweighted").to_dict()
    row = doc["properties"][0]
    assert row["status"] == "violated" and row["found_by"] == "example", row
    origin = row["origin"]
    assert origin["engine"] == "example" and origin["example"] in examples(), origin
    example = Instance.resolve(examples()[origin["example"]]).to_dict()
    assert (origin["shrink_steps"] == 0) == (example == row["instance"]), (origin, example, row["instance"])
    assert origin["shrink_steps"] > 0
    page = report.render(doc)
    assert "among the shipped examples" not in page
    assert f"by shrinking the shipped example {origin['example']}" in page
    assert f"Found by shrinking the shipped example {origin['example']}" in markdown.render(doc)


def test_shrinking_renumbers_default_names_and_keeps_given_ones():
    """Dropping the first user and resource of a default-named 3×3 instance gives u1, u2 and r1, r2;
    an instance with its own names keeps them."""
    def violates(inst):  # a "violation" while user 3's demand of the last resource is there
        return "yes" if inst.n >= 2 and inst.demands[-1][-1] == 5 else None

    plain = Instance.from_dict({"capacities": [9, 9, 9], "demands": [[1, 1, 1], [1, 2, 3], [1, 1, 5]]})
    small, _, steps, _, _ = shrink(plain, "yes", violates, trials=200)
    assert steps > 0 and small.n == 2 and small.m == 1
    assert list(small.users) == ["u1", "u2"] and list(small.resources) == ["r1"]
    named = Instance.from_dict({"capacities": [9, 9, 9], "demands": [[1, 1, 1], [1, 2, 3], [1, 1, 5]],
                                "users": ["ann", "bob", "cy"], "resources": ["cpu", "mem", "net"]})
    small, _, _, _, _ = shrink(named, "yes", violates, trials=200)
    assert list(small.resources) == ["net"] and list(small.users)[-1] == "cy"


@pytest.mark.parametrize("core, words", [
    (["drf.bottleneck[0]", "sp.violated"], "2"),
    (["domain.positive[0]", "drf.bottleneck[0]", "domain.positive[1]", "sp.violated"],
     "2 of 4 shown; 2 domain bounds omitted"),
    (["domain.positive[0]", "sp.violated"], "1 of 2 shown; 1 domain bound omitted"),
])
def test_prove_core_count_agrees_with_the_names_listed(core, words):
    assert core_count(core) == words
    shown = [c for c in core if not c.startswith("domain.")]
    assert int(words.split()[0]) == len(shown)


def test_the_terminal_tables_summary_column_is_readable(audit_sample, capsys):
    """With four reference columns of long statuses, the summary still gets SUMMARY_WIDTH characters."""
    print_table(audit_sample)
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if "summary" in line and "┃" in line)
    widths = [len(cell) for cell in header.strip().strip("┃").split("┃")]
    assert header.split("┃")[-2].strip() == "summary"
    assert widths[-1] - 2 >= SUMMARY_WIDTH, widths
    # every summary is printed whole (folded over lines, never cut)
    body = re.sub(r"\s+", " ", " ".join(line.split("│")[-2] for line in lines if line.count("│") > 2))
    for row in audit_sample["properties"]:
        assert re.sub(r"\s+", " ", row["summary"])[:60] in body, row["summary"]



def test_prove_prints_as_many_core_names_as_it_says(run_cli):
    out = run_cli("prove", "drf", "sp", "--users", "2", "--resources", "2", timeout=120, env={"COLUMNS": "400"})
    assert out.returncode == 0, out.stderr
    line = out.stdout.split("core (", 1)[1].split("\n")[0]  # one line: COLUMNS is wide
    count, names = line.split("): ", 1)
    listed = [n for n in re.split(r",\s*", names.strip()) if n]
    assert all(re.fullmatch(r"[\w.:\[\]-]+", n) for n in listed), listed
    shown = int(count.split()[0])
    assert shown == len(listed), (count, listed)
    assert not any(n.startswith("domain.") for n in listed)
    if " of " in count:  # domain bounds left out, and said so
        assert re.fullmatch(r"\d+ of \d+ shown; \d+ domain bounds? omitted", count), count
