"""The mechanism × property table (`fairlab matrix`): one ``search`` `Result` per cell.

A cell whose violation is already known — a shipped fixture, or a finding in the user's store for
the same mechanism (a plug-in: the same file content) that re-verifies from scratch — is
``violated`` with that fixture;
every other cell is one search (`fairlab.search.engines.search`) with the same deterministic
budget, and a new violation is stored in the user's store unless ``write=False``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Sequence

from fairlab import mechanisms, properties
from fairlab.core.domain import ALL, Domain
from fairlab.core.domain import parse as parse_domain
from fairlab.core.domain import record as domain_record
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.core.results import Result, Status
from fairlab.counterexamples import store as fixtures
from fairlab.counterexamples.store import Store
from fairlab.mechanisms import plugin
from fairlab.mechanisms.base import Mechanism
from fairlab.search import engines
from fairlab.search.budgets import MATRIX_CANDIDATES, MATRIX_TIME_LIMIT
from fairlab.search.findings import record_finding, store_of, writable_store
from fairlab.search.verify import _plugin_record_ok, changed_plugin_file, plugin_identity, reverify


def _identity(mechanism: Mechanism) -> tuple[str, Path | None]:
    """(name as recorded in a fixture, the plug-in's file or None)."""
    try:
        found = plugin_identity(mechanism)
    except InputError:
        return mechanism.name, None
    return (mechanism.name, None) if found is None else (found["name"], plugin.parse(mechanism.name)[0])


def known_records(user_store: Store) -> list[tuple[str, dict, bool]]:
    """(file name, record, from the user's store?) of every shipped fixture, then every record in
    the user's store."""
    records = [(name, record, False) for name, record in fixtures.shipped()]
    return records + [(path.name, record, True) for path, record in user_store.load_all()]


def known_violation(mechanism: Mechanism, prop: str, records, domain: Domain = ALL) -> Result | None:
    """The cell's ``violated`` `Result` from the first record of `records` (`known_records`) that is
    a violation of `prop` by `mechanism`, or None. A record from the user's store is re-verified
    from scratch first (a plug-in's module beside it may have changed, or the file was edited):
    one that does not re-verify is not a known violation. The shipped fixtures are re-verified by the test suite.
    A record whose instance lies outside `domain` ∩ the mechanism's declared domain is not evidence there."""
    name, path = _identity(mechanism)
    explored = domain.intersect(mechanism.domain)
    for file_name, record, from_store in records:
        if record.get("kind") != "violation" or record.get("mechanism") != name or record.get("property") != prop:
            continue
        wanted = record.get("plugin")
        if path is not None and not (_plugin_record_ok(wanted) and changed_plugin_file(wanted, path) is None):
            continue  # another version of the plug-in (its file, or a file it loaded)
        try:
            if explored.contains(Instance.from_dict(record["instance"])) is not None:
                continue
        except (InputError, KeyError, TypeError):
            continue
        if from_store:
            try:
                if not reverify(record, mechanism=mechanism, source=f"fixture {file_name!r}").ok:
                    continue
            except InputError:  # not shaped like a fixture: not evidence
                continue
        return Result("search", Status.VIOLATED, mechanism=mechanism.name, property=prop,
                      instance=record["instance"], witness=record.get("witness"),
                      explanation=record.get("explanation", ""), details={"fixture": file_name, "known": True},
                      domain=domain_record(domain, mechanism.domain))
    return None


def matrix(mechanism_names: Sequence[str | Mechanism] | None = None, n: int = 2, m: int = 2,
           candidates: int = MATRIX_CANDIDATES, rlimit: int | None = None, seed: int = 0,
           time_limit: float = MATRIX_TIME_LIMIT, store: Store | str | os.PathLike | None = None, write: bool = True,
           progress: Callable[[str], None] | None = None, domain: Domain | str | None = None,
           property_names: Sequence[str] | None = None) -> list[Result]:
    """Every mechanism (default: the registered ones) × every property (or those of `property_names`,
    plug-ins ``file.py:NAME`` included), in the registries' order, on `domain`
    (`fairlab.core.domain.parse`; default ``all``)."""
    asked = parse_domain(domain)
    mechs = [mechanisms.get(x) if isinstance(x, str) else x for x in (mechanism_names or mechanisms.names())]
    user_store = writable_store(store) if write else store_of(store)
    records = known_records(user_store)
    budget: dict[str, Any] = {} if rlimit is None else {"rlimit": rlimit}
    cells = []
    for mech in mechs:
        for prop in property_names or properties.names(mech.setting):
            properties.get(prop)  # a plug-in is loaded (and registered) before its cells
            if progress:
                progress(f"{mech.name} × {prop}")
            known = known_violation(mech, prop, records, asked)
            if known is not None:
                cells.append(known)
                continue
            cell = engines.search(mech, prop, n, m, time_limit=time_limit, seed=seed, candidates=candidates,
                                  domain=asked, **budget)
            if cell.status == "violated" and write:
                cell = record_finding(cell, mech, user_store)
            cells.append(cell)
    return cells
