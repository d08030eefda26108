"""Fairness properties: the eight of the DRF paper (§3) and no-justified-complaints (Bonald & Roberts §2.4).

    >>> from fairlab import properties
    >>> properties.check("asset", "si", {"capacities": [30, 30], "demands": [[1, 3], [1, 1]]}).status
    <Status.VIOLATED: 'violated'>

Each property is one registered `Property` object (`fairlab.properties.property`) built in its own
module (si, sp, ef, pe, srf, bf, pm, rm, njc) from ONE rule, which serves the exact check
(a `fairlab.core.results.Result` with a typed, re-verified witness), the candidate search,
`confirm`, the z3 `encode` (satisfiable iff violated) and the impossibility search. Every module
in this package is loaded on import, so adding a property is adding a file that calls `register`.
"""

from __future__ import annotations

import importlib
import pkgutil
import time
from typing import Any, Literal, Mapping, overload

from fairlab.core.domain import Domain
from fairlab.core.domain import parse as parse_domain
from fairlab.core.domain import record as domain_record
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance, InstanceLike
from fairlab.core.results import Result, Status
from fairlab.mechanisms import plugin
from fairlab.mechanisms.base import Mechanism, MechanismLike
from fairlab.properties.base import (
    DEFAULT_BUDGET,
    Encoding,
    Violation,
    parse_budget,
    resolve_instance,
    resolve_mechanism,
    verdict,
    within,
)
from fairlab.properties.property import ORDER, PLUGINS, REGISTRY, Property, get, names, register  # noqa: F401

_HELPERS = ("base", "leontief", "property", "plugin_properties")  # plugin: loaded by `get` on first use

for _info in pkgutil.iter_modules(__path__):
    if not _info.name.startswith("_") and _info.name not in _HELPERS:
        importlib.import_module(f"{__name__}.{_info.name}")

#: name -> Property (the registry), in registration order; `names()` gives the DRF paper's order
PROPERTIES = REGISTRY


#: the property name that asks for every property (``fairlab check MECHANISM all INSTANCE``)
ALL = "all"


@overload
def check(mechanism: MechanismLike, property: Literal["all"], instance: InstanceLike, **budget: Any
          ) -> list[Result]: ...
@overload
def check(mechanism: MechanismLike, property: str | Property, instance: InstanceLike, **budget: Any) -> Result: ...
def check(mechanism: MechanismLike, property: str | Property, instance: InstanceLike, **budget: Any
          ) -> Result | list[Result]:
    """Check `property` of `mechanism` on `instance` (the CLI's order: ``fairlab check MECHANISM
    PROPERTY INSTANCE``). `mechanism`: a name, a plug-in ``file.py:function`` or a Mechanism;
    `instance`: an Instance, its JSON-shaped dict, a path or a shipped example's name.
    `property` ``"all"`` is `check_all`, as on the command line: a list of one `Result` per
    property of the mechanism's setting, each violation re-verified once more.

    Budget keywords: ``evaluations`` (mechanism runs a deviation search may spend, default 300),
    ``seed``, ``rlimit`` (z3 resource units per solver check), ``options`` (mechanism options),
    ``symbolic`` (use z3 when the mechanism has a spec, default True) decide the verdict;
    ``time_limit`` (seconds, default 30) is only the outer stop (status unknown, and a plug-in
    call still running then is stopped: `fairlab.mechanisms.plugin.time_limit`). ``domain``
    (`fairlab.core.domain.parse`): an instance outside it, or outside the mechanism's declared
    domain, is a one-line `InputError`; the result records it (default ``all``)."""
    if property == ALL:
        return check_all(mechanism, instance, **budget)
    asked = parse_domain(budget.pop("domain", None))
    mech, inst = in_domain(mechanism, instance, asked)
    with within(asked.intersect(mech.domain)):  # deviations stay in the domain too
        result = _check(mech, property, inst, **budget)
    return result.replace(domain=domain_record(asked, mech.domain))


def in_domain(mechanism: MechanismLike, instance: InstanceLike, asked: Domain) -> tuple[Mechanism, Instance]:
    """(the resolved mechanism, the resolved instance), or a one-line `InputError` when the
    instance lies outside the asked domain or the mechanism's declared one."""
    mech = resolve_mechanism(mechanism)
    inst = resolve_instance(instance)
    why = asked.contains(inst)
    if why is None:
        declared = mech.domain.contains(inst)
        why = None if declared is None else f"{declared}, the domain {mech.name} declares"
    if why is not None:
        raise InputError(f"instance: {why}")
    return mech, inst


def _check(mechanism: MechanismLike, property: str | Property, instance: InstanceLike, **budget: Any) -> Result:
    limit = budget.get("time_limit")
    try:
        seconds = float(DEFAULT_BUDGET["time_limit"] if limit is None else limit)
    except (TypeError, ValueError):
        seconds = None  # not a number: parse_budget reports it
    if seconds is not None and not 0 < seconds < 1e8:  # NaN, infinite: no plug-in limit
        seconds = None
    prop = get(property, every=True)
    started = time.monotonic()
    with plugin.time_limit(seconds):
        try:
            return prop.check(mechanism, instance, **budget)
        except plugin.PluginTimeout as exc:
            if not exc.returned_before:
                raise  # it never returned at all: a broken plug-in, not a verdict
            b = parse_budget(budget)
            b.started = started
            return verdict(prop.name, resolve_mechanism(mechanism), "unknown", b,
                           f"stopped by the wall-clock safety net while the mechanism was running ({exc}); "
                           "no verdict", stopped="time")


def check_all(mechanism: MechanismLike, instance: InstanceLike, **budget: Any) -> list[Result]:
    """`check` of every registered property in the registry's order (``fairlab check MECHANISM all
    INSTANCE``), each violation re-verified once more (`reverify`); same budget keywords, the time
    limit applying to each check."""
    mech, inst = in_domain(mechanism, instance, parse_domain(budget.get("domain")))
    return [reverify(check(mech, name, inst, **budget), mech, inst, budget.get("options"))
            for name in names(mech.setting)]


def reverify(result: Result, mechanism: MechanismLike, instance: Instance, options: Mapping[str, Any] | None = None
             ) -> Result:
    """`result` if it is not a violation or its witness re-verifies once more from scratch, else an
    ``unknown`` copy saying why (what ``fairlab check`` prints). A plug-in stopped by the time limit
    while re-verifying (it has returned before) is ``unknown`` too, with ``"stopped": "time"``."""
    if result.status != Status.VIOLATED:
        return result
    assert result.property is not None  # a violation names its property
    try:
        ok = Violation(result.property, resolve_mechanism(mechanism), instance, result.witness,
                       dict(options or {})).verify()
        why, extra = "the violation found failed its own exact re-verification; not printed", {}
    except plugin.PluginTimeout as exc:
        if not exc.returned_before:
            raise
        ok, why = False, (f"stopped by the wall-clock safety net while re-verifying the violation ({exc}); "
                          "not printed")
        extra = {"stopped": "time"}
    if ok:
        return result
    return result.replace(status=Status.UNKNOWN, witness=None, explanation=why, budget={**result.budget, **extra})


__all__ = ["ALL", "check", "check_all", "reverify", "get", "names", "register", "Property", "PROPERTIES", "ORDER",
           "Violation", "Encoding"]
