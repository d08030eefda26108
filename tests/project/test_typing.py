"""The package is typed (issue 26): `fairlab/py.typed` is installed, a plug-in file written against
the lab's public types passes mypy with the repository's configuration, and a wrong one is refused
(so the check has teeth: an untyped `fairlab` would let both through).

mypy reads `fairlab` as the interpreter imports it (editable or not), laid out in one folder: the
package's folders map to fairlab.mechanisms etc. through setuptools' package-dir, which an editable
install implements with an import hook mypy cannot follow. (CI checks the package itself the same
way from a non-editable install: `bash .ci/mypy`.)
"""

import importlib.util
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("mypy", reason="mypy comes with the dev extra")

import fairlab

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"
PLUGIN = ROOT / "examples" / "plugins" / "serial_dictatorship.py"

WRONG = '''\
from fractions import Fraction

import fairlab
from fairlab import Instance


def wrong(instance: Instance) -> list[Fraction]:
    return instance.users  # the users' names, not their tasks


fairlab.check(wrong, "si", 3)  # 3 is no instance
'''


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    """A folder holding `fairlab` as imported here: its own folder's entries, and each package-dir
    subpackage (fairlab.mechanisms, ...) where the import system finds it."""
    root = tmp_path_factory.mktemp("layout")
    package = Path(fairlab.__file__).resolve().parent
    out = root / "fairlab"
    out.mkdir()
    for entry in package.iterdir():
        if entry.name != "__pycache__":
            (out / entry.name).symlink_to(entry)
    mapped = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    for name in mapped:
        sub = name.partition(".")[2]
        if sub and not (out / sub).exists():
            spec = importlib.util.find_spec(name)
            assert spec is not None and spec.submodule_search_locations, f"{name} is not importable"
            (out / sub).symlink_to(Path(spec.submodule_search_locations[0]))
    return root


def mypy(layout: Path, *paths: Path) -> subprocess.CompletedProcess:
    """mypy with the repository's configuration on `paths`, `fairlab` found in `layout`."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(PYPROJECT), "--cache-dir", str(layout / ".mypy_cache"),
         "--no-warn-unused-configs", *map(str, paths)],
        cwd=layout, env={**os.environ, "MYPYPATH": str(layout)}, capture_output=True, text=True, timeout=600,
    )


def test_the_installed_package_says_it_is_typed():
    assert (Path(fairlab.__file__).parent / "py.typed").is_file()


def test_the_examples_type_check_against_the_package(layout):
    out = mypy(layout, ROOT / "examples")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success: no issues found" in out.stdout


def test_a_wrong_plugin_is_refused(layout, tmp_path):
    wrong = tmp_path / "wrong.py"
    wrong.write_text(WRONG, encoding="utf-8")
    out = mypy(layout, wrong)
    assert out.returncode == 1, out.stdout + out.stderr
    assert 'wrong.py:8: error: Incompatible return value type (got "tuple[str, ...]", expected "list[Fraction]")' \
        in out.stdout, out.stdout
    assert 'wrong.py:11: error: No overload variant of "check" matches argument types' in out.stdout, out.stdout
    assert '"str", "int"' in out.stdout, out.stdout  # the instance 3 is what matches no variant


API = '''\
import fairlab
import fairlab.search.engines
from fairlab.core.results import Result

one: Result = fairlab.check("asset", "si", "thm1-asset-si")
every: list[Result] = fairlab.check("asset", "all", "thm1-asset-si")
found: Result = fairlab.search("asset", "si", 2, 2, candidates=10)
engines = fairlab.search.engines.ENGINES
inst = fairlab.Instance(capacities=[9, 18], demands=[[1, 4], [3, 1]])
'''


def test_the_newcomer_api_type_checks(layout, tmp_path):
    """fairlab.check(..., "all", ...) is a list of results, fairlab.search(...) a call that is one,
    while fairlab.search stays the package; Instance(capacities=..., demands=...) alone."""
    good = tmp_path / "api.py"
    good.write_text(API, encoding="utf-8")
    out = mypy(layout, good)
    assert out.returncode == 0, out.stdout + out.stderr
    wrong = tmp_path / "api_wrong.py"  # negative twin: the two return types swapped
    swapped = API.replace("every: list[Result]", "every: Result").replace("found: Result", "found: list[Result]")
    wrong.write_text(swapped, encoding="utf-8")
    out = mypy(layout, wrong)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "api_wrong.py:6: error: Incompatible types in assignment" in out.stdout, out.stdout
    assert "api_wrong.py:7: error: Incompatible types in assignment" in out.stdout, out.stdout


def test_the_example_plugin_runs_as_documented():
    result = fairlab.check(f"{PLUGIN}:serial_dictatorship", "si", "drf-paper")
    assert result.status == "violated", str(result)
    allocation = fairlab.allocate(f"{PLUGIN}:serial_dictatorship", "drf-paper")
    assert [str(t) for t in allocation.tasks] == ["9/2", "0"]
