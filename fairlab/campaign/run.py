"""Running a campaign: its cells in parallel, one result file per cell, resumable.

`run(spec_path, out_dir, workers=2)` expands the spec (`fairlab.campaign.spec`), writes
``OUT/campaign.json`` (the spec and its cells), and runs every cell that has no result file yet
(or whose outcome is in `retry`, or a source file of whose plug-in changed since it ran) on an
executor: a standard-library process pool by default, or any `concurrent.futures.Executor` given
(`fairlab.campaign.executors`). Each cell runs in a process of its own with a hard time limit
(`fairlab.campaign.cell.run_isolated`). The driver alone writes ``OUT/cells/<id>.json``,
atomically, as results arrive, so an interrupted campaign leaves only complete files and the same
command resumes with the cells that are missing.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Callable, Iterable, Sequence

from fairlab.campaign import executors
from fairlab.campaign import spec as specs
from fairlab.campaign.cell import GRACE_SECONDS, cell_status, run_isolated
from fairlab.core.errors import InputError
from fairlab.core.progress import Unit
from fairlab.core.results import SCHEMA_VERSION, Status, provenance
from fairlab.counterexamples.store import Store, check_outside_package, write_atomic
from fairlab.mechanisms import plugin

OUTCOMES = ("done", "error", "timeout", "crashed")


#: statuses that come with a finding, which the store must hold when one is given
FINDINGS = ("violated", "refuted", "found")


def check_out_dir(out: Path) -> None:
    """Refuse (one line) an --out that is not a folder we may fill."""
    if not str(out).strip():
        raise InputError("--out: the folder name is empty")
    if out.is_symlink() and not out.exists():
        raise InputError(f"--out: {str(out)!r} is a broken symbolic link")
    if out.exists() and not out.is_dir():
        raise InputError(f"--out: {str(out)!r} exists and is not a directory")
    check_outside_package(out, "--out", "the results")
    parent = next(p for p in (out, *out.parents) if p.exists())
    if not parent.is_dir():
        raise InputError(f"--out: {str(parent)!r} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"--out: {str(parent)!r} is not writable")


def _cells_folder(out: Path) -> Path:
    """``OUT/cells``, made if missing; a folder that cannot be made is a one-line `InputError`."""
    folder = out / "cells"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out: cannot make {str(folder)!r} ({exc.strerror or exc})") from None
    return folder


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def _damage(path: Path, document) -> str | None:
    """Why a result file cannot be trusted as its cell's result (None: it can)."""
    if not isinstance(document, dict) or document.get("kind") != "campaign-cell":
        return "not a campaign cell's result"
    cell, outcome, status = document.get("cell"), document.get("outcome"), document.get("status")
    if not isinstance(cell, dict) or document.get("id") != path.stem:
        return "its id is not its file's name"
    try:
        if specs.cell_id(cell) != path.stem:
            return "its cell's description does not hash to its id"
    except (TypeError, ValueError):
        return "its cell's description is not JSON"
    if outcome not in OUTCOMES or not (status is None or isinstance(status, str)):
        return "no valid outcome or status"
    files = document.get("files", {})
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        return "its files are not a map of file to sha256"
    if outcome != "done":
        return None if status is None and isinstance(document.get("error"), str) else "an unfinished cell with a status"
    result = document.get("result")
    if not isinstance(result, dict) or status != cell_status(result):
        return "its status is not its result's"
    if cell.get("property") and cell.get("verb") in ("search", "check", "prove") \
            and result.get("property") != cell["property"]:
        return "its result is about another property"
    return None


def load_results(out: Path) -> dict[str, dict]:
    """Cell id -> its result document, for every complete, consistent result file in
    ``OUT/cells``; a damaged or foreign one is left out (its cell runs again), with a warning."""
    folder = out / "cells"
    found = {}
    if folder.is_dir():
        for path in sorted(folder.glob("*.json")):
            try:
                document = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                document = None
            why = _damage(path, document) if document is not None else "not readable JSON"
            if why is None:
                found[path.stem] = document
            else:
                _warn(f"{path}: {why}; its cell runs again")
    return found


def check_retry(retry: Iterable[str]) -> set[str]:
    """The outcomes and statuses to run again (``all``: every cell)."""
    retry = set(retry)
    bad = sorted(retry - set(OUTCOMES) - {s.value for s in Status} - {"all"})
    if bad:
        raise InputError(f"--retry: {bad[0]!r}: expected all, outcomes ({', '.join(OUTCOMES[1:])}) or statuses "
                         "(unknown, violated, ...)")
    return retry


def _statuses(document: dict) -> set[str]:
    """Every status a result file carries (an audit cell's: each of its properties')."""
    status = document.get("status") or ""
    return {part.split(" ")[-1] for part in status.split(", ")} | {status}


def _stored(document: dict, store: Store | None) -> bool:
    """False for a finding whose fixture is not in `store` (e.g. the cell first ran with another
    store, or none): run again, it is stored this time."""
    if store is None or document.get("outcome") != "done" or not _statuses(document) & set(FINDINGS):
        return True
    details = (document.get("result") or {}).get("details") or {}
    fixture = details.get("fixture")
    if not isinstance(fixture, str):
        return False
    path = Path(fixture)
    return path.is_file() and Path(store.path).resolve() in path.resolve().parents


def _edited(document: dict) -> bool:
    """True (with a warning) when a source file the cell's plug-in loaded changed since it ran."""
    changed = plugin.changed_files(document.get("files") or {})
    if changed:
        _warn(f"cell {document['id']}: {changed[0]} changed since it ran"
              f"{f' (and {len(changed) - 1} more)' if len(changed) > 1 else ''}; it runs again")
    return bool(changed)


def run_cells(cells: Sequence[specs.Cell], executor: concurrent.futures.Executor, store: Store | None = None,
              out: Path | None = None, retry: Iterable[str] = (),
              progress: Callable[[Unit], None] | None = None,
              grace: float = GRACE_SECONDS, keep: Callable[[dict], bool] = lambda outcome: True,
              ) -> tuple[dict[str, dict], int]:
    """Run `cells` on `executor`, each in a process of its own (`run_isolated`), killed `grace`
    seconds after its own time limit. Returns (cell id -> outcome for every cell, how many cells
    ran now). With `out`, a cell whose result file is already in ``OUT/cells`` is not run again
    (unless its outcome or status is in `retry`, or its finding is not in `store`), and each new
    outcome that `keep` accepts is written there as it arrives. `progress` gets ``Unit(0, total)``
    first, then a `fairlab.core.progress.Unit` per cell as it ends. Interrupted, it cancels what
    has not started and re-raises."""
    retry = check_retry(retry)
    done = load_results(out) if out is not None else {}

    def wanted(cell) -> bool:
        old = done.get(cell.id)
        if old is None or "all" in retry or old["outcome"] in retry or not _stored(old, store) or _edited(old):
            return True
        return old["outcome"] == "done" and bool(_statuses(old) & retry)

    todo = list({c.id: c for c in cells if wanted(c)}.values())
    outcomes = {c.id: done[c.id] for c in cells if c.id in done}
    store_dir = None if store is None else str(Path(store.path).resolve())  # a worker's cwd may be another
    futures = {}
    if progress:
        progress(Unit(0, len(todo)))
    try:
        futures = {executor.submit(run_isolated, cell.description, store_dir, grace): cell for cell in todo}
        for finished, future in enumerate(concurrent.futures.as_completed(futures), 1):
            cell = futures[future]
            try:
                outcome = future.result()
            except Exception as exc:  # the executor lost the task (a worker died): recorded, not fatal
                outcome = {"outcome": "crashed", "status": None, "result": None, "seconds": None,
                           "error": f"the executor lost the cell: {type(exc).__name__}: {exc}"}
            document = {"schema_version": SCHEMA_VERSION, "kind": "campaign-cell", "id": cell.id,
                        "cell": cell.description, **outcome,
                        "provenance": outcome.get("provenance") or provenance()}
            if out is not None and keep(document):
                write_atomic(_cells_folder(out) / f"{cell.id}.json", document)
            outcomes[cell.id] = document
            if progress:
                progress(Unit(finished, len(todo), cell.label(), document["status"] or document["outcome"],
                              document.get("seconds")))
    except BaseException:  # Ctrl-C or a kill: what was written is complete; nothing else is
        for future in futures:
            future.cancel()
        raise
    return outcomes, len(todo)


def run(spec_path: str | Path, out: str | Path, workers: int = 2, retry: Iterable[str] = (),
        store: Store | None = None, executor: concurrent.futures.Executor | None = None,
        progress: Callable[[Unit], None] | None = None) -> dict:
    """Run the campaign; returns its summary (cells, run now, already there, outcomes)."""
    spec_path, out = Path(spec_path), Path(out)
    data = specs.load(spec_path)
    # the results and the findings are never a plug-in's data (`fairlab.campaign.spec.tree_digest`)
    written = (out,) + (() if store is None else (Path(store.path),))
    cells = list({c.id: c for c in specs.expand(data, spec_path.parent, written)}.values())  # a repeated one once
    check_retry(retry)
    check_out_dir(out)
    _cells_folder(out)
    write_atomic(out / "campaign.json", {"schema_version": SCHEMA_VERSION, "kind": "campaign", "spec": data,
                                          "cells": [{"id": c.id, **c.description} for c in cells]})
    with contextlib.nullcontext(executor) if executor is not None else executors.local(workers) as pool:
        outcomes, ran = run_cells(cells, pool, store=store, out=out, retry=retry, progress=progress)
    counts: dict[str, int] = {}
    for cell in cells:
        document = outcomes.get(cell.id)
        key = "missing" if document is None else document["status"] or document["outcome"]
        counts[key] = counts.get(key, 0) + 1
    return {"cells": len(cells), "ran": ran, "reused": len(cells) - ran, "outcomes": counts, "out": str(out)}
