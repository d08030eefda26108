"""fairlab: a lab for verifying fair-allocation mechanisms for multiple resources.

    >>> import fairlab
    >>> fairlab.check("asset", "si", "thm1-asset-si").status
    <Status.VIOLATED: 'violated'>

The Python API takes its arguments in the CLI's order (mechanism, property, instance or size);
a mechanism is a registered name, a ``file.py:function`` plug-in, an entry point of the group
``fairlab.mechanisms``, or a plain Python callable; an instance is an `Instance`, its JSON-shaped
dict, a path, or the name of a shipped example. Every answer is a frozen `Result`.

Layers (each imports only from those below it; CI checks this with import-linter):
``fairlab.cli`` → ``fairlab.paper_checks`` / ``fairlab.dynamics`` → ``fairlab.search`` →
``fairlab.properties`` → ``fairlab.mechanisms`` / ``fairlab.counterexamples`` → ``fairlab.core``.
Importing ``fairlab`` itself is cheap: the names below are loaded on first use.
"""

from typing import TYPE_CHECKING, Any

from fairlab.core.version import __version__

if TYPE_CHECKING:  # what the lazy names below are, for type checkers (at run time: loaded on first use)
    from fairlab.core.instance import Instance as Instance
    from fairlab.core.results import SCHEMA_VERSION as SCHEMA_VERSION
    from fairlab.core.results import Result as Result
    from fairlab.core.results import Status as Status
    from fairlab.core.results import provenance as provenance
    from fairlab.core.results import to_json as to_json
    from fairlab.mechanisms import allocate as allocate
    from fairlab.mechanisms import get as mechanism  # noqa: F401  (a lazy public name)
    from fairlab.mechanisms.conformance import check_sample as conformance  # noqa: F401  (a lazy public name)
    from fairlab.properties import check as check
    from fairlab.search import module as search  # noqa: F401  (the subpackage, callable: `run_search`)
    from fairlab.search import prove as prove
    from fairlab.search import run_search as run_search

#: public name -> (module, attribute or None for the module itself), imported on first use
_API: dict[str, tuple[str, str | None]] = {
    "check": ("fairlab.properties", "check"),
    "search": ("fairlab.search", None),  # the subpackage itself, callable (fairlab.search.SearchModule)
    "run_search": ("fairlab.search", "run_search"),
    "prove": ("fairlab.search", "prove"),
    "allocate": ("fairlab.mechanisms", "allocate"),
    "mechanism": ("fairlab.mechanisms", "get"),
    "conformance": ("fairlab.mechanisms.conformance", "check_sample"),
    "Instance": ("fairlab.core.instance", "Instance"),
    "Domain": ("fairlab.core.domain", "Domain"),
    "domain": ("fairlab.core.domain", "parse"),
    "Result": ("fairlab.core.results", "Result"),
    "Status": ("fairlab.core.results", "Status"),
    "to_json": ("fairlab.core.results", "json_text"),  # the JSON document as text
    "to_dict": ("fairlab.core.results", "to_dict"),  # ... as a dict of plain values
    "provenance": ("fairlab.core.results", "provenance"),
    "SCHEMA_VERSION": ("fairlab.core.results", "SCHEMA_VERSION"),
}


def __getattr__(name: str) -> Any:
    if name in _API:
        import importlib

        module, attribute = _API[name]
        loaded = importlib.import_module(module)
        value = loaded if attribute is None else getattr(loaded, attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'fairlab' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API])


__all__ = ["__version__", *_API]
