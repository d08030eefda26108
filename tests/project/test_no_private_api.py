"""No private API of Python or of a dependency (issue 26; the project brief's rule 5).

Every ``.py`` file of the package is parsed with `ast` and refused if it uses an underscore name
(not a dunder) that belongs to another package: ``from x import _y`` or ``import x._y`` where x is
not the lab; an attribute ``_y`` reached from a name imported from another package (``np._x``,
``z3.z3._y``), directly or through ``getattr``/``hasattr``; an attribute ``_y`` of any other object
(a local variable, a call's result: ``out._numerator = n`` on a `Fraction`) unless the lab itself
defines that attribute (``self._y = ...``, ``_y`` in a class body or in ``__slots__``) or it is the
lab's own tag on a foreign object (``_fairlab...``); an underscore keyword argument in a call of
something imported from another package or of a builtin (``Fraction(a, b, _normalize=False)``,
which Python 3.12 removed). The lab's own private modules and names (``fairlab.mechanisms._filling``,
a relative import, a module's own ``_helper``, ``self._cache``) are fine. A documented public name
that merely starts with an underscore (`os._exit`) is listed in `DOCUMENTED`, with where.
"""

from __future__ import annotations

import ast
import builtins
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAB = "fairlab"

#: underscore names that are documented public API (module, name): where they are documented
DOCUMENTED = {
    ("os", "_exit"): "https://docs.python.org/3/library/os.html#os._exit",
}
#: underscore attributes of any object that are documented public API: the named tuple's methods
#: (https://docs.python.org/3/library/collections.html#collections.somenamedtuple._make)
DOCUMENTED_ATTRIBUTES = {"_make", "_asdict", "_replace", "_fields", "_field_defaults"}


def package_files() -> list[Path]:
    """Every .py file of the package: the folders of pyproject's ``[tool.setuptools.package-dir]``."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    folders = sorted(set(config["tool"]["setuptools"]["package-dir"].values()))
    return sorted(path for folder in folders for path in (ROOT / folder).rglob("*.py"))


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def foreign(module: str | None, level: int = 0) -> bool:
    """A module of another package (a relative import is the lab's own)."""
    return level == 0 and module is not None and module != LAB and not module.startswith(LAB + ".")


def _root(node: ast.expr) -> tuple[ast.expr, list[str]]:
    """The innermost expression of an attribute chain, and the attribute names from it outwards."""
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    return node, names[::-1]


def own_attributes(tree: ast.AST) -> set[str]:
    """The private attribute names a module defines on its own objects: ``self._x = ...`` (or
    ``cls._x``), names bound in a class body, and ``__slots__`` entries."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            names.add(node.attr)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                targets = item.targets if isinstance(item, ast.Assign) else \
                    [item.target] if isinstance(item, ast.AnnAssign) else []
                names.update(t.id for t in targets if isinstance(t, ast.Name))
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.add(item.name)
                if any(isinstance(t, ast.Name) and t.id == "__slots__" for t in targets):
                    names.update(c.value for c in ast.walk(item.value)
                                 if isinstance(c, ast.Constant) and isinstance(c.value, str))
    return {name for name in names if private(name)}


def lab_attributes() -> set[str]:
    """`own_attributes` of every file of the package."""
    return set().union(*(own_attributes(ast.parse(f.read_text(encoding="utf-8"))) for f in package_files()))


def problems(source: str, filename: str = "<snippet>", lab: set[str] = frozenset()) -> list[str]:
    """Every use of another package's private name in `source`, as ``file:line: what``; `lab`: the
    private attribute names the lab defines elsewhere (`lab_attributes`)."""
    tree = ast.parse(source, filename)
    imported: dict[str, str] = {}  # local name -> the foreign module (or module.object) it names
    lab_names: set[str] = set()  # local names bound by an import of the lab's own modules
    own = own_attributes(tree) | set(lab)
    found: list[str] = []

    def say(node: ast.AST, what: str) -> None:
        found.append(f"{filename}:{node.lineno}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]  # `import a.b` binds a; `as c` binds a.b
                if not foreign(alias.name):
                    lab_names.add(local)
                    continue
                if any(private(part) for part in alias.name.split(".")):
                    say(node, f"import {alias.name}")
                imported[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom):
            if not foreign(node.module, node.level):
                lab_names.update(alias.asname or alias.name for alias in node.names)
                continue
            if any(private(part) for part in node.module.split(".")):
                say(node, f"from {node.module} import ...")
            for alias in node.names:
                if private(alias.name):
                    say(node, f"from {node.module} import {alias.name}")
                imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def origin(expr: ast.expr) -> str | None:
        """The foreign module or object an expression's attribute chain starts from (None: the lab's, or unknown)."""
        root, _ = _root(expr)
        if isinstance(root, ast.Name):
            if root.id in imported:
                return imported[root.id]
            if root.id in vars(builtins) and root.id not in defined:
                return f"builtins.{root.id}"
        return None

    defined = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} | {
        n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            start = origin(node.value)
            root = _root(node.value)[0]
            if start is not None:
                if (start, node.attr) not in DOCUMENTED:
                    say(node, f"{start}.{'.'.join(_root(node)[1])}")
            elif not (isinstance(root, ast.Name) and (root.id in ("self", "cls") or root.id in lab_names)) \
                    and node.attr not in own | DOCUMENTED_ATTRIBUTES and not node.attr.startswith("_fairlab"):
                say(node, f"{ast.unparse(node)}: a private attribute the lab does not define")
        elif isinstance(node, ast.Call):
            start = origin(node.func)
            if start is not None:
                for keyword in node.keywords:
                    if keyword.arg is not None and private(keyword.arg):
                        say(node, f"{start}(..., {keyword.arg}=...)")
            if (isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr", "setattr", "delattr")
                    and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                    and isinstance(node.args[1].value, str) and private(node.args[1].value)):
                start = origin(node.args[0])
                if start is not None:
                    say(node, f"{node.func.id}({start}, {node.args[1].value!r})")
    return found


def test_the_package_uses_no_private_name_of_another_package():
    files = package_files()
    assert len(files) > 100 and any(f.name == "exact.py" for f in files)  # the whole package, not nothing
    lab = lab_attributes()
    found = [p for f in files for p in problems(f.read_text(encoding="utf-8"), str(f.relative_to(ROOT)), lab)]
    assert not found, "private API of another package:\n" + "\n".join(found)


@pytest.mark.parametrize("snippet", [
    "from fractions import Fraction\nFraction(1, 2, _normalize=False)",  # the one Python 3.12 removed
    "import fractions\nfractions.Fraction(1, 2, _normalize=False)",
    "import numpy as np\nnp._NoValue",
    "import numpy as np\nx = np.linalg._umath_linalg",
    "import z3\nz3.z3._main_ctx",
    "from z3 import Solver\nSolver._ctx",
    "from numpy.core import _multiarray_umath",
    "from numpy import _globals",
    "import numpy._core.numeric",
    "import sys\nsys._getframe(1)",
    "import z3\ngetattr(z3, '_main_ctx')",
    "int('3', _base=10)",
    "def f():\n    import typer\n    return typer.main._get_command",
    "from fractions import Fraction\nout = object.__new__(Fraction)\nout._numerator = 3",  # what instance.py did
    "def f(x):\n    return x.numerator._private",
])
def test_private_uses_are_caught(snippet):
    assert problems(snippet), snippet


@pytest.mark.parametrize("snippet", [
    "from fairlab.mechanisms import _filling\n_filling.fill()",
    "from fairlab.mechanisms._filling import fill, _helper\n_helper(x, _y=1)",
    "from . import _dynamic\n_dynamic.find_improvement(_limit=1)",
    "import fairlab.core.exact as exact\nexact._coprime(1, 2)",
    "def _local(_x=1):\n    return _local(_x=2)",
    "import os\nos._exit(0)",
    "import typing\ntyping.NamedTuple.__init__",
    "from collections import namedtuple\nP = namedtuple('P', 'a')\nP(1)._replace(a=2)",
    "self._cache = {}\nself.run(_quiet=True)",
    "class A:\n    __slots__ = ('_a',)\n    def f(self, other):\n        return other._a",
    "class A:\n    _cache = {}\n    def _g(self): ...\ndef f(a):\n    return a._cache, a._g()",
    "solver = object()\nsolver._fairlab_budget = 3",
])
def test_the_labs_own_private_names_and_dunders_are_fine(snippet):
    assert not problems(snippet), problems(snippet)
