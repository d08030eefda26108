"""Mechanisms: one file each, numeric allocator and z3 specification side by side.

    >>> from fairlab.mechanisms import allocate
    >>> allocate("drf", {"capacities": [9, 18], "demands": [[1, 4], [3, 1]]}).tasks
    (Fraction(3, 1), Fraction(2, 1))

Every module in this package that calls `base.register` is loaded on import, so adding a
mechanism is adding a file. A researcher's own mechanism is named ``path/to/file.py:function``
wherever a built-in name is accepted (see `fairlab.mechanisms.plugin`); `get` also takes a
`Mechanism`, a plain Python callable and the name of an entry point of the group
``fairlab.mechanisms`` (see `fairlab.mechanisms.registry`).
"""

from __future__ import annotations

import importlib
import pkgutil

from fairlab.mechanisms.base import REGISTRY, Allocation, Constraint, Mechanism, SymbolicInstance
from fairlab.mechanisms.registry import allocate, get, names

#: modules of this package that are not mechanisms (every other public module registers one)
_NOT_MECHANISMS = ("base", "plugin", "registry", "conformance")

for _info in pkgutil.iter_modules(__path__):
    if not _info.name.startswith("_") and _info.name not in _NOT_MECHANISMS:
        importlib.import_module(f"{__name__}.{_info.name}")


__all__ = ["allocate", "get", "names", "Allocation", "Constraint", "Mechanism", "SymbolicInstance", "REGISTRY"]
