"""The README keeps its promises: it is a front door of at most 200 lines whose Quick start is one block
of two lines (what CI runs) and which names every verb of the command line; every shipped schema is
documented in the concepts page; no user-facing text names the project's internal issue numbers."""

import re
from pathlib import Path

import typer.main

from fairlab.cli import app
from fairlab.core import schemas

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: an internal tracker reference ("issue 18", "issues 18-19", "pre-issue-18"), meaningless to a user
ISSUE_NUMBER = re.compile(r"\bissues?[ -]#?\d+", re.I)


def section(title: str) -> str:
    start = README.index(f"## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end != -1 else None]


def test_quick_start_is_one_block_of_two_lines():
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", section("Quick start"), flags=re.S | re.M)
    assert len(blocks) == 1
    lines = blocks[0].strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("pip install") and lines[0].endswith("fairlab rediscover")
    assert lines[1].startswith("pip install") and "[test]" in lines[1] and lines[1].endswith("python -m pytest")


def test_every_verb_is_documented():
    command = typer.main.get_command(app)
    verbs = list(command.commands)
    missing = [v for v in verbs if f"fairlab {v}" not in README]
    assert missing == [], f"verbs the README does not mention as `fairlab VERB`: {missing}"
    assert "fairlab --version" in README


def test_readme_is_a_front_door():
    lines = README.splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: move the detail into docs/"
    for page in ("docs/getting-started.md", "docs/concepts.md", "docs/citing.md"):
        assert page in README and (ROOT / page).is_file(), page


def test_every_schema_is_documented():
    concepts = (ROOT / "docs" / "concepts.md").read_text(encoding="utf-8")
    assert [name for name in schemas.names() if f"`{name}`" not in concepts] == []


def user_facing_files() -> list[Path]:
    """The README, the hand-written docs pages and the examples researchers copy."""
    docs = [p for p in (ROOT / "docs").rglob("*") if p.suffix in (".md", ".ipynb")]
    return [ROOT / "README.md", *docs, *(ROOT / "examples").rglob("*.py"), *(ROOT / "examples").rglob("*.md")]


def package_files() -> list[Path]:
    """The lab's installed sources: their docstrings are the API reference and their strings the output."""
    folders = ("fairlab", "mechanisms", "properties", "search", "counterexamples", "paper_checks", "dynamics")
    return [p for folder in folders for p in (ROOT / folder).rglob("*.py")]


def test_no_internal_issue_numbers_in_user_facing_text():
    hits = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
            for path in [*user_facing_files(), *package_files()]
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if ISSUE_NUMBER.search(line)]
    assert hits == [], "say what is meant instead of an internal issue number:\n" + "\n".join(hits)


def test_the_issue_number_pattern_can_fail():
    assert ISSUE_NUMBER.search("the speed targets of issue 18") and ISSUE_NUMBER.search("pre-issue-18")
    assert not ISSUE_NUMBER.search("the GitHub issues tracker")
