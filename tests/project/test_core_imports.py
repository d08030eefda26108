"""`fairlab.core` is the bottom layer: it imports nothing from the package's top level
(`fairlab/__init__.py`) and its modules import each other without a circle, deferred imports
inside functions included (import-linter's layers see the first rule, not the second)."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx

CORE = Path(__file__).resolve().parents[2] / "fairlab" / "core"


def imports_of(source: str) -> list[str]:
    """Every module an ``import`` or ``from ... import`` in `source` names, at any depth."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
            found += [f"{node.module}.{alias.name}" for alias in node.names]
    return found


def core_graph() -> tuple[networkx.DiGraph, list[str]]:
    graph, upward = networkx.DiGraph(), []
    for path in sorted(CORE.glob("*.py")):
        name = f"fairlab.core.{path.stem}"
        graph.add_node(name)
        for target in imports_of(path.read_text(encoding="utf-8")):
            if target == "fairlab":
                upward.append(f"{path.name} imports fairlab")
            elif target.startswith("fairlab.core.") and (CORE / f"{target.split('.')[2]}.py").is_file():
                module = ".".join(target.split(".")[:3])
                if module != name:
                    graph.add_edge(name, module)
    return graph, upward


def test_core_imports_nothing_from_the_top_level():
    assert core_graph()[1] == []


def test_core_has_no_import_circle():
    assert list(networkx.simple_cycles(core_graph()[0])) == []


def test_the_checks_catch_a_circle_and_an_upward_import():
    assert "fairlab" in imports_of("def f():\n    from fairlab import __version__\n")
    graph = networkx.DiGraph([("fairlab.core.a", "fairlab.core.b"), ("fairlab.core.b", "fairlab.core.a")])
    assert list(networkx.simple_cycles(graph))
