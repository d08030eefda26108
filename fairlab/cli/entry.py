"""The `fairlab` entry point: run the app, turn every failure into one line on stderr and an exit code.

Exit codes: 0 done (whatever the verdict, unless a verb says otherwise), 1 a verb's own "no"
(e.g. a claim not reproduced), 2 bad input or a usage error, 3 an internal error (a bug in
fairlab), 130 interrupted. Never a traceback, unless ``FAIRLAB_DEBUG=1``.
"""

from __future__ import annotations

import os
import sys
import traceback

import typer

from fairlab.cli.app import VERBS, app
from fairlab.core.errors import InputError, InternalError
from fairlab.core.names import did_you_mean, unknown
from fairlab.core.stdio import printable, results_only_on_stdout

INTERNAL_ERROR_EXIT = 3  # an exception no verb expected: a bug in fairlab (2 stays "bad input")


def error_line(text: str) -> None:
    """One line ``error: ...`` on stderr (whitespace collapsed, very long messages cut)."""
    line = " ".join(printable(text).split())
    if len(line) > 2000:
        line = line[:2000] + " …"
    try:
        sys.stderr.write(f"error: {line}\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr gone: nothing left to tell
        pass


def unknown_option(exc: Exception) -> str | None:
    """Click's "No such option" as the lab's line with "did you mean", or None for any other usage
    error. Read through click's public attributes (`NoSuchOption.option_name`, `UsageError.ctx`):
    typer 0.28 bundles its own click, whose exception classes it does not export."""
    name = getattr(exc, "option_name", None)
    ctx = getattr(exc, "ctx", None)
    command = getattr(ctx, "command", None)
    if not isinstance(name, str) or ctx is None or command is None:
        return None
    options = [opt for param in command.params for opt in (*param.opts, *param.secondary_opts) if opt.startswith("-")]
    options += [opt for opt in ctx.help_option_names if opt not in options]
    where = " ".join(ctx.command_path.split()) if getattr(ctx, "command_path", "") else "fairlab"
    return f"unknown option {name!r}{did_you_mean(name, options)} (see {where} --help)"


def dispatch() -> int:
    """Run the app; every exception becomes one line on stderr and an exit code (never a traceback)."""
    verb = sys.argv[1] if len(sys.argv) > 1 else ""
    if verb and not verb.startswith("-") and verb not in VERBS:
        error_line(unknown("command", verb, VERBS) + "; see fairlab --help")
        return 2
    try:
        with app.only(sys.argv[1:]):  # import only the module of the verb asked for
            code = app(standalone_mode=False)  # returns the exit code of typer.Exit / --help
    except typer.TyperException as exc:  # usage errors (exit 2) in one line, not a box
        if type(exc).__name__ != "NoArgsIsHelpError":  # bare `fairlab` has printed the help already
            error_line(unknown_option(exc) or exc.format_message())
        return exc.exit_code
    except typer.Abort:
        error_line("aborted")
        return 1
    except InputError as exc:  # a command that forgot to catch it still gets the one-line treatment
        error_line(str(exc))
        return 2
    except KeyboardInterrupt:
        error_line("interrupted")
        return 130
    except BrokenPipeError:  # stdout closed early (e.g. `| head`): nothing more to say there
        error_line("stdout was closed before the output was written (broken pipe)")
        return 1
    except Exception as exc:
        if os.environ.get("FAIRLAB_DEBUG"):
            traceback.print_exc()
        # an InternalError carries another process's message, its exception's name included
        what = str(exc) if isinstance(exc, InternalError) else f"{type(exc).__name__}: {exc}"
        error_line(f"{what} (internal error: a bug in fairlab, please report it; FAIRLAB_DEBUG=1 shows the traceback)")
        return INTERNAL_ERROR_EXIT
    if code == 130:  # typer turns Ctrl-C into a silent Exit(130)
        error_line("interrupted")
    return code if isinstance(code, int) else 0


def main() -> None:
    """The `fairlab` command. Only results reach stdout (`fairlab.core.stdio.results_only_on_stdout`)."""
    try:
        with results_only_on_stdout():
            code = dispatch()
    except BrokenPipeError:  # the last flush of stdout failed
        error_line("stdout was closed before the output was written (broken pipe)")
        code = 1
    sys.exit(code)
