"""The README keeps its promises: the Quick start is one block of two lines (what CI runs), and every
verb of the command line and every shipped schema is documented."""

import re
from pathlib import Path

import typer.main

from fairlab.cli import app
from fairlab.core import schemas

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


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


def test_every_schema_is_documented():
    assert [name for name in schemas.names() if f"`{name}`" not in README] == []
