"""The `fairlab` Typer application: global options and the verbs.

Every module of `fairlab.cli.commands` that defines ``register(app)`` adds its verbs, so a
capability brings its command with it.
"""

from __future__ import annotations

import importlib
import pkgutil

import typer

import fairlab
import fairlab.cli.commands as commands

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="fairlab: exact fair allocation of multiple resources — mechanisms, properties, searches, proofs.",
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"fairlab {fairlab.__version__}")
        raise typer.Exit()


@app.callback()
def _global_options(
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                 help="print the version of fairlab and exit"),
) -> None:
    """fairlab: exact fair allocation of multiple resources — mechanisms, properties, searches, proofs."""


#: the order of the verbs in ``fairlab --help`` (by command module); modules not named here follow, by name
HELP_ORDER = ("mechanisms", "examples", "properties", "search", "prove", "conformance", "paper_check",
              "pdrf_tables", "dynamics", "store", "schema")


def _register_commands() -> None:
    names = [info.name for info in pkgutil.iter_modules(commands.__path__)]
    names.sort(key=lambda name: (HELP_ORDER.index(name) if name in HELP_ORDER else len(HELP_ORDER), name))
    for name in names:
        module = importlib.import_module(f"{commands.__name__}.{name}")
        if hasattr(module, "register"):
            module.register(app)


_register_commands()
