"""Shared test setup: where the test plug-ins are, how to run the CLI in a fresh process, and a
store of findings that is never the repository's (every run writes into a temporary folder).

The tests mirror the packages: ``tests/<package>/`` holds the tests of ``fairlab.<package>``
(``tests/core`` for ``fairlab.core``, ``tests/cli`` for the command line, ``tests/project`` for
packaging and dependencies); ``tests/plugins`` holds researcher-style plug-ins the tests load.
Hypothesis strategies for instances are public: `fairlab.strategies`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLUGINS = Path(__file__).resolve().parent / "plugins"


def pytest_configure(config):
    # Findings of every search and proof the tests run go to a throwaway store (FAIRLAB_STORE),
    # inherited by the CLI subprocesses the tests start: nothing is written into the checkout.
    import tempfile

    os.environ["FAIRLAB_STORE"] = tempfile.mkdtemp(prefix="fairlab-test-store-")


@pytest.fixture
def plugins() -> Path:
    """The folder of test plug-ins (``tests/plugins``)."""
    return PLUGINS


@pytest.fixture
def run_cli():
    """Run ``python -m fairlab ARGS`` in a fresh process: ``run_cli(*args, input=None, timeout=300, env=None)``."""

    def run(*args, input: str | None = None, timeout: float = 300, env: dict | None = None):
        return subprocess.run(
            [sys.executable, "-m", "fairlab", *map(str, args)], input=input, capture_output=True, text=True,
            timeout=timeout, env={**os.environ, **(env or {})},
        )

    return run


def _assert_one_line_error(out, *words):
    """A refused command: exit 2, nothing on stdout, one line ``error: ...`` naming every word."""
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr
    assert all(w in lines[0] for w in words), lines[0]


@pytest.fixture
def assert_one_line_error():
    """`assert_one_line_error(completed_process, *words)`: the project's rule for bad input."""
    return _assert_one_line_error
