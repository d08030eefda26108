"""Mechanisms load on first use; the static table of `registry.MODULES` matches the modules."""

import subprocess
import sys

from fairlab import mechanisms
from fairlab.mechanisms import registry
from fairlab.mechanisms.base import ALIASES


def test_modules_table_matches_registrations():
    registry.load_all()
    table = {}
    for name, mech in mechanisms.REGISTRY.items():
        table[name] = mech.module.rsplit(".", 1)[1]
    for alias, name in ALIASES.items():
        table[alias] = table[name]
    assert table == registry.MODULES


def test_get_loads_only_the_mechanism_asked_for():
    code = ("import sys; from fairlab import mechanisms; mechanisms.get('drf'); "
            "print(sorted(m for m in sys.modules if m.startswith('fairlab.mechanisms.') and "
            "m.split('.')[-1] in ('asset', 'bmf', 'ceei', 'ks', 'maxmin', 'pdrf', 'drf_tasks')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_registry_and_names_are_complete():
    assert mechanisms.names(None) == sorted(mechanisms.REGISTRY)
    assert {"asset", "bmf", "ceei", "drf", "drf-tasks", "ks", "maxmin", "pdrf"} <= set(mechanisms.names())
    assert mechanisms.get("pf") is mechanisms.get("ceei")
