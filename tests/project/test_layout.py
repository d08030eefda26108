"""The contributor's loop from an editable checkout (CONTRIBUTING.md, "The layout and the tools").

The checkout's folders become fairlab.* through setuptools' package-dir, which mkdocstrings' griffe, mypy
and import-linter's grimp cannot follow; each reads a temporary view of the checkout laid out as `fairlab`
(`scripts/layout.py`): the documentation site through mkdocs.yml's hook, `lint-imports` through its
`layout` contract type, mypy through `nox -s mypy` (a plain `mypy` stops with a pointer).
"""

import importlib.util
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
MAPPED = PYPROJECT["tool"]["setuptools"]["package-dir"]


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"fairlab_test_{name}", ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def layout():
    return load("layout")


@pytest.fixture
def view(layout, tmp_path):
    return layout.build_view(tmp_path / "view", ROOT)


def test_the_view_holds_every_subpackage_as_a_link_into_the_checkout(view):
    for name, folder in MAPPED.items():
        here = view.joinpath(*name.split("."))
        assert (here / "__init__.py").is_file(), name
        if name != "fairlab":  # fairlab itself is a folder of links to its entries
            assert here.resolve() == (ROOT / folder).resolve(), name
    assert (view / "fairlab" / "core" / "instance.py").resolve() == ROOT / "fairlab" / "core" / "instance.py"
    assert not (view / "fairlab" / "__pycache__").exists()


def test_the_checkout_itself_lacks_them_and_the_view_never_goes_inside_it(layout):
    # the reason for the view: the checkout's own fairlab/ has no mechanisms/
    assert not (ROOT / "fairlab" / "mechanisms").exists()
    with pytest.raises(ValueError, match="outside the checkout"):
        layout.build_view(ROOT / "build" / "view", ROOT)


def test_griffe_finds_a_mechanism_module_in_the_view_and_not_in_the_checkout(view):
    griffe = pytest.importorskip("griffe", reason="mkdocstrings' griffe comes with the docs extra")
    module = griffe.load("fairlab.mechanisms.base", search_paths=[str(view)], try_relative_path=False)
    assert "register" in module.members
    # what `mkdocs serve` met before the hook: the checkout's fairlab/ has no member `mechanisms`
    with pytest.raises(KeyError, match="mechanisms"):
        griffe.load("fairlab.mechanisms.base", search_paths=[str(ROOT)], try_relative_path=False)


def test_the_docs_hook_points_mkdocstrings_at_a_view_and_removes_it():
    pytest.importorskip("mkdocs", reason="the docs extra")
    assert "scripts/docs_hooks.py" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    hooks = load("docs_hooks")
    python: dict = {"paths": ["scripts"]}
    config = SimpleNamespace(plugins={"mkdocstrings": SimpleNamespace(config={"handlers": {"python": python}})})
    hooks.on_config(config)
    (path,) = python["paths"]
    assert Path(path, "fairlab", "mechanisms", "base.py").is_file()
    assert ROOT not in Path(path).parents
    hooks.on_post_build(config)
    assert not Path(path).exists()


def test_plain_lint_imports_reads_the_whole_package_from_the_checkout():
    pytest.importorskip("importlinter", reason="import-linter comes with the dev extra")
    out = subprocess.run([str(Path(sys.executable).parent / "lint-imports"), "--no-cache", "--no-logo"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "the graph holds every subpackage of package-dir KEPT" in out.stdout
    assert "broken" in out.stdout and " 0 broken" in out.stdout


def test_the_layout_contract_breaks_on_a_graph_without_the_subpackages():
    pytest.importorskip("importlinter", reason="import-linter comes with the dev extra")
    # in a child process: importing the contract's module may put a view first on sys.path
    code = """if True:
        import grimp
        from scripts.importlinter_layout import LayoutContract, SUBPACKAGES
        contract = LayoutContract("layout", {}, {})
        partial = grimp.ImportGraph()
        for name in ["fairlab", "fairlab.core"]:
            partial.add_module(name)
        whole = grimp.ImportGraph()
        for name in ["fairlab", *SUBPACKAGES]:
            whole.add_module(name)
        print(contract.check(partial, False).kept, contract.check(whole, False).kept,
              sorted(contract.check(partial, False).metadata["missing"]) == SUBPACKAGES)
    """
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.stdout.split() == ["False", "True", "True"], out.stdout + out.stderr


def test_plain_mypy_from_the_checkout_stops_with_a_pointer():
    pytest.importorskip("mypy", reason="mypy comes with the dev extra")
    out = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={k: v for k, v in os.environ.items() if k != "MYPYPATH"})
    assert out.returncode == 2, out.stdout + out.stderr
    assert "run `nox -s mypy`" in out.stderr and "mechanisms" in out.stderr
    assert out.stderr.count("\n") == 1  # one line


def test_the_mypy_plugin_lets_a_laid_out_package_through(view, monkeypatch):
    pytest.importorskip("mypy", reason="mypy comes with the dev extra")
    from mypy.options import Options

    plugin = load("mypy_layout")
    monkeypatch.delenv("MYPYPATH", raising=False)
    monkeypatch.chdir(view)
    plugin.LayoutPlugin(Options())  # the view: no stop
    monkeypatch.chdir(ROOT)
    with pytest.raises(SystemExit):
        plugin.LayoutPlugin(Options())
    monkeypatch.setenv("MYPYPATH", str(view))  # cwd first: the checkout's partial fairlab/ still wins
    with pytest.raises(SystemExit):
        plugin.LayoutPlugin(Options())


def test_the_nox_sessions_are_those_contributing_names():
    pytest.importorskip("nox", reason="nox comes with the dev extra")
    out = subprocess.run([sys.executable, "-m", "nox", "--list", "--no-color"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for session in ("tests", "lint", "mypy", "docs", "serve"):
        assert f" {session} " in out.stdout or f" {session}\n" in out.stdout, out.stdout
        assert f"nox -s {session}" in contributing, session
    assert "nox" in " ".join(PYPROJECT["project"]["optional-dependencies"]["dev"])
