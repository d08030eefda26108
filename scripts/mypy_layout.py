"""mypy plugin (pyproject.toml, ``[tool.mypy] plugins``): a plain ``mypy`` from the checkout's root stops with
a pointer instead of a screen of confusing import errors.

mypy reads `fairlab` from the first folder of its search path that holds it, and from the checkout's
root that is the checkout's own `fairlab/`, which lacks `mechanisms/`, `properties/`, ...: they become
`fairlab.mechanisms` etc. only through setuptools' package-dir (an import hook in an editable install),
which mypy cannot follow. ``nox -s mypy`` runs mypy over a temporary view of the checkout laid out as
`fairlab` (`scripts/layout.py`), and ``bash .ci/mypy`` (CI) over a non-editable install; both pass this
check. The plugin adds no type rule.
"""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

from mypy.options import Options
from mypy.plugin import Plugin

ROOT = Path(__file__).resolve().parents[1]


def subpackages() -> list[str]:
    """The folders under `fairlab` that package-dir maps (mechanisms, properties, ...)."""
    with open(ROOT / "pyproject.toml", "rb") as handle:
        mapped = tomllib.load(handle)["tool"]["setuptools"]["package-dir"]
    return sorted(name.partition(".")[2].replace(".", "/") for name in mapped if name != "fairlab")


def first_fairlab(options: Options) -> Path | None:
    """The `fairlab` folder mypy finds first: the working folder, then MYPYPATH and mypy_path (installed
    packages come after, and are laid out whole)."""
    folders = [os.getcwd(), *os.environ.get("MYPYPATH", "").split(os.pathsep), *options.mypy_path]
    for folder in filter(None, folders):
        package = Path(folder) / "fairlab"
        if (package / "__init__.py").is_file() or (package / "__init__.pyi").is_file():
            return package
    return None


class LayoutPlugin(Plugin):
    def __init__(self, options: Options) -> None:
        super().__init__(options)
        package = first_fairlab(options)
        if package is None:
            return
        missing = [name for name in subpackages() if not (package / name / "__init__.py").is_file()]
        if missing:
            print(
                f"error: mypy would read fairlab from {package}, which lacks {', '.join(missing)} (those folders "
                "become fairlab.* through setuptools' package-dir, which mypy cannot follow); "
                "run `nox -s mypy` from the checkout's root (CONTRIBUTING.md, \"Lint and types\")",
                file=sys.stderr,
            )
            raise SystemExit(2)


def plugin(version: str) -> type[Plugin]:
    return LayoutPlugin
