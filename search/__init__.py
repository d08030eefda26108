"""fairlab.search: counterexample search, proofs, rediscovery of the sources' counterexamples.

    >>> import fairlab
    >>> fairlab.search("asset", "si", 2, 2).status
    <Status.VIOLATED: 'violated'>
    >>> fairlab.prove("drf", "si", 2, 2).status
    <Status.PROVED: 'proved'>

The module is callable: ``fairlab.search(...)`` is `run_search` (``fairlab search`` on the command
line), while ``import fairlab.search`` and ``from fairlab.search import engines`` keep reading the
package (`SearchModule`). The arguments follow the CLI (``fairlab search MECHANISM PROPERTY -n N -m M``);
a mechanism is a registered name, a ``file.py:function`` plug-in, an entry point, a `Mechanism` or a
plain Python callable. Every answer is one
`fairlab.core.results.Result`. A finding is written only where asked (``store=``: a folder or a
`fairlab.counterexamples.store.Store`), re-verified first (`fairlab.search.findings`).

Modules: `engines` (the portfolio and its engines), `space` (instance spaces), `shrink`,
`proof` (+ `proof_drf`), `impossibility` (∃∀ families), `catalogue` (the theorem catalogue),
`rediscover` (the sources' claims), `matrix`, `verify` (re-verification of a finding),
`findings` (fixture records and storing), `budgets` (the deterministic defaults).
"""

from __future__ import annotations

import os
import sys
import types
from typing import Any, cast

from fairlab import mechanisms, properties
from fairlab.core.results import Result
from fairlab.counterexamples.store import Store
from fairlab.mechanisms.base import Mechanism, MechanismLike
from fairlab.search import engines, proof
from fairlab.search.findings import record_finding, writable_store


def resolve_mechanism(mechanism: MechanismLike) -> Mechanism:
    """A `Mechanism` from a registered name or alias, a ``file.py:function`` plug-in, an entry
    point, a `Mechanism` or a plain Python callable (`fairlab.mechanisms.get`)."""
    return mechanisms.get(mechanism)


def run_search(mechanism: MechanismLike, property: str, n: int = 2, m: int = 2, *,
               store: Store | str | os.PathLike[str] | None = None, **budget: Any) -> Result:
    """Hunt a violation of `property` by `mechanism` at n users × m resources (`engines.search`;
    budget keywords: ``engines``, ``candidates``, ``rlimit``, ``seed``, ``time_limit``,
    ``options``, ``domain`` (`fairlab.core.domain.parse`), ...). A violation is stored in `store`
    if one is given (its file in ``details["fixture"]``, None when nothing was written)."""
    if store is not None:
        store = writable_store(store)  # a bad store: one line before any search
    mech = resolve_mechanism(mechanism)
    properties.get(property)
    proof.check_options(mech, dict(budget.get("options") or {}))  # values too, before any work
    result = engines.search(mech, property, n, m, **budget)
    if store is not None and result.status == "violated":
        return record_finding(result, mech, store)
    return result.replace(details={**result.details, "fixture": None})


def prove(mechanism: MechanismLike, property: str, n: int = 2, m: int = 2, *,
          store: Store | str | os.PathLike[str] | None = None, **budget: Any) -> Result:
    """Prove `property` of `mechanism` for every instance of n users × m resources, or refute it
    (`proof.prove`; keywords: ``time_limit``, ``rlimit``, ``attempts``, ``options``,
    ``positive_demands``, ``budget``, ``domain``). A refutation is stored in `store` if one is given.

    ``all_sizes=True``: for EVERY number of users and resources instead (n and m are not used;
    `fairlab.search.all_sizes.prove_all_sizes`; keywords ``domain``, ``options``, ``time_limit``,
    ``rlimit`` and ``budget``, an `AllSizesBudget`)."""
    if store is not None:
        store = writable_store(store)  # a bad store: one line before any proof
    mech = resolve_mechanism(mechanism)
    if budget.pop("all_sizes", False):
        from fairlab.search.all_sizes.prover import prove_with

        result = prove_with(mech, property, budget)
        return result.replace(details={**result.details, "fixture": None})
    result = proof.prove(mech, property, n, m, **budget)
    if store is not None and result.status == "refuted":
        return record_finding(result, mech, store)
    return result.replace(details={**result.details, "fixture": None})


class SearchModule(types.ModuleType):
    """The class of the module `fairlab.search`: a module that can be called, so that
    ``fairlab.search(mechanism, property, n, m, ...)`` searches like ``fairlab.check`` checks and
    ``fairlab.prove`` proves, while the package's modules import as before. Setting a module's
    ``__class__`` to a `types.ModuleType` subclass is Python's documented way to customise a module
    (the language reference, "Customizing module attribute access")."""

    def __call__(self, mechanism: MechanismLike, property: str, n: int = 2, m: int = 2, *,
                 store: Store | str | os.PathLike[str] | None = None, **budget: Any) -> Result:
        """`run_search`: hunt a violation of `property` by `mechanism` at n users × m resources."""
        return run_search(mechanism, property, n, m, store=store, **budget)


sys.modules[__name__].__class__ = SearchModule
#: this module as what it is, a callable `SearchModule` (``fairlab.search`` for type checkers)
module = cast(SearchModule, sys.modules[__name__])

__all__ = ["run_search", "prove", "record_finding", "resolve_mechanism", "SearchModule"]
