"""A view of the checkout laid out as the package `fairlab`, for the tools that read a package from its
folder (mkdocstrings' griffe, mypy, import-linter's grimp).

The repository keeps `mechanisms/`, `properties/`, `search/`, ... at its top, and setuptools maps each
to `fairlab.mechanisms` etc. through `[tool.setuptools.package-dir]` (pyproject.toml); an editable
install implements that mapping with an import hook, which those tools cannot follow. The view is a
folder `DEST/fairlab` made of symbolic links into the checkout: every entry of `fairlab/`, and each
package-dir folder under its subpackage's name. The links point at the checkout's files, so an edit is
seen at once; nothing is written into the checkout (DEST is a temporary folder of the caller's).

Used by the documentation site's hook (`scripts/docs_hooks.py`: `mkdocs serve` / `mkdocs build`) and
by `noxfile.py` (`nox -s mypy`, `nox -s lint`).

    python scripts/layout.py DEST    builds DEST/fairlab and prints DEST
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: what the view never links (bytecode caches are rewritten by whoever imports through the view)
SKIPPED = frozenset({"__pycache__"})


def package_dirs(root: Path = ROOT) -> dict[str, Path]:
    """pyproject.toml's package-dir: each subpackage's name -> its folder in the checkout."""
    with open(root / "pyproject.toml", "rb") as handle:
        mapped = tomllib.load(handle)["tool"]["setuptools"]["package-dir"]
    return {name: root / folder for name, folder in mapped.items()}


def build_view(dest: Path, root: Path = ROOT) -> Path:
    """Lay `fairlab` out under `dest` (an empty or new folder outside the checkout) as links into `root`;
    returns `dest`, the folder to put first on a tool's search path."""
    dest = Path(dest).resolve()
    root = Path(root).resolve()
    if dest == root or root in dest.parents:
        raise ValueError(f"{dest}: the view goes outside the checkout ({root})")
    mapped = package_dirs(root)
    top = dest / "fairlab"
    top.mkdir(parents=True, exist_ok=False)
    for entry in sorted(mapped["fairlab"].iterdir()):
        if entry.name not in SKIPPED:
            (top / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    # parents first, so that a nested mapping (fairlab.a.b) lands inside its parent's view
    for name in sorted((n for n in mapped if n != "fairlab"), key=lambda n: n.count(".")):
        if not name.startswith("fairlab."):
            raise ValueError(f"pyproject.toml package-dir: {name} is not a subpackage of fairlab")
        link = dest.joinpath(*name.split("."))
        if link.exists() or link.is_symlink():
            raise ValueError(f"pyproject.toml package-dir: {name} is both mapped and a folder of fairlab/")
        if link.parent.is_symlink():
            raise ValueError(f"pyproject.toml package-dir: {name} lies inside a linked folder")
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(mapped[name], target_is_directory=True)
    return dest


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python scripts/layout.py DEST", file=sys.stderr)
        return 2
    print(build_view(Path(argv[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
