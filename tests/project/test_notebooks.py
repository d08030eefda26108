"""The tutorial notebooks (docs/tutorials/*.ipynb) are committed as sources, not as results.

CI executes them (`pytest --nbmake docs/tutorials` in the docs step) and the site shows the outputs
of that run, so what is committed must be: valid nbformat 4, without outputs or execution counts
(an output committed by hand could disagree with what the lab computes today), with the python3
kernel nbmake starts, code that parses, no private name of the lab or of another package (the
notebooks teach the public API), and no internal issue numbers in the text a reader sees.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TUTORIALS = ROOT / "docs" / "tutorials"
EXPECTED = ("reproduce-drf.ipynb", "test-your-mechanism.ipynb", "network-bmf-pf-drf.ipynb")
NOTEBOOKS = sorted(TUTORIALS.glob("*.ipynb"))


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def code_cells(notebook: dict) -> list[str]:
    return ["".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            for cell in notebook["cells"] if cell["cell_type"] == "code"]


def test_the_three_tutorials_are_there():
    assert sorted(p.name for p in NOTEBOOKS) == sorted(EXPECTED)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_without_outputs_and_with_the_python3_kernel(path: Path):
    notebook = load(path)
    assert notebook["nbformat"] == 4, f"{path.name}: nbformat {notebook['nbformat']}, expected 4"
    kernel = notebook["metadata"].get("kernelspec", {})
    assert kernel.get("name") == "python3", f"{path.name}: kernel spec {kernel!r}, expected python3"
    assert notebook["cells"], f"{path.name}: no cells"
    for k, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{path.name}: cell {k} has outputs (clear them before committing)"
            assert cell.get("execution_count") is None, f"{path.name}: cell {k} has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_valid_nbformat(path: Path):
    nbformat = pytest.importorskip("nbformat")  # installed with the docs tools (nbmake, mkdocs-jupyter)
    nbformat.validate(nbformat.read(str(path), as_version=4))


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_code_parses_and_uses_no_private_name(path: Path):
    for k, source in enumerate(code_cells(load(path))):
        tree = ast.parse(source, filename=f"{path.name} code cell {k}")
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                bad = [a.name for a in node.names if private(a.name)]
                assert not bad and not any(private(part) for part in (node.module or "").split(".")), (
                    f"{path.name} code cell {k}: imports a private name from {node.module}")
            elif isinstance(node, ast.Import):
                assert not any(private(part) for a in node.names for part in a.name.split(".")), (
                    f"{path.name} code cell {k}: imports a private module")
            elif isinstance(node, ast.Attribute):
                assert not private(node.attr), f"{path.name} code cell {k}: uses the private attribute {node.attr}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_internal_issue_numbers(path: Path):
    for cell in load(path)["cells"]:
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        found = re.search(r"\bissues? \d+", text, flags=re.IGNORECASE)
        assert found is None, f"{path.name}: names an internal issue number: {found.group(0)!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_headings_carry_no_inline_code(path: Path):
    """mkdocs-jupyter builds the page's table of contents without inline code, so a heading with backticks
    gets a contents link to an id that does not exist (the site's browser check reports it as broken)."""
    for cell in load(path)["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for line in text.splitlines():
            assert not (line.startswith("#") and "`" in line), f"{path.name}: heading with inline code: {line!r}"
