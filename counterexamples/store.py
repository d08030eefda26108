"""The fixture store: one JSON file per finding, canonical up to symmetry, written atomically.

Two places hold fixtures:

* the **shipped fixtures** (``fairlab/counterexamples/fixtures/*.json``): read-only package data,
  read with `importlib.resources` (`shipped`); `tests/counterexamples/test_fixtures.py` re-verifies
  exactly these;
* the **user's store**, where every new finding goes (`Store`): ``--store DIR``, else
  ``$FAIRLAB_STORE``, else a per-user data folder outside the package (`default_location`):
  ``$XDG_DATA_HOME/fairlab/store`` (default ``~/.local/share/fairlab/store``) on Linux,
  ``~/Library/Application Support/fairlab/store`` on macOS, ``%LOCALAPPDATA%\\fairlab\\store`` on
  Windows. Nothing is ever written inside the installed package.

A fixture records what was found (mechanism, property, instance, witness — or, for an
impossibility, the instance family, its unsat core and positive controls), how (engine, seed,
seconds), how small it is (n, m, largest integer) and a canonical hash up to the symmetries that
preserve every verdict, so the same counterexample is not stored twice:

* permuting users, permuting resources;
* scaling a resource (its capacity and every demand on it) — every mechanism here works on shares;
* for continuous mechanisms, scaling a user's demand row (its tasks and task cap scale inversely,
  its shares do not change); discrete mechanisms count whole tasks, so rows are not rescaled.

This module is persistence only (it imports `fairlab.core` alone): it does not know what a
mechanism or a property is. The search layer re-verifies a finding from scratch
(`fairlab.search.findings`) and hands the store a `Verified` receipt; `Store.save` refuses a
record without a passing receipt for that very record (`FixtureRefused`), so nothing unverified
or approximate is ever written.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any, Iterator

from fairlab.core.errors import InputError
from fairlab.core.exact import arithmetic, format_exact
from fairlab.core.instance import Instance
from fairlab.core.results import SCHEMA_VERSION, provenance

#: the shipped fixtures' folder (read-only package data; read through `shipped`)
FIXTURES = Path(__file__).with_name("fixtures")
#: the environment variable naming the user's store
STORE_VARIABLE = "FAIRLAB_STORE"


# --------------------------------------------------------------------------- where the store is
def default_location() -> Path:
    """The per-user store outside the package (see the module docstring), for this platform."""
    home = Path.home()
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "fairlab" / "store"
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA")
        return (Path(base) if base else home / "AppData" / "Local") / "fairlab" / "store"
    base = os.environ.get("XDG_DATA_HOME")
    return (Path(base) if base and Path(base).is_absolute() else home / ".local" / "share") / "fairlab" / "store"


def location(directory: str | os.PathLike | None = None) -> Path:
    """The user's store: `directory` (``--store DIR``), else ``$FAIRLAB_STORE``, else `default_location`."""
    if directory is not None and str(directory) != "":
        return Path(directory).expanduser()
    env = os.environ.get(STORE_VARIABLE)
    return Path(env).expanduser() if env else default_location()


# --------------------------------------------------------------------------- canonical form
def canonical_form(instance: Instance, rescale_rows: bool = True) -> tuple:
    """The lexicographically least normalised instance over user and resource permutations (machines
    stay in the instance's order: only their resources are permuted)."""
    n, m = instance.n, instance.m
    # in the hot-path back end (GMP's mpq by default: C hashing and comparison, the same order as
    # Fraction's), every number leaving as the equal Fraction (`_as_fractions`): the same form
    ar = arithmetic()
    q = ar.rational
    capacities = [q(c) for c in instance.capacities]
    rows = [[q(instance.demands[i][r]) / capacities[r] for r in range(m)] for i in range(n)]
    caps = [None if cap is None else q(cap) for cap in instance.max_tasks]
    if rescale_rows:
        for i in range(n):
            top = max(rows[i])
            rows[i] = [d / top for d in rows[i]]
            cap = caps[i]
            if cap is not None:
                caps[i] = cap * top
    weights = [[q(x) for x in w] for w in instance.weights]
    # agents over time: each user's arrival (and departure) event index travels with its row, so two
    # arrival orders of the same demands are different findings (static instances: unchanged form)
    timing: list[tuple[str | int, ...]] = [() for _ in range(n)]
    for t, (kind, i) in enumerate(instance.events or ()):
        timing[i] = (*timing[i], kind, t)
    best: list[tuple[Any, ...]] | None = None
    splits = ([[q(machine[r]) / capacities[r] for machine in instance.machines] for r in range(m)]
              if instance.machines is not None else [[] for _ in range(m)])
    signature = [(tuple(row[r] for row in rows), tuple(w[r] for w in weights), tuple(splits[r])) for r in range(m)]
    for rperm in _distinct_orders(signature):
        cols = [[row[r] for r in rperm] for row in rows]
        wcols = [[w[r] for r in rperm] for w in weights]
        keyed: list[tuple[Any, ...]] = sorted(
            (tuple(cols[i]), (caps[i] is None, caps[i] or 0), tuple(wcols[i]), *((timing[i],) if timing[i] else ()))
            for i in range(n)
        )
        if instance.machines is not None:  # several machines: the split matters, in the instance's machine
            # order (a mechanism may depend on it: drf-machines fills machines in order), per resource share
            split = [tuple(splits[r][k] for r in rperm) for k in range(len(instance.machines))]
            keyed = [*keyed, ("machines", tuple(split))]
        if best is None or keyed < best:
            best = keyed
    return _as_fractions(tuple(best or ()), ar.fraction)  # m >= 1: set by the first permutation


def _as_fractions(value, fraction):
    """`value` (nested tuples) with every number of the back end as the equal `Fraction`; bools,
    ints of the form itself (a missing cap's 0) and strings as they are."""
    if isinstance(value, tuple):
        return tuple(_as_fractions(v, fraction) for v in value)
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    return fraction(value)


def _distinct_orders(signature: list) -> Iterator[tuple[int, ...]]:
    """The permutations of ``range(len(signature))`` that differ in the sequence of signatures they
    give (identical resources — a copied column — are interchangeable: permuting them changes nothing,
    so only one of those orders is tried; every distinct form is still reached)."""
    groups: dict[Any, list[int]] = {}
    for r, key in enumerate(signature):
        groups.setdefault(key, []).append(r)
    keys = list(groups)
    used = {key: 0 for key in keys}
    order: list[int] = []

    def extend() -> Iterator[tuple[int, ...]]:
        if len(order) == len(signature):
            yield tuple(order)
            return
        for key in keys:
            if used[key] < len(groups[key]):
                order.append(groups[key][used[key]])
                used[key] += 1
                yield from extend()
                used[key] -= 1
                order.pop()

    return extend()


def canonical_hash(mechanism: str, prop: str, instance: Instance, rescale_rows: bool = True,
                   options: dict | None = None) -> str:
    """The identity of a finding: mechanism, property, canonical instance and — when not empty — the
    mechanism options (``fill=greedy`` and the literal reading are different findings). Empty options
    leave the hash as it was before options were part of it (the shipped pool fixtures keep theirs)."""
    form = canonical_form(instance, rescale_rows)
    key = [mechanism, prop, _jsonify(form)]
    if options:
        key.append({str(k): _jsonify(options[k]) for k in sorted(options, key=str)})
    text = json.dumps(key, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def family_hash(claim: str, base: Instance) -> str:
    return canonical_hash("*", claim, base)


def minimality(instance: Instance) -> dict:
    """n, m and the largest integer needed to write the instance with integer entries per resource."""
    largest = 0
    for r in range(instance.m):
        column = [instance.capacities[r]] + [row[r] for row in instance.demands]
        denominator = 1
        for v in column:
            denominator = denominator * v.denominator // math.gcd(denominator, v.denominator)
        ints = [v * denominator for v in column]
        g = 0
        for v in ints:
            g = math.gcd(g, int(v))
        largest = max(largest, *(int(v) // (g or 1) for v in ints))
    return {"n": instance.n, "m": instance.m, "largest_integer": largest}


def file_sha256(path: str | os.PathLike) -> str:
    """The sha256 of a file's bytes (how a plug-in is recorded in a fixture)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _jsonify(value: Any):
    if isinstance(value, Fraction):
        return format_exact(value)
    if isinstance(value, (list, tuple)):
        return [_jsonify(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonify(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "ref"):  # Algebraic
        return format_exact(value)
    return str(value)


def write_atomic(path: Path, data: dict) -> None:
    """Write JSON so that an interrupt leaves either the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(_jsonify(data), handle, indent=2, ensure_ascii=False)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# --------------------------------------------------------------------------- saving
class FixtureRefused(InputError):
    """A finding that does not re-verify exactly (e.g. its verification would need an approximate
    allocation) is not stored (an `InputError`, so a command reports it on one line)."""


@dataclass(frozen=True)
class Verified:
    """The receipt of a from-scratch re-verification of one record (`fairlab.search.findings`):
    `ok`, what was checked (`message`), and the canonical hash of the record it is about."""

    ok: bool
    message: str
    canonical_hash: str


def fixture_name(record: dict) -> str:
    return f"{record['mechanism']}-{record['property']}-{record['canonical_hash']}.json".replace(":", "_").replace(
        "/", "_")


def _package_folders() -> list[Path]:
    """The installed package's folder and the shipped fixtures' folder (outside the package folder in
    an editable install): no store may be inside either."""
    package = sys.modules["fairlab"].__file__
    assert package is not None  # a regular package: fairlab/__init__.py
    return [Path(package).resolve().parent, FIXTURES.resolve()]


def check_outside_package(path: Path, field: str | None = None, what: str = "it") -> None:
    """`InputError` if `path` is inside the installed package or the shipped fixtures' folder: a
    store's own message, or, for an option `field` (e.g. ``--out``), one naming it and saying that
    `what` (e.g. "the report") must be written elsewhere."""
    resolved = Path(os.path.abspath(path)).resolve()
    for folder in _package_folders():
        if resolved == folder or folder in resolved.parents:
            if field is not None:
                raise InputError(f"{field}: {str(path)!r} is inside the installed package; write {what} elsewhere")
            raise InputError(f"store {str(path)!r}: the store must be outside the installed package ({folder})")


class Store:
    """A folder of fixtures that belongs to the user (see `location`); never inside the installed
    package (`check_outside_package`: an `InputError` at construction)."""

    def __init__(self, directory: str | os.PathLike | None = None):
        self.path = location(directory)
        check_outside_package(self.path)

    def check_writable(self) -> None:
        """`InputError` unless fixtures can be written here: the store is a folder, or does not exist
        yet and its nearest existing ancestor is a writable folder. Commands that will write call this
        before any work, so a bad ``--store`` is one line up front, not an error after a search."""
        path = self.path
        if os.path.lexists(path) and not path.is_dir():
            raise InputError(f"store {str(path)!r}: exists and is not a folder")
        ancestor = path
        while not os.path.lexists(ancestor) and ancestor.parent != ancestor:
            ancestor = ancestor.parent
        if not ancestor.is_dir():
            raise InputError(f"store {str(path)!r}: {str(ancestor)!r} is not a folder")
        if not os.access(ancestor, os.W_OK | os.X_OK):
            raise InputError(f"store {str(path)!r}: {str(ancestor)!r} is not writable")

    def check_readable(self) -> None:
        """`InputError` if the store's path exists but is not a folder (a missing store is empty)."""
        if os.path.lexists(self.path) and not self.path.is_dir():
            raise InputError(f"store {str(self.path)!r}: exists and is not a folder")

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    def save(self, record: dict, verified: Verified, overwrite: bool = False) -> tuple[Path, bool]:
        """Store a finding the caller has re-verified: returns (path, written). `FixtureRefused`
        (nothing written) unless `verified` passed for this record. An existing fixture with the
        same canonical hash is kept (written False) unless `overwrite`."""
        what = f"{record.get('mechanism')} vs {record.get('property')}"
        if not isinstance(verified, Verified) or verified.canonical_hash != record.get("canonical_hash"):
            raise FixtureRefused(f"not storing {what}: it was not re-verified (no receipt for this record)")
        if not verified.ok:
            raise FixtureRefused(f"not storing {what}: it does not re-verify exactly ({verified.message})")
        record = {"schema_version": SCHEMA_VERSION, **record}
        record.setdefault("provenance", provenance())  # lab, Python, z3, HiGHS, numpy versions of this finding
        record.setdefault("found_at", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        self.check_writable()
        path = self.path / fixture_name(record)
        if path.exists() and not overwrite:
            return path, False
        try:
            write_atomic(path, record)
        except OSError as exc:
            raise InputError(f"store {str(self.path)!r}: cannot write {path.name} ({exc.strerror or exc})") from None
        return path, True

    def find(self, mechanism: str, prop: str, digest: str) -> Path | None:
        path = self.path / fixture_name({"mechanism": mechanism, "property": prop, "canonical_hash": digest})
        return path if path.exists() else None

    def load_all(self) -> list[tuple[Path, dict]]:
        """Every fixture in the store (none if the folder does not exist yet), by file name; a
        one-line `InputError` if the store is not a folder or cannot be listed."""
        self.check_readable()
        if not self.path.is_dir():
            return []
        try:
            paths = sorted(self.path.glob("*.json"))
        except OSError as exc:
            raise InputError(f"store {str(self.path)!r}: cannot be listed ({exc.strerror or exc})") from None
        return [(path, read(path)) for path in paths]


def read(path: str | os.PathLike) -> dict:
    """One fixture file (a one-line `InputError` if it is not a JSON object)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"fixture {str(path)!r}: cannot be read ({exc})") from None
    if not isinstance(data, dict):
        raise InputError(f"fixture {str(path)!r}: expected a JSON object")
    return data


def shipped() -> list[tuple[str, dict]]:
    """The fixtures shipped with the lab, (file name, record) by name: read-only package data."""
    folder = resources.files("fairlab.counterexamples").joinpath("fixtures")
    entries = sorted((entry for entry in folder.iterdir() if entry.name.endswith(".json")), key=lambda e: e.name)
    return [(entry.name, json.loads(entry.read_text(encoding="utf-8"))) for entry in entries]


def load_all(directory: str | os.PathLike | None = None) -> list[tuple[Path, dict]]:
    """The fixtures of `directory`; without one, the shipped fixtures (read-only)."""
    if directory is None:
        return [(FIXTURES / name, record) for name, record in shipped()]
    return Store(directory).load_all()
