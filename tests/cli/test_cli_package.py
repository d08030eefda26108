"""The command line as a package: `fairlab --version`, `python -m fairlab`, `fairlab schema`, and
no private module of another library imported anywhere in fairlab (issue 15: not `typer._click`)."""

import ast
import json
import tomllib
from pathlib import Path

import fairlab
from fairlab.core import schemas

ROOT = Path(__file__).resolve().parents[2]


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def test_version_is_written_once_and_printed(run_cli):
    out = run_cli("--version")
    assert out.returncode == 0 and out.stdout == f"fairlab {fairlab.__version__}\n" and out.stderr == ""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "fairlab.core.version.__version__"}
    from fairlab.core import version

    assert version.__version__ is fairlab.__version__  # one place, re-exported


def test_python_dash_m_fairlab_is_the_command(run_cli):
    out = run_cli("examples")  # run_cli runs `python -m fairlab`
    assert out.returncode == 0 and "thm1-asset-si: 2 users × 2 resources" in out.stdout


def test_schema_lists_and_prints_the_shipped_schemas(run_cli):
    listed = run_cli("schema")
    assert listed.returncode == 0
    assert [line.split(":")[0] for line in listed.stdout.splitlines()] == schemas.names()
    as_json = json.loads(run_cli("schema", "--format", "json").stdout)
    assert as_json["kind"] == "schemas" and [i["name"] for i in as_json["items"]] == schemas.names()
    for name in schemas.names():
        out = run_cli("schema", name)
        assert out.returncode == 0 and json.loads(out.stdout) == schemas.load(name)


def test_unknown_schema_is_one_line_exit_2(run_cli):
    out = run_cli("schema", "verdict")
    assert out.returncode == 2 and out.stdout == ""
    line = one_error_line(out.stderr)
    assert "'verdict'" in line and all(name in line for name in schemas.names())


def _package_files():
    folders = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    for folder in sorted(set(folders.values())):
        yield from sorted((ROOT / folder).rglob("*.py"))


def test_no_private_module_of_another_library_is_imported():
    offenders = []
    for path in _package_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            offenders += [f"{path.relative_to(ROOT)}: {m}" for m in modules
                          if m.split(".")[0] != "fairlab" and any(p.startswith("_") for p in m.split(".")[1:])]
    assert offenders == []
