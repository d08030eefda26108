"""The `fairlab` command line: a package of its own, with no domain logic.

* `fairlab.cli.app`: the Typer application and its global options (``--version``);
* `fairlab.cli.commands`: the verbs, one module per capability, each ``register(app)``; a verb
  parses its arguments, calls one domain function and prints;
* `fairlab.cli.inputs`: reading the command line (`read_instance`, `parse_options`,
  `check_format`) and refusing bad input (`fail`: one line on stderr, exit 2);
* `fairlab.cli.output`: printing (`console` for tables, `emit_json` for JSON documents);
* `fairlab.cli.entry`: `main`, the entry point (every failure one line on stderr and an exit code).

The helpers are re-exported here for the command modules: ``from fairlab.cli import fail``.
"""

# The helpers first: the command modules the app loads import them from here.
# isort: off
from fairlab.cli.inputs import FORMATS, check_format, fail, parse_option_value, parse_options, read_instance
from fairlab.cli.output import allocation_document, console, emit_json, listing
from fairlab.cli.app import app
from fairlab.cli.entry import INTERNAL_ERROR_EXIT, main
# isort: on

__all__ = [
    "FORMATS", "INTERNAL_ERROR_EXIT", "allocation_document", "app", "check_format", "console", "emit_json", "fail",
    "listing", "main", "parse_option_value", "parse_options", "read_instance",
]
