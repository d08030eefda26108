"""Running a campaign: its cells in parallel, one result file per cell, resumable.

`run(spec_path, out_dir, workers=2)` expands the spec (`fairlab.campaign.spec`), writes
``OUT/campaign.json`` (the spec and its cells), and runs every cell that has no result file yet
(or whose outcome is in `retry`) on an executor: a standard-library process pool by default, or
any `concurrent.futures.Executor` given (Dask's ``Client.get_executor()``). Each cell runs in a
process of its own with a hard time limit (`fairlab.campaign.cell.run_isolated`). The driver
alone writes ``OUT/cells/<id>.json``, atomically, as results arrive, so an interrupted campaign
leaves only complete files and the same command resumes with the cells that are missing.
"""

from __future__ import annotations

import concurrent.futures
import json
import multiprocessing
import os
from pathlib import Path
from typing import Callable, Iterable

from fairlab.campaign import spec as specs
from fairlab.campaign.cell import run_isolated
from fairlab.core.errors import InputError
from fairlab.core.results import SCHEMA_VERSION, Status, provenance
from fairlab.counterexamples.store import Store, check_outside_package, write_atomic

OUTCOMES = ("done", "error", "timeout", "crashed")


def check_out_dir(out: Path) -> None:
    """Refuse (one line) an --out that is not a folder we may fill."""
    if out.exists() and not out.is_dir():
        raise InputError(f"--out: {str(out)!r} exists and is not a directory")
    check_outside_package(out, "--out", "the results")
    parent = next(p for p in (out, *out.parents) if p.exists())
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"--out: {str(parent)!r} is not writable")


def load_results(out: Path) -> dict[str, dict]:
    """Cell id -> its result document, for every complete result file in ``OUT/cells``."""
    folder = out / "cells"
    found = {}
    if folder.is_dir():
        for path in sorted(folder.glob("*.json")):
            try:
                document = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue  # not ours, or damaged: the cell runs again
            if isinstance(document, dict) and document.get("kind") == "campaign-cell":
                found[document["id"]] = document
    return found


def local_executor(workers: int) -> concurrent.futures.Executor:
    """The default: a standard-library process pool (fork: the lab is imported once)."""
    return concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"))


def run(spec_path: str | Path, out: str | Path, workers: int = 2, retry: Iterable[str] = (),
        store: Store | None = None, executor: concurrent.futures.Executor | None = None,
        progress: Callable[[int, int, str], None] | None = None) -> dict:
    """Run the campaign; returns its summary (cells, run now, already there, outcomes)."""
    spec_path, out = Path(spec_path), Path(out)
    data = specs.load(spec_path)
    cells = specs.expand(data, spec_path.parent)
    retry = set(retry)
    bad = sorted(retry - set(OUTCOMES) - {s.value for s in Status})
    if bad:
        raise InputError(f"--retry: {bad[0]!r}: expected outcomes ({', '.join(OUTCOMES[1:])}) or statuses "
                         "(unknown, violated, ...)")
    check_out_dir(out)
    (out / "cells").mkdir(parents=True, exist_ok=True)
    write_atomic(out / "campaign.json", {"schema_version": SCHEMA_VERSION, "kind": "campaign", "spec": data,
                                          "cells": [{"id": c.id, **c.description} for c in cells]})
    done = load_results(out)

    def wanted(cell) -> bool:
        old = done.get(cell.id)
        return old is None or old["outcome"] in retry or (old["outcome"] == "done" and old["status"] in retry)

    todo = [c for c in cells if wanted(c)]
    store_dir = None if store is None else str(store.path)
    own = executor is None
    pool = local_executor(workers) if own else executor
    finished = 0
    try:
        futures = {pool.submit(run_isolated, cell.description, store_dir): cell for cell in todo}
        for future in concurrent.futures.as_completed(futures):
            cell = futures[future]
            try:
                outcome = future.result()
            except Exception as exc:  # the executor lost the task (a worker died): recorded, not fatal
                outcome = {"outcome": "crashed", "status": None, "result": None, "seconds": None,
                           "error": f"the executor lost the cell: {type(exc).__name__}: {exc}"}
            write_atomic(out / "cells" / f"{cell.id}.json",
                          {"schema_version": SCHEMA_VERSION, "kind": "campaign-cell", "id": cell.id,
                           "cell": cell.description, **outcome, "provenance": provenance()})
            finished += 1
            if progress:
                progress(finished, len(todo), cell.label())
    except BaseException:  # Ctrl-C or a kill: what was written is complete; nothing else is
        if own:
            pool.shutdown(wait=False, cancel_futures=True)
        raise
    if own:
        pool.shutdown(wait=True)
    results = load_results(out)
    outcomes = {}
    for cell in cells:
        document = results.get(cell.id)
        key = "missing" if document is None else document["status"] or document["outcome"]
        outcomes[key] = outcomes.get(key, 0) + 1
    return {"cells": len(cells), "ran": len(todo), "reused": len(cells) - len(todo), "outcomes": outcomes,
            "out": str(out)}
