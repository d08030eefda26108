"""The dependency bounds, the lower-bound pins and the CI lock agree with one another.

`constraints/minimum.txt` pins exactly the lower bound of every dependency of pyproject.toml, extras
included (what `bash .ci/run minimum` tests) and `constraints/ci.txt` (what CI installs, the `test`
and `dev` extras included) lies within the bounds.
"""

import re
import tomllib
from pathlib import Path

import pytest

packaging = pytest.importorskip("packaging")
from packaging.requirements import Requirement  # noqa: E402
from packaging.utils import canonicalize_name  # noqa: E402
from packaging.version import Version  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    return [Requirement(r) for r in project["dependencies"] + [r for group in extras.values() for r in group]]


def pins(name: str) -> dict[str, Version]:
    out = {}
    for line in (ROOT / "constraints" / name).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            match = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
            assert match, f"constraints/{name}: not an exact pin: {line!r}"
            out[canonicalize_name(match[1])] = Version(match[2])
    return out


def test_every_dependency_has_a_tested_lower_and_upper_bound():
    for req in requirements():
        ops = {spec.operator for spec in req.specifier}
        assert {">=", "<"} <= ops, f"{req}: needs a tested lower bound (>=) and an upper bound (<)"


def test_minimum_pins_are_the_lower_bounds():
    minimum = pins("minimum.txt")
    for req in requirements():
        lower = next(Version(s.version) for s in req.specifier if s.operator == ">=")
        assert minimum.get(canonicalize_name(req.name)) == lower, f"{req}: constraints/minimum.txt must pin {lower}"


def test_ci_lock_lies_within_the_bounds():
    lock = pins("ci.txt")
    for req in requirements():
        version = lock.get(canonicalize_name(req.name))
        assert version is not None, f"{req.name}: missing from constraints/ci.txt"
        assert req.specifier.contains(version, prereleases=True), (
            f"constraints/ci.txt: {req.name}=={version} outside {req}"
        )
