"""Re-verify a finding from scratch, exactly: nothing of a stored verdict is trusted.

* violation — the property's own exact check of the witness (``properties.get(p).confirm``: a
  fresh mechanism run, exact arithmetic), on exact allocations only: one whose verification would
  need an approximate allocation (e.g. CEEI's float path, when the exact optimum cannot be had)
  fails (`fairlab.core.errors.InexactAllocation`);
* impossibility — the joint system of the stored family must be UNSAT for all its properties and
  SAT with each property dropped (the positive controls);
* nonunique — both stored allocations must pass the exact BMF membership test and differ.

The canonical hash is recomputed too, so a fixture cannot drift from its instance. The answer is a
`fairlab.counterexamples.store.Verified` receipt, the only thing the store accepts a record with.

A plug-in mechanism is recorded by its name ``file.py:function`` and the sha256 of its file, not
by a path on one machine (`plugin_identity`); re-verifying its fixture needs the file supplied
(``plugins=[path, ...]``, ``fairlab store verify --plugin PATH``), and a file whose hash differs is
a one-line `InputError`, not a verdict.
"""

from __future__ import annotations

import os
import time
from fractions import Fraction
from pathlib import Path
from typing import Sequence

from fairlab import mechanisms, properties
from fairlab.core.errors import ExactTimeout, InexactAllocation, InputError, OptionError, PluginError
from fairlab.core.exact import to_fraction
from fairlab.core.instance import Instance
from fairlab.core.results import Result, Status
from fairlab.counterexamples import store
from fairlab.counterexamples.store import Verified
from fairlab.mechanisms import bmf, plugin
from fairlab.mechanisms.base import Mechanism
from fairlab.search import impossibility as imp


def plugin_identity(mechanism: Mechanism) -> dict | None:
    """``{"name": "file.py:function", "sha256": ...}`` for a ``path/file.py:function`` plug-in,
    None for a mechanism its name finds again (registered, alias, entry point). `InputError` for
    any other (a Python callable has no file a fixture could name, so its findings could not be
    re-verified later)."""
    if ":" not in mechanism.name:
        try:
            if mechanisms.get(mechanism.name) is mechanism:
                return None
        except InputError:
            pass
        raise InputError(f"mechanism {mechanism.name!r}: not a registered mechanism, entry point or "
                         "file.py:function plug-in, so a fixture of it could not be re-verified later")
    path, function = plugin.parse(mechanism.name)
    return {"name": f"{path.name}:{function}", "sha256": store.file_sha256(path)}


def recorded_name(mechanism: Mechanism) -> str:
    """The mechanism's name in a fixture: the registered name, or ``file.py:function``."""
    identity = plugin_identity(mechanism)
    return mechanism.name if identity is None else identity["name"]


def resolve(record: dict, plugins: Sequence[str | os.PathLike] = ()) -> Mechanism:
    """The mechanism a record names: registered, or its plug-in found among `plugins` (files) by
    name and checked by sha256."""
    wanted = record.get("plugin")
    if not wanted:
        return mechanisms.get(record["mechanism"])
    file_name, function = wanted["name"].rsplit(":", 1)
    candidates = [Path(p) for p in plugins if Path(p).name == file_name]
    if not candidates:
        raise InputError(f"fixture of plug-in {wanted['name']}: supply its file (--plugin PATH/{file_name}, "
                         f"sha256 {wanted['sha256'][:12]}…)")
    for path in candidates:
        if not path.is_file():
            raise InputError(f"--plugin {str(path)!r}: no such file")
        digest = store.file_sha256(path)
        if digest == wanted["sha256"]:
            return mechanisms.get(f"{path}:{function}")
    raise InputError(f"plug-in {str(candidates[0])!r}: sha256 {digest[:12]}… does not match the fixture's "
                     f"{wanted['sha256'][:12]}… (a different version of {file_name})")


def confirm_violation(mechanism: Mechanism, prop: str, instance: Instance, witness, options: dict
                      ) -> tuple[str | None, str | None]:
    """(explanation, None) if the witness shows a violation on exact allocations, else (None, why
    it could not be confirmed exactly — or None if it simply shows no violation)."""
    try:
        return properties.get(prop).confirm(mechanism, instance, witness, dict(options or {})), None
    except (PluginError, OptionError):
        raise  # the mechanism failed: not a verdict about the witness
    except (InexactAllocation, ExactTimeout) as exc:
        return None, str(exc)
    except InputError:
        return None, None


def reverify(record: dict, plugins: Sequence[str | os.PathLike] = (), mechanism: Mechanism | None = None) -> Verified:
    """Re-verify one fixture record from scratch (see the module docstring). `mechanism` is the
    one the caller holds (else the record's is resolved, its plug-in from `plugins`)."""
    ok, message = _check(record, plugins, mechanism)
    return Verified(ok, message, record.get("canonical_hash"))


def _check(record: dict, plugins, mechanism: Mechanism | None) -> tuple[bool, str]:
    kind = record.get("kind")
    instance = Instance.from_dict(record["instance"])
    if kind == "violation":
        mech = mechanism if mechanism is not None else resolve(record, plugins)
        digest = store.canonical_hash(record["mechanism"], record["property"], instance, rescale_rows=not mech.discrete)
        if digest != record["canonical_hash"]:
            return False, f"canonical hash {record['canonical_hash']} != recomputed {digest}"
        explanation, inexact = confirm_violation(mech, record["property"], instance, record["witness"],
                                                 record.get("options") or {})
        if explanation is None and inexact is not None:
            return False, f"the witness cannot be re-verified on exact allocations: {inexact}"
        return (explanation is not None), (explanation or "the witness no longer shows a violation")
    if kind == "impossibility":
        members = [imp.Member(m["label"], Instance.from_dict(m["instance"]), m["relation"], m["user"])
                   for m in record["family"]]
        family = imp.Family(members)
        props = record["properties"]
        status, info = imp.solve(family, props, record["indivisible"])
        if status != "unsat":
            return False, f"joint system is {status}, expected unsat"
        for dropped in props:
            kept = [p for p in props if p != dropped]
            c_status, _ = imp.solve(family, kept, record["indivisible"])
            if c_status != "sat":
                return False, f"positive control without {dropped} is {c_status}, expected sat"
        return True, f"unsat with core {info}; each property needed"
    if kind == "nonunique":
        allocations = [tuple(to_fraction(v, "allocation") for v in a) for a in record["witness"]["allocations"]]
        if len(allocations) != 2 or allocations[0] == allocations[1]:
            return False, "need two different allocations"
        for a in allocations:
            check = bmf.is_bmf(instance, a)
            if not check.holds:
                return False, f"{[str(Fraction(x)) for x in a]} is not BMF"
        return True, "two different exact BMF allocations"
    return False, f"unknown fixture kind {kind!r}"


def verify_fixtures(fixtures: Sequence[tuple[str, dict]], plugins: Sequence[str | os.PathLike] = ()) -> list:
    """Re-verify (name, record) pairs from scratch: one ``fixture`` `Result` each, ``reproduced``
    when the finding re-verifies exactly, ``erratum`` when it does not. A plug-in fixture without its
    file, or with a file of another content, is a one-line `InputError` (not a verdict)."""
    out = []
    for name, record in fixtures:
        start = time.monotonic()
        verified = reverify(record, plugins)
        out.append(Result("fixture", Status.REPRODUCED if verified.ok else Status.ERRATUM,
                          mechanism=record.get("mechanism"), property=record.get("property"),
                          instance=record.get("instance"), witness=record.get("witness"),
                          seconds=time.monotonic() - start, explanation=verified.message,
                          details={"fixture": str(name), "fixture_kind": record.get("kind"),
                                   "claim": record.get("claim")}))
    return out
