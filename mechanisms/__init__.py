"""Mechanisms: one file each, numeric allocator and z3 specification side by side.

    >>> from fairlab.mechanisms import allocate
    >>> allocate("drf", {"capacities": [9, 18], "demands": [[1, 4], [3, 1]]}).tasks
    (Fraction(3, 1), Fraction(2, 1))

Every module in this package that calls `base.register` is loaded on import, so adding a
mechanism is adding a file. A researcher's own mechanism is named ``path/to/file.py:function``
wherever a built-in name is accepted (see `fairlab.mechanisms.plugin`).
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Mapping

from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.mechanisms.base import ALIASES, REGISTRY, Allocation, Constraint, Mechanism, SymbolicInstance

for _info in pkgutil.iter_modules(__path__):
    if not _info.name.startswith("_") and _info.name not in ("base", "plugin"):
        importlib.import_module(f"{__name__}.{_info.name}")


def get(name: str) -> Mechanism:
    """The mechanism registered under `name` (or an alias), or a plug-in ``file.py:function``."""
    if not isinstance(name, str) or not name:
        raise InputError(f"mechanism: expected a name, got {name!r}")
    key = ALIASES.get(name, name)
    if key in REGISTRY:
        return REGISTRY[key]
    if ":" in name:
        from fairlab.mechanisms import plugin

        return plugin.load(name)
    raise InputError(f"mechanism {name!r}: unknown (known: {', '.join(sorted(REGISTRY))})")


def allocate(name: str, instance: Instance | Mapping, **options) -> Allocation:
    """Run mechanism `name` on `instance` (an `Instance` or its JSON-shaped dict)."""
    return get(name)(instance, **options)


def names() -> list[str]:
    return sorted(REGISTRY)


__all__ = ["allocate", "get", "names", "Allocation", "Constraint", "Mechanism", "SymbolicInstance", "REGISTRY"]
