"""Running one cell: in a process of its own, under a hard time limit, JSON in and JSON out.

`run_isolated(description, store)` forks a child that runs the cell (`execute`) and sends back its
outcome as JSON text; the parent waits the cell's time limit plus a grace period and kills the
child if it is still running. Nothing but JSON crosses the process boundary (z3 objects do not
pickle), so the same function serves a local process pool and a Dask worker.

An outcome is ``{"outcome": "done" | "error" | "timeout" | "crashed", "status": ..., "result":
..., "error": ..., "seconds": ...}``: ``done`` with the verb's JSON document (its ``status`` is the
verdict), ``error`` with the one-line message of bad input or a broken plug-in, ``timeout`` when
the hard limit killed it, ``crashed`` when the process died without an answer.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import time

from fairlab import properties
from fairlab.audit.run import audit
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.core.results import to_json
from fairlab.core.stdio import output_to_stderr, printable
from fairlab.dynamics import markov
from fairlab.mechanisms import plugin
from fairlab.search import catalogue, prove, rediscover, run_search
from fairlab.search.proof import ProveBudget

#: seconds a cell may run past its own time limit (its outer stop) before it is killed
GRACE_SECONDS = 10.0


def _mechanism(description: dict) -> str:
    mech = description["mechanism"]
    return mech.get("path") or mech["name"]


def _instance(description: dict):
    inst = description["instance"]
    return inst["name"] if inst.get("example") else Instance.resolve(inst["path"])


def cell_seconds(description: dict) -> float:
    """The cell's own outer stop in seconds: its budget's time limit (a catalogue entry's is per
    size, for each of its sizes)."""
    return float(description["budget"]["time_limit"]) * max(1, len(description.get("sizes") or ()))


def execute(description: dict, store: str | None) -> dict:
    """Run one cell in this process: the verb's JSON document (``to_json``)."""
    d, b = description, dict(description["budget"])
    seconds = float(b.pop("time_limit"))
    verb = d["verb"]
    if verb == "catalogue-entry":  # `fairlab prove --catalogue`: one entry, its sizes in order
        entry = catalogue.get_entry(d["entry"])
        return to_json(catalogue.run_entry(entry, ProveBudget(seconds=seconds, **b), d["fast"]))
    if verb == "rediscover":  # `fairlab rediscover`: one claim of the sources, from scratch
        claim = rediscover.get_claim(d["claim"])
        return to_json(rediscover.run_claim(claim, seed=d["seed"], time_limit=seconds, store=store))
    mech, options = _mechanism(d), dict(d["options"])
    with plugin.time_limit(seconds):
        if verb == "search":
            seed = 0 if d["seed"] is None else d["seed"]
            result = run_search(mech, d["property"], d["users"], d["resources"], store=store, seed=seed,
                                time_limit=seconds, options=options, **b)
        elif verb == "check":
            inst = _instance(d)
            result = properties.reverify(properties.check(mech, d["property"], inst, time_limit=seconds,
                                                          options=options, **b), mech, inst, options)
        elif verb == "prove":
            result = prove(mech, d["property"], d["users"], d["resources"], store=store, time_limit=seconds,
                           options=options, **b)
        elif verb == "audit":
            report = audit(mech, d["users"], d["resources"], seed=d["seed"] or 0, time_limit=seconds,
                           options=options, store=store,
                           properties_=None if d["property"] is None else [d["property"]], **b)
            return report.to_dict()
        elif verb == "dynamics-rates":
            req = markov.parse_requirements(d["requirements"])
            rho = markov.parse_vector(d["loads"], "loads", len(req))
            result = markov.solve(d["mechanism"]["name"], req, rho, **b)
        else:
            raise InputError(f"verb {verb!r}: not a campaign verb")
    return to_json(result)


def _status(document) -> str | None:
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


def _child(conn, description: dict, store: str | None) -> None:
    os.setsid()  # a process group of its own: killing it kills whatever the cell started
    start = time.monotonic()
    try:
        with output_to_stderr():
            document = execute(description, store)
        outcome = {"outcome": "done", "status": _status(document), "result": document, "error": None}
    except InputError as exc:  # bad input or a broken plug-in: one line, as the CLI says it
        outcome = {"outcome": "error", "status": None, "result": None, "error": printable(" ".join(str(exc).split()))}
    except KeyboardInterrupt:  # the campaign is being interrupted: no answer
        raise
    except BaseException as exc:  # a bug: recorded, the campaign goes on
        outcome = {"outcome": "error", "status": None, "result": None,
                   "error": printable(f"{type(exc).__name__}: {exc} (internal error)")}
    outcome["seconds"] = round(time.monotonic() - start, 3)
    conn.send(json.dumps(outcome))
    conn.close()


def run_isolated(description: dict, store: str | None, grace: float = GRACE_SECONDS) -> dict:
    """Run one cell in a forked child under a hard time limit (its time limit + `grace`)."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    start = time.monotonic()
    process = ctx.Process(target=_child, args=(child, description, store), daemon=False)
    process.start()
    child.close()
    limit = cell_seconds(description) + grace
    try:
        if parent.poll(limit):
            try:
                return json.loads(parent.recv())
            except (EOFError, OSError):
                pass  # it died while answering
        else:
            return {"outcome": "timeout", "status": None, "result": None, "seconds": round(time.monotonic() - start, 3),
                    "error": f"killed after {limit:g} s (its time limit {limit - grace:g} s + {grace:g} s grace)"}
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # the cell and anything it left running
        except (ProcessLookupError, PermissionError):
            pass
        process.join(5)
        parent.close()
    return {"outcome": "crashed", "status": None, "result": None, "seconds": round(time.monotonic() - start, 3),
            "error": f"the cell's process ended without an answer (exit code {process.exitcode})"}
