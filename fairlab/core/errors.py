"""The one error type for bad input, so the CLI can print one line and exit 2; and the one for an
internal error that happened in another process (a cell's), so the CLI still exits 3."""


class InputError(ValueError):
    """Bad input: the message names the field and the offending value, on one line."""

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))


class PluginError(InputError):
    """A plug-in mechanism failed (raised, exited, or returned something unusable): a broken mechanism,
    not a refusal of one instance, so searches stop on it instead of skipping the instance."""


class PluginCrash(PluginError):
    """A plug-in raised an exception on one instance: a finding about that instance (the property's
    status ``error``, its smallest crashing instance shrunk like a counterexample), not the end of
    the run. `exception` is ``Type: message``; `where` the plug-in's own ``file:line`` (the first
    frame of the traceback outside the lab), or None."""

    def __init__(self, message: str, exception: str = "", where: str | None = None):
        super().__init__(message)
        self.exception = exception
        self.where = where


class PluginBadAnswer(PluginCrash):
    """A plug-in answered wrongly on one instance: the wrong number of task counts, a negative or
    infeasible allocation, an LP with no optimum there, or a different answer when asked the same
    question twice. A finding about that instance like a raise (`PluginCrash`: status ``error``, the
    smallest such instance shrunk); `exception` says what was wrong, `where` is the plug-in's
    ``file:line`` (the function's definition: a returned value has no line of its own) or None."""


class OptionError(InputError):
    """A mechanism option key or value is invalid: wrong on every instance, so searches stop on it."""


class ExactTimeout(InputError):
    """An exact computation (an exact optimum, or arithmetic on algebraic numbers) did not finish
    within its time limit: no answer, never an approximate one. A subclass of `InputError` so a
    command reports it on one line; property checks turn it into the verdict ``unknown`` (the
    wall-clock safety net stopped it, ``"stopped": "time"``)."""


class ExactBudgetSpent(ExactTimeout):
    """An exact computation ran out of its counted budget (a z3 resource limit): no answer, the
    same on every machine — an ``unknown`` its budget decided, not the wall-clock safety net."""


class InexactAllocation(Exception):
    """A verdict would need a mechanism's exact allocation, but only an approximate one is at hand
    (e.g. CEEI's certified float path) and no exact one was obtained within the budget.

    Raised by `fairlab.properties.base.run`, the one place where properties obtain allocations; a check
    answers ``unknown`` with this reason, a witness that needs it fails verification, and no
    fixture is stored from it. Deliberately not an `InputError`: it is not a fact about the input,
    and it must never be read as "the mechanism refuses this instance"."""


class InternalError(RuntimeError):
    """An internal error (a bug in fairlab, not bad input) that happened in another process, e.g. a
    campaign cell's, and is re-raised here with that process's one-line message: the CLI reports it
    as it reports any unexpected exception (exit 3), never as bad input."""

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))


# --------------------------------------------------------------------------- a plug-in's own frames
_LAB_SUBPACKAGES = ("mechanisms", "properties", "search", "counterexamples", "paper_checks", "dynamics")


def _lab_roots() -> tuple[str, ...]:
    """The folders the lab's own code lives in (fairlab/ and the mapped subpackage folders)."""
    global _ROOTS
    if _ROOTS is None:
        import importlib.util
        import os

        roots = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]  # fairlab/core -> fairlab
        for sub in _LAB_SUBPACKAGES:
            try:
                spec = importlib.util.find_spec(f"fairlab.{sub}")
            except (ImportError, ValueError):
                spec = None
            if spec is not None and spec.submodule_search_locations:
                roots += [os.path.abspath(p) for p in spec.submodule_search_locations]
        _ROOTS = tuple(os.path.join(r, "") for r in roots)
    return _ROOTS


_ROOTS: tuple[str, ...] | None = None


def _library_roots() -> tuple[str, ...]:
    """Python's own library and the installed packages (frames there are not the plug-in's)."""
    import os
    import sysconfig

    paths = sysconfig.get_paths()
    return tuple(os.path.join(os.path.abspath(paths[k]), "") for k in ("stdlib", "platstdlib", "purelib", "platlib")
                 if paths.get(k))


def _shown(filename: str) -> str:
    import os

    try:
        relative = os.path.relpath(filename)
    except ValueError:
        return filename
    return filename if relative.startswith("..") else relative


def plugin_frames(exc: BaseException, limit: int = 3) -> list[str]:
    """``file:line in function`` of the frames of `exc`'s traceback that are the plug-in's own code
    (not the lab's, nor Python's library or installed packages, unless nothing else is left),
    innermost last, at most `limit` of them."""
    import os
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    lab = _lab_roots()
    own = [f for f in frames if not os.path.abspath(f.filename).startswith(lab)]
    libraries = _library_roots()
    theirs = [f for f in own if not os.path.abspath(f.filename).startswith(libraries)] or own
    return [f"{_shown(f.filename)}:{f.lineno} in {f.name}" for f in theirs[-limit:]]


def describe_exception(exc: BaseException) -> str:
    """``Type: message (at file.py:12 in helper <- file.py:30 in mechanism)`` of a plug-in's
    exception: where in the plug-in's own code it was raised, innermost first, on one line
    (``SystemExit: exit code 3`` for an exit). With ``FAIRLAB_DEBUG=1`` the whole traceback is
    written to stderr as well."""
    import os
    import sys
    import traceback

    if isinstance(exc, SystemExit):
        text = f"SystemExit: exit code {exc.code!r}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    frames = plugin_frames(exc)
    if frames:
        text += f" (at {' <- '.join(reversed(frames))})"
    if os.environ.get("FAIRLAB_DEBUG"):
        try:
            traceback.print_exception(exc, file=sys.stderr)
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
    return text
