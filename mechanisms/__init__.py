"""Mechanisms: one file each, numeric allocator and z3 specification side by side.

    >>> from fairlab.mechanisms import allocate
    >>> allocate("drf", {"capacities": [9, 18], "demands": [[1, 4], [3, 1]]}).tasks
    (Fraction(3, 1), Fraction(2, 1))

Every module in this package that calls `base.register` is a mechanism, so adding a mechanism is
adding a file. The modules are loaded on first use (`fairlab.mechanisms.registry`): ``get("drf")``
imports the module of ``drf`` only, and ``REGISTRY`` / ``names()`` load them all, so the CLI's
``fairlab allocate drf`` does not pay for the mechanisms it does not run. A researcher's own
mechanism is named ``path/to/file.py:function`` wherever a built-in name is accepted (see
`fairlab.mechanisms.plugin`); `get` also takes a `Mechanism`, a plain Python callable and the name
of an entry point of the group ``fairlab.mechanisms`` (see `fairlab.mechanisms.registry`).
"""

from __future__ import annotations

import importlib
from typing import Any

from fairlab.mechanisms.base import Allocation, Constraint, Mechanism, SymbolicInstance
from fairlab.mechanisms.registry import allocate, get, load_all, names


def __getattr__(name: str) -> Any:
    """``REGISTRY`` (every mechanism loaded first) and the submodules, on first use."""
    if name == "REGISTRY":
        load_all()
        from fairlab.mechanisms.base import REGISTRY

        return REGISTRY
    if not name.startswith("__"):
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["allocate", "get", "names", "Allocation", "Constraint", "Mechanism", "SymbolicInstance", "REGISTRY"]
