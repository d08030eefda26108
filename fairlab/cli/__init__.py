"""The `fairlab` command line.

Core verbs live here (`mechanisms`, `examples`, `allocate`); every module in
`fairlab/commands/` that defines ``register(app)`` adds its own verbs, so a capability brings its
command with it. Bad input of any kind prints one line ``error: ...`` on stderr and exits 2.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import sys
import traceback
from typing import List, Optional

import typer
from rich.console import Console
from rich.table import Table

from fairlab.core.errors import InputError
from fairlab.core.stdio import results_only_on_stdout

try:  # typer >= 0.2x vendors click as typer._click; older typer uses click itself
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover
    from click import exceptions as click_exceptions
from fairlab.core.exact import format_short, to_fraction
from fairlab.core.instance import Instance, examples, parse_json, read_capped

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="fairlab: exact fair allocation of multiple resources — mechanisms, properties, searches, proofs.",
)
# Wider than rich's 80-column default when the output is not a terminal (pipes, CI logs).
console = Console(width=None if sys.stdout.isatty() else 132)

FORMATS = ("table", "json")


def fail(message: str) -> "typer.Exit":
    """Print one error line on stderr and exit 2 (the lab's exit code for bad input)."""
    typer.echo(f"error: {' '.join(str(message).split())}", err=True)
    raise typer.Exit(2)


def check_format(fmt: str, allowed=FORMATS) -> str:
    if fmt not in allowed:
        fail(f"--format: expected one of {', '.join(allowed)}, got {fmt!r}")
    return fmt


def read_instance(source: str) -> Instance:
    """INSTANCE argument: a JSON file, '-' for stdin, or a shipped example's name."""
    if source == "-":
        return Instance.from_json(read_capped(sys.stdin.buffer, "stdin"), "stdin")
    return Instance.load(source)


def parse_option_value(text: str):
    """--option VALUE: JSON literal if it parses (numbers exact), else a number 'p/q', else a string."""
    try:
        return parse_json(text, "option")
    except InputError:
        pass
    try:
        return to_fraction(text, "option")
    except InputError:
        return text


def parse_options(pairs: List[str]) -> dict:
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


def emit_json(obj, result: bool = False) -> None:
    """Print `obj` as JSON on stdout. `result=True` (allocations and verdicts) adds the
    ``provenance`` of the run (lab, Python, z3, HiGHS, numpy, scipy versions) to the object, or to
    every object of a list, so a result says what computed it."""
    if result:
        from fairlab import provenance

        stamp = provenance()
        if isinstance(obj, dict):
            obj = {**obj, "provenance": stamp}
        elif isinstance(obj, list):
            obj = [{**item, "provenance": stamp} if isinstance(item, dict) else item for item in obj]
    typer.echo(json.dumps(obj, indent=2, ensure_ascii=False))


@app.command("mechanisms")
def mechanisms_cmd(fmt: str = typer.Option("table", "--format", help="table | json")):
    """List the registered mechanisms with their options and sources."""
    import fairlab.mechanisms as mech

    check_format(fmt)
    rows = [mech.REGISTRY[name] for name in mech.names()]
    if fmt == "json":
        emit_json(
            [
                {
                    "name": m.name,
                    "aliases": list(m.aliases),
                    "summary": m.summary,
                    "source": m.source,
                    "options": dict(m.options),
                    "symbolic": m.spec is not None,
                    "discrete": m.discrete,
                }
                for m in rows
            ]
        )
        return
    table = Table(title="mechanisms")
    for col in ("name", "aliases", "what it does", "options", "source"):
        table.add_column(col)
    for m in rows:
        opts = "\n".join(f"{k}: {v}" for k, v in m.options.items())
        table.add_row(m.name, ", ".join(m.aliases), m.summary, opts, m.source)
    console.print(table)


@app.command("examples")
def examples_cmd(fmt: str = typer.Option("table", "--format", help="table | json")):
    """List the shipped example instances (usable wherever an INSTANCE is asked for)."""
    check_format(fmt)
    rows = [(name, Instance.load(path)) for name, path in examples().items()]
    if fmt == "json":
        emit_json([{"name": name, "users": inst.n, "resources": inst.m} for name, inst in rows])
        return
    for name, inst in rows:
        typer.echo(f"{name}: {inst.n} users × {inst.m} resources")


@app.command("allocate")
def allocate_cmd(
    mechanism: str = typer.Argument(..., help="mechanism name (see `fairlab mechanisms`) or file.py:function"),
    instance: str = typer.Argument(..., help="instance JSON file, '-' for stdin, or a shipped example name"),
    option: Optional[List[str]] = typer.Option(None, "--option", "-o", help="KEY=VALUE passed to the mechanism"),
    time_limit: Optional[float] = typer.Option(None, "--time-limit", help="stop a plug-in that has not returned after S seconds"),
    fmt: str = typer.Option("table", "--format", help="table | json"),
):
    """Run MECHANISM on INSTANCE and print the exact allocation."""
    import fairlab.mechanisms as mech
    from fairlab.cli.commands import _params
    from fairlab.mechanisms import plugin

    check_format(fmt)
    try:
        _params.seconds(time_limit)
        inst = read_instance(instance)
        with plugin.time_limit(time_limit):
            mechanism_obj = mech.get(mechanism)
            result = mechanism_obj(inst, **parse_options(option))
    except InputError as exc:
        fail(str(exc))
    if fmt == "json":
        emit_json(result.to_dict(), result=True)
        return
    print_allocation(result)


def print_allocation(result) -> None:
    inst = result.instance
    table = Table(title=f"{result.mechanism} on {inst.n} users × {inst.m} resources, {result.describe_exactness()}")
    table.add_column("user")
    table.add_column("tasks", justify="right")
    for r in inst.resources:
        table.add_column(f"{r} (amount / share)", justify="right")
    table.add_column("dominant share", justify="right")
    for i, user in enumerate(inst.users):
        cells = [
            f"{format_short(result.bundles[i][r])} / {format_short(result.shares[i][r])}" for r in range(inst.m)
        ]
        table.add_row(user, format_short(result.tasks[i]), *cells, format_short(result.dominant_shares[i]))
    table.add_row(
        "[bold]used[/bold]", "", *[f"{format_short(u)} of capacity" for u in result.utilisation], "", end_section=True
    )
    console.print(table)
    for note in result.notes:
        console.print(f"note: {note}")


def _load_command_modules() -> None:
    import fairlab.cli.commands as commands

    for info in pkgutil.iter_modules(commands.__path__):
        module = importlib.import_module(f"fairlab.cli.commands.{info.name}")
        if hasattr(module, "register"):
            module.register(app)


_load_command_modules()


INTERNAL_ERROR_EXIT = 3  # an exception no verb expected: a bug in fairlab (2 stays "bad input")


def _error_line(text: str) -> None:
    """One line ``error: ...`` on stderr (whitespace collapsed, very long messages cut)."""
    line = " ".join(str(text).split())
    if len(line) > 2000:
        line = line[:2000] + " …"
    try:
        sys.stderr.write(f"error: {line}\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr gone: nothing left to tell
        pass


def _dispatch() -> int:
    """Run the app; every exception becomes one line on stderr and an exit code (never a traceback)."""
    try:
        code = app(standalone_mode=False)  # returns the exit code of typer.Exit / --help
    except click_exceptions.ClickException as exc:  # usage errors (exit 2) in one line, not click's box
        if type(exc).__name__ != "NoArgsIsHelpError":  # bare `fairlab` has printed the help already
            _error_line(exc.format_message())
        return exc.exit_code
    except typer.Abort:
        _error_line("aborted")
        return 1
    except InputError as exc:  # a command that forgot to catch it still gets the one-line treatment
        _error_line(str(exc))
        return 2
    except KeyboardInterrupt:
        _error_line("interrupted")
        return 130
    except BrokenPipeError:  # stdout closed early (e.g. `| head`): nothing more to say there
        _error_line("stdout was closed before the output was written (broken pipe)")
        return 1
    except Exception as exc:
        if os.environ.get("FAIRLAB_DEBUG"):
            traceback.print_exc()
        _error_line(
            f"{type(exc).__name__}: {exc} (internal error: a bug in fairlab, please report it; "
            "FAIRLAB_DEBUG=1 shows the traceback)"
        )
        return INTERNAL_ERROR_EXIT
    if code == 130:  # newer typer turns Ctrl-C into a silent Exit(130)
        _error_line("interrupted")
    return code if isinstance(code, int) else 0


def main() -> None:
    """The `fairlab` entry point. Any failure is one line ``error: ...`` on stderr: exit 2 for bad
    input or a usage error, 3 for an internal error (a bug), never a traceback (``FAIRLAB_DEBUG=1``
    shows one). Only results reach stdout (`fairlab.core.stdio.results_only_on_stdout`)."""
    try:
        with results_only_on_stdout():
            code = _dispatch()
    except BrokenPipeError:  # the last flush of stdout failed
        _error_line("stdout was closed before the output was written (broken pipe)")
        code = 1
    sys.exit(code)


if __name__ == "__main__":
    main()
