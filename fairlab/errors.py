"""The one error type for bad input, so the CLI can print one line and exit 2."""


class InputError(ValueError):
    """Bad input: the message names the field and the offending value, on one line."""

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))
