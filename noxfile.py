"""The contributor's loop (CONTRIBUTING.md): ``nox -s tests|lint|mypy|docs|serve`` from the checkout's root.

Every session runs in the environment nox was started from (the development venv of CONTRIBUTING.md,
``pip install -c constraints/ci.txt -e '.[test,dev]'``, plus ``docs`` for the site): nothing is
installed, so a session takes as long as its tool. ``bash .ci/run`` is what CI runs (fresh venvs,
every claimed Python); these sessions are the quick loop beside it.

The checkout's `mechanisms/`, `properties/`, ... become `fairlab.mechanisms` etc. only through
setuptools' package-dir, which mypy cannot follow; the ``mypy`` session checks a temporary view of
the checkout laid out as `fairlab` (`scripts/layout.py`) and reports the checkout's paths. Plain
``lint-imports`` and ``mkdocs serve`` work by themselves (pyproject.toml's `layout` contract type,
mkdocs.yml's hook); the sessions run them for one entry point.

    nox -s tests -- tests/search -x     arguments after -- go to pytest (or mkdocs serve)
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
nox.options.sessions = ["lint", "tests"]
nox.options.default_venv_backend = "none"  # the venv nox runs in: nothing installed, nothing created

spec = importlib.util.spec_from_file_location("fairlab_layout", ROOT / "scripts" / "layout.py")
assert spec is not None and spec.loader is not None
layout = importlib.util.module_from_spec(spec)
spec.loader.exec_module(layout)

#: the banners some mkdocs plugins print about a future mkdocs (as in bash .ci/docs)
QUIET_MKDOCS = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
#: the files mypy checks beside the package: the example plug-ins, against the lab's public types
MYPY_EXTRA = [ROOT / "examples"]


def need(session: nox.Session, modules: list[str], extra: str) -> None:
    """Stop the session with one line when this environment lacks an extra's tools."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        session.error(f"{sys.executable} lacks {', '.join(missing)}: pip install -c constraints/ci.txt -e '.[{extra}]'")


def run_mypy(session: nox.Session) -> None:
    """mypy with pyproject.toml's [tool.mypy] over fairlab.* (the view), then over the examples (as bash .ci/mypy
    does); the cache is the checkout's .mypy_cache, so a second run checks only what changed."""
    need(session, ["mypy"], "dev")
    base = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
            "--cache-dir", str(ROOT / ".mypy_cache")]
    failed = []
    with tempfile.TemporaryDirectory(prefix="fairlab-mypy-view.") as scratch:
        view = layout.build_view(Path(scratch) / "view", ROOT)
        session.log(f"fairlab read from {view}, a view of the checkout (scripts/layout.py)")
        for args in (["-p", "fairlab"], ["--no-warn-unused-configs", *map(str, MYPY_EXTRA)]):
            session.log("mypy " + " ".join(os.path.relpath(a, ROOT) if os.path.isabs(a) else a for a in args))
            done = subprocess.run([*base, *args], cwd=view, env={**os.environ, "MYPYPATH": str(view)},
                                  capture_output=True, text=True)
            print(checkout_paths(done.stdout + done.stderr), end="")
            if done.returncode != 0:
                failed.append(f"mypy {args[-1]} exited {done.returncode}")
    if failed:
        session.error("; ".join(failed))


def checkout_paths(out: str) -> str:
    """mypy's report with the view's paths mapped back to the checkout's (fairlab/mechanisms/x.py ->
    mechanisms/x.py) and absolute paths made relative to the checkout."""
    for name, folder in sorted(layout.package_dirs(ROOT).items(), key=lambda item: -len(item[0])):
        if name != "fairlab":
            where = os.path.relpath(folder, ROOT) + "/"
            out = re.sub(rf"^{re.escape(name.replace('.', '/'))}/", where, out, flags=re.M)
    return re.sub(rf"^{re.escape(str(ROOT) + os.sep)}", "", out, flags=re.M)


@nox.session
def tests(session: nox.Session) -> None:
    """The default suite: python -m pytest, with the arguments after -- (e.g. tests/search -x)."""
    need(session, ["pytest", "hypothesis", "xdist"], "test")
    session.run(sys.executable, "-m", "pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check, the import-linter contracts (the layers) and mypy, as bash .ci/run lint checks them."""
    need(session, ["ruff", "importlinter", "mypy"], "dev")
    session.run(sys.executable, "-m", "ruff", "check", ".")
    session.run(str(Path(sys.executable).parent / "lint-imports"), "--no-logo")
    run_mypy(session)


@nox.session
def mypy(session: nox.Session) -> None:
    """mypy alone (pyproject.toml [tool.mypy]) over fairlab.* and examples/."""
    run_mypy(session)


@nox.session
def docs(session: nox.Session) -> None:
    """mkdocs build --strict into a temporary folder (arguments after -- go to mkdocs build, e.g. -d SITE);
    bash .ci/docs adds the notebooks and the browser check."""
    need(session, ["mkdocs", "mkdocstrings", "mkdocs_gen_files"], "docs")
    with tempfile.TemporaryDirectory(prefix="fairlab-site.") as site:
        session.run(str(Path(sys.executable).parent / "mkdocs"), "build", "--strict", "-d", site, *session.posargs,
                    env=QUIET_MKDOCS)


@nox.session
def serve(session: nox.Session) -> None:
    """mkdocs serve (arguments after -- go to it, e.g. -a 127.0.0.1:8765)."""
    need(session, ["mkdocs", "mkdocstrings", "mkdocs_gen_files"], "docs")
    session.run(str(Path(sys.executable).parent / "mkdocs"), "serve", *session.posargs, env=QUIET_MKDOCS)
