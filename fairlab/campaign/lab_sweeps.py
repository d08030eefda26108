"""The lab's own sweeps as campaigns: `fairlab matrix`, `fairlab prove --catalogue` and
`fairlab rediscover` run their cells in parallel, each in a process of its own under a hard
time limit (`fairlab.campaign.run.run_cells`), and give the same results, in the same order, as
running them one after another (`fairlab.search.matrix.matrix`, `catalogue.run_catalogue`,
`rediscover.run_claim`): every budget that decides a verdict is deterministic.

With `out`, every finished cell's result is also kept in ``OUT/cells/<id>.json`` (with
``OUT/campaign.json``: `fairlab campaign report OUT` reads it), and the same command resumes with
the cells that are missing. A cell that fails with bad input or a broken plug-in
ends the sweep with its one-line error (the table would lie; exit 2), one that fails with a bug in
fairlab ends it as an internal error (exit 3); a cell killed at its hard limit is
``unknown (wall-clock safety net)`` (``"stopped": "time"``) for a search, a catalogue entry and a
claim, with the reason.
"""

from __future__ import annotations

import concurrent.futures
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from fairlab import mechanisms, properties
from fairlab.campaign.cell import GRACE_SECONDS, INTERNAL
from fairlab.campaign.run import check_out_dir, run_cells
from fairlab.campaign.spec import Cell, expand, make_cell, property_entry
from fairlab.core.domain import ALL, DomainLike
from fairlab.core.domain import parse as parse_domain
from fairlab.core.domain import record as domain_record
from fairlab.core.errors import InputError, InternalError
from fairlab.core.progress import Unit
from fairlab.core.results import SCHEMA_VERSION, Result, Status
from fairlab.counterexamples.store import Store, write_atomic
from fairlab.mechanisms.base import Mechanism
from fairlab.search import catalogue as theorems
from fairlab.search import rediscover as claims
from fairlab.search.findings import store_of, writable_store
from fairlab.search.matrix import known_records, known_violation
from fairlab.search.proof import ProveBudget

Progress = Callable[[Unit], None]  # a Unit per cell as it ends (`run_cells`)


def _run(sweep: dict, cells: Sequence[Cell], executor, store: Store | None, out: str | Path | None,
         progress: Progress | None, grace: float, start_order: Sequence[Cell] | None = None) -> dict[str, dict]:
    """Run the cells; with `out`, keep each finished one (not an error, crash or timeout: those run
    again next time) and the sweep's ``campaign.json``, so `fairlab campaign report OUT` reads it.
    `start_order`: the same cells in the order they are handed to the executor (scheduling only; the
    outcomes, the failure reported and ``campaign.json`` follow `cells`)."""
    if out is not None:
        out = Path(out)
        check_out_dir(out)
    outcomes, _ = run_cells(cells if start_order is None else start_order, executor, store=store, out=out,
                            progress=progress, grace=grace, keep=lambda document: document["outcome"] == "done")
    if out is not None and (out / "cells").is_dir():
        write_atomic(out / "campaign.json", {"schema_version": SCHEMA_VERSION, "kind": "campaign", "spec": sweep,
                                              "cells": [{"id": c.id, **c.description} for c in cells]})
    for cell in cells:  # in the sweep's order: the first failure is the one reported
        raise_failure(cell, outcomes[cell.id])
    return outcomes


def raise_failure(cell: Cell, outcome: dict) -> None:
    """Re-raise a cell's failure here with its origin: bad input or a broken plug-in as `InputError`
    (exit 2), a bug in fairlab as `InternalError` (exit 3). A crashed process is a bug, unless the
    cell runs a plug-in (imported in the cell's process, it may have ended it)."""
    if outcome["outcome"] == "error":
        if outcome.get("internal"):
            raise InternalError(f"{cell.label()}: {outcome['error'].removesuffix(INTERNAL)}")
        raise InputError(outcome["error"])
    if outcome["outcome"] == "crashed":
        if (cell.description.get("mechanism") or {}).get("path"):
            raise InputError(f"{cell.label()}: {outcome['error']} (the plug-in may have ended it)")
        raise InternalError(f"{cell.label()}: {outcome['error']}")


def _killed(kind: str, status: Status, outcome: dict, **fields) -> Result:
    """The result of a cell killed at its hard limit: undecided, with the reason."""
    return Result(kind, status, seconds=outcome.get("seconds") or 0.0, explanation=f"time: {outcome['error']}",
                  **fields)


def one_setting(mechs) -> str:
    """The one setting every mechanism of a matrix allocates in (their properties are its own)."""
    settings = sorted({mech.setting for mech in mechs})
    if len(settings) > 1:
        raise InputError("matrix: the mechanisms allocate in different settings "
                         f"({', '.join(f'{m.name}: {m.setting}' for m in mechs)}); one matrix per setting")
    return settings[0] if settings else "pool"


def matrix(mechanism_names: Sequence[str], n: int, m: int, *, candidates: int, rlimit: int, seed: int,
           time_limit: float, executor: concurrent.futures.Executor, store: Store | None = None,
           write: bool = True, out: str | Path | None = None, progress: Progress | None = None,
           grace: float = GRACE_SECONDS, domain: DomainLike = None,
           property_names: Sequence[str] | None = None) -> list[Result]:
    """`fairlab.search.matrix.matrix` as a campaign: every mechanism (a name or ``file.py:function``)
    × every property (or those of `property_names`: names, plug-ins ``file.py:NAME``); a cell with
    a known violation (shipped, or in the store, inside the domain) is not searched. `domain`:
    `fairlab.core.domain.parse` (default ``all``; then the cells are those of earlier versions)."""
    asked = parse_domain(domain)
    mechs = [mechanisms.get(name) for name in mechanism_names]
    setting = one_setting(mechs)
    user_store = writable_store(store) if write else store_of(store)
    records = known_records(user_store)
    # each property as its cells name it (a plug-in by its absolute path)
    props = [property_entry(p, Path.cwd())[0] for p in property_names] if property_names else properties.names(setting)
    sweep: dict[str, Any] = {"mechanisms": list(mechanism_names), "properties": props,
                             "sizes": [[n, m]], "seeds": [seed], **({"domains": [asked.label]} if asked != ALL else {})}
    spec: dict[str, Any] = {"verb": "search", "sweep": sweep,
            "budget": {"candidates": candidates, "rlimit": rlimit, "time_limit": time_limit}}
    cells = expand(spec, Path.cwd())
    by_place = {(c.description["mechanism"]["name"], c.description["property"]): c for c in cells}
    spec["sweep"].pop("domains", None)
    rows: list[tuple[Mechanism, str, Cell | Result]] = []
    for name, mech in zip(mechanism_names, mechs):
        for prop in props:
            known = known_violation(mech, prop, records, asked)
            rows.append((mech, prop, by_place[(name, prop)] if known is None else known))
    to_run = [cell for _, _, cell in rows if isinstance(cell, Cell)]
    sweep = {"verb": "matrix", "mechanisms": list(mechanism_names), "users": n, "resources": m, "seed": seed,
             "budget": spec["budget"], **({"domain": asked.label} if asked != ALL else {})}
    outcomes = _run(sweep, to_run, executor, user_store if write else None, out, progress, grace)
    results = []
    for mech, prop, cell in rows:
        if isinstance(cell, Result):
            results.append(cell)
            continue
        outcome = outcomes[cell.id]
        if outcome["outcome"] == "timeout":
            results.append(_killed("search", Status.UNKNOWN, outcome, mechanism=mech.name, property=prop,
                                   domain=domain_record(asked, mech.domain),
                                   budget={**cell.description["budget"], "seed": seed, "stopped": "time"},
                                   details={"users": n, "resources": m, "notes": [outcome["error"]]}))
        else:
            results.append(Result.from_json(outcome["result"]).replace(mechanism=mech.name))
    return results


def catalogue(time_limit: float, fast_only: bool = False, entries: Iterable[theorems.Entry] | None = None, *,
              executor: concurrent.futures.Executor, rlimit: int | None = None, attempts: int | None = None,
              out: str | Path | None = None, progress: Progress | None = None,
           grace: float = GRACE_SECONDS) -> list[Result]:
    """`fairlab.search.catalogue.run_catalogue` as a campaign: one cell per entry (its sizes in
    order, up to the first not decided as expected), `time_limit` per size."""
    schedule: dict[str, Any] = {"rlimit": rlimit} if rlimit is not None else {}
    if attempts is not None:
        schedule["attempts"] = attempts
    budget = ProveBudget(seconds=float(time_limit), **schedule)
    chosen = [e for e in (entries or theorems.CATALOGUE) if (e.fast if fast_only else e.sizes)]
    cells = [make_cell(verb="catalogue-entry", entry=e.id, mechanism={"name": e.mechanism}, property=e.property,
                       fast=fast_only, sizes=[list(s) for s in (e.fast if fast_only else e.sizes)],
                       budget={"time_limit": float(time_limit), "rlimit": budget.rlimit,
                               "attempts": budget.attempts}) for e in chosen]
    sweep = {"verb": "prove --catalogue", "fast": fast_only, "entries": [e.id for e in chosen],
             "budget": {"time_limit": float(time_limit), "rlimit": budget.rlimit, "attempts": budget.attempts}}
    outcomes = _run(sweep, cells, executor, None, out, progress, grace)
    results = []
    for entry, cell in zip(chosen, cells):
        outcome = outcomes[cell.id]
        if outcome["outcome"] == "timeout":
            results.append(_killed("catalogue-entry", Status.UNKNOWN, outcome, mechanism=entry.mechanism,
                                   property=entry.property, budget={**budget.recorded(), "stopped": "time"},
                                   details={"entry": entry.id, "expected": entry.expected, "source": entry.source,
                                            "note": entry.note, "options": dict(entry.options),
                                            "positive_demands": entry.positive_demands, "largest": None,
                                            "checked": [], "ok": False}))
        else:
            results.append(Result.from_json(outcome["result"]))
    return results


def rediscover(chosen: Sequence[claims.Claim], *, seed: int = 0, time_limit: float | None = None,
               executor: concurrent.futures.Executor, store: Store | None = None, out: str | Path | None = None,
               progress: Progress | None = None, grace: float = GRACE_SECONDS,
               domain: DomainLike = None) -> list[Result]:
    """`fairlab.search.rediscover.run_claim` for each claim, as a campaign (one cell per claim, its
    own time limit unless `time_limit` is given); findings go to `store` if one is given. `domain`
    (default ``all``: then the cells are those of earlier versions): every claim's search explores it."""
    asked = parse_domain(domain)
    on = {} if asked == ALL else {"domain": asked.label}
    cells = [make_cell(verb="rediscover", claim=c.id, mechanism={"name": c.mechanism or "any"}, seed=seed,
                       budget={"time_limit": float(c.time_limit if time_limit is None else time_limit)}, **on)
             for c in chosen]
    sweep = {"verb": "rediscover", "claims": [c.id for c in chosen], "seed": seed, "time_limit": time_limit, **on}
    # the costliest claims start first (`Claim.cost`), so the workers end together; results keep the claims' order
    costliest = [cell for _, cell in sorted(zip(chosen, cells), key=lambda pair: -pair[0].cost)]
    outcomes = _run(sweep, cells, executor, store, out, progress, grace, start_order=costliest)
    results = []
    for claim, cell in zip(chosen, cells):
        outcome = outcomes[cell.id]
        if outcome["outcome"] == "timeout":
            results.append(claims.stopped(claim, outcome.get("seconds") or 0.0, [outcome["error"]]))
        else:
            results.append(Result.from_json(outcome["result"]))
    return results
