"""One result model for every verdict the lab reports, and one way to write it as JSON.

Every question the lab answers — a property check on one instance, a search at one size, a
proof over all instances of a size, a conformance check of a spec against its allocator, an
impossibility over a family, a published claim — ends in one frozen `Result`:

* ``status``: one `Status` (``violated``, ``holds``, ``proved``, ``unknown``, ...);
* ``witness``: the typed witness dataclass of a violation (`fairlab.properties`), or None;
* ``certificate``: what backs a decided status and can be checked again (an unsat core and its
  positive control, the exact allocation, the instance family), or None;
* ``exactness``: ``"rational"`` / ``"algebraic"`` for the numbers that decided, None if none did;
* ``budget``: the deterministic budget allowed and used (seed, rlimit, candidate counts), and
  ``"stopped": "time"`` when the wall-clock outer stop cut the work short;
* ``seconds``, ``explanation``, ``details`` (what a kind of result adds, e.g. per-engine counts);
* ``domain``: the instance domain the verdict is about (`fairlab.core.domain.record`: the domain,
  the asked and the mechanism's declared one), None for a result of no domain;
* ``provenance``: the lab, Python and solver versions it was computed with (`provenance()`).

A run that answers several questions writes one `report` document holding its results.

`to_dict` is the one serialiser: exact numbers become ints or ``"p/q"`` strings (irrationals:
their exact description), enums their value, dataclasses their fields; every JSON document the
lab writes carries ``schema_version`` (`SCHEMA_VERSION`, see ``fairlab schema``). `json_text`
(public as ``fairlab.to_json``) is that document as JSON text. ``to_json`` in this module is the
old name of `to_dict`, kept for code written against it.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import html
import json
import math
import platform
from fractions import Fraction
from importlib import metadata
from typing import Any, Iterable, Mapping

from fairlab.core.exact import Algebraic, format_exact
from fairlab.core.version import __version__

#: Version of the JSON documents the lab writes (results, fixtures); bumped on an incompatible change.
SCHEMA_VERSION = 1

#: distributions whose version can change a verdict or a timing: the solvers and the numerics
PROVENANCE_PACKAGES = ("z3-solver", "highspy", "numpy", "scipy")


def provenance() -> dict[str, str | None]:
    """Versions this process computes with: the lab, Python, and the solver / numeric packages.

    ``{"lab": "0.1.0", "python": "3.11.7", "z3-solver": "4.15.4.0", "highspy": "1.16.0", ...}``;
    a package that is not installed is ``None``. Read once per process (every `Result` records it;
    reading package metadata each time was a quarter of an audit's time); a fresh dict each call.
    """
    return dict(_versions())


@functools.lru_cache(maxsize=1)
def _versions() -> tuple[tuple[str, str | None], ...]:
    out: dict[str, str | None] = {"lab": __version__, "python": platform.python_version()}
    for name in PROVENANCE_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return tuple(out.items())


class Status(str, enum.Enum):
    """Every status a result can have. A status other than ``unknown`` is only ever reported after
    an exact check (Fractions, z3 rationals or algebraic numbers)."""

    # one instance (check) or one size (search)
    VIOLATED = "violated"  # a witness, re-verified from scratch on exact allocations
    HOLDS = "holds"  # decided: exact check of the allocation, exhaustive search, or z3 unsat
    NONE_FOUND = "none-found"  # the stated number of candidates was evaluated exactly, none violates
    NOT_APPLICABLE = "n/a"  # the mechanism declined every candidate (its reason is the explanation)
    UNKNOWN = "unknown"  # a budget ran out or an exact answer was out of reach; never a verdict
    # every instance of a size (prove)
    PROVED = "proved"  # unsat with the four gates passed (conformance, satisfiable, core, control)
    # every size (prove --all-sizes): every step machine-checked except a lemma argued by hand
    # (named in the certificate); never reported as plain `proved`
    PROVED_BY_LEMMA = "proved-by-lemma"
    REFUTED = "refuted"  # a counterexample, re-verified from scratch
    # a mechanism's spec against its allocator (conformance)
    AGREES = "agrees"
    DISAGREES = "disagrees"
    SKIPPED = "skipped"  # the allocator declined the instance
    # a published claim (paper checks, rediscover)
    REPRODUCED = "reproduced"  # the source's own statement, checked: the lab computes the same
    ERRATUM = "erratum"  # the source's own statement, checked: a printed number is not what the lab computes
    LAB_FINDING = "lab-finding"  # what was checked is the lab's reading of a source, not its statement
    FOUND = "found"
    NOT_FOUND = "not-found"
    OUT_OF_SCOPE = "out-of-scope"
    # the mechanism raised on an instance (a plug-in's crash): the smallest crashing instance found,
    # the exception and the plug-in's file:line; a finding, never stored as a fixture
    ERROR = "error"

    def __str__(self) -> str:
        return self.value

    @property
    def decided(self) -> bool:
        """False only for ``unknown``."""
        return self is not Status.UNKNOWN


@dataclasses.dataclass(frozen=True)
class Result:
    """The outcome of one question the lab answers (see the module docstring for the fields)."""

    kind: str  # "check" | "search" | "proof" | "conformance" | "impossibility" | "claim" | ...
    status: Status
    mechanism: str | None = None
    property: str | None = None
    instance: Any = None  # an Instance (or its JSON form) the result is about, if one
    witness: Any = None
    certificate: Mapping | None = None
    exactness: str | None = None
    budget: Mapping = dataclasses.field(default_factory=dict)
    seconds: float = 0.0
    explanation: str = ""
    details: Mapping = dataclasses.field(default_factory=dict)
    #: the instance domain the verdict is about (`fairlab.core.domain.record`), None if it has none
    domain: Mapping | None = None
    provenance: Mapping = dataclasses.field(default_factory=provenance, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.status, Status):
            object.__setattr__(self, "status", Status(self.status))  # ValueError names a bad one

    def replace(self, **changes: Any) -> Result:
        """A copy with some fields changed (results are frozen)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        """The JSON document as a dict (`to_dict`)."""
        return to_dict(self)

    def to_json(self, indent: int | None = None) -> str:
        """The JSON document as text (`json_text`)."""
        return json_text(self, indent=indent)

    @classmethod
    def from_json(cls, document: Mapping | str) -> Result:
        """A result back from its JSON form (`to_dict`'s dict or `to_json`'s text), e.g. one computed
        in another process. Instance, witness and numbers stay in their JSON form, which `to_dict`
        writes unchanged."""
        data: Mapping = json.loads(document) if isinstance(document, (str, bytes)) else document
        names = {f.name for f in dataclasses.fields(cls)}
        fields = {k: v for k, v in data.items() if k != "schema_version"}
        unknown = sorted(set(fields) - names)
        if unknown:
            raise ValueError(f"not a result document: unknown field {unknown[0]!r}")
        return cls(**fields)

    def stopped_by_safety_net(self) -> bool:
        """Did the wall-clock safety net stop the work (``"stopped": "time"`` in the budget)? Then
        the status is ``unknown`` and says nothing: the counted budget was not spent."""
        return stopped_by_safety_net(self.budget)

    def label(self) -> str:
        """The status as the lab prints it: ``unknown (wall-clock safety net)`` when the safety net
        stopped the work, never to be confused with an ``unknown`` its counted budget decided."""
        return status_label(self.status, self.budget)

    def __str__(self) -> str:
        about = " ".join(x for x in (self.mechanism, self.property) if x)
        head = f"{self.kind} {about}: {self.label()}".replace("  ", " ")
        if self.domain:
            head += f" [domain {domain_text(self.domain)}]"
        if self.witness is not None:
            head += f" (witness {json.dumps(to_dict(self.witness, versioned=False), separators=(', ', ': '))})"
        return f"{head}\n  {self.explanation}" if self.explanation else head

    def _repr_html_(self) -> str:
        """A table for notebooks: the verdict, the witness, the instance it is about and, for a
        counterexample, the allocations compared (as the certificate records them)."""
        rows = [("status", f"<b>{html.escape(self.label())}</b>")]
        for name in ("mechanism", "property", "exactness"):
            value = getattr(self, name)
            if value is not None:
                rows.append((name, html.escape(str(value))))
        if self.domain:
            rows.append(("domain", html.escape(domain_text(self.domain))))
        if self.witness is not None:
            rows.append(("witness", f"<code>{html.escape(json.dumps(to_dict(self.witness, versioned=False)))}</code>"))
        if self.explanation:
            rows.append(("explanation", html.escape(self.explanation)))
        if self.instance is not None:
            rows.append(("instance", instance_html(self.instance)))
        compared = _compared_allocations(self)
        if compared:
            rows.append(("allocations", compared))
        rows.append(("seconds", f"{self.seconds:.3g}"))
        body = "".join(f"<tr><th style='text-align:left'>{k}</th><td style='text-align:left'>{v}</td></tr>"
                       for k, v in rows)
        return f"<table><caption>fairlab {html.escape(self.kind)} result</caption>{body}</table>"


#: what a result the wall-clock safety net stopped says beside its ``unknown``
SAFETY_NET = "wall-clock safety net"


def stopped_by_safety_net(budget: Mapping | None) -> bool:
    """A budget record of work the wall-clock safety net stopped (``"stopped": "time"``)."""
    return isinstance(budget, Mapping) and budget.get("stopped") == "time"


def status_label(status: Status | str, budget: Mapping | None = None) -> str:
    """``unknown (wall-clock safety net)`` for work the safety net stopped, else the status."""
    text = status.value if isinstance(status, Status) else str(status)
    return f"{text} ({SAFETY_NET})" if text == "unknown" and stopped_by_safety_net(budget) else text


def domain_text(record: Mapping) -> str:
    """The domain of a result in a few words: its label, what it restricts ("bonald-roberts: one
    weight per user, no task caps"), and the note when it is less than asked."""
    from fairlab.core.domain import LEVELS, parse

    label = record.get("name") or "all"
    try:
        words = parse({k: v for k, v in record.items() if k in LEVELS}).words
    except Exception:  # a record written by another version: its label alone
        words = "every instance"
    note = record.get("note")
    if note:  # the note names the sub-domain in words
        return f"{label} ({note})"
    return label if words == "every instance" or words == label else f"{label}: {words}"


def _cell(value: object) -> str:
    return html.escape(value if isinstance(value, str) else json.dumps(to_dict(value, versioned=False)))


def instance_html(instance: object) -> str:
    """An instance (an `Instance` or its JSON form) as a small HTML table: one row per user with its
    demand on each resource (and weight, task cap where given), a last row of capacities."""
    data = to_dict(instance, versioned=False)
    if not isinstance(data, Mapping) or "capacities" not in data or "demands" not in data:
        return f"<code>{_cell(data)}</code>"
    caps, demands = list(data["capacities"]), list(data["demands"])
    users = data.get("users") or [f"u{i + 1}" for i in range(len(demands))]
    resources = data.get("resources") or [f"r{r + 1}" for r in range(len(caps))]
    weights, max_tasks = data.get("weights"), data.get("max_tasks")
    head = "<tr><th></th>" + "".join(f"<th>{_cell(str(r))}</th>" for r in resources)
    head += ("<th>weight</th>" if weights is not None else "") + ("<th>max tasks</th>" if max_tasks else "") + "</tr>"
    body = ""
    for i, row in enumerate(demands):
        body += f"<tr><th style='text-align:left'>{_cell(str(users[i]))}</th>" + "".join(
            f"<td>{_cell(d)}</td>" for d in row)
        if weights is not None:
            body += f"<td>{_cell(weights[i])}</td>"
        if max_tasks:
            body += f"<td>{_cell(max_tasks[i])}</td>"
        body += "</tr>"
    body += "<tr><th style='text-align:left'>capacity</th>" + "".join(f"<td>{_cell(c)}</td>" for c in caps) + "</tr>"
    extra = "".join(f"<br><small>{html.escape(k)}: {_cell(data[k])}</small>"
                    for k in ("machines", "arrivals", "departures") if k in data)
    return f"<table>{head}{body}</table>{extra}"


def _compared_allocations(result: Result) -> str:
    """The allocations a result records, one table row each (label, then each user's tasks): a
    violation's ``details["compared"]`` (its instance's allocation and, for a deviation, the derived
    instance's), else the allocation in a check's certificate."""
    found = []
    compared = result.details.get("compared") if isinstance(result.details, Mapping) else None
    if isinstance(compared, (list, tuple)):
        for k, a in enumerate(compared):
            if isinstance(a, Mapping) and isinstance(a.get("tasks"), (list, tuple)):
                users = a.get("users") or [f"u{i + 1}" for i in range(len(a["tasks"]))]
                found.append((str(a.get("label", f"allocation {k + 1}")), list(zip(users, a["tasks"]))))
    cert = result.certificate if isinstance(result.certificate, Mapping) else {}
    if not found and isinstance(cert.get("allocation"), (list, tuple)):
        found.append(("allocation", [(f"tasks[{i}]", v) for i, v in enumerate(cert["allocation"])]))
    if not found:
        return ""
    rows = "".join(f"<tr><th style='text-align:left'>{html.escape(label)}</th>"
                   + "".join(f"<td>{_cell(str(user))}: {_cell(v)}</td>" for user, v in cells) + "</tr>"
                   for label, cells in found)
    return f"<table>{rows}</table>"


def exact_json(value: int | Fraction | Algebraic) -> int | str:
    """An exact number for JSON: an int if integral, else ``"p/q"`` (an irrational: its description)."""
    if isinstance(value, bool):
        raise TypeError("a bool is not a number")
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    return format_exact(value)


def to_dict(obj: Any, versioned: bool = True) -> Any:
    """The JSON form of a result (or of anything a result holds): plain dicts, lists, strings,
    ints and finite floats. A top-level `Result` gets ``schema_version`` first."""
    if isinstance(obj, Result):
        out: dict[str, Any] = {"schema_version": SCHEMA_VERSION} if versioned else {}
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if f.name == "seconds":
                out["seconds"] = round(float(value), 3)
            else:
                out[f.name] = to_dict(value, versioned=False)
        return out
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, int):
        return obj
    if isinstance(obj, float):
        if not math.isfinite(obj):
            raise ValueError(f"not a finite number: {obj!r}")
        return obj
    if isinstance(obj, Fraction):
        return exact_json(obj)
    if hasattr(obj, "to_dict") and callable(obj.to_dict):  # Instance, Allocation
        return to_dict(obj.to_dict(), versioned=False)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_dict(getattr(obj, f.name), versioned=False) for f in dataclasses.fields(obj)}
    if isinstance(obj, Mapping):
        return {str(k): to_dict(v, versioned=False) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        items = sorted(obj, key=repr) if isinstance(obj, (set, frozenset)) else obj
        return [to_dict(v, versioned=False) for v in items]
    if isinstance(obj, Algebraic):
        return exact_json(obj)
    raise TypeError(f"no JSON form for {type(obj).__name__}")


def json_text(obj: Any, versioned: bool = True, indent: int | None = None) -> str:
    """`to_dict(obj)` as JSON text (``fairlab.to_json``): the document the CLI's ``--format json`` writes."""
    return json.dumps(to_dict(obj, versioned=versioned), indent=indent)


#: the old name of `to_dict` (it returned the dict); ``fairlab.to_json`` is now `json_text`
to_json = to_dict


def report(kind: str, results: Iterable[Result], **extra: Any) -> dict[str, Any]:
    """The JSON document of a run that answers several questions at once (``fairlab properties``,
    a search over several properties, ``rediscover``, ``paper-check``, a proof catalogue):
    ``{"schema_version", "kind", "results": [<Result>...], <extra>..., "provenance"}``. Each result
    is written by `to_dict` without its own schema_version and provenance (the document has them)."""
    rows = []
    for r in results:
        row = to_dict(r, versioned=False)
        if isinstance(row, dict):
            row.pop("provenance", None)
        rows.append(row)
    return {"schema_version": SCHEMA_VERSION, "kind": kind, "results": rows,
            **{k: to_dict(v, versioned=False) for k, v in extra.items()}, "provenance": provenance()}
