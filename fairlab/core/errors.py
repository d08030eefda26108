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


class OptionError(InputError):
    """A mechanism option key or value is invalid: wrong on every instance, so searches stop on it."""


class ExactTimeout(InputError):
    """An exact computation (an exact optimum, or arithmetic on algebraic numbers) did not finish
    within its time limit: no answer, never an approximate one. A subclass of `InputError` so a
    command reports it on one line; property checks turn it into the verdict ``unknown``."""


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
