"""The fixture store: one JSON file per finding, canonical up to symmetry, written atomically.

A fixture records what was found (mechanism, property, instance, witness — or, for an
impossibility, the instance family, its unsat core and positive controls), how (engine, seed,
seconds), how small it is (n, m, largest integer) and a canonical hash up to the symmetries that
preserve every verdict, so the same counterexample is not stored twice:

* permuting users, permuting resources;
* scaling a resource (its capacity and every demand on it) — every mechanism here works on shares;
* for continuous mechanisms, scaling a user's demand row (its tasks and task cap scale inversely,
  its shares do not change); discrete mechanisms count whole tasks, so rows are not rescaled.

`tests/counterexamples/test_fixtures.py` loads every fixture and re-verifies it from scratch. `save` re-verifies a
violation before writing it (`fairlab.counterexamples.verify`, exact allocations only) and refuses one
that does not re-verify — in particular one whose verification would need an approximate
allocation — so nothing approximate is ever stored.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import tempfile
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from fairlab import __version__, provenance
from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact
from fairlab.core.instance import Instance

FIXTURES = Path(__file__).with_name("fixtures")


def canonical_form(instance: Instance, rescale_rows: bool = True) -> tuple:
    """The lexicographically least normalised instance over user and resource permutations."""
    n, m = instance.n, instance.m
    rows = [[instance.demands[i][r] / instance.capacities[r] for r in range(m)] for i in range(n)]
    caps = list(instance.max_tasks)
    if rescale_rows:
        for i in range(n):
            top = max(rows[i])
            rows[i] = [d / top for d in rows[i]]
            if caps[i] is not None:
                caps[i] = caps[i] * top
    weights = [list(w) for w in instance.weights]
    best = None
    for rperm in itertools.permutations(range(m)):
        cols = [[row[r] for r in rperm] for row in rows]
        wcols = [[w[r] for r in rperm] for w in weights]
        keyed = sorted(
            (tuple(cols[i]), (caps[i] is None, caps[i] or 0), tuple(wcols[i])) for i in range(n)
        )
        if best is None or keyed < best:
            best = keyed
    return tuple(best)


def canonical_hash(mechanism: str, prop: str, instance: Instance, rescale_rows: bool = True) -> str:
    form = canonical_form(instance, rescale_rows)
    text = json.dumps([mechanism, prop, _jsonify(form)], separators=(",", ":"))
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
            denominator = denominator * v.denominator // _gcd(denominator, v.denominator)
        ints = [v * denominator for v in column]
        g = 0
        for v in ints:
            g = _gcd(g, int(v))
        largest = max(largest, *(int(v) // (g or 1) for v in ints))
    return {"n": instance.n, "m": instance.m, "largest_integer": largest}


def _gcd(a: int, b: int) -> int:
    import math

    return math.gcd(a, b)


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


class FixtureRefused(InputError):
    """A finding that does not re-verify exactly (e.g. its verification would need an approximate
    allocation) is not stored (an `InputError`, so a command reports it on one line)."""


def save(record: dict, directory: Path | None = None, overwrite: bool = False) -> tuple[Path, bool]:
    """Store a finding; returns (path, written). An existing fixture with the same canonical hash
    is kept (written False) unless `overwrite`. A violation is re-verified from scratch first, on
    exact allocations only: `FixtureRefused` if that fails (nothing is written)."""
    directory = FIXTURES if directory is None else Path(directory)
    if record.get("kind") == "violation":
        from fairlab.counterexamples.verify import verify_record

        ok, message = verify_record(record)
        if not ok:
            raise FixtureRefused(
                f"not storing {record.get('mechanism')} vs {record.get('property')}: it does not re-verify exactly"
                f" ({message})"
            )
    record = dict(record)
    record.setdefault("lab_version", __version__)
    record.setdefault("provenance", provenance())  # Python, z3, HiGHS, numpy versions of this finding
    record.setdefault("found_at", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    name = f"{record['mechanism']}-{record['property']}-{record['canonical_hash']}.json".replace(":", "_").replace(
        "/", "_"
    )
    path = directory / name
    if path.exists() and not overwrite:
        return path, False
    write_atomic(path, record)
    return path, True


def find_existing(mechanism: str, prop: str, digest: str, directory: Path | None = None) -> Path | None:
    directory = FIXTURES if directory is None else Path(directory)
    path = directory / f"{mechanism}-{prop}-{digest}.json".replace(":", "_").replace("/", "_")
    return path if path.exists() else None


def load_all(directory: Path | None = None) -> list[tuple[Path, dict]]:
    directory = FIXTURES if directory is None else Path(directory)
    out = []
    for path in sorted(directory.glob("*.json")):
        out.append((path, json.loads(path.read_text(encoding="utf-8"))))
    return out
