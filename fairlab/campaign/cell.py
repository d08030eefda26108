"""Running one cell: in a process of its own, under a hard time limit, JSON in and JSON out.

`run_isolated(description, store)` starts a child process (`fairlab.core.processes`: a fork
server's child, never a fork of the worker) that runs the cell (`execute`) and sends back its
outcome as JSON text; the parent waits the cell's time limit plus a grace period and kills the
child, and everything it started, if it is still running. Nothing but JSON crosses the process
boundary (z3 objects do not pickle), so the same function serves a local process pool and a Dask
worker.

An outcome is ``{"outcome": "done" | "error" | "timeout" | "crashed", "status": ..., "result":
..., "error": ..., "seconds": ...}``: ``done`` with the verb's JSON document (its ``status`` is the
verdict), ``error`` with the one-line message of bad input or a broken plug-in (or of an internal
error, a bug in fairlab: then also ``"internal": true``), ``timeout`` when
the hard limit killed it, ``crashed`` when the process died without an answer. A plug-in's cell
also records ``"files"``: every source file the plug-in loaded (its own, its helpers wherever they
are) with its sha256 (`fairlab.mechanisms.plugin.loaded_files`); `fairlab.campaign.run` runs a
cell again when one of them changed.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from multiprocessing.connection import wait
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairlab import __version__, properties
from fairlab.audit.run import audit
from fairlab.campaign.spec import folder_digest
from fairlab.core import processes
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance, examples
from fairlab.core.lifetime import die_with_parent
from fairlab.core.results import Result, provenance, to_dict
from fairlab.core.stdio import output_to_stderr, printable
from fairlab.counterexamples.store import file_sha256
from fairlab.mechanisms import _plugin_limits as plugin_limits
from fairlab.mechanisms import plugin
from fairlab.search import catalogue, prove, rediscover, run_search
from fairlab.search.proof import ProveBudget

if TYPE_CHECKING:
    from fairlab.dynamics import markov

#: seconds a cell may run past its own time limit (its outer stop) before it is killed
GRACE_SECONDS = 10.0

#: the end of an internal error's message in a cell's outcome (which also has ``"internal": true``)
INTERNAL = " (internal error)"


def _unchanged(what: str, path: str, sha256: str) -> None:
    """The file a cell names must be the one its id was computed from (edited since, or another
    file at that path on a cluster's worker: its result would be about other code or data)."""
    try:
        found = file_sha256(Path(path))
    except OSError as exc:
        raise InputError(f"{what} {path!r}: cannot read it here ({exc.strerror or exc})") from None
    if found != sha256:
        raise InputError(f"{what} {path!r}: its content changed since the campaign was expanded "
                         f"(sha256 {found[:12]}, the cell has {sha256[:12]}); expand it again")


def _mechanism(description: dict) -> str:
    mech = description["mechanism"]
    if mech.get("path"):
        file = mech["path"].rsplit(":", 1)[0]
        _unchanged("plug-in", file, mech["sha256"])
        if mech.get("folder_sha256") and folder_digest(Path(file)) != mech["folder_sha256"]:
            raise InputError(f"plug-in {file!r}: a Python file beside it changed since the campaign was expanded "
                             "(the plug-in may import it); expand it again")
        return mech["path"]
    return mech["name"]


def _property(description: dict):
    """The cell's property; a plug-in's file must still be the one the cell was made from."""
    prop, identity = description.get("property"), description.get("property_plugin")
    if identity and prop:
        file = prop.rsplit(":", 1)[0]
        _unchanged("property plug-in", file, identity["sha256"])
        if identity.get("folder_sha256") and folder_digest(Path(file)) != identity["folder_sha256"]:
            raise InputError(f"property plug-in {file!r}: a Python file beside it changed since the campaign was "
                             "expanded (the plug-in may import it); expand it again")
    return prop


def _instance(description: dict):
    inst = description["instance"]
    if inst.get("example"):  # the shipped file itself, never a same-named file in the cwd
        path = examples().get(inst["name"])
        if path is None:
            raise InputError(f"instance {inst['name']!r}: not a shipped example of fairlab {__version__}")
        _unchanged("instance", str(path), inst["sha256"])
        return Instance.resolve(path)
    _unchanged("instance", inst["path"], inst["sha256"])
    return Instance.resolve(inst["path"])


def cell_seconds(description: dict) -> float:
    """The cell's own outer stop in seconds: its budget's time limit (a catalogue entry's is per
    size, for each of its sizes)."""
    return float(description["budget"]["time_limit"]) * max(1, len(description.get("sizes") or ()))


def execute(description: dict, store: str | None) -> dict:
    """Run one cell in this process: the verb's JSON document (``to_dict``)."""
    d, b = description, dict(description["budget"])
    if d.get("lab") != __version__:  # the version is part of the cell's id: another one is another cell
        raise InputError(f"the cell was made by fairlab {d.get('lab')}, this worker runs {__version__}: "
                         "install the same version everywhere")
    seconds = float(b.pop("time_limit"))
    verb = d["verb"]
    if verb == "catalogue-entry":  # `fairlab prove --catalogue`: one entry, its sizes in order
        entry = catalogue.get_entry(d["entry"])
        return to_dict(catalogue.run_entry(entry, ProveBudget(seconds=seconds, **b), d["fast"]))
    if verb == "rediscover":  # `fairlab rediscover`: one claim of the sources, from scratch
        claim = rediscover.get_claim(d["claim"])
        return to_dict(rediscover.run_claim(claim, seed=d["seed"], time_limit=seconds, store=store,
                                            domain=d.get("domain")))
    mech, options = _mechanism(d), dict(d["options"])
    d = {**d, "property": _property(d)}
    if d.get("domain") is not None:  # the sweep's domains axis (absent: all, as before it existed)
        b["domain"] = d["domain"]
    result: Result | markov.MarkovResult
    with plugin.time_limit(seconds):
        if verb == "search":
            seed = 0 if d["seed"] is None else d["seed"]
            result = run_search(mech, d["property"], d["users"], d["resources"], store=store, seed=seed,
                                time_limit=seconds, options=options, **b)
        elif verb == "check":
            inst = _instance(d)
            result = properties.reverify(properties.check(mech, d["property"], inst, time_limit=seconds,
                                                          options=options, **b), mech, inst, options)
        elif verb == "prove" and d.get("all_sizes"):  # sizes = ["all"]: every size at once
            result = prove(mech, d["property"], store=store, time_limit=seconds, options=options, all_sizes=True, **b)
        elif verb == "prove":
            result = prove(mech, d["property"], d["users"], d["resources"], store=store, time_limit=seconds,
                           options=options, **b)
        elif verb == "audit":
            report = audit(mech, d["users"], d["resources"], seed=d["seed"] or 0, time_limit=seconds,
                           options=options, store=store,
                           properties_=None if d["property"] is None else [d["property"]], **b)
            return report.to_dict()
        elif verb == "dynamics-rates":
            from fairlab.dynamics import markov  # scipy: imported by the cells that need it only

            req = markov.parse_requirements(d["requirements"])
            rho = markov.parse_vector(d["loads"], "loads", len(req))
            result = markov.solve(mech, req, rho, **b)
        else:
            raise InputError(f"verb {verb!r}: not a campaign verb")
    return to_dict(result)


def cell_status(document) -> str | None:
    """A cell's verdict: the result's status; for an audit, its one property's status, or the count
    of each status over its properties ("2 violated, 7 proved")."""
    if not isinstance(document, dict):
        return None
    if document.get("kind") == "audit":
        words = [row["status"] for row in document["properties"]]
        if len(words) == 1:
            return words[0]
        return ", ".join(f"{words.count(w)} {w}" for w in dict.fromkeys(words))
    return document.get("status")


def _answer(description: dict, store: str | None) -> dict:
    """The cell's outcome, computed in this (child) process; never raises but KeyboardInterrupt."""
    start = time.monotonic()
    outcome: dict[str, Any]
    try:
        with output_to_stderr():
            document = execute(description, store)
        outcome = {"outcome": "done", "status": cell_status(document), "result": document, "error": None}
    except InputError as exc:  # bad input or a broken plug-in: one line, as the CLI says it
        outcome = {"outcome": "error", "status": None, "result": None, "error": printable(" ".join(str(exc).split()))}
    except KeyboardInterrupt:  # the campaign is being interrupted: no answer
        raise
    except BaseException as exc:  # a bug: recorded (``internal``: exit 3 where it is re-raised), the campaign goes on
        outcome = {"outcome": "error", "status": None, "result": None, "internal": True,
                   "error": printable(" ".join(f"{type(exc).__name__}: {exc}{INTERNAL}".split()))}
    outcome["seconds"] = round(time.monotonic() - start, 3)
    outcome["provenance"] = provenance()  # where it ran: the worker's versions
    path = (description.get("mechanism") or {}).get("path")
    if path:  # every source file the plug-in loaded, with its hash: a resumed campaign reruns if one changed
        outcome["files"] = plugin.loaded_files(path)
    return outcome


_READY = b"ready"  # what a cell's process sends first, once it has started
_PAUSE, _RESUME = b"-", b"+"  # then around each start of a plug-in's process: its limit stops meanwhile
#: seconds a cell's process may take to start (a fork server importing the lab on a loaded
#: machine) before its own time limit starts to count
STARTUP_SECONDS = 300.0
_RUNNING: set[int] = set()  # the cells this process is waiting for (their process groups)
_STOPPING: list[bool] = []  # set once the campaign is interrupted: this process starts no more cells


def _kill_cell(pid: int) -> None:
    """SIGKILL a cell's process group (whatever it started) and the cell itself (in case it had
    not made its group yet)."""
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def kill_running_cell() -> None:
    """Kill the cells this process runs (and whatever they started), and start no more; e.g.
    from a signal handler when the campaign is interrupted."""
    _STOPPING.append(True)
    for pid in list(_RUNNING):
        _kill_cell(pid)


def _child(conn, description: dict, store: str | None) -> None:
    """The cell's process: never returns (os._exit, so no exit handler runs here)."""
    code = 1
    try:
        die_with_parent()  # the fork server ended (with the pool's or Dask's worker): so does the cell
        if not processes.parent_alive():
            os._exit(1)
        os.setsid()  # a process group of its own: killing it kills whatever the cell started
        conn.send_bytes(_READY)  # the cell's own time starts now (the lab is imported)
        # the time it spends starting a plug-in's process is not the cell's: its hard limit stops meanwhile
        plugin_limits.ON_STARTING.append(lambda begins: conn.send_bytes(_PAUSE if begins else _RESUME))
        conn.send_bytes(json.dumps(_answer(description, store)).encode())
        code = 0
    except BaseException:  # interrupted, or the parent went away: no answer
        pass
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - a closed stream must not keep the child alive
                pass
        os._exit(code)


def run_isolated(description: dict, store: str | None, grace: float = GRACE_SECONDS) -> dict:
    """Run one cell in a child process under a hard time limit (its time limit + `grace`): a
    child of the lab's fork server (`fairlab.core.processes`), so it works in any executor's
    worker, a threaded Dask worker or a daemonic one included. The answer is one message on a
    pipe, read as soon as it is whole: a process the cell left behind holding the pipe open
    cannot delay it; the cell ending without an answer is seen at once. The limit counts from
    when the cell's process is ready (it has imported the lab: the first cell of a worker waits
    for the fork server to start)."""
    limit = cell_seconds(description) + grace
    if _STOPPING:
        return {"outcome": "crashed", "status": None, "result": None, "seconds": 0.0,
                "error": "the campaign was interrupted before this cell started"}
    began = time.monotonic()
    start = began + STARTUP_SECONDS  # until the cell says it is ready (then: that moment)
    ctx = processes.context(lab=True)
    reader, writer = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_child, args=(writer, description, store), daemon=False, name="fairlab cell")
    process.start()
    writer.close()
    pid = process.pid
    assert pid is not None  # started
    _RUNNING.add(pid)
    data = None
    paused = None  # since when the cell is starting a plug-in's process (its limit stopped)
    try:
        while data is None:
            left = (start + limit if paused is None else paused + STARTUP_SECONDS) - time.monotonic()
            if left <= 0:
                return {"outcome": "timeout", "status": None, "result": None,
                        "seconds": round(time.monotonic() - (start if start <= time.monotonic() else began), 3),
                        "error": f"killed after {limit:g} s (its time limit {limit - grace:g} s + {grace:g} s grace)"}
            ready = wait([reader, process.sentinel], left)
            if reader in ready:
                try:
                    data = reader.recv_bytes()
                except (EOFError, OSError):
                    break
                if data == _READY:
                    start, data = time.monotonic(), None
                elif data == _PAUSE:
                    paused, data = time.monotonic(), None
                elif data == _RESUME:
                    start, paused, data = start + time.monotonic() - (paused or time.monotonic()), None, None
            elif ready:  # the cell ended: its answer, if any, is in the pipe already
                if reader.poll(0):
                    continue
                break
    finally:
        reader.close()
        _kill_cell(pid)  # the cell and anything it left running
        _RUNNING.discard(pid)  # before it is reaped: until then its pid cannot be another's
        process.join()
    if data is not None:
        return json.loads(data)
    code = process.exitcode
    how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
    return {"outcome": "crashed", "status": None, "result": None,
            "seconds": round(time.monotonic() - (start if start <= time.monotonic() else began), 3),
            "error": f"the cell's process ended without an answer ({how})"}
