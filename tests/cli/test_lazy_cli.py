"""`fairlab VERB` imports only VERB's command module; the VERBS table matches the modules."""

import importlib
import subprocess
import sys

import typer

from fairlab.cli import app as cli_app_object
from fairlab.cli.app import VERBS, command_modules


def test_verbs_table_matches_the_command_modules():
    table = {}
    for name in command_modules():
        module = importlib.import_module(f"fairlab.cli.commands.{name}")
        if not hasattr(module, "register"):
            continue
        probe = typer.Typer()
        module.register(probe)
        for info in probe.registered_commands:
            table[info.name] = name
        for info in probe.registered_groups:
            table[info.name] = name
    assert table == VERBS


def test_full_app_has_every_verb_in_help_order():
    names = [c.name for c in cli_app_object.registered_commands] + [g.name for g in cli_app_object.registered_groups]
    assert set(names) == set(VERBS)


def test_allocate_does_not_import_the_searches():
    code = ("import sys; sys.argv = ['fairlab', 'allocate', 'drf', 'drf-paper'];"
            "from fairlab.cli import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('LOADED', sorted(m for m in sys.modules if m.startswith(('fairlab.search', 'fairlab.campaign', "
            "'fairlab.audit', 'fairlab.mechanisms.ceei', 'fairlab.dynamics.markov', 'scipy'))), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "LOADED []" in done.stderr, done.stderr
    assert "dominant share" in done.stdout
