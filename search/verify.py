"""Re-verify a finding from scratch, exactly: nothing of a stored verdict is trusted.

* violation — the property's own exact check of the witness (``properties.get(p).confirm``: a
  fresh mechanism run, exact arithmetic), on exact allocations only: one whose verification would
  need an approximate allocation (e.g. CEEI's float path, when the exact optimum cannot be had)
  fails (`fairlab.core.errors.InexactAllocation`);
* impossibility — every member of the stored family must stand in its stated relation to the base
  (`fairlab.search.impossibility.relation_error`), the record's instance must be that base, and the
  joint system of the family must be UNSAT for all its properties and SAT with each property
  dropped (the positive controls);
* nonunique — both stored allocations must pass the exact BMF membership test and differ.

The canonical hash is recomputed too, so a fixture cannot drift from its instance. The answer is a
`fairlab.counterexamples.store.Verified` receipt, the only thing the store accepts a record with.

A plug-in mechanism is recorded by its name ``file.py:function`` and the sha256 of its file, not
by a path on one machine, with every other source file it loaded (``files``: path relative to its
folder -> sha256, e.g. a ``helpers/impl.py`` it imports; `plugin_identity`); re-verifying its
fixture needs the file supplied (``plugins=[path, ...]``, ``fairlab store verify --plugin PATH``)
with those files beside it, and a file whose hash differs is a one-line `InputError`, not a
verdict. The record's ``mechanism`` must be the plug-in's recorded name, and a record naming a file
(``path.py:f``) without a ``plugin`` record is refused: a fixture never makes the lab import a file
unchecked.

A record is checked for its shape first (`check_record`, by hand: the fields re-verification
reads, of the types it reads them as); a malformed one is a one-line `InputError` naming the file
and the field.
"""

from __future__ import annotations

import os
import re
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
    identity = {"name": f"{path.name}:{function}", "sha256": store.file_sha256(path)}
    folder = path.resolve().parent
    others = {Path(os.path.relpath(file, folder)).as_posix(): digest
              for file, digest in plugin.loaded_files(mechanism.name).items() if Path(file) != path.resolve()}
    return {**identity, "files": others} if others else identity


def changed_plugin_file(wanted: dict, path: Path) -> str | None:
    """Why the plug-in file `path` is not the version a record's ``plugin`` (`wanted`) names: its
    own hash, or one of the other source files it loaded (``files``, relative to its folder), or None."""
    digest = store.file_sha256(path)
    if digest != wanted["sha256"]:
        return f"sha256 {digest[:12]}… does not match the fixture's {wanted['sha256'][:12]}…"
    for relative, recorded in sorted((wanted.get("files") or {}).items()):
        try:
            found = store.file_sha256(path.parent / relative)
        except OSError:
            return f"{relative}, a file it loaded, is not beside it"
        if found != recorded:
            return f"{relative}, a file it loaded, has sha256 {found[:12]}…, the fixture's {recorded[:12]}…"
    return None


def recorded_name(mechanism: Mechanism) -> str:
    """The mechanism's name in a fixture: the registered name, or ``file.py:function``."""
    identity = plugin_identity(mechanism)
    return mechanism.name if identity is None else identity["name"]


def is_file_plugin_name(name: str) -> bool:
    """A mechanism name that points at a file (``path/file.py:function`` or ``file.py``)."""
    return ":" in name or name.endswith(".py")


def resolve(record: dict, plugins: Sequence[str | os.PathLike] = ()) -> Mechanism:
    """The mechanism a record names: registered, or its plug-in found among `plugins` (files) by
    name and checked by sha256. The record's ``mechanism`` must be its plug-in's recorded name, and
    a file plug-in without a ``plugin`` record (no hash to check the file against) is refused: a
    fixture never makes the lab import a file it names."""
    wanted = record.get("plugin")
    if not wanted:
        if is_file_plugin_name(record["mechanism"]):
            raise InputError(f"fixture of plug-in {record['mechanism']!r} has no plugin record (name and sha256): "
                             "refusing to load a file a fixture names without its hash")
        return mechanisms.get(record["mechanism"])
    if record["mechanism"] != wanted["name"]:
        raise InputError(f"fixture names mechanism {record['mechanism']!r} but its plugin record is "
                         f"{wanted['name']!r}: the two must agree")
    file_name, function = wanted["name"].rsplit(":", 1)
    candidates = [Path(p) for p in plugins if Path(p).name == file_name]
    if not candidates:
        raise InputError(f"fixture of plug-in {wanted['name']}: supply its file (--plugin PATH/{file_name}, "
                         f"sha256 {wanted['sha256'][:12]}…)")
    why = None
    for path in candidates:
        if not path.is_file():
            raise InputError(f"--plugin {str(path)!r}: no such file")
        why = changed_plugin_file(wanted, path)
        if why is None:
            return mechanisms.get(f"{path}:{function}")
    raise InputError(f"plug-in {str(candidates[0])!r}: {why} (a different version of {file_name})")


# --------------------------------------------------------------------------- a record's shape
KINDS = ("violation", "impossibility", "nonunique")
_PLUGIN_NAME = re.compile(r"[^/\\\s:]+:[A-Za-z_][A-Za-z0-9_]*")
_SHA256 = re.compile(r"[0-9a-f]{64}")


def _exact_json(value) -> bool:
    """Only what the lab writes for exact values: integers (not booleans), strings, null, lists and
    objects of them — no floats (a witness index 0.0 is not a user)."""
    if isinstance(value, (bool, float)):
        return False
    if isinstance(value, list):
        return all(_exact_json(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _exact_json(v) for k, v in value.items())
    return value is None or isinstance(value, (int, str))


def _plugin_record_ok(value) -> bool:
    files = value.get("files", {}) if isinstance(value, dict) else None
    return (isinstance(value, dict) and set(value) - {"files"} == {"name", "sha256"}
            and isinstance(value["name"], str) and _PLUGIN_NAME.fullmatch(value["name"]) is not None
            and isinstance(value["sha256"], str) and _SHA256.fullmatch(value["sha256"]) is not None
            and isinstance(files, dict) and all(isinstance(k, str) and k and not Path(k).is_absolute()
                                                and isinstance(v, str) and _SHA256.fullmatch(v) is not None
                                                for k, v in files.items()))


def _field_error(record) -> str | None:
    """Why a record is not shaped like a fixture (the fields re-verification reads), or None."""
    if not isinstance(record, dict):
        return "not a JSON object"
    kind = record.get("kind")
    if kind not in KINDS:
        return f"field 'kind': must be one of {', '.join(KINDS)}, got {kind!r}"
    for name in ("mechanism", "property", "canonical_hash"):
        if not isinstance(record.get(name), str):
            return f"field {name!r}: missing or not a string"
    if not isinstance(record.get("instance"), dict):
        return "field 'instance': missing or not an object"
    if kind == "violation":
        if not isinstance(record.get("witness"), dict) or not _exact_json(record["witness"]):
            return "field 'witness': missing, or not an object of integers and exact-number strings"
        if record.get("options") is not None and not isinstance(record["options"], dict):
            return "field 'options': not an object"
        if record.get("plugin") is not None and not _plugin_record_ok(record["plugin"]):
            return ("field 'plugin': must be {\"name\": \"file.py:function\", \"sha256\": 64 hex digits"
                    ", optional \"files\": {relative path: 64 hex digits}}")
    elif kind == "nonunique":
        witness = record.get("witness")
        allocations = witness.get("allocations") if isinstance(witness, dict) else None
        if not isinstance(allocations, list) or not all(isinstance(a, list) and _exact_json(a) for a in allocations):
            return "field 'witness': must be {\"allocations\": [[task, ...], ...]} of exact numbers"
    else:
        props = record.get("properties")
        if not isinstance(props, list) or not props or not all(isinstance(p, str) for p in props):
            return "field 'properties': missing or not a non-empty list of property names"
        if len(set(props)) != len(props):
            return "field 'properties': a property is named twice"
        if not isinstance(record.get("indivisible"), bool):
            return "field 'indivisible': missing or not true/false"
        family = record.get("family")
        if not isinstance(family, list) or not family:
            return "field 'family': missing or not a non-empty list of members"
        for k, member in enumerate(family):
            if not isinstance(member, dict) or not isinstance(member.get("label"), str) \
                    or not isinstance(member.get("relation"), str) or not isinstance(member.get("instance"), dict):
                return f"field 'family': member {k} needs a label, a relation and an instance"
            user = member.get("user")
            if user is not None and (isinstance(user, bool) or not isinstance(user, int)):
                return f"field 'family': member {k}'s user must be an integer or null"
    return None


def check_record(record, source: str = "fixture") -> None:
    """`InputError` naming `source` and the field if `record` is not shaped like a fixture."""
    why = _field_error(record)
    if why:
        raise InputError(f"{source}: {why}")


def _instance(data, source: str, field: str) -> Instance:
    try:
        return Instance.from_dict(data)
    except InputError as exc:
        raise InputError(f"{source}: field {field!r}: {exc}") from None


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


def reverify(record: dict, plugins: Sequence[str | os.PathLike] = (), mechanism: Mechanism | None = None,
             source: str = "fixture") -> Verified:
    """Re-verify one fixture record from scratch (see the module docstring). `mechanism` is the
    one the caller holds (else the record's is resolved, its plug-in from `plugins`). A record not
    shaped like a fixture is a one-line `InputError` naming `source` and the field."""
    check_record(record, source)
    ok, message = _check(record, plugins, mechanism, source)
    return Verified(ok, message, record["canonical_hash"])  # a string: check_record


def _check(record: dict, plugins, mechanism: Mechanism | None, source: str) -> tuple[bool, str]:
    kind = record.get("kind")
    instance = _instance(record["instance"], source, "instance")
    if kind == "violation":
        mech = mechanism if mechanism is not None else resolve(record, plugins)
        digest = store.canonical_hash(record["mechanism"], record["property"], instance, rescale_rows=not mech.discrete,
                                      options=record.get("options") or None)
        if digest != record["canonical_hash"]:
            return False, f"canonical hash {record['canonical_hash']} != recomputed {digest}"
        explanation, inexact = confirm_violation(mech, record["property"], instance, record["witness"],
                                                 record.get("options") or {})
        if explanation is None and inexact is not None:
            return False, f"the witness cannot be re-verified on exact allocations: {inexact}"
        return (explanation is not None), (explanation or "the witness no longer shows a violation")
    if kind == "impossibility":
        members = [imp.Member(m["label"], _instance(m["instance"], source, f"family[{k}].instance"), m["relation"],
                              m.get("user"))
                   for k, m in enumerate(record["family"])]
        family = imp.Family(members)
        why = imp.family_error(family)
        if why:
            return False, f"not an impossibility family: {why}"
        if not _same_instance(instance, family.base):
            return False, "the record's instance is not the family's base"
        props = record["properties"]
        for p in props:
            properties.get(p)  # an unknown property: one line
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
        if any(len(a) != instance.n for a in allocations):
            return False, f"an allocation needs one task count per user ({instance.n})"
        for a in allocations:
            check = bmf.is_bmf(instance, a)
            if not check.holds:
                return False, f"{[str(Fraction(x)) for x in a]} is not BMF"
        return True, "two different exact BMF allocations"
    return False, f"unknown fixture kind {kind!r}"


def _same_instance(a: Instance, b: Instance) -> bool:
    """The same numbers (capacities, demands, weights, task caps); names aside."""
    return (a.capacities, a.demands, a.weights, a.max_tasks) == (b.capacities, b.demands, b.weights, b.max_tasks)


def verify_fixtures(fixtures: Sequence[tuple[str, dict]], plugins: Sequence[str | os.PathLike] = ()) -> list:
    """Re-verify (name, record) pairs from scratch: one ``fixture`` `Result` each, ``reproduced``
    when the finding re-verifies exactly, ``erratum`` when it does not. A plug-in fixture without its
    file, or with a file of another content, is a one-line `InputError` (not a verdict)."""
    out = []
    for name, record in fixtures:
        start = time.monotonic()
        verified = reverify(record, plugins, source=f"fixture {str(name)!r}")
        out.append(Result("fixture", Status.REPRODUCED if verified.ok else Status.ERRATUM,
                          mechanism=record.get("mechanism"), property=record.get("property"),
                          instance=record.get("instance"), witness=record.get("witness"),
                          seconds=time.monotonic() - start, explanation=verified.message,
                          details={"fixture": str(name), "fixture_kind": record.get("kind"),
                                   "claim": record.get("claim")}))
    return out
