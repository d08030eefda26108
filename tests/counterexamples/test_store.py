"""The store belongs to the user: where findings go, what the store accepts, plug-ins recorded by
content hash, and nothing ever written inside the installed package."""

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import fairlab
from fairlab.counterexamples import store
from fairlab.counterexamples.store import FixtureRefused, Store, Verified
from fairlab.search import run_search
from fairlab.search.findings import fixture_record, record_finding
from fairlab.search.verify import reverify

PACKAGE_FOLDERS = [Path(fairlab.__file__).parent, *(Path(__import__(f"fairlab.{name}", fromlist=["_"]).__file__).parent
                                                    for name in ("counterexamples", "search", "mechanisms",
                                                                 "properties"))]


def _snapshot() -> dict:
    """Every file of the package folders (not bytecode caches) with its size and mtime."""
    out = {}
    for folder in PACKAGE_FOLDERS:
        for path in folder.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                stat = path.stat()
                out[str(path)] = (stat.st_size, stat.st_mtime_ns)
    return out


def _clean_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("FAIRLAB_STORE", "XDG_DATA_HOME")}
    return {**env, **extra}


def test_the_counterexamples_package_imports_fairlab_core_only():
    folder = Path(store.__file__).parent
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                if name.startswith("fairlab"):
                    assert name.startswith(("fairlab.core", "fairlab.counterexamples")), (path.name, name)


def test_where_the_store_is(tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRLAB_STORE", str(tmp_path / "env"))
    assert store.location() == tmp_path / "env"
    assert store.location(tmp_path / "flag") == tmp_path / "flag"  # --store DIR wins
    monkeypatch.delenv("FAIRLAB_STORE")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    if sys.platform.startswith("linux"):
        assert store.location() == tmp_path / ".local" / "share" / "fairlab" / "store"
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
        assert store.location() == tmp_path / "data" / "fairlab" / "store"
    package = Path(store.__file__).parent.resolve()
    assert package not in store.location().resolve().parents


def test_the_store_accepts_only_a_re_verified_record(tmp_path):
    result = run_search("asset", "si", 2, 2, time_limit=60)
    record = fixture_record(result, fairlab.mechanism("asset"))
    target = Store(tmp_path)
    with pytest.raises(FixtureRefused, match="not re-verified"):
        target.save(record, verified=None)
    with pytest.raises(FixtureRefused, match="not re-verified"):  # a receipt for another record
        target.save(record, Verified(True, "ok", "0" * 16))
    with pytest.raises(FixtureRefused, match="does not re-verify"):
        target.save(record, Verified(False, "the witness no longer shows a violation", record["canonical_hash"]))
    assert not list(tmp_path.iterdir())
    path, written = target.save(record, reverify(record))
    assert written and path.parent == tmp_path
    saved = json.loads(path.read_text())
    assert saved["schema_version"] == 1 and saved["provenance"]["lab"] == fairlab.__version__
    assert target.save(record, reverify(record)) == (path, False)  # the same finding is stored once


def test_record_finding_refuses_what_does_not_re_verify(tmp_path):
    result = run_search("asset", "si", 2, 2, time_limit=60)
    wrong = result.replace(witness={"user": 1 - result.witness["user"]})
    with pytest.raises(FixtureRefused, match="does not re-verify"):
        record_finding(wrong, fairlab.mechanism("asset"), tmp_path)
    assert not list(tmp_path.iterdir())


def test_a_search_writes_into_the_default_store_and_never_into_the_package(tmp_path):
    before = _snapshot()
    out = subprocess.run([sys.executable, "-m", "fairlab", "search", "asset", "si", "--format", "json"],
                         capture_output=True, text=True, timeout=300, env=_clean_env(HOME=str(tmp_path)),
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    fixture = Path(data["details"]["fixture"])
    if sys.platform.startswith("linux"):
        assert fixture.parent == tmp_path / ".local" / "share" / "fairlab" / "store"
    assert fixture.is_file() and tmp_path in fixture.parents
    assert _snapshot() == before, "a search wrote inside the installed package"


def test_a_plugin_is_recorded_by_name_and_content_hash(tmp_path, plugins, run_cli):
    home = tmp_path / "store"
    out = run_cli("search", f"{plugins / 'unfair.py'}:dictator", "si", "--store", home, "--format", "json")
    assert out.returncode == 0, out.stderr
    [path] = list(home.glob("*.json"))
    record = json.loads(path.read_text())
    assert record["mechanism"] == "unfair.py:dictator"
    assert record["plugin"] == {"name": "unfair.py:dictator", "sha256": store.file_sha256(plugins / "unfair.py")}
    assert str(plugins) not in path.read_text()  # no path of this machine
    # re-verifying needs the plug-in file: without it, or with another version of it, one line
    missing = run_cli("store", "verify", "--store", home)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "--plugin" in missing.stderr
    ok = run_cli("store", "verify", "--store", home, "--plugin", plugins / "unfair.py")
    assert ok.returncode == 0 and ok.stdout.startswith("ok "), ok.stderr
    other = tmp_path / "elsewhere" / "unfair.py"
    other.parent.mkdir()
    shutil.copy(plugins / "unfair.py", other)
    other.write_text(other.read_text() + "\n# another version\n")
    changed = run_cli("store", "verify", path, "--plugin", other)
    assert changed.returncode == 2 and changed.stderr.count("\n") == 1 and "sha256" in changed.stderr


def test_store_list_and_verify_json(tmp_path, run_cli):
    assert run_cli("search", "asset", "si", "--store", tmp_path).returncode == 0
    listing = json.loads(run_cli("store", "list", "--store", tmp_path, "--format", "json").stdout)
    assert listing["kind"] == "fixtures" and [i["mechanism"] for i in listing["items"]] == ["asset"]
    verified = json.loads(run_cli("store", "verify", "--store", tmp_path, "--format", "json").stdout)
    assert verified["kind"] == "fixture-verification" and [r["status"] for r in verified["results"]] == ["reproduced"]
    assert run_cli("store", "path", "--store", tmp_path).stdout.strip() == str(tmp_path)


def test_fixtures_follow_the_shipped_schema(tmp_path):
    """The shipped fixtures and a new finding (a plug-in's too) validate against fixture.schema.json."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(fairlab.__file__).parent / "schemas" / "fixture.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    plugin = Path(__file__).parents[1] / "plugins" / "unfair.py"
    result = run_search(f"{plugin}:dictator", "si", 2, 2, time_limit=60, store=tmp_path)
    records = [record for _, record in store.shipped()] + [json.loads(Path(result.details["fixture"]).read_text())]
    for record in records:
        errors = [e.message for e in validator.iter_errors(record)]
        assert not errors, (record["mechanism"], record["property"], errors)


def test_a_python_callable_is_searched_but_its_finding_not_stored(tmp_path):
    """A plain callable has no file a fixture could name: searching it works, storing it is a
    one-line refusal and nothing is written."""
    from fairlab.core.errors import InputError

    def dictator(instance):
        return [instance.solo_tasks(0)] + [0] * (instance.n - 1)

    assert run_search(dictator, "si", 2, 2, time_limit=60).status == "violated"
    with pytest.raises(InputError, match="could not be re-verified later"):
        run_search(dictator, "si", 2, 2, time_limit=60, store=tmp_path)
    assert not list(tmp_path.iterdir())


# --------------------------------------------------------------------------- bad store locations


def test_a_store_that_cannot_be_a_folder_is_refused_before_any_search(tmp_path, monkeypatch):
    from fairlab.core.errors import InputError
    from fairlab.search import prove

    afile = tmp_path / "afile"
    afile.write_text("not a folder")
    calls = []
    monkeypatch.setattr("fairlab.search.engines.search", lambda *a, **k: calls.append(a))
    monkeypatch.setattr("fairlab.search.proof.prove", lambda *a, **k: calls.append(a))
    for where in (afile, afile / "sub"):
        with pytest.raises(InputError, match="not a folder"):
            Store(where).check_writable()
        with pytest.raises(InputError, match="not a folder"):
            run_search("asset", "si", 2, 2, store=where)
        with pytest.raises(InputError, match="not a folder"):
            prove("drf", "si", 2, 2, store=where)
        assert calls == []  # refused before any work
    with pytest.raises(InputError, match="not a folder"):
        Store(afile).load_all()
    assert afile.read_text() == "not a folder"
    Store(tmp_path / "new" / "deeper").check_writable()  # does not exist yet: fine, created on save


def test_an_unwritable_store_is_refused(tmp_path):
    from fairlab.core.errors import InputError

    if hasattr(os, "geteuid") and os.geteuid() == 0:
        pytest.skip("root may write anywhere")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        with pytest.raises(InputError, match="not writable"):
            Store(locked / "store").check_writable()
    finally:
        locked.chmod(0o755)


def test_a_failing_write_is_one_input_error(tmp_path, monkeypatch):
    from fairlab.core.errors import InputError

    result = run_search("asset", "si", 2, 2, time_limit=60)
    record = fixture_record(result, fairlab.mechanism("asset"))

    def refuse(path, data):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(store, "write_atomic", refuse)
    with pytest.raises(InputError, match="cannot write .*Permission denied"):
        Store(tmp_path).save(record, reverify(record))


@pytest.mark.parametrize("verb", [["search", "asset", "si"], ["prove", "drf", "si"],
                                  ["matrix", "--mechanism", "drf"], ["rediscover", "--claim", "thm1-asset-si"],
                                  ["store", "list"], ["store", "verify"]])
def test_cli_a_store_that_is_a_file_is_one_line(tmp_path, run_cli, verb, assert_one_line_error):
    afile = tmp_path / "afile"
    afile.write_text("")
    for where in ([afile] if verb[0] == "store" else [afile, afile / "sub"]):
        assert_one_line_error(run_cli(*verb, "--store", where, timeout=120), "not a folder")
    assert afile.read_text() == ""


def test_no_store_inside_the_installed_package(tmp_path, run_cli, monkeypatch, assert_one_line_error):
    from fairlab.core.errors import InputError

    package = Path(fairlab.__file__).parent
    for where in (package, package / "counterexamples" / "fixtures", store.FIXTURES, store.FIXTURES / "sub",
                  store.FIXTURES / ".." / "fixtures"):
        with pytest.raises(InputError, match="the store must be outside the installed package"):
            Store(where)
    monkeypatch.setenv("FAIRLAB_STORE", str(store.FIXTURES))
    with pytest.raises(InputError, match="outside the installed package"):
        Store()
    before = _snapshot()
    for verb in (["search", "asset", "si"], ["store", "path"], ["store", "list"]):
        assert_one_line_error(run_cli(*verb, "--store", store.FIXTURES),
                              "the store must be outside the installed package")
    assert_one_line_error(run_cli("search", "asset", "si", env={"FAIRLAB_STORE": str(package / "x")}),
                          "outside the installed package")
    assert _snapshot() == before
