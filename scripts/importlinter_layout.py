"""import-linter's `layout` contract (pyproject.toml, ``[tool.importlinter]``): the import graph is read from
`fairlab` laid out whole, so plain ``lint-imports`` works from the checkout's root.

import-linter's grimp reads a package from its folder, and the checkout's `mechanisms/`, `properties/`,
... become `fairlab.mechanisms` etc. only through setuptools' package-dir (an import hook in an editable
install). When `fairlab` as found on the path lacks them (the checkout's own `fairlab/` folder, put
first by ``lint-imports``), importing this module lays the checkout out as `fairlab` in a temporary
folder (`scripts/layout.py`, removed at exit) and puts that folder first on the path, before grimp
builds the graph. Where `fairlab` is already whole (CI's non-editable install, ``.ci/run``'s lint), it
changes nothing.

The contract itself fails when a subpackage of package-dir is missing from the graph, so the layers
contracts can never pass over a partial package.
"""

from __future__ import annotations

import atexit
import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path

from importlinter import Contract, ContractCheck, output

from scripts.layout import ROOT, build_view, package_dirs

#: the subpackages the graph must hold (pyproject.toml's package-dir)
SUBPACKAGES = sorted(name for name in package_dirs() if name != "fairlab")


def whole(names: list[str] = SUBPACKAGES) -> bool:
    """Whether `fairlab` as the path finds it has a folder for each subpackage of package-dir."""
    spec = importlib.util.find_spec("fairlab")
    if spec is None or not spec.submodule_search_locations:
        return False
    top = Path(list(spec.submodule_search_locations)[0])
    return all(top.joinpath(*name.split(".")[1:], "__init__.py").is_file() for name in names)


if not whole():
    scratch = Path(tempfile.mkdtemp(prefix="fairlab-lint-view."))
    atexit.register(shutil.rmtree, scratch, True)
    sys.path.insert(0, str(build_view(scratch / "view", ROOT)))
    importlib.invalidate_caches()


class LayoutContract(Contract):
    """Every subpackage of pyproject.toml's package-dir is in the graph."""

    def check(self, graph, verbose: bool) -> ContractCheck:
        missing = [name for name in SUBPACKAGES if name not in graph.modules]
        return ContractCheck(kept=not missing, warnings=[], metadata={"missing": missing})

    def render_broken_contract(self, check: ContractCheck) -> None:
        output.print_error(
            "the graph lacks " + ", ".join(check.metadata["missing"])
            + ": fairlab was read without its package-dir folders (run lint-imports from the checkout's root)"
        )
