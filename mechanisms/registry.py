"""Finding a mechanism: a registered name or alias, a ``file.py:function`` plug-in, an entry point
of the group ``fairlab.mechanisms``, a `Mechanism`, or a plain Python callable.

`get` is what every verb and API function uses, so each way of naming a mechanism works
everywhere (``fairlab.allocate``, ``fairlab.check``, ``fairlab.conformance``, the CLI).

Entry points: a package declares

    [project.entry-points."fairlab.mechanisms"]
    mine = "my_package.module:allocate"

and ``get("mine")`` loads it on first lookup (`fairlab.mechanisms.plugin.from_entry_point`): its
calls run in a worker process like a file plug-in's (stopped at the time limit, prints to stderr,
results checked), named by the entry point's name; a `Mechanism` keeps its spec and options. A
broken entry point is a one-line `PluginError`.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from importlib import metadata
from typing import Any, Mapping

from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.core.names import unknown
from fairlab.mechanisms import plugin
from fairlab.mechanisms.base import ALIASES, REGISTRY, Allocation, Mechanism, MechanismLike

ENTRY_POINT_GROUP = "fairlab.mechanisms"
_ENTRY_POINTS: dict[str, Mechanism] = {}

#: the module of `fairlab.mechanisms` that registers each built-in name and alias, so that `get`
#: loads only the mechanism it is asked for (a name missing here still works: `get` then loads
#: every module; tests/mechanisms/test_registry_lazy.py keeps this table equal to what the modules
#: register)
MODULES = {
    "asset": "asset", "bmf": "bmf", "ceei": "ceei", "nash": "ceei", "pf": "ceei", "drf": "drf",
    "drf-tasks": "drf_tasks", "drf-loop": "drf_tasks", "ks": "ks", "maxmin": "maxmin", "pdrf": "pdrf",
    "dynamic-drf": "dynamic_drf", "drf-rerun": "drf_rerun", "controlled-drf": "controlled_drf",
    "sequential-minmax": "sequential_minmax",
    "drf-machines": "drf_machines", "drfh": "drfh", "drfh-bestfit": "drfh_bestfit",
    "drfh-bestfit-amounts": "drfh_bestfit_amounts", "drfh-firstfit": "drfh_firstfit",
    "ks-lottery": "ks_lottery", "random-dictatorship": "random_dictatorship",
    "fpv-optimal": "fpv_optimal",
}
#: modules of the package that are not mechanisms (every other public module registers one)
NOT_MECHANISMS = ("base", "plugin", "registry", "conformance", "spec_names", "lp_plugin", "lp_spec")
_LOADED = False


def mechanism_modules() -> list[str]:
    """The package's mechanism modules, in file-name order."""
    package = importlib.import_module("fairlab.mechanisms")
    return [info.name for info in pkgutil.iter_modules(package.__path__)
            if not info.name.startswith("_") and info.name not in NOT_MECHANISMS]


def load_all() -> None:
    """Import every mechanism module (once); `REGISTRY` is then in file-name order whatever was
    loaded first."""
    global _LOADED
    if _LOADED:
        return
    modules = mechanism_modules()
    for name in modules:
        importlib.import_module(f"fairlab.mechanisms.{name}")
    order = {f"fairlab.mechanisms.{name}": k for k, name in enumerate(modules)}
    ranked = sorted(REGISTRY.items(), key=lambda item: order.get(item[1].module, len(order)))
    REGISTRY.clear()
    REGISTRY.update(ranked)
    _LOADED = True


def _builtin(name: str) -> Mechanism | None:
    """The built-in mechanism registered as `name` (or an alias of it), loading its module first."""
    key = ALIASES.get(name, name)
    if key not in REGISTRY and name in MODULES:
        importlib.import_module(f"fairlab.mechanisms.{MODULES[name]}")
        key = ALIASES.get(name, name)
    if key not in REGISTRY and not _LOADED and ":" not in name:
        load_all()
        key = ALIASES.get(name, name)
    return REGISTRY.get(key)


def get(mechanism: MechanismLike) -> Mechanism:
    """The `Mechanism` for a name, alias, ``file.py:function``, entry-point name, `Mechanism` or callable."""
    if isinstance(mechanism, Mechanism):
        return mechanism
    if not isinstance(mechanism, str):
        if callable(mechanism):
            return plugin.from_callable(mechanism)
        raise InputError(f"mechanism: expected a name, a Mechanism or a callable, got {type(mechanism).__name__}")
    if not mechanism:
        raise InputError(f"mechanism: expected a name, got {mechanism!r}")
    builtin = _builtin(mechanism)
    if builtin is not None:
        return builtin
    if ":" in mechanism:
        return plugin.load(mechanism)
    found = entry_point(mechanism)
    if found is not None:
        return found
    known = names(None) + [row["name"] for row in installed()]
    raise InputError(unknown("mechanism", mechanism, known, also=ALIASES))


def entry_point(name: str) -> Mechanism | None:
    """The mechanism an installed package registers as `name` in ``fairlab.mechanisms``, or None."""
    if name in _ENTRY_POINTS:
        return _ENTRY_POINTS[name]
    matches = [ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not matches:
        return None
    mechanism = plugin.load_entry_point(matches[0], name)
    _ENTRY_POINTS[name] = mechanism
    return mechanism


def installed() -> list[dict]:
    """The mechanisms installed packages declare in the group ``fairlab.mechanisms`` (name, entry
    point, distribution), read from package metadata without loading them; a name the lab
    already uses is left out (the lab's own mechanism wins in `get`)."""
    load_all()
    out, seen = [], set(REGISTRY) | set(ALIASES)
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in seen:
            continue
        seen.add(ep.name)
        dist = getattr(ep, "dist", None)
        out.append({"name": ep.name, "entry_point": ep.value,
                    "distribution": f"{dist.name} {dist.version}" if dist is not None else None})
    return sorted(out, key=lambda row: row["name"])


def allocate(mechanism: MechanismLike, instance: Instance | Mapping[str, Any] | str | os.PathLike[str],
             **options: Any) -> Allocation:
    """Run `mechanism` (anything `get` takes) on `instance`: an `Instance`, its JSON-shaped dict,
    a JSON file or the name of a shipped example."""
    return get(mechanism)(instance, **options)


def names(setting: str | None = "pool") -> list[str]:
    """The registered mechanisms' names of `setting` ("pool", "machines", "dynamic"; None: every
    setting); aliases, plug-ins and entry points not included."""
    load_all()
    return sorted(name for name, mech in REGISTRY.items() if setting is None or mech.setting == setting)


def is_builtin(mechanism: Mechanism) -> bool:
    """One of the lab's own mechanisms: the very object registered under its name by a module of
    `fairlab.mechanisms` (deterministic by review, its spec conformance-tested; run once by
    `fairlab.properties.base.run`). Everything else (plug-ins, callables, entry points, a
    `Mechanism` built by hand, whatever module it claims) is foreign code."""
    return REGISTRY.get(mechanism.name) is mechanism and mechanism.module.startswith("fairlab.mechanisms.")
