"""Plug-in mechanisms: ``path/to/file.py:function`` wherever a built-in mechanism name is accepted.

A researcher's mechanism is a plain Python callable ``Instance -> tasks`` in a file of their own.
It may return a sequence of task counts (one per user: int, `Fraction`, `fairlab.exact.Algebraic`,
decimal text or "p/q"; a float is read through its shortest decimal text, as JSON floats are), an
`Allocation`, an object with a ``tasks`` attribute, or a mapping with a ``"tasks"`` key. The
result is checked exactly feasible (non-negative, within caps and capacities).

If the callable has a ``spec`` attribute (``spec(sym, tasks) -> list[Constraint]``, as in
`mechanisms.base`), it is the plug-in's symbolic specification; otherwise only the numeric
engines serve it. Plug-ins take no options.

Every failure is an `InputError` with one line: the file or function is missing, the file does not
import, the function raises, or it returns something of the wrong shape or infeasible. A failing
run is a `PluginError` (the searches stop on it rather than skip the instance), except an
`InputError` the plug-in raises itself, which means it refuses that instance. ``SystemExit`` from
the file or the function is a failure like any other; ``KeyboardInterrupt`` still interrupts.
"""

from __future__ import annotations

import importlib.util
import hashlib
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from fairlab.errors import InputError, PluginError
from fairlab.exact import Algebraic, to_fraction
from fairlab.instance import Instance
from mechanisms.base import Allocation, Mechanism, check_feasible

_CACHE: dict[tuple[str, float, str], Mechanism] = {}


def parse(name: str) -> tuple[Path, str]:
    """Split ``path/to/file.py:function`` into the file path and the function name."""
    if not isinstance(name, str) or ":" not in name:
        raise InputError(f"mechanism {name!r}: a plug-in is named path/to/file.py:function")
    path_text, function = name.rsplit(":", 1)
    if not path_text or not function.isidentifier():
        raise InputError(f"mechanism {name!r}: expected path/to/file.py:function with a Python function name")
    return Path(path_text), function


def load(name: str) -> Mechanism:
    """The `Mechanism` wrapping the plug-in `name` (cached per file version)."""
    path, function = parse(name)
    if not path.is_file():
        raise InputError(f"mechanism {name!r}: no such file {str(path)!r}")
    resolved = path.resolve()
    key = (str(resolved), resolved.stat().st_mtime, function)
    if key in _CACHE:
        return _CACHE[key]
    module = _import(resolved, name)
    fn = getattr(module, function, None)
    if fn is None:
        raise InputError(f"mechanism {name!r}: {str(path)!r} defines no function {function!r}")
    if not callable(fn):
        raise InputError(f"mechanism {name!r}: {function!r} in {str(path)!r} is not callable")
    spec = getattr(fn, "spec", None)
    if spec is not None and not callable(spec):
        raise InputError(f"mechanism {name!r}: its spec attribute is not callable")
    doc = (fn.__doc__ or "").strip().splitlines()
    mechanism = Mechanism(
        name=name,
        summary=doc[0] if doc else f"plug-in {function} from {path.name}",
        source=str(path),
        allocate=_allocator(name, fn),
        spec=spec,
        module=module.__name__,
    )
    _CACHE[key] = mechanism
    return mechanism


def _import(path: Path, name: str):
    module_name = "fairlab_plugin_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise InputError(f"mechanism {name!r}: cannot load {str(path)!r} as a Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # a researcher's file: report any failure on one line
        sys.modules.pop(module_name, None)
        raise PluginError(f"mechanism {name!r}: importing {str(path)!r} failed: {_describe(exc)}") from None
    return module


def _allocator(name: str, fn):
    def allocate(instance: Instance) -> Allocation:
        try:
            result = fn(instance)
        except PluginError:
            raise
        except InputError as exc:  # the plug-in refuses this instance
            raise InputError(f"mechanism {name!r}: {exc}") from None
        except (Exception, SystemExit) as exc:  # the plug-in failed: one line, naming it
            raise PluginError(f"mechanism {name!r}: raised {_describe(exc)}") from None
        try:
            tasks = tasks_of(result, instance, name)
            check_feasible(instance, tasks, f"mechanism {name!r}")
        except InputError as exc:  # an unusable result is a failure, not a refusal
            raise PluginError(str(exc)) from None
        if isinstance(result, Allocation) and not result.is_exact():  # e.g. CEEI's float path: stays labelled
            return Allocation(name, instance, tasks, exactness="approximate", error_bound=result.error_bound)
        return Allocation(name, instance, tasks)

    return allocate


def _describe(exc: BaseException) -> str:
    """``Type: message`` of a plug-in's exception (``SystemExit: exit code 3`` for an exit)."""
    if isinstance(exc, SystemExit):
        return f"SystemExit: exit code {exc.code!r}"
    return f"{type(exc).__name__}: {exc}"


def tasks_of(result, instance: Instance, name: str) -> tuple:
    """Exact tasks per user from whatever the plug-in returned, or an `InputError`."""
    if isinstance(result, Allocation) or (hasattr(result, "tasks") and not isinstance(result, Mapping)):
        raw = result.tasks
    elif isinstance(result, Mapping):
        if "tasks" not in result:
            raise InputError(f"mechanism {name!r}: returned a mapping without a 'tasks' key")
        raw = result["tasks"]
    else:
        raw = result
    if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence) and not hasattr(raw, "__iter__"):
        raise InputError(
            f"mechanism {name!r}: returned {type(result).__name__}, expected one task count per user"
        )
    values = list(raw)
    if len(values) != instance.n:
        raise InputError(f"mechanism {name!r}: returned {len(values)} task counts for {instance.n} users")
    out = []
    for i, v in enumerate(values):
        if isinstance(v, Algebraic):
            out.append(v)
            continue
        if type(v).__module__ == "numpy" and hasattr(v, "item"):  # numpy scalars -> int / float
            v = v.item()
        out.append(to_fraction(v, f"mechanism {name!r}: tasks[{i}]"))
    return tuple(out)
