"""The `fairlab` command line.

Core verbs live here (`mechanisms`, `examples`, `allocate`); every module in
`fairlab/commands/` that defines ``register(app)`` adds its own verbs, so a capability brings its
command with it. Bad input of any kind prints one line ``error: ...`` on stderr and exits 2.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from typing import List, Optional

import typer
from rich.console import Console
from rich.table import Table

from fairlab.errors import InputError

try:  # typer >= 0.2x vendors click as typer._click; older typer uses click itself
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover
    from click import exceptions as click_exceptions
from fairlab.exact import format_short, to_fraction
from fairlab.instance import Instance, examples, parse_json, read_capped

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


def emit_json(obj) -> None:
    typer.echo(json.dumps(obj, indent=2, ensure_ascii=False))


@app.command("mechanisms")
def mechanisms_cmd(fmt: str = typer.Option("table", "--format", help="table | json")):
    """List the registered mechanisms with their options and sources."""
    import mechanisms as mech

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
def examples_cmd():
    """List the shipped example instances (usable wherever an INSTANCE is asked for)."""
    for name, path in examples().items():
        inst = Instance.load(path)
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
    import mechanisms as mech
    from fairlab.commands import _params
    from mechanisms import plugin

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
        emit_json(result.to_dict())
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
    import fairlab.commands as commands

    for info in pkgutil.iter_modules(commands.__path__):
        module = importlib.import_module(f"fairlab.commands.{info.name}")
        if hasattr(module, "register"):
            module.register(app)


_load_command_modules()


def main() -> None:
    """The `fairlab` entry point: a usage error or an uncaught `InputError` is one line ``error: ...``."""
    try:
        code = app(standalone_mode=False)  # returns the exit code of typer.Exit / --help
    except click_exceptions.ClickException as exc:  # usage errors (exit 2) in one line, not click's box
        if type(exc).__name__ != "NoArgsIsHelpError":  # bare `fairlab` has printed the help already
            typer.echo(f"error: {' '.join(exc.format_message().split())}", err=True)
        sys.exit(exc.exit_code)
    except typer.Abort:
        typer.echo("error: aborted", err=True)
        sys.exit(1)
    except InputError as exc:  # a command that forgot to catch it still gets the one-line treatment
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
