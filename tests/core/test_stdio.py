"""`fairlab.core.stdio.output_to_stderr`: while a verb computes, Python prints and C-level writes to
fd 1 go to stderr; afterwards stdout is whole again (alone and nested in the CLI-wide guard)."""

import os
import subprocess
import sys

CODE = """
import os, sys
from fairlab.core.stdio import output_to_stderr, results_only_on_stdout
def verb():
    with output_to_stderr():
        print("plug-in chatter")
        os.write(1, b"C banner\\n")
    print("result")
{body}
os.write(1, b"fd1 after\\n")
"""


def run(body: str):
    return subprocess.run([sys.executable, "-c", CODE.format(body=body)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONUNBUFFERED": "1"})


def test_output_to_stderr_alone():
    out = run("verb()")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "result\nfd1 after\n"
    assert "plug-in chatter" in out.stderr and "C banner" in out.stderr


def test_output_to_stderr_inside_the_cli_guard():
    out = run("with results_only_on_stdout():\n    verb()")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "result\nfd1 after\n"
    assert "plug-in chatter" in out.stderr and "C banner" in out.stderr
