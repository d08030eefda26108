"""What every verb reads from its command line, and how it refuses bad input.

Bad input of any kind is one line ``error: ...`` on stderr and exit 2 (`fail`); the instance and
option readers raise `fairlab.core.errors.InputError`, which a verb turns into `fail`.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import typer

from fairlab.core.errors import InputError
from fairlab.core.exact import to_fraction
from fairlab.core.instance import Instance
from fairlab.core.json_input import parse_json, read_capped
from fairlab.core.stdio import printable

#: the values of every verb's ``--format`` option
FORMATS = ("table", "json")


def fail(message: str) -> NoReturn:
    """Print one error line on stderr and exit 2 (the lab's exit code for bad input)."""
    typer.echo(f"error: {' '.join(printable(message).split())}", err=True)
    raise typer.Exit(2)


def check_format(fmt: str, allowed=FORMATS) -> str:
    """The ``--format`` value, or `fail` naming the allowed ones."""
    if fmt not in allowed:
        fail(f"--format: expected one of {', '.join(allowed)}, got {fmt!r}")
    return fmt


def read_instance(source: str) -> Instance:
    """An INSTANCE argument: a JSON file, '-' for stdin, or a shipped example's name (`Instance.resolve`)."""
    if source == "-":
        return Instance.from_json(read_capped(sys.stdin.buffer, "stdin"), "stdin")
    return Instance.resolve(source)


def parse_option_value(text: str):
    """--option VALUE: a JSON literal if it parses (numbers exact), else a number 'p/q', else a string."""
    try:
        return parse_json(text, "option")
    except InputError:
        pass
    try:
        return to_fraction(text, "option")
    except InputError:
        return text


def parse_options(pairs: list[str] | None) -> dict:
    """``--option KEY=VALUE`` pairs as keyword arguments of a mechanism (dashes in KEY become underscores)."""
    out = {}
    for pair in pairs or []:
        if "=" not in pair:
            raise InputError(f"--option: expected KEY=VALUE, got {pair!r}")
        key, value = pair.split("=", 1)
        key = key.strip().replace("-", "_")
        if not key:
            raise InputError(f"--option: empty key in {pair!r}")
        out[key] = parse_option_value(value)
    return out
