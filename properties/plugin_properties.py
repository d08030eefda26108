"""Plug-in properties: ``path/to/file.py:NAME`` and the entry-point group ``fairlab.properties``.

A researcher's property is a `fairlab.properties.property.Property` built in a file of their own —
usually an `AllocationProperty` (a rule about one allocation, e.g. envy-freeness up to one task)
or a `DeviationProperty` (a rule comparing the allocation with that of a derived instance) — its
rule written ONCE against the view interface (`ExactView` for the exact check, `Z3View` for the
z3 encoding), with a typed witness (a frozen dataclass subclassing `Witness`), the setting it is
defined for (``setting``, default "pool") and what it compares. ``NAME`` is a module-level
`Property` (or a callable with no arguments returning one). `examples/ef1.py` is a worked example.

Wherever a property name is accepted (``fairlab check | search | prove | audit | matrix``,
campaign specs, `fairlab.testing`, the pytest plugin's ``--fairlab-property``), a plug-in's name
works too: `fairlab.properties.get` loads it on first use (`load`), under its plug-in name
``path/to/file.py:NAME`` (the name results and reports show; the `Property`'s own ``name`` is
its title in messages), and registers it so every engine finds it; `fairlab.properties.names`
(the "all properties" lists) never includes plug-ins. Entry points: a package declares

    [project.entry-points."fairlab.properties"]
    ef1 = "their_properties:EF1"

and ``get("ef1")`` loads it (a built-in name always wins). A plug-in's identity is its content
(`identity`): the sha256 of its file and of the Python files beside it (a module it imports), or
the distribution and version of an installed one; campaign cells are keyed by it, so an edited
plug-in gives new cells, never an old result.

Its code runs in this process (a rule is called once per choice, far too often for a worker
process): importing the file is guarded as a mechanism plug-in's (a probe import in a forked
child, the time limit, prints to stderr), and every exception its rule, choices, explanation or
derivation raises becomes a one-line `PluginError` naming the property and the plug-in's own
frames (``at ef1.py:31 in rule``; ``FAIRLAB_DEBUG=1`` writes the whole traceback). An
`InputError` it raises keeps its meaning (this instance is outside what it can judge).

``domain`` (a module-level ``DOMAIN`` or an attribute ``domain`` of the `Property`, default None)
is read and kept in `PluginInfo.domain`: the hook for the instance domains (`fairlab.core.domain`).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import weakref
from dataclasses import dataclass
from fractions import Fraction
from importlib import metadata
from pathlib import Path
from typing import Any

from fairlab.core.errors import ExactTimeout, InexactAllocation, InputError, PluginError, describe_exception
from fairlab.core.instance import SETTINGS
from fairlab.counterexamples.store import file_sha256
from fairlab.mechanisms import plugin as mechanism_plugin
from fairlab.mechanisms.plugin_numbers import ExactNumber, exact_view, float_uses
from fairlab.properties.property import COMPARES, PLUGINS, REGISTRY, Property, Witness

ENTRY_POINT_GROUP = "fairlab.properties"

#: (resolved path, mtime, NAME) -> the registered plug-in name
_CACHE: dict[tuple[str, float, str], str] = {}


@dataclass(frozen=True)
class PluginInfo:
    """Where a plug-in property came from: its name, source, content identity and declared domain."""

    name: str
    source: str
    identity: dict
    domain: Any = None  # a `fairlab.core.domain.Domain`, declared by the plug-in (None: not declared)


def is_plugin_name(name: str) -> bool:
    """``path/to/file.py:NAME``: a name that points at a file (``same-as:drf`` does not)."""
    if not isinstance(name, str) or ":" not in name:
        return False
    path, _, attribute = name.rpartition(":")
    return path.endswith(".py") and attribute.isidentifier()


def folder_sha256(path: Path) -> str:
    """The hash of every Python file beside the plug-in (names included): it may import them."""
    import hashlib

    digest = hashlib.sha256()
    for other in sorted(path.parent.glob("*.py")):
        if other.is_file():
            digest.update(f"{other.name}\0{file_sha256(other)}\0".encode())
    return digest.hexdigest()


def load(name: str) -> Property:
    """The `Property` of the plug-in ``path/to/file.py:NAME``, registered under `name` (cached per
    file version: an edited file is loaded again)."""
    path_text, _, attribute = name.rpartition(":")
    path = Path(path_text)
    if not path.is_file():
        raise InputError(f"property {name!r}: no such file {path_text!r}")
    resolved = path.resolve()
    key = (str(resolved), resolved.stat().st_mtime, attribute)
    if _CACHE.get(key) == name and name in REGISTRY:
        return REGISTRY[name]
    module = mechanism_plugin.import_file(path, name, kind="property")
    if not hasattr(module, attribute):
        raise InputError(f"property {name!r}: {path_text!r} defines no {attribute!r}")
    identity = {"name": f"{path.name}:{attribute}", "sha256": file_sha256(resolved),
                "folder_sha256": folder_sha256(resolved)}
    domain = getattr(module, "DOMAIN", None)
    prop = adopt(getattr(module, attribute), name, f"plug-in {attribute} from {path.name}", identity, domain)
    _CACHE[key] = name
    return prop


def entry_point(name: str) -> Property | None:
    """The property an installed package registers as `name` in ``fairlab.properties``, or None."""
    if name in REGISTRY:
        return REGISTRY[name]
    matches = [ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not matches:
        return None
    ep = matches[0]
    with mechanism_plugin._guard(name, "property"):
        try:
            loaded = ep.load()
        except (Exception, SystemExit) as exc:  # a broken package: one line naming it
            raise PluginError(f"property {name!r}: entry point {ep.value!r} does not load: "
                              f"{describe_exception(exc)}") from None
    dist = getattr(ep, "dist", None)
    identity = {"name": name, "entry_point": ep.value,
                "distribution": f"{dist.name} {dist.version}" if dist is not None else None}
    return adopt(loaded, name, f"entry point {ep.value}", identity, None)


def installed() -> list[dict]:
    """The properties installed packages declare in ``fairlab.properties`` (name, entry point,
    distribution), read from package metadata without loading them; a name the lab already uses
    is left out (the lab's own property wins in `get`), as in `fairlab.mechanisms.registry.installed`."""
    out, seen = [], {name for name in REGISTRY if name not in PLUGINS}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in seen:
            continue
        seen.add(ep.name)
        dist = getattr(ep, "dist", None)
        out.append({"name": ep.name, "entry_point": ep.value,
                    "distribution": f"{dist.name} {dist.version}" if dist is not None else None})
    return sorted(out, key=lambda row: row["name"])


def adopt(obj, name: str, source: str, identity: dict, domain=None) -> Property:
    """Check that `obj` is a usable `Property` (or a callable returning one), and register a copy
    named `name` whose callables turn the plug-in's exceptions into one-line `PluginError` s."""
    if not isinstance(obj, Property) and callable(obj) and not isinstance(obj, type):
        try:
            obj = obj()
        except (Exception, SystemExit) as exc:
            raise PluginError(f"property {name!r}: building it raised {describe_exception(exc)}") from None
    if not isinstance(obj, Property) or type(obj) is Property:
        raise InputError(f"property {name!r}: {source} is a {type(obj).__name__}, expected a "
                         "fairlab.properties.property.AllocationProperty or DeviationProperty")
    if obj.compares not in COMPARES:
        raise InputError(f"property {name!r}: compares {obj.compares!r} is not one of {', '.join(COMPARES)}")
    if not isinstance(obj.setting, str) or obj.setting not in SETTINGS:
        raise InputError(f"property {name!r}: setting {obj.setting!r} is not one of {', '.join(SETTINGS)}")
    witness = obj.witness
    if not (isinstance(witness, type) and issubclass(witness, Witness) and dataclasses.is_dataclass(witness)):
        raise InputError(f"property {name!r}: its witness must be a dataclass subclassing "
                         "fairlab.properties.property.Witness")
    if getattr(obj, "rule", None) is None:
        raise InputError(f"property {name!r}: it has no rule")
    existing = REGISTRY.get(name)
    if existing is not None and name not in PLUGINS:
        raise InputError(f"property {name!r}: the name of a built-in property")
    if name == "all":
        raise InputError("property 'all': a reserved name (it asks for every property); name the plug-in otherwise")
    guarded = {f.name: (_exact_rule if f.name == "rule" else _guarded)(name, f.name, value)
               for f in dataclasses.fields(obj)
               if f.name != "witness" and callable(value := getattr(obj, f.name)) and not isinstance(value, type)}
    prop = dataclasses.replace(obj, name=name, **guarded)
    prop.plugin = PluginInfo(name, source, identity, domain if domain is not None else getattr(obj, "domain", None))
    REGISTRY[name] = prop
    PLUGINS.add(name)
    return prop


#: exceptions of a plug-in's code that keep their meaning (not a failure of the plug-in)
_PASSED = (InputError, InexactAllocation, ExactTimeout, KeyboardInterrupt)


def _guarded(name: str, field: str, fn):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except _PASSED:
            raise
        except (Exception, SystemExit) as exc:
            raise PluginError(f"property {name!r}: its {field} raised {describe_exception(exc)}") from None

    return call


def _exact_rule(name: str, field: str, fn):
    """The plug-in's rule, guarded (`_guarded`) and, on the exact view, given the instance's numbers and the
    tasks as `ExactNumber` s: a rule whose answer rests on a float (a number turned into a float, or
    compared with or combined with a float that is not an integer) decides nothing —
    `InexactAllocation` (the check answers ``unknown`` with the reason)."""
    call = _guarded(name, field, fn)

    @functools.wraps(fn)
    def rule(*args, **kwargs):
        if not args or getattr(args[0], "symbolic", True):  # the z3 view: terms, no floats to watch
            return call(*args, **kwargs)
        before = float_uses()
        answer = call(_exact_view(args[0]), *(_exact_value(a) for a in args[1:]), **kwargs)
        if float_uses() != before:
            raise InexactAllocation(f"property {name!r}: its rule used floats (a number turned into a float, or "
                                    "compared with a float): a float never decides, no verdict")
        return answer

    return rule


def _exact_value(value):
    if isinstance(value, Fraction) and not isinstance(value, ExactNumber):
        return ExactNumber(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value  # an index (a user, a resource) stays an int
    if isinstance(value, (tuple, list)) and all(isinstance(v, (int, Fraction)) and not isinstance(v, bool)
                                                for v in value):
        return type(value)(ExactNumber(v) for v in value)
    return value


def _exact_view(view):
    """A copy of the exact view `view` whose numbers are `ExactNumber` s."""
    twin = _TWINS.get(view)
    if twin is None:
        twin = copy.copy(view)
        instance = exact_view(view.instance)
        twin.instance = instance
        twin.capacities, twin.demands = instance.capacities, instance.demands
        twin.weights, twin.max_tasks = instance.weights, instance.max_tasks
        _TWINS[view] = twin
    return twin


_TWINS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def identity(prop: str | Property) -> dict | None:
    """The content identity of a plug-in property (`PluginInfo.identity`), None for a built-in."""
    from fairlab.properties.property import get

    found = get(prop) if isinstance(prop, str) else prop
    info = getattr(found, "plugin", None)
    return None if info is None else dict(info.identity)


def recorded_name(prop: str) -> str:
    """The property's name as a fixture records it: a built-in's name, a plug-in's ``file.py:NAME``."""
    found = identity(prop)
    return prop if found is None else found["name"]
