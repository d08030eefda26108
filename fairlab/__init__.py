"""fairlab: a lab for verifying fair-allocation mechanisms for multiple resources.

The core shared by every package: exact numbers (`fairlab.core.exact`), the instance model
(`fairlab.core.instance`), the one input-error type (`fairlab.core.errors`), and the CLI (`fairlab.cli`).
`provenance()` names the versions a result was computed with (for fixtures and JSON results).
"""

__version__ = "0.1.0"

#: distributions whose version can change a verdict or a timing: the solvers and the numerics
PROVENANCE_PACKAGES = ("z3-solver", "highspy", "numpy", "scipy")


def provenance() -> dict:
    """Versions this process computes with: the lab, Python, and the solver / numeric packages.

    ``{"lab": "0.1.0", "python": "3.11.7", "z3-solver": "4.15.4.0", "highspy": "1.16.0", ...}``;
    a package that is not installed is ``None``. Cheap (package metadata only, nothing imported),
    so a fixture or a JSON result can carry it.
    """
    import platform
    from importlib import metadata

    out = {"lab": __version__, "python": platform.python_version()}
    for name in PROVENANCE_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out
