"""The lab's version: the one place it is written (pyproject.toml reads it from here; `fairlab.__version__`
re-exports it), so `fairlab.core` can record it without importing the package's top level."""

__version__ = "0.3.0"
