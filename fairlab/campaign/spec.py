"""A campaign spec (TOML or JSON) and the cells it expands into.

    verb = "search"                      # search | check | prove | audit | dynamics-rates
    data_files = ["params.json"]         # optional: what the plug-ins read (default: their folder's tree)
    [sweep]                              # every combination is one cell
    mechanisms = ["drf", "asset", "my_mech.py:allocate"]
    properties = ["si", "sp"]            # search, check, prove, audit (audit: default all)
    sizes = [[2, 2], [3, 2]]             # search, prove: users × resources; audit: up to N × M
                                         # (prove also "all": every size at once, fairlab.search.all_sizes)
    seeds = [0, 1]                       # search, audit
    instances = ["drf-paper", "my.json"] # check
    loads = ["0.2,0.2,0.2"]              # dynamics-rates (with requirements = "...")
    domains = ["drf-paper", "all"]       # search, check, prove, audit: instance domains (fairlab.core.domain)
    [budget]                             # per cell, deterministic (time_limit: the cell's outer stop)
    candidates = 100
    time_limit = 60
    [options]                            # mechanism options, the same for every cell
    tie = "paper"

A cell's id is the hash of its canonical description, which includes the lab's version, the content
hash of every plug-in file (and of the Python files beside it), of the files it may read (every
file in the plug-in's folder and below it, `tree_digest`, or the spec's ``data_files`` when given)
and of each instance file, and an installed mechanism's distribution and version: editing a
plug-in or a data file it reads, or upgrading, gives new cells, never an old result. (An installed
package is known by its version only: after editing an editable install, run the campaign again
with ``--retry all``.) A plug-in may load files from
anywhere (``helpers/impl.py``): the cell's result records each with its hash (`fairlab.campaign.cell`)
and `fairlab.campaign.run` runs the cell again when one changed.
Relative paths are read from the spec's folder.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path

from fairlab import __version__, mechanisms, properties
from fairlab.core.domain import parse as parse_domain
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance, examples
from fairlab.counterexamples.store import file_sha256, location
from fairlab.mechanisms import registry
from fairlab.mechanisms.base import ALIASES

VERBS = ("search", "check", "prove", "audit", "dynamics-rates")
#: sweep keys each verb takes (the first ones are required)
SWEEPS = {
    "search": (("mechanisms", "properties", "sizes"), ("seeds", "domains")),
    "check": (("mechanisms", "properties", "instances"), ("domains",)),
    "prove": (("mechanisms", "properties", "sizes"), ("domains",)),
    "audit": (("mechanisms", "sizes"), ("properties", "seeds", "domains")),
    "dynamics-rates": (("mechanisms", "loads"), ()),
}
#: budget keys each verb takes (all deterministic except time_limit, the outer stop of one cell)
BUDGETS = {
    "search": ("candidates", "rlimit", "time_limit"),
    "check": ("evaluations", "rlimit", "seed", "time_limit"),
    "prove": ("rlimit", "attempts", "time_limit"),
    "audit": ("candidates", "rlimit", "time_limit"),
    "dynamics-rates": ("truncation", "tol", "time_limit"),
}
#: a cell's wall-clock safety net when its spec names none (seconds): far above the counted budgets'
#: cost (those of the verbs' own defaults)
DEFAULT_TIME_LIMIT = 1800.0
MAX_CELLS = 100_000


@dataclass(frozen=True)
class Cell:
    """One unit of work: a verb with all its arguments, identified by the hash of its description."""

    id: str
    description: dict

    @property
    def time_limit(self) -> float:
        return float(self.description["budget"].get("time_limit", DEFAULT_TIME_LIMIT))

    def label(self) -> str:
        d = self.description
        if d.get("entry") or d.get("claim"):  # a catalogue entry, a claim of the sources
            return f"{d['verb']} {d.get('entry') or d.get('claim')}"
        parts = [d["verb"], d["mechanism"]["name"], d.get("property") or "", d.get("size") or "",
                 d.get("instance", {}).get("name", "") if isinstance(d.get("instance"), dict) else "",
                 f"seed {d['seed']}" if d.get("seed") is not None else "", d.get("loads") or ""]
        return " ".join(str(p) for p in parts if p)


def cell_id(description: dict) -> str:
    text = json.dumps(description, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def make_cell(**description) -> Cell:
    """A cell from its description (the lab's version is added: an upgrade gives new cells)."""
    description = {"lab": __version__, **description}
    return Cell(cell_id(description), description)


def load(path: str | Path) -> dict:
    """The spec file as a dict (TOML by default, JSON for ``*.json``); a one-line `InputError` if it
    cannot be read."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"campaign spec {str(path)!r}: cannot read it ({exc.strerror or exc})") from None
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(raw.decode("utf-8"))
        else:
            data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"campaign spec {str(path)!r}: not valid {'JSON' if path.suffix == '.json' else 'TOML'} "
                         f"({' '.join(str(exc).split())})") from None
    if not isinstance(data, dict):
        raise InputError(f"campaign spec {str(path)!r}: expected a table of settings")
    return data


def _list(sweep: dict, key: str, required: bool) -> list:
    value = sweep.get(key)
    if value is None:
        if required:
            raise InputError(f"campaign spec: sweep.{key} is required")
        return []
    if not isinstance(value, list) or not value:
        raise InputError(f"campaign spec: sweep.{key} must be a non-empty list")
    return value


def _size(value, where: str) -> tuple[int, int]:
    ok = (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                              and 1 <= v <= 12 for v in value))
    if not ok:
        raise InputError(f"campaign spec: {where}: expected [users, resources] with integers 1..12, got {value!r}")
    return value[0], value[1]


def folder_digest(plugin: Path) -> str:
    """The hash of every Python file in a plug-in's folder (not below it), names included: a
    plug-in may import a module beside it, and editing that module must not reuse old results."""
    digest = hashlib.sha256()
    for path in sorted(plugin.parent.glob("*.py")):
        if path.is_file():
            digest.update(f"{path.name}\0{file_sha256(path)}\0".encode())
    return digest.hexdigest()


#: the folder tree of a plug-in is hashed (`tree_digest`) when it holds at most this many files ...
MAX_TREE_FILES = 1000
#: ... each read whole up to this size; a larger file is known by its size and modification time
MAX_FILE_BYTES = 16 * 2**20


def tree_digest(plugin: Path, exclude: tuple[Path, ...] = ()) -> str:
    """The hash of every file in the plug-in's folder and the folders below it, their paths relative
    to it included: whatever data file the plug-in reads beside it (``params.json``), an edit gives
    another cell. Skipped: hidden files and folders, ``__pycache__``, a campaign's output folder (it
    holds ``campaign.json``), the fixture store (`fairlab.counterexamples.store.location`) and
    `exclude`. A file over `MAX_FILE_BYTES` is known by its size and modification time; a tree of
    more than `MAX_TREE_FILES` files is a one-line `InputError` (declare ``data_files`` instead)."""
    root = plugin.parent
    skipped = {p.resolve() for p in (*exclude, location())}
    files: list[Path] = []
    folders = [root]
    while folders:
        folder = folders.pop()
        if folder.resolve() in skipped or (folder != root and (folder / "campaign.json").is_file()):
            continue
        try:
            entries = sorted(folder.iterdir())
        except OSError as exc:
            raise InputError(f"plug-in {str(plugin)!r}: cannot list {str(folder)!r} ({exc.strerror or exc})") from None
        for entry in entries:
            if entry.name.startswith(".") or entry.name == "__pycache__" or entry.is_symlink() and entry.is_dir():
                continue
            if entry.is_dir():
                folders.append(entry)
            elif entry.is_file():
                files.append(entry)
                if len(files) > MAX_TREE_FILES:
                    raise InputError(
                        f"plug-in {str(plugin)!r}: its folder holds more than {MAX_TREE_FILES} files, too many to "
                        "identify the cell by all it may read; put the plug-in in a folder of its own, or list "
                        "the files it reads in the spec (data_files = [...])")
    digest = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.relative_to(root).as_posix()):
        digest.update(f"{path.relative_to(root).as_posix()}\0{_file_identity(path)}\0".encode())
    return digest.hexdigest()


def _file_identity(path: Path) -> str:
    """A file's sha256, or for a file over `MAX_FILE_BYTES` its size and modification time."""
    try:
        info = path.stat()
        if info.st_size > MAX_FILE_BYTES:
            return f"size {info.st_size} mtime {info.st_mtime_ns}"
        return file_sha256(path)
    except OSError as exc:
        raise InputError(f"data file {str(path)!r}: cannot read it ({exc.strerror or exc})") from None


def data_files(value, base: Path) -> dict[str, str] | None:
    """The spec's ``data_files`` (paths relative to its folder) as {absolute path: sha256}, or None."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InputError(f"campaign spec: data_files: expected a list of file paths, got {value!r}")
    out = {}
    for text in value:
        path = Path(text) if Path(text).is_absolute() else base / text
        if not path.is_file():
            raise InputError(f"campaign spec: data_files: no such file {str(path)!r}")
        out[str(path.resolve())] = _file_identity(path)
    return out


def _mechanism(name, base: Path, data: dict[str, str] | None = None, exclude: tuple[Path, ...] = ()) -> dict:
    """A mechanism as a cell names it: a built-in or entry point by name; a plug-in file by its path,
    the hash of its content and of the Python files beside it, and of the files it may read (its
    folder's tree, or the spec's `data` files): an edited plug-in or data file is another cell."""
    if not isinstance(name, str) or not name:
        raise InputError(f"campaign spec: mechanism {name!r}: expected a name or file.py:function")
    file, _, function = name.rpartition(":")
    if file and (file.endswith((".py", ".pyc")) or (base / file).is_file()):
        path = Path(file) if Path(file).is_absolute() else base / file
        if not path.is_file():
            raise InputError(f"campaign spec: mechanism {name!r}: no such file {str(path)!r}")
        return {"name": name, "path": f"{path.resolve()}:{function}", "sha256": file_sha256(path),
                "folder_sha256": folder_digest(path.resolve()),
                **({"tree_sha256": tree_digest(path.resolve(), exclude)} if data is None else {"data_files": data})}
    mechanisms.get(name)  # a name that is not known: one line now, not in every cell
    if name in mechanisms.names(None) or name in ALIASES:
        return {"name": name}
    installed = {row["name"]: row for row in registry.installed()}
    if name in installed:  # an installed package's: another version of it is another cell
        return {"name": name, "entry_point": installed[name]["entry_point"],
                "distribution": installed[name]["distribution"]}
    return {"name": name}


def property_entry(name, base: Path, data: dict[str, str] | None = None,
                   exclude: tuple[Path, ...] = ()) -> tuple[str, dict | None]:
    """A property as a cell names it: a built-in or entry point by its name; a plug-in file
    ``path/file.py:NAME`` by its absolute path (the name its results carry) and, beside it, the
    hash of its content, of the Python files beside it and of the files it may read (as
    `_mechanism`'s): an edited plug-in or data file is another cell."""
    if not isinstance(name, str) or not name:
        raise InputError(f"campaign spec: property {name!r}: expected a name or file.py:NAME")
    file, _, attribute = name.rpartition(":")
    if file.endswith(".py"):
        path = Path(file) if Path(file).is_absolute() else base / file
        if not path.is_file():
            raise InputError(f"campaign spec: property {name!r}: no such file {str(path)!r}")
        absolute = f"{path.resolve()}:{attribute}"
        properties.get(absolute)  # a broken plug-in: one line now, not in every cell
        return absolute, {"name": f"{path.name}:{attribute}", "sha256": file_sha256(path),
                          "folder_sha256": folder_digest(path.resolve()),
                          **({"tree_sha256": tree_digest(path.resolve(), exclude)} if data is None
                             else {"data_files": data})}
    found = properties.get(name)
    info = getattr(found, "plugin", None)
    return name, (None if info is None else dict(info.identity))


def _instance(name, base: Path) -> dict:
    """An instance file (read from the spec's folder, like the CLI reads from the cwd: a file wins
    over a shipped example of the same name), or a shipped example, each with its content hash."""
    if not isinstance(name, str) or not name:
        raise InputError(f"campaign spec: instance {name!r}: expected a file or a shipped example name")
    path = Path(name) if Path(name).is_absolute() else base / name
    if not path.exists() and name in examples():
        return {"name": name, "example": True, "sha256": file_sha256(examples()[name])}
    Instance.resolve(path)  # a bad instance: one line now
    return {"name": name, "path": str(path.resolve()), "sha256": file_sha256(path)}


def _budget(verb: str, budget: dict) -> dict:
    unknown = sorted(set(budget) - set(BUDGETS[verb]))
    if unknown:
        raise InputError(f"campaign spec: budget.{unknown[0]}: not a budget of {verb!r} "
                         f"(known: {', '.join(BUDGETS[verb])})")
    for key, value in budget.items():
        if key in ("time_limit", "tol"):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise InputError(f"campaign spec: budget.{key}: expected a finite positive number, got {value!r}")
        elif isinstance(value, bool) or not isinstance(value, int) or value < (0 if key == "seed" else 1):
            raise InputError(f"campaign spec: budget.{key}: expected a positive integer, got {value!r}")
    return {"time_limit": DEFAULT_TIME_LIMIT, **budget}


def expand(data: dict, base: str | Path = ".", exclude: tuple[Path, ...] = ()) -> list[Cell]:
    """The cells of a spec, in a deterministic order (the sweep lists' order, nested). `exclude`:
    folders that are never a plug-in's data (a campaign's output, its store: `tree_digest`)."""
    base = Path(base)
    unknown = sorted(set(data) - {"verb", "sweep", "budget", "options", "requirements", "name", "data_files"})
    if unknown:
        raise InputError(f"campaign spec: {unknown[0]!r}: unknown key (known: verb, sweep, budget, options, "
                         "requirements, name, data_files)")
    declared = data_files(data.get("data_files"), base)
    verb = data.get("verb")
    if verb not in VERBS:
        raise InputError(f"campaign spec: verb {verb!r}: expected one of {', '.join(VERBS)}")
    sweep = data.get("sweep") or {}
    if not isinstance(sweep, dict):
        raise InputError("campaign spec: sweep must be a table")
    required, optional = SWEEPS[verb]
    extra = sorted(set(sweep) - set(required) - set(optional))
    if extra:
        raise InputError(f"campaign spec: sweep.{extra[0]}: not swept by {verb!r} "
                         f"(it sweeps {', '.join(required + optional)})")
    lists: dict[str, list] = {key: _list(sweep, key, True) for key in required}
    lists.update({key: _list(sweep, key, False) for key in optional if key in sweep})
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise InputError("campaign spec: options must be a table")
    budget = _budget(verb, data.get("budget") or {})
    mechs = [_mechanism(m, base, declared, exclude) for m in lists["mechanisms"]]
    props = lists.get("properties") or ([None] if verb in ("audit", "dynamics-rates") else [])
    plugins: dict[str, dict] = {}
    for k, p in enumerate(props):
        if p is not None:
            props[k], identity = property_entry(p, base, declared, exclude)
            if identity is not None:
                plugins[props[k]] = identity
    # "all" (prove only): every size at once (`fairlab.search.all_sizes`), as the cell's size
    sizes: list[tuple[int, int] | str | None] = [
        "all" if s == "all" and verb == "prove" else _size(s, "sweep.sizes") for s in lists.get("sizes", [])] or [None]
    seeds = lists.get("seeds") or [None]
    for s in seeds:
        if s is not None and (isinstance(s, bool) or not isinstance(s, int) or s < 0):
            raise InputError(f"campaign spec: sweep.seeds: expected non-negative integers, got {s!r}")
    instances: list[dict | None] = [_instance(i, base) for i in lists.get("instances", [])] or [None]
    loads = lists.get("loads") or [None]
    # instance domains (`fairlab.core.domain.parse`: names or key=value,... texts), each checked now; a
    # spec without the axis makes the cells of earlier versions (no domain key: the same ids)
    domains: list[str | None] = [parse_domain(d, "campaign spec: sweep.domains").label or "all"
                                 for d in lists.get("domains", [])]
    requirements = data.get("requirements")
    if verb == "dynamics-rates" and not isinstance(requirements, str):
        raise InputError("campaign spec: requirements (e.g. \"0.1,1;1,0.1\") is required for dynamics-rates")
    count = len(mechs) * len(props) * len(sizes) * len(seeds) * len(instances) * len(loads) * max(len(domains), 1)
    if count > MAX_CELLS:
        raise InputError(f"campaign spec: {count} cells, more than {MAX_CELLS}")
    cells = []
    for mech, prop, size, seed, inst, load, dom in itertools.product(mechs, props, sizes, seeds, instances, loads,
                                                                     domains or [None]):
        every = size == "all"  # prove at every size: the key only then, so the other cells keep their ids
        fixed = None if size is None or every else size
        cells.append(make_cell(verb=verb, mechanism=mech, property=prop, **({} if dom is None else {"domain": dom}),
                               **({"all_sizes": True} if every else {}),
                               size="all" if every else None if fixed is None else f"{fixed[0]}×{fixed[1]}",
                               users=None if fixed is None else fixed[0], resources=None if fixed is None else fixed[1],
                               seed=seed, instance=inst, loads=load,
                               requirements=requirements if verb == "dynamics-rates" else None,
                               options=options, budget=budget,
                               # a plug-in property's content identity (built-ins keep their cell ids)
                               **({"property_plugin": plugins[prop]} if prop in plugins else {})))
    return cells
