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

__version__ = "0.1.0"

#: public name -> (module, attribute), imported on first use
_API = {
    "check": ("fairlab.properties", "check"),
    "run_search": ("fairlab.search", "run_search"),
    "prove": ("fairlab.search", "prove"),
    "allocate": ("fairlab.mechanisms", "allocate"),
    "mechanism": ("fairlab.mechanisms", "get"),
    "conformance": ("fairlab.mechanisms.conformance", "check_sample"),
    "Instance": ("fairlab.core.instance", "Instance"),
    "Result": ("fairlab.core.results", "Result"),
    "Status": ("fairlab.core.results", "Status"),
    "to_json": ("fairlab.core.results", "json_text"),  # the JSON document as text
    "to_dict": ("fairlab.core.results", "to_dict"),  # ... as a dict of plain values
    "provenance": ("fairlab.core.results", "provenance"),
    "SCHEMA_VERSION": ("fairlab.core.results", "SCHEMA_VERSION"),
}


def __getattr__(name: str):
    if name in _API:
        import importlib

        module, attribute = _API[name]
        value = getattr(importlib.import_module(module), attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'fairlab' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_API])


__all__ = ["__version__", *_API]
