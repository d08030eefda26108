"""The same allocator with and without its z3 spec, for `benchmarks/bench_loop.py`: `with_spec`
is the how-to's static partition (examples/pytest/my_mechanism.py, spec attached), `without_spec`
calls it and declares nothing, so an audit of the two differs only in what the spec costs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "examples" / "pytest" / "my_mechanism.py"
_SPEC = importlib.util.spec_from_file_location("bench_my_mechanism", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
_MODULE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_MODULE)

with_spec = _MODULE.static_partition


def without_spec(instance):
    """The static partition, no spec declared."""
    return with_spec(instance)
