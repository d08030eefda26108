"""Fixtures of the tests of `fairlab.testing` and `fairlab.pytest_plugin`.

``pytester`` runs small test files through the plugin in a fresh pytest process, as a researcher's
suite would run; ``fake_engine`` stands in for `fairlab.audit.run.audit_property` so the failure
messages of every status are checked without running the engine.
"""

from __future__ import annotations

import sys
import types

import pytest

pytest_plugins = ["pytester"]


class FakeEngine:
    """`audit_property` returning `result`, recording each call's arguments in `calls`."""

    def __init__(self):
        self.result = None
        self.calls: list[tuple[tuple, dict]] = []

    def audit_property(self, mechanism, prop, users, resources, **keywords):
        self.calls.append(((mechanism, prop, users, resources), keywords))
        return self.result


@pytest.fixture
def fake_engine(monkeypatch) -> FakeEngine:
    """Replace the audit engine's module for the duration of a test (set ``fake_engine.result``)."""
    fake = FakeEngine()
    module = types.ModuleType("fairlab.audit.run")
    module.audit_property = fake.audit_property
    monkeypatch.setitem(sys.modules, "fairlab.audit.run", module)
    return fake
