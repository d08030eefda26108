"""The one error type for bad input, so the CLI can print one line and exit 2."""


class InputError(ValueError):
    """Bad input: the message names the field and the offending value, on one line."""

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))


class PluginError(InputError):
    """A plug-in mechanism failed (raised, exited, or returned something unusable): a broken mechanism,
    not a refusal of one instance, so searches stop on it instead of skipping the instance."""


class OptionError(InputError):
    """A mechanism option key or value is invalid: wrong on every instance, so searches stop on it."""
