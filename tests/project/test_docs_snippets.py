"""The hand-written documentation pages work as written: every ```python block runs, and the cheap
`fairlab ...` lines of their shell blocks exit 0.

Each snippet runs in a fresh interpreter whose working folder is a temporary one holding a link to
the repository's `examples/` (the pages name plug-ins as `examples/...py:fn`, as a reader in a clone
would), with the store of findings pointed there too, so nothing is written in the repository. A
block preceded by ``<!-- skip-snippet: reason -->`` is not run (it needs what CI does not have, e.g.
a SLURM cluster); the reason is required.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: the hand-written pages (the generated reference pages and the notebooks are tested where they are made)
PAGES = ["docs/index.md", "docs/getting-started.md", "docs/concepts.md", "docs/citing.md",
         "docs/howto/plugin-mechanism.md", "docs/howto/lp-mechanism.md", "docs/howto/spec.md",
         "docs/howto/property.md", "docs/howto/network.md", "docs/howto/pytest-plugin.md",
         "docs/howto/campaigns-cluster.md", "docs/all-sizes.md", "docs/howto/lift-counterexamples.md"]
FENCE = re.compile(r"^(?P<skip><!-- skip-snippet: (?P<why>[^>]*?) -->\n)?```(?P<lang>[\w-]*)\n(?P<body>.*?)^```",
                   flags=re.S | re.M)
SHELL = ("", "console", "bash", "sh", "shell")
#: `fairlab` lines not run here, each with its reason (the rest run: a few seconds each)
NOT_RUN = {
    "fairlab rediscover": "the main job: CI runs it as a step of its own",
    "--scheduler": "needs a running Dask scheduler",
    "--cluster": "starts a Dask cluster: tests/campaign/test_dask.py runs one",
    "fairlab audit": "minutes on a loaded machine; tests/audit and tests/cli run the audit",
    "--all-sizes": "seconds of CPU, a minute on a loaded machine: tests/search/test_all_sizes.py runs them",
}


def blocks(page: str) -> list[tuple[str, str, str | None]]:
    """(language, body, skip reason or None) of every fenced block of `page`."""
    text = (ROOT / page).read_text(encoding="utf-8")
    return [(m["lang"], m["body"], m["why"]) for m in FENCE.finditer(text)]


def python_snippets() -> list:
    out = []
    for page in PAGES:
        for k, (_lang, body, why) in enumerate(b for b in blocks(page) if b[0] == "python"):
            marks = [pytest.mark.skip(reason=why)] if why is not None else []
            out.append(pytest.param(body, id=f"{page}:python{k + 1}", marks=marks))
    return out


def commands(page: str) -> list[tuple[str, str | None]]:
    """The `fairlab ...` lines of the page's shell blocks, in order, each with why it is not run (or None)."""
    out = []
    for lang, body, why in blocks(page):
        if lang not in SHELL:
            continue
        for line in body.splitlines():
            command = line.split("  #", 1)[0].rstrip()
            if command.startswith("fairlab "):
                out.append((command, why or next((r for key, r in NOT_RUN.items() if key in command), None)))
    return out


@pytest.fixture
def reader(tmp_path: Path) -> tuple[Path, dict]:
    """A reader's working folder (with `examples/` of the clone) and environment (a store of its own)."""
    (tmp_path / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    env = {**os.environ, "FAIRLAB_STORE": str(tmp_path / "store"), "COLUMNS": "100"}
    env.pop("FAIRLAB_DEBUG", None)
    return tmp_path, env


@pytest.mark.parametrize("code", python_snippets())
def test_python_snippet_runs(code: str, reader) -> None:
    folder, env = reader
    done = subprocess.run([sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"the snippet failed:\n{code}\n--- stderr ---\n{done.stderr[-3000:]}"


@pytest.mark.parametrize("page", [p for p in PAGES if commands(p)])
def test_shell_lines_run(page: str, reader) -> None:
    """The page's commands in order, in one folder, as a reader runs them (a report reads a run's results)."""
    folder, env = reader
    fairlab = Path(sys.executable).with_name("fairlab")
    ran = 0
    for command, skip in commands(page):
        if skip is not None:
            continue
        argv = shlex.split(command)
        argv = [str(fairlab) if fairlab.exists() else "fairlab", *argv[1:]]
        done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{page}: {command!r} exited {done.returncode}:\n{done.stderr[-3000:]}"
        ran += 1
    if ran == 0:
        pytest.skip("every command of the page is too long or needs a cluster: " +
                    "; ".join(f"{c} ({why})" for c, why in commands(page)))


def test_the_extraction_finds_the_pages_snippets() -> None:
    """The test above can fail: it sees the blocks the pages hold, and a skip needs its reason."""
    assert len(python_snippets()) >= 15
    assert ("fairlab prove drf si --users 2 --resources 2 --domain drf-paper", None) in commands(
        "docs/getting-started.md")
    sample = "<!-- skip-snippet: needs X -->\n```python\nraise SystemExit(1)\n```\n```python\nx = 1\n```\n"
    found = [(m["lang"], m["why"]) for m in FENCE.finditer(sample)]
    assert found == [("python", "needs X"), ("python", None)]


def test_a_failing_snippet_fails(reader) -> None:
    folder, env = reader
    done = subprocess.run([sys.executable, "-c", "import fairlab\nassert fairlab.check('asset', 'si', "
                           "'thm1-asset-si').status == 'holds'"], cwd=folder, env=env, capture_output=True)
    assert done.returncode != 0
