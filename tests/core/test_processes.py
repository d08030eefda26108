"""Every process the lab starts comes from its fork server (`fairlab.core.processes`): the lab's own
process is never forked (Python 3.12 warns when a multi-threaded process forks, 3.14 no longer
forks by default), and the plug-in's worker rebuilds the plug-in by importing its file again."""

from __future__ import annotations

import os
import threading
import warnings
from pathlib import Path

import pytest

import fairlab
from fairlab.campaign import cell as cells
from fairlab.campaign import spec
from fairlab.core import processes
from fairlab.core.errors import PluginError
from fairlab.mechanisms import plugin


@pytest.fixture
def no_fork(monkeypatch):
    """os.fork raises in this process while a thread runs (what Python 3.12 warns about)."""
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, daemon=True)
    thread.start()

    def forbidden():
        raise AssertionError("the lab forked its own (multi-threaded) process")

    monkeypatch.setattr(os, "fork", forbidden)
    yield
    stop.set()
    thread.join()


def test_the_start_method_is_explicit_and_never_fork():
    assert processes.start_method() in ("forkserver", "spawn")
    assert processes.context().get_start_method() == processes.start_method()


def test_a_plugin_runs_in_a_fork_servers_child_not_a_fork_of_this_process(tmp_path, no_fork):
    helper = tmp_path / "helper_here.py"
    helper.write_text("SHARE = 2\n")
    path = tmp_path / "p.py"
    # the worker imports the file again, with this process's sys.path (the plug-in put its folder there)
    path.write_text("import sys\nsys.path.insert(0, __import__('os').path.dirname(__file__))\n"
                    "import helper_here\nimport os\nPARENT = os.getpid()\n"
                    "def alloc(instance):\n"
                    "    return [helper_here.SHARE if os.getpid() == PARENT else 1] * instance.n\n")
    allocation = fairlab.allocate(f"{path}:alloc", "drf-paper")
    # the worker imported the module itself (PARENT is its own pid): a fork would have inherited this one's
    assert [str(t) for t in allocation.tasks] == ["2", "2"]
    broken = tmp_path / "exits.py"
    broken.write_text("import os\nos._exit(7)\ndef alloc(i):\n    return [0] * i.n\n")
    with pytest.raises(PluginError, match="ended the process .exit code 7"):
        fairlab.allocate(f"{broken}:alloc", "drf-paper")


def test_a_campaign_cell_runs_without_forking_this_process(tmp_path, no_fork):
    [cell] = spec.expand({"verb": "check", "sweep": {"mechanisms": ["asset"], "properties": ["si"],
                                                     "instances": ["thm1-asset-si"]}}, tmp_path)
    outcome = cells.run_isolated(cell.description, None)
    assert (outcome["outcome"], outcome["status"]) == ("done", "violated"), outcome


def test_a_plugin_worker_that_cannot_start_says_why(tmp_path, monkeypatch):
    path = tmp_path / "p.py"
    path.write_text("def alloc(instance):\n    return [0] * instance.n\n")
    mech = plugin.load(f"{path}:alloc")
    Path(path).write_text("raise RuntimeError('edited after loading')\n")  # the worker imports it again
    with pytest.raises(PluginError, match="could not import it again.*edited after loading"):
        mech.allocate(fairlab.Instance.resolve("drf-paper"))


def test_a_deprecation_warning_from_the_lab_fails_the_suite_and_a_third_partys_does_not():
    code = compile("import warnings\nwarnings.warn('old', DeprecationWarning)\n", "<lab>", "exec")
    with pytest.raises(DeprecationWarning):
        exec(code, {"__name__": "fairlab.somewhere"})
    with pytest.warns(DeprecationWarning):
        exec(code, {"__name__": "somebody_elses"})
    message = "This process (pid=1) is multi-threaded, use of fork() may lead to deadlocks in the child."
    with pytest.raises(DeprecationWarning):
        warnings.warn_explicit(message, DeprecationWarning, "popen_fork.py", 1, module="multiprocessing.popen_fork")
