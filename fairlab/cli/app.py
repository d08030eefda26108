"""The `fairlab` Typer application: global options and the verbs.

Every module of `fairlab.cli.commands` that defines ``register(app)`` adds its verbs, so a
capability brings its command with it. The modules are imported on first use: `fairlab` with a
verb it finds in `VERBS` loads that verb's module only (`Verbs.only`), so ``fairlab allocate``
does not import the searches, the campaign runner or the audit; ``--help``, an unknown verb, or
any other use of the app (e.g. a test's ``CliRunner``) loads them all, in `HELP_ORDER`.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import pkgutil

import typer
from typer.core import TyperCommand, TyperGroup

import fairlab
import fairlab.cli.commands as commands
from fairlab.core.names import unknown

#: the order of the verbs in ``fairlab --help`` (by command module); modules not named here follow, by name
HELP_ORDER = ("mechanisms", "examples", "properties", "search", "lift", "prove", "conformance", "paper_check",
              "pdrf_tables", "dynamics", "store", "schema")

#: verb -> the module of `fairlab.cli.commands` that registers it (a verb missing here still works:
#: every module is then loaded; tests/cli/test_lazy_cli.py keeps this table equal to the modules)
VERBS = {
    "mechanisms": "mechanisms", "allocate": "mechanisms", "examples": "examples", "properties": "properties",
    "check": "properties", "search": "search", "rediscover": "search", "matrix": "search", "lift": "lift",
    "prove": "prove",
    "conformance": "conformance", "paper-check": "paper_check", "pdrf-tables": "pdrf_tables",
    "dynamics": "dynamics", "store": "store", "schema": "schema", "audit": "audit", "campaign": "campaign",
}


def command_modules() -> list[str]:
    """The modules of `fairlab.cli.commands`, in the order of ``fairlab --help``."""
    names = [info.name for info in pkgutil.iter_modules(commands.__path__)]
    names.sort(key=_rank)
    return names


def _rank(name: str):
    return (HELP_ORDER.index(name) if name in HELP_ORDER else len(HELP_ORDER), name)


def reflow(text: str | None) -> str | None:
    """`text` (a docstring or help) with each paragraph on one line, for Rich to wrap to the terminal:
    Typer keeps a docstring's single line breaks, which show as ragged lines at 80 columns. A paragraph
    with an indented line (an example) or starting with ``\\b`` keeps its lines."""
    if text is None:
        return None
    paragraphs = inspect.cleandoc(text).split("\n\n")
    out = []
    for paragraph in paragraphs:
        lines = paragraph.splitlines()
        if paragraph.startswith("\b") or any(line[:1].isspace() for line in lines):
            out.append(paragraph)
        else:
            out.append(" ".join(line.strip() for line in lines))
    return "\n\n".join(out)


class Command(TyperCommand):
    """A Typer command whose usage line shows a required argument as ``MECHANISM``, the usual
    notation, not Typer's ``{MECHANISM}`` (which reads as a placeholder left unfilled)."""

    def collect_usage_pieces(self, ctx) -> list[str]:
        pieces = super().collect_usage_pieces(ctx)
        return [p[1:-1] if p.startswith("{") and p.endswith("}") else p for p in pieces]


class Group(TyperGroup):
    """A Typer group (``fairlab store``, ``campaign``, ``dynamics``) whose unknown subcommand is
    refused with the closest names (`fairlab.core.names`), like an unknown verb."""

    def resolve_command(self, ctx, args):
        name = args[0] if args else None
        if isinstance(name, str) and not name.startswith("-") and self.get_command(ctx, name) is None:
            ctx.fail(unknown("command", name, self.list_commands(ctx)) + f"; see {ctx.command_path} --help")
        return super().resolve_command(ctx, args)


def reflow_help(item) -> None:
    """Reflow the help of a registered command or group (`reflow`), and of a group's own commands;
    a command or group of Typer's default class becomes a `Command` or `Group`."""
    group = getattr(item, "typer_instance", None)
    if group is None:  # a command: its help, else its callback's docstring
        item.help = reflow(item.help if item.help is not None else inspect.getdoc(item.callback))
        if item.cls in (None, TyperCommand):  # Typer's default
            item.cls = Command
        return
    for info in (item, group.info):
        if isinstance(info.help, str):
            info.help = reflow(info.help)
    if not isinstance(item.cls, type):  # Typer's default (its `Default` marker): not a class of the group's own
        item.cls = Group
    callback = getattr(group.registered_callback, "callback", None)
    if callback is not None and callback.__doc__ and not isinstance(group.info.help, str):
        group.info.help = reflow(inspect.getdoc(callback))
    for sub in (*group.registered_commands, *group.registered_groups):
        reflow_help(sub)


class Verbs(typer.Typer):
    """A Typer application whose verbs' modules are imported when Typer first reads its commands."""

    def __init__(self, *args, **kwargs):
        self._commands: list = []
        self._groups: list = []
        self._loaded: dict[str, bool] = {}
        self._origin: dict[int, tuple] = {}
        self._wanted: str | None = None  # inside `only`: the one module to load
        self._loading = False
        super().__init__(*args, **kwargs)

    # Typer reads and appends to these two lists; reading them outside `only` loads every module
    @property
    def registered_commands(self) -> list:
        self._load()
        return self._commands

    @registered_commands.setter
    def registered_commands(self, value: list) -> None:
        self._commands = value

    @property
    def registered_groups(self) -> list:
        self._load()
        return self._groups

    @registered_groups.setter
    def registered_groups(self, value: list) -> None:
        self._groups = value

    def _load(self) -> None:
        if self._loading:
            return
        names = [self._wanted] if self._wanted else command_modules()
        todo = [name for name in names if name not in self._loaded]
        if not todo:
            return
        self._loading = True
        try:
            for name in todo:
                self._loaded[name] = True
                module = importlib.import_module(f"{commands.__name__}.{name}")
                if hasattr(module, "register"):
                    known = {id(x) for x in self._commands} | {id(x) for x in self._groups}
                    module.register(self)
                    for item in (*self._commands, *self._groups):
                        if id(item) not in known:
                            self._origin[id(item)] = _rank(name)
                            reflow_help(item)
        finally:
            self._loading = False
        # the order of ``--help`` whatever was loaded first (the app's own additions first)
        self._commands.sort(key=lambda item: self._origin.get(id(item), (-1, "")))
        self._groups.sort(key=lambda item: self._origin.get(id(item), (-1, "")))

    @contextlib.contextmanager
    def only(self, args: list[str]):
        """Within this block, a command line whose first word is a verb of `VERBS` loads that
        verb's module only; anything else (no verb, an option first, an unknown verb) loads all."""
        verb = args[0] if args and not args[0].startswith("-") else None
        self._wanted = VERBS.get(verb) if verb else None
        try:
            yield self
        finally:
            self._wanted = None


app = Verbs(
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
