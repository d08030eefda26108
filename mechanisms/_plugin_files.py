"""The source files a plug-in loaded: its own file and every module it imported from outside the
standard library, site-packages and the lab (a helper beside it, a package folder of the
researcher's, an editable install), so that whatever identifies a plug-in by content (a campaign
cell's result, a fixture's ``plugin`` record) covers all of its code, not a guess by folder
(a finding of the lab's own audit).

A module counts for a plug-in when importing the plug-in's file added it to `sys.modules`, or when
it is reachable from the plug-in's module through module globals (a helper an earlier plug-in had
imported already), or when a call of the plug-in imported it in the plug-in's worker process (the
worker reports those, `new_since`). Data files a plug-in reads are not tracked: only modules.
"""

from __future__ import annotations

import hashlib
import site
import sys
import sysconfig
import types
from pathlib import Path

#: plug-in file (resolved, as text) -> the resolved source files it loaded (itself included)
LOADED: dict[str, set[str]] = {}


def _outside() -> tuple[str, ...]:
    """Folders whose modules are never a plug-in's own: the standard library and site-packages."""
    paths = sysconfig.get_paths()
    folders = [paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    try:
        folders += site.getsitepackages() + [site.getusersitepackages()]
    except AttributeError:  # a virtualenv's old site module
        pass
    return tuple(sorted({str(Path(f).resolve()) for f in folders if f}))  # the lab: by its modules' names


_OUTSIDE: tuple[str, ...] | None = None


def source_file(module) -> str | None:
    """The resolved file of a module of the researcher's (None: built in, frozen, namespace, or
    from the standard library, site-packages or the lab)."""
    global _OUTSIDE
    name = getattr(module, "__name__", "")
    if not isinstance(module, types.ModuleType) or name == "fairlab" or name.startswith("fairlab."):
        return None
    file = getattr(module, "__file__", None)
    if not isinstance(file, str):
        return None
    if file in _SEEN:
        return _SEEN[file]
    if _OUTSIDE is None:
        _OUTSIDE = _outside()
    try:
        path = Path(file).resolve()
    except (OSError, RuntimeError):
        path = None
    text = str(path) if path is not None and path.is_file() else None
    if text is not None and any(text == folder or text.startswith(folder.rstrip("/") + "/") for folder in _OUTSIDE):
        text = None
    _SEEN[file] = text
    return text


_SEEN: dict[str, str | None] = {}  # a module's __file__ -> `source_file`'s answer (paths are resolved once)


def user_modules() -> dict[str, str]:
    """Module name -> resolved file, for every module of the researcher's in `sys.modules`."""
    out = {}
    for name, module in list(sys.modules.items()):
        file = source_file(module)
        if file is not None:
            out[name] = file
    return out


def reachable(module) -> set[str]:
    """The files of the researcher's modules reachable from `module` through module globals (a
    module bound there, or an object whose ``__module__`` is one), their parent packages included."""
    seen: set[str] = set()
    todo = [module]
    files: set[str] = set()
    while todo:
        current = todo.pop()
        name = getattr(current, "__name__", None)
        if not isinstance(name, str) or name in seen:
            continue
        seen.add(name)
        file = source_file(current)
        if file is None:
            continue
        files.add(file)
        parent = name.rpartition(".")[0]
        if parent in sys.modules:
            todo.append(sys.modules[parent])
        for value in list(vars(current).values()):
            if isinstance(value, types.ModuleType):
                todo.append(value)
            else:
                try:
                    owner = getattr(value, "__module__", None)
                except Exception:  # noqa: BLE001 - a researcher's object may raise anything
                    continue
                if isinstance(owner, str) and owner in sys.modules:
                    todo.append(sys.modules[owner])
    return files


def record_import(plugin: Path, module, before: set[str]) -> None:
    """After importing `plugin` as `module`: remember its file, the researcher's modules the import
    added (names not in `before`) and those reachable from it."""
    files = LOADED.setdefault(str(plugin), set())
    files.add(str(plugin))
    files.update(file for name, file in user_modules().items() if name not in before)
    files.update(reachable(module))


def add(plugin: Path, files) -> None:
    """Files a call of `plugin` loaded (reported by its worker process)."""
    LOADED.setdefault(str(plugin), {str(plugin)}).update(files)


def new_since(known: set[str]) -> list[str]:
    """Files of the researcher's modules in `sys.modules` now whose names are not in `known` (a
    set of module names, which is updated)."""
    names = set(sys.modules) - known
    known.update(names)
    return sorted({file for file in map(source_file, (sys.modules.get(n) for n in names)) if file is not None})


def loaded(plugin: Path) -> list[str]:
    """The resolved source files `plugin` loaded so far in this process, sorted (itself at least)."""
    return sorted(LOADED.get(str(plugin), {str(plugin)}))


def digests(files) -> dict[str, str]:
    """File -> the sha256 of its bytes now (a file that cannot be read: "missing")."""
    out = {}
    for file in sorted(files):
        try:
            out[file] = hashlib.sha256(Path(file).read_bytes()).hexdigest()
        except OSError:
            out[file] = "missing"
    return out
