"""Every failure reaching the command line is one line ``error: ...`` on stderr, never a traceback.

Exit codes: 2 bad input or a usage error (also a budget that ran out: the instance is beyond it),
3 an internal error (an exception no verb expected: a bug), 130 interrupted. ``FAIRLAB_DEBUG=1``
adds the traceback. Also here: BMF's budget (options ``timeout`` and ``max_checks``) and the
stdout guards of `fairlab.core.stdio`.
"""

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from fairlab import cli, mechanisms, provenance
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.mechanisms import bmf

ROOT = Path(__file__).resolve().parents[2]


def run(*args, code: str | None = None, env_extra: dict | None = None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.pop("FAIRLAB_DEBUG", None)
    env.update(env_extra or {})
    argv = [sys.executable, "-c", code] if code is not None else [sys.executable, "-m", "fairlab.cli", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)


def main_exit(monkeypatch, *argv) -> int:
    monkeypatch.setattr(sys, "argv", ["fairlab", *argv])
    with pytest.raises(SystemExit) as stop:
        cli.main()
    return stop.value.code


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


# --------------------------------------------------------------------------- the catch-all
def test_unexpected_exception_is_one_line_exit_3(monkeypatch, capsys):
    def boom(*args):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(mechanisms, "names", boom)
    assert main_exit(monkeypatch, "mechanisms", "--format", "json") == cli.INTERNAL_ERROR_EXIT
    out, err = capsys.readouterr()
    line = one_error_line(err)
    assert line.startswith("error: RuntimeError: boom second line (internal error")
    assert out == ""


def test_debug_variable_shows_the_traceback(monkeypatch, capsys):
    monkeypatch.setattr(mechanisms, "names", lambda *a: 1 / 0)
    monkeypatch.setenv("FAIRLAB_DEBUG", "1")
    assert main_exit(monkeypatch, "mechanisms") == cli.INTERNAL_ERROR_EXIT
    err = capsys.readouterr().err
    assert "Traceback" in err and err.rstrip().splitlines()[-1].startswith("error: ZeroDivisionError")


def test_input_error_escaping_a_verb_is_exit_2(monkeypatch, capsys):
    def refuse(*args):
        raise InputError("instance: too big")

    monkeypatch.setattr(mechanisms, "names", refuse)
    assert main_exit(monkeypatch, "mechanisms") == 2
    assert one_error_line(capsys.readouterr().err) == "error: instance: too big"


def test_interrupt_is_one_line(monkeypatch, capsys):
    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(mechanisms, "names", interrupted)
    assert main_exit(monkeypatch, "mechanisms") in (1, 130)  # typer < 0.2x: click's Abort, exit 1
    assert one_error_line(capsys.readouterr().err) in ("error: interrupted", "error: aborted")


def test_catch_all_in_a_real_process():
    code = (
        "import fairlab.mechanisms, fairlab.cli as c, sys\n"
        "def boom(*args): raise LookupError('no such thing')\n"
        "fairlab.mechanisms.names = boom\n"
        "sys.argv = ['fairlab', 'mechanisms', '--format', 'json']\n"
        "c.main()\n"
    )
    out = run(code=code)
    assert out.returncode == 3 and out.stdout == ""
    assert one_error_line(out.stderr).startswith("error: LookupError: no such thing (internal error")
    debug = run(code=code, env_extra={"FAIRLAB_DEBUG": "1"})
    assert debug.returncode == 3 and "Traceback" in debug.stderr


def test_usage_error_is_one_line():
    out = run("allocate")
    assert out.returncode == 2 and out.stdout == ""
    one_error_line(out.stderr)


# --------------------------------------------------------------------------- BMF's budget
def random_instance(n: int, seed: int = 1) -> dict:
    r = random.Random(seed)
    return {"capacities": [r.randint(50, 100) for _ in range(n)],
            "demands": [[r.randint(1, 10) for _ in range(n)] for _ in range(n)]}


def test_bmf_check_budget_is_deterministic():
    inst = Instance.from_dict(random_instance(6))
    messages = []
    for _ in range(2):
        with pytest.raises(bmf.BMFBudgetExceeded) as stop:
            bmf.allocate(inst, max_checks=40)
        messages.append(str(stop.value).split(": stopped after")[0])
    assert messages[0] == messages[1] == "bmf: did not finish within 40 solver calls (option max_checks=40)"
    assert isinstance(stop.value, InputError)  # a search skips such an instance, the CLI says exit 2


def test_bmf_time_limit_stops_a_large_instance_with_one_line(tmp_path):
    path = tmp_path / "big.json"
    path.write_text(json.dumps(random_instance(20)))
    out = run("allocate", "bmf", str(path), "--format", "json", "-o", "timeout=2")
    assert out.returncode == 2 and out.stdout == ""
    line = one_error_line(out.stderr)
    assert line.startswith("error: bmf: did not finish within 2 s (option timeout=2)"), line


@pytest.mark.parametrize("option", ["timeout=0", "timeout=-1", "timeout=nan", "timeout=true", "max_checks=0",
                                    "max_checks=1.5", "budget=3"])
def test_bmf_bad_budget_options(option):
    out = run("allocate", "bmf", "drf-paper", "-o", option)
    assert out.returncode == 2 and out.stdout == ""
    one_error_line(out.stderr)


def test_bmf_small_instance_within_budget():
    a = mechanisms.allocate("bmf", Instance.load("bmf-three-resources"), timeout=30, max_checks=10_000)
    assert bmf.is_bmf(a.instance, a.tasks).holds


# --------------------------------------------------------------------------- stdout guards
def test_highs_prints_nothing_on_stdout():
    out = run(code="from fairlab.core.lp import new_highs, solve_lp\nnew_highs()\n"
                   "print(solve_lp([1, 1], A_ub=[[1, 2]], b_ub=[4], maximize=True).method)")
    assert out.returncode == 0 and out.stdout == "highs+certificate\n", out.stdout


def test_c_level_writes_go_to_stderr_under_the_cli_guard():
    out = run(code="import os\nfrom fairlab.core.stdio import results_only_on_stdout\n"
                   "with results_only_on_stdout():\n    os.write(1, b'noise\\n')\n    print('result')\n"
                   "print('after')\nos.write(1, b'fd1 again\\n')\n")
    assert out.returncode == 0
    assert out.stdout == "result\nafter\nfd1 again\n" and "noise" in out.stderr


def test_provenance_names_the_solver_versions():
    p = provenance()
    assert {"lab", "python", "z3-solver", "highspy", "numpy"} <= set(p)
    assert p["python"].count(".") == 2 and p["z3-solver"] and p["highspy"]
