"""What `pip install .` installs: one top-level package, `fairlab`, with its data; and every declared
runtime dependency is used (issue 15: no declared-but-unused dependency).
"""

import ast
import re
import subprocess
import sys
import tomllib
import zipfile
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

packaging = pytest.importorskip("packaging")
from packaging.requirements import Requirement  # noqa: E402
from packaging.utils import canonicalize_name  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))



def package_folders() -> list[Path]:
    """The folders whose modules make up `fairlab` (pyproject's package-dir mapping)."""
    return sorted({ROOT / folder for folder in PYPROJECT["tool"]["setuptools"]["package-dir"].values()})


def imported_top_level_names() -> set[str]:
    """Top-level names of every module any file of the package imports (at any depth of the file)."""
    names = set()
    for folder in package_folders():
        for path in folder.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                if isinstance(node, ast.Import):
                    names.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names.add(node.module.split(".")[0])
    return names


RUNTIME = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]


@pytest.mark.parametrize("requirement", [pytest.param(r, id=r.name) for r in RUNTIME])
def test_every_runtime_dependency_is_imported(requirement):
    distributions = packages_distributions()  # import name -> distributions providing it
    provided = {name for name, dists in distributions.items()
                if canonicalize_name(requirement.name) in {canonicalize_name(d) for d in dists}}
    if not provided:
        pytest.skip(f"{requirement.name} is not installed here")
    assert provided & imported_top_level_names(), (
        f"{requirement.name} is declared in pyproject.toml but no module of fairlab imports it ({sorted(provided)})"
    )


def test_the_wheel_holds_only_the_fairlab_package(tmp_path):
    """`pip wheel .` (what `pip install .` builds): one top-level package, its data files included."""
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=600,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = tmp_path.glob("fairlab-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        files = archive.namelist()
    top = {name.split("/")[0] for name in files if not name.split("/")[0].endswith((".dist-info", ".data"))}
    assert top == {"fairlab"}, f"top-level entries besides fairlab: {sorted(top - {'fairlab'})}"
    for data in ("fairlab/schemas/result.schema.json", "fairlab/examples/drf-paper.json", "fairlab/py.typed"):
        assert data in files, f"{data} missing from the wheel"
    assert any(name.startswith("fairlab/counterexamples/fixtures/") and name.endswith(".json") for name in files)
    assert not any("/tests/" in name or name.startswith("tests/") for name in files)
    assert "fairlab/py.typed" in files, "py.typed missing: a user's plug-in could not be type-checked against the lab"
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in files), "LICENSE missing from the wheel"


def claimed_pythons_of_ci() -> list[str]:
    match = re.search(r'^CLAIMED_PYTHONS="([^"]*)"', (ROOT / ".ci" / "run").read_text(encoding="utf-8"), flags=re.M)
    assert match, ".ci/run has no CLAIMED_PYTHONS line"
    return match.group(1).split()


def test_requires_python_and_classifiers_say_exactly_what_ci_tests():
    from packaging.specifiers import SpecifierSet

    claimed = claimed_pythons_of_ci()
    spec = SpecifierSet(PYPROJECT["project"]["requires-python"])
    minors = [f"3.{minor}" for minor in range(6, 30)]
    assert [v for v in minors if f"{v}.0" in spec] == claimed, (
        f"requires-python {spec} admits other Pythons than CI's {claimed}")
    classified = sorted((c.rsplit(":: ", 1)[1] for c in PYPROJECT["project"]["classifiers"]
                         if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)),
                        key=lambda v: int(v.split(".")[1]))
    assert classified == claimed


def test_license_is_in_the_repository_and_declared():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    assert PYPROJECT["project"]["license"] == "MIT"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]


def test_long_description_links_nothing_by_a_relative_path():
    """The README is the package's long description: a relative link or image breaks on an index."""
    readme = (ROOT / PYPROJECT["project"]["readme"]).read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)", readme) + re.findall(r'(?:src|href)="([^"]+)"', readme)
    relative = [t for t in targets if not re.match(r"(https?://|mailto:|#)", t)]
    assert relative == []


def test_changelog_has_the_current_version_first():
    import fairlab

    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[([^\]]+)\] - (\d{4}-\d\d-\d\d)$", changelog, flags=re.M)
    assert versions, "no '## [version] - YYYY-MM-DD' section"
    assert versions[0][0] == fairlab.__version__
    assert len({v for v, _ in versions}) == len(versions), "a version has two sections"
    # Keep a Changelog: changes not released yet go in one "## [Unreleased]" section above it
    headings = re.findall(r"^## \[[^\]]+\]", changelog, flags=re.M)
    if headings[0] == "## [Unreleased]":
        headings = headings[1:]
    assert headings[0] == f"## [{fairlab.__version__}]" and "## [Unreleased]" not in headings


def test_citation_names_the_current_version():
    import fairlab

    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(r"^cff-version: 1\.2\.0$", citation, flags=re.M)
    assert re.search(rf'^version: "{re.escape(fairlab.__version__)}"$', citation, flags=re.M)


def test_contributing_covers_the_contributor_tasks():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for heading in ("## Add a mechanism", "## Add a property", "## Run the suite", "## Lint", "## Benchmarks"):
        assert heading in text
