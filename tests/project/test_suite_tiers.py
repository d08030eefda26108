"""The heavy tier (tests/conftest.py HEAVY) names tests that exist: a renamed test would silently
drop out of the tier and back into every CI run, a deleted one would leave a stale entry."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _heavy() -> dict:
    spec = importlib.util.spec_from_file_location("fairlab_tests_conftest", ROOT / "tests" / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.HEAVY


def test_every_heavy_entry_names_a_test_function_of_its_file():
    for nodeid, buys in _heavy().items():
        path, name = nodeid.split("::")
        function = name.split("[")[0]
        source = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"^def {function}\(", source, re.M), nodeid
        assert buys.strip(), nodeid


def test_ci_leaves_the_heavy_tier_out_only_where_it_says():
    run = (ROOT / ".ci/run").read_text(encoding="utf-8")
    assert "not slow and not heavy" in run
