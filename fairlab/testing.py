"""One-line property assertions for a researcher's own test suite.

    from fairlab.testing import assert_satisfies, assert_violates

    def test_my_mechanism_is_sharing_incentive():
        assert_satisfies("my_mechanism.py:allocate", "si", up_to=(2, 2))

    def test_a_dictator_is_not():
        assert_violates("my_mechanism.py:dictator", "si", up_to=(2, 2))

Both call the audit engine on one property (`fairlab.audit.run.audit_property`: exact checks of
the shipped examples, the search portfolio at every size up to ``up_to``, and a proof per size
where the mechanism has a symbolic spec) and turn its one status into pass or fail:

==============  ==========================  ==========================
engine status   `assert_satisfies`          `assert_violates`
==============  ==========================  ==========================
``violated``    fails: the counterexample   passes
``proved``      passes                      fails: "proved at ..."
``none-found``  passes, unless              fails: "none found among
                ``require="proof"``         K candidates"
``n/a``         fails: nothing was tested   fails: nothing was tested
``unknown``     fails: which budget ran out fails: which budget ran out
``error``       fails: the mechanism raised fails: the mechanism raised
                (its smallest such instance (its smallest such instance
                and file:line)              and file:line)
==============  ==========================  ==========================

``domain=`` (or ``--fairlab-domain``) chooses the instance domain: a preset such as ``"drf-paper"``
or ``"demands=positive,weights=none"`` (`fairlab.core.domain`); the verdict is about that domain ∩
the one the mechanism declares, and ``result.domain`` records it.

Read a pass of `assert_satisfies` honestly: ``none-found`` means that the stated number of
candidate instances was checked exactly and none violates the property — evidence, not a proof;
``require="proof"`` asks for ``proved`` (every demand profile up to the size), which only the lab's
own mechanisms can get: a proof of a plug-in's ``.spec`` is about the spec, not the code (the two
are compared on samples only), so the audit runs one only when asked (``prove_spec``; these
assertions ask), lists it beside the verdict (``result.details["spec_proved_sizes"]``) and rests
the verdict on the search. A
``violated`` is always a counterexample the engine re-verified exactly. Failures raise
`PropertyAssertionError` (an `AssertionError`, so pytest shows it as a failed assertion) whose
message is the counterexample with the commands that reproduce it, and whose ``.result`` is the
engine's `fairlab.core.results.Result`.

Budgets are deterministic: the same mechanism, property, size, seed and candidate count give the
same verdict on every run; ``time_limit`` is only an outer stop (then the status is ``unknown``).
A keyword left at None takes the run's default (`current_budget`: the pytest plugin's
``--fairlab-seed`` / ``--fairlab-candidates`` / ``--fairlab-time-limit`` / ``--fairlab-store``),
else the engine's own default (seed 0). By default nothing is stored; with a store (keyword or
``--fairlab-store DIR``) a counterexample found is saved there as a fixture.

This module imports neither pytest nor the engine at import time: the pytest plugin
(`fairlab.pytest_plugin`) imports it in every pytest run of an environment where fairlab is
installed, so the engine (z3, numpy) is loaded by the first assertion, not before.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from fairlab import __version__

if TYPE_CHECKING:  # not imported at run time: the engine loads on the first assertion
    from fairlab.core.domain import DomainLike
    from fairlab.core.instance import Instance, InstanceLike
    from fairlab.core.results import Result
    from fairlab.counterexamples.store import Store
    from fairlab.mechanisms.base import Mechanism, MechanismLike
    from fairlab.properties.property import Property

#: a size: ``(users, resources)``, or one int for a square size
Size = int | tuple[int, int]

__all__ = ["assert_satisfies", "assert_violates", "PropertyAssertionError", "Budget", "current_budget",
           "use_budget", "property_contract", "ContractError"]

REQUIREMENTS = ("no-violation", "proof")


@dataclasses.dataclass(frozen=True)
class Budget:
    """Defaults for the assertions of one test run; None leaves the engine's deterministic default.

    seed: seed of the random candidates (engine default 0); candidates: candidate instances per
    size; time_limit: outer stop in seconds for one assertion (then ``unknown``); store: folder
    where found counterexamples are saved (None: nothing is stored)."""

    seed: int | None = None
    candidates: int | None = None
    time_limit: float | None = None
    store: str | None = None
    #: the instance domain (a preset name or key=value,...; None: all)
    domain: str | None = None

    def describe(self) -> str:
        """``"seed 3, candidates 20"`` — the fields set, or ``"engine defaults"``."""
        set_ = [f"{f.name.replace('_', ' ')} {getattr(self, f.name)}" for f in dataclasses.fields(self)
                if getattr(self, f.name) is not None]
        return ", ".join(set_) or "engine defaults"


_budget = Budget()


def current_budget() -> Budget:
    """The defaults the assertions use when a keyword is left at None."""
    return _budget


def use_budget(budget: Budget) -> Budget:
    """Make `budget` the run's defaults; returns the previous one (the pytest plugin restores it)."""
    global _budget
    if not isinstance(budget, Budget):
        raise TypeError(f"expected a fairlab.testing.Budget, got {type(budget).__name__}")
    previous, _budget = _budget, budget
    return previous


class PropertyAssertionError(AssertionError):
    """A property assertion that failed; ``.result`` is the engine's `Result` for the property."""

    def __init__(self, message: str, result: Result) -> None:
        super().__init__(message)
        self.result = result


def assert_satisfies(mechanism: MechanismLike, prop: str, up_to: Size = (3, 3), *, seed: int | None = None,
                     candidates: int | None = None, time_limit: float | None = None, rlimit: int | None = None,
                     options: dict[str, Any] | None = None, store: Store | str | os.PathLike[str] | None = None,
                     require: str = "no-violation",
                     domain: DomainLike = None) -> Result:
    """Assert that `mechanism` satisfies property `prop` at every size up to ``up_to = (users,
    resources)``; returns the engine's `Result`.

    mechanism: anything `fairlab.mechanism` accepts (a name, ``"file.py:function"``, an
    entry-point name, a callable). prop: a property name (``fairlab properties``). Passes on
    ``proved``, and on ``none-found`` (no counterexample among the candidates tried) unless
    ``require="proof"`` (then every size that is not vacuous must be proved). Fails with the
    smallest counterexample on ``violated``; fails on ``unknown`` (a budget or the time limit ran
    out before every size was decided: which one to raise), on ``n/a`` and whenever the mechanism
    declined every instance of some size up to ``up_to`` (nothing was tested there). See the module
    docstring for the keywords."""
    __tracebackhide__ = True  # pytest shows the test's line and this message, not this function's body
    if require not in REQUIREMENTS:
        raise ValueError(f"require: expected one of {', '.join(REQUIREMENTS)}, got {require!r}")
    result, users, resources, given = _audit(mechanism, prop, up_to, seed=seed, candidates=candidates,
                                      time_limit=time_limit, rlimit=rlimit, options=options, store=store,
                                      domain=domain)
    status = _status(result)
    rows = (result.details or {}).get("sizes", [])
    declined = [f"{r['users']}×{r['resources']}" for r in rows if r.get("status") == "n/a"]
    unproved = [f"{r['users']}×{r['resources']}" for r in rows if r.get("status") not in ("proved", "holds", "vacuous")]
    if not declined and (status == "proved" and (require == "no-violation" or not unproved)
                         or status == "none-found" and require == "no-violation"):
        return result
    head = f"{_name(mechanism, result)} does not satisfy {prop} up to {users}×{resources}"
    if status == "violated":
        message = f"{head}: violated\n" + _counterexample(mechanism, prop, result, users, resources, given)
    elif declined and status in ("proved", "none-found"):
        message = (f"{_name(mechanism, result)}: {prop} is not established up to {users}×{resources}: the mechanism "
                   f"declined every instance at {', '.join(declined)}, so nothing was tested there (lower up_to=)\n"
                   + _sizes_block(result))
    elif status == "proved":  # require="proof", but some sizes are only searched
        message = (f"{_name(mechanism, result)}: {prop} is not proved at every size up to {users}×{resources} "
                   f"(require='proof'): not proved at {', '.join(unproved)}; {_summary(result)}\n"
                   + _why_no_proof(result) + _sizes_block(result))
    elif status == "none-found":
        message = (f"{_name(mechanism, result)}: {prop} is not proved up to {users}×{resources} (require='proof'): "
                   f"{_summary(result)}\n" + _why_no_proof(result) + _sizes_block(result))
    else:
        message = f"{head}: " + _undecided(result, status)
    raise PropertyAssertionError(message.rstrip(), result)


def assert_violates(mechanism: MechanismLike, prop: str, up_to: Size = (2, 2), *, seed: int | None = None,
                    candidates: int | None = None, time_limit: float | None = None, rlimit: int | None = None,
                    options: dict[str, Any] | None = None, store: Store | str | os.PathLike[str] | None = None,
                    domain: DomainLike = None) -> Result:
    """Assert that `mechanism` violates property `prop` at some size up to ``up_to``; returns the
    engine's `Result` (``.instance``, ``.witness`` and ``.explanation`` describe the smallest
    counterexample, which the engine re-verified exactly).

    Passes only on ``violated``. Fails on ``proved`` (no counterexample exists at the sizes
    proved), ``none-found`` (none among the candidates tried: raise ``candidates`` or ``up_to``),
    ``n/a`` and ``unknown``. Keywords as `assert_satisfies`."""
    __tracebackhide__ = True
    result, users, resources, given = _audit(mechanism, prop, up_to, seed=seed, candidates=candidates,
                                      time_limit=time_limit, rlimit=rlimit, options=options, store=store,
                                      domain=domain)
    status = _status(result)
    if status == "violated":
        return result
    head = f"{_name(mechanism, result)} was expected to violate {prop} up to {users}×{resources}"
    if status == "proved":
        message = f"{head}, but it is proved: {_summary(result)}\n" + _sizes_block(result)
    elif status == "none-found":
        message = (f"{head}, but no counterexample was found: {_summary(result)}\n"
                   "  (evidence, not a proof: raise candidates= / --fairlab-candidates or up_to=, or try "
                   "another seed)\n" + _sizes_block(result))
    else:
        message = f"{head}: " + _undecided(result, status)
    raise PropertyAssertionError(message.rstrip(), result)


# --- running the engine ------------------------------------------------------------------------


def _size(up_to: Any) -> tuple[int, int]:
    """``(users, resources)`` from a pair (or one int for a square size)."""
    if isinstance(up_to, int) and not isinstance(up_to, bool):
        up_to = (up_to, up_to)
    try:
        users, resources = up_to
    except (TypeError, ValueError):
        raise ValueError(f"up_to: expected (users, resources), got {up_to!r}") from None
    for value, what in ((users, "users"), (resources, "resources")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"up_to: {what} must be a positive int, got {value!r}")
    return users, resources


def _audit(mechanism: MechanismLike, prop: str, up_to: Size, *, seed: int | None, candidates: int | None,
           time_limit: float | None, rlimit: int | None, options: dict[str, Any] | None,
           store: Store | str | os.PathLike[str] | None,
           domain: DomainLike = None) -> tuple[Result, int, int, dict[str, Any]]:
    """The engine's `Result` for one property, the run's defaults filling the keywords left at None."""
    users, resources = _size(up_to)
    run = current_budget()
    # the engine loads z3 and numpy: imported here, on the first assertion (see the module docstring)
    from fairlab.audit.run import audit_property

    given = {
        "seed": seed if seed is not None else run.seed,
        "candidates": candidates if candidates is not None else run.candidates,
        "time_limit": time_limit if time_limit is not None else run.time_limit,
        "rlimit": rlimit,
        "options": options,
        "store": store if store is not None else run.store,  # None: nothing is stored
        "domain": domain if domain is not None else run.domain,  # None: all
    }
    # a keyword nobody set is not passed: the engine keeps its own deterministic default
    given = {k: v for k, v in given.items() if v is not None}
    # a plug-in's declared spec is proved too (`require="proof"` tells a spec-only proof apart)
    return audit_property(mechanism, prop, users, resources, prove_spec=True, **given), users, resources, given


def _status(result: Result) -> str:
    status = getattr(result.status, "value", result.status)
    if status not in ("violated", "proved", "none-found", "n/a", "unknown", "error"):
        raise PropertyAssertionError(f"fairlab {__version__}: unexpected audit status {status!r} "
                                     f"for {result.property}", result)
    return status


# --- the failure messages ----------------------------------------------------------------------


def _name(mechanism: MechanismLike, result: Result) -> str:
    """How the user named the mechanism (the name the CLI accepts), else the engine's name."""
    if isinstance(mechanism, str):
        return mechanism
    return str(result.mechanism or getattr(mechanism, "name", None) or getattr(mechanism, "__name__", repr(mechanism)))


def _json(value: Any) -> Any:
    from fairlab.core.results import to_dict  # loads z3 (fairlab.core.exact): only once an assertion ran

    return to_dict(value, versioned=False)


def _summary(result: Result) -> str:
    return result.details.get("summary") or result.explanation or result.status.value


def _counterexample(mechanism: MechanismLike, prop: str, result: Result, users: int, resources: int,
                    given: dict[str, Any]) -> str:
    """The smallest counterexample: instance, witness in words, sizes tried, how to reproduce."""
    lines = []
    instance = _json(result.instance) if result.instance is not None else None
    if instance:
        lines.append(f"  counterexample (smallest found, verified exactly): "
                     f"{len(instance['demands'])} users × {len(instance['capacities'])} resources")
        lines += ["    " + line for line in _instance_lines(instance)]
    if result.explanation:
        lines.append(f"  witness: {result.explanation}")
    if result.witness is not None:
        lines.append(f"  witness fields: {json.dumps(_json(result.witness), separators=(', ', ': '))}")
    if result.details.get("found_by"):
        from fairlab.audit.markdown import how_found  # the report's words: the engine, the example (if any)

        lines.append(f"  found {how_found(result.details)}")
    fixture = result.details.get("fixture")
    if fixture:
        lines.append(f"  stored: {fixture}")
    text = "\n".join(lines) + "\n" + _sizes_block(result)
    return text + _reproduce(mechanism, prop, result, instance, users, resources, given)


def _instance_lines(instance: dict) -> list[str]:
    """The instance with its user and resource names, one line per user."""
    names = instance.get("resources") or [f"r{j + 1}" for j in range(len(instance["capacities"]))]
    users = instance.get("users") or [f"u{i + 1}" for i in range(len(instance["demands"]))]
    lines = ["capacities: " + ", ".join(f"{r} {c}" for r, c in zip(names, instance["capacities"]))]
    weights = instance.get("weights")
    caps = instance.get("max_tasks")
    for i, (user, row) in enumerate(zip(users, instance["demands"])):
        line = f"{user} demands <{', '.join(str(d) for d in row)}>"
        if weights is not None:
            line += f", weight {_short(weights[i])}"
        if caps is not None and caps[i] is not None:
            line += f", at most {caps[i]} tasks"
        lines.append(line)
    return lines


def _short(value: Any) -> str:
    return f"<{', '.join(str(v) for v in value)}>" if isinstance(value, list) else str(value)


def _sizes_block(result: Result) -> str:
    """``sizes tried: 1×1 proved (proof), 2×1 none-found (100 candidates), ...``."""
    sizes = result.details.get("sizes") or []
    parts = []
    for row in sizes:
        part = f"{row.get('users')}×{row.get('resources')} {row.get('status')}"
        extra = [x for x in (row.get("how"), _count(row.get("candidates"), "candidate")) if x]
        if extra:
            part += f" ({', '.join(extra)})"
        parts.append(part)
    out = f"  sizes tried: {', '.join(parts)}\n" if parts else ""
    if result.details.get("candidates") is not None:
        out += f"  candidates checked exactly: {result.details['candidates']}\n"
    return out


def _count(number: int | None, noun: str) -> str | None:
    """``"1 candidate"``, ``"20 candidates"``; None for none."""
    return f"{number} {noun}{'' if number == 1 else 's'}" if number else None


def _reproduce(mechanism: MechanismLike, prop: str, result: Result, instance: dict | None, users: int, resources: int,
               given: dict[str, Any]) -> str:
    """Shell commands that reproduce the finding (or why there is no command for a callable)."""
    if not isinstance(mechanism, str):
        return ("  reproduce: the mechanism is a Python object; put it in a file and name it `file.py:function` "
                "to reproduce with `fairlab check` / `fairlab audit`\n")
    opts = "".join(f" -o {shlex.quote(f'{k}={v}')}" for k, v in (given.get("options") or {}).items())
    seed = (result.budget or {}).get("seed", given.get("seed", 0))
    audit = (f"fairlab audit {shlex.quote(mechanism)} --property {shlex.quote(prop)} --users {users} "
             f"--resources {resources} --seed {seed}")
    for key in ("candidates", "rlimit"):
        if key in given:
            audit += f" --{key} {given[key]}"
    lines = ["  reproduce:"]
    if instance:
        text = json.dumps(instance, separators=(", ", ": "))
        lines.append(f"    echo {shlex.quote(text)} > instance.json")
        lines.append(f"    fairlab check {shlex.quote(mechanism)} {shlex.quote(prop)} instance.json{opts}")
    lines.append("    " + audit + opts)
    return "\n".join(lines) + "\n"


def _why_no_proof(result: Result) -> str:
    scope = result.details.get("scope")
    proved = result.details.get("proved_sizes") or []
    if proved:
        sizes = ", ".join(f"{u}×{r}" for u, r in proved)
        return f"  proved only at {sizes} (scope: {scope or 'mechanism'})\n"
    if result.details.get("spec_proved_sizes"):
        return ("  no size was proved for the code: a plug-in's proof covers its declared spec only "
                f"({result.explanation})\n")
    return ("  no size was proved (a proof needs a symbolic spec: only the lab's own mechanisms' proofs cover "
            f"their code; {result.explanation or 'see fairlab audit'})\n")


def _undecided(result: Result, status: str) -> str:
    """The message of ``n/a``, ``error`` and ``unknown``: nothing was tested / the mechanism raised /
    which budget ran out."""
    if status == "error":
        instance = _json(result.instance) if result.instance is not None else None
        return ("error — the mechanism raised or answered wrongly on an instance (the smallest found is shown).\n"
                f"  {result.explanation}\n" + (f"  instance: {json.dumps(instance)}\n" if instance else ""))
    if status == "n/a":
        return (f"n/a — the mechanism declined every instance, so nothing was tested.\n"
                f"  why: {result.explanation or _summary(result)}\n" + _sizes_block(result))
    stopped = (result.budget or {}).get("stopped")
    if stopped == "time":
        raise_ = "the time limit ran out: raise time_limit= (or --fairlab-time-limit S)"
    else:
        raise_ = ("a deterministic budget ran out before a verdict: raise rlimit= (z3 resource units per check) "
                  "or candidates= (--fairlab-candidates), or lower up_to=")
    return (f"unknown — {raise_}.\n  what happened: {result.explanation or _summary(result)}\n"
            + _sizes_block(result))


# --- the property contract ---------------------------------------------------------------------


class ContractError(AssertionError):
    """A property broke its contract (`property_contract`); the message says which use disagreed."""


def property_contract(prop: str | Property, control: tuple[MechanismLike, InstanceLike], *,
                      mechanisms: Sequence[MechanismLike] = ("drf", "asset", "ceei"), users: Sequence[int] = (2, 3),
                      resources: Sequence[int] = (1, 2), samples: int = 6, seed: int = 0, evaluations: int = 20,
                      time_limit: float = 600.0,  # a check's safety net (properties.base)
                      ) -> dict[str, int]:
    """The contract tests the lab's own properties pass, for `prop` (a plug-in ``file.py:NAME``,
    an entry-point name, a `Property` object, or a built-in name): its one rule gives the same
    answer in every use. Raises `ContractError` naming the first disagreement; returns counts.

    * its shape: a title, definition and source; ``compares`` one of the lab's; a typed witness
      (a dataclass subclassing `Witness`) whose JSON keys the witness help documents;
    * the positive control ``control = (mechanism, instance)``, which must violate it (so the
      contract is seen to fail where it must): the exact check says ``violated`` with a typed
      witness, which re-verifies from scratch, also from its JSON form; the z3 encoding at the
      instance is satisfiable and the witness read from its model re-verifies (if the mechanism
      has a spec); the negated rule of the impossibility search is false there;
    * agreement on seeded instances (`fairlab.mechanisms.conformance.sample`, `samples` per size
      of `users` × `resources`, `seed`) for each of `mechanisms`: a violation re-verifies and its
      encoding is satisfiable, a ``holds`` has an unsatisfiable encoding, and the negated rule is
      true exactly when the check holds (allocation properties).

    Deterministic: the same arguments give the same checks."""
    import dataclasses as _dc

    import z3

    from fairlab import mechanisms as _mechanisms
    from fairlab import properties
    from fairlab.core.errors import InputError
    from fairlab.core.exact import z3_value
    from fairlab.core.results import Status, to_dict
    from fairlab.mechanisms.base import SymbolicInstance
    from fairlab.mechanisms.conformance import sample
    from fairlab.properties.base import run, solve
    from fairlab.properties.property import (
        ALLOCATION,
        COMPARES,
        AllocationProperty,
        DeviationProperty,
        Witness,
        Z3View,
    )

    prop = properties.get(prop)
    name = prop.name
    if not (prop.title and prop.definition and prop.source):
        raise ContractError(f"property {name}: needs a title, a definition and a source")
    if prop.compares not in COMPARES:
        raise ContractError(f"property {name}: compares {prop.compares!r} is not one of {COMPARES}")
    if not (isinstance(prop.witness, type) and issubclass(prop.witness, Witness) and _dc.is_dataclass(prop.witness)):
        raise ContractError(f"property {name}: its witness must be a dataclass subclassing Witness")
    for field in _dc.fields(prop.witness):
        if f'"{field.name}"' not in prop.witness_shape():
            raise ContractError(f"property {name}: the witness help does not document the key {field.name!r}")

    def encoding_answer(mech: Mechanism, instance: Instance) -> tuple[str | None, dict | None]:
        if mech.spec is None:
            return None, None
        sym = SymbolicInstance.from_instance(instance)
        encoding = prop.encode(sym, mech.spec)
        status, model = solve(sym.domain + encoding.constraints, time_limit)
        return status, (encoding.witness(model) if model is not None else None)

    def holds_true(mech: Mechanism, instance: Instance, result: Result) -> bool:
        view = Z3View(SymbolicInstance.from_instance(instance), integral=mech.discrete, concrete=instance)
        numerals = [z3_value(t) for t in run(mech, instance, {})]
        if prop.compares == ALLOCATION:
            assert isinstance(prop, AllocationProperty), "a property of one allocation (as search.impossibility)"
            named = prop.holds(view, numerals, "c")
        else:
            assert isinstance(prop, DeviationProperty), "a property comparing two instances (rm, sp, pm)"
            deviation, _ = prop.read(prop.witness.from_dict(result.witness), instance)
            after = [z3_value(t) for t in run(mech, prop.derive(instance, deviation), {})]
            named = prop.holds(view, numerals, after, deviation, "c")
        return z3.is_true(z3.simplify(z3.And([expr for _, expr in named])))

    # the positive control
    mechanism, instance = control
    mech = _mechanisms.get(mechanism)
    result = properties.check(mech, name, instance, evaluations=max(evaluations, 60), time_limit=time_limit)
    where = f"property {name}, positive control {mech.name}"
    if result.status != Status.VIOLATED:
        raise ContractError(f"{where}: expected violated, got {result.status.value} ({result.explanation})")
    if not isinstance(result.witness, prop.witness):
        raise ContractError(f"{where}: the witness is a {type(result.witness).__name__}, not a {prop.witness.__name__}")
    as_json = to_dict(result.witness, versioned=False)
    if not (prop.verify(mech, result.instance, result.witness) and prop.verify(mech, result.instance, as_json)):
        raise ContractError(f"{where}: the witness {as_json} does not re-verify from scratch")
    if prop.witness.from_dict(as_json) != result.witness:
        raise ContractError(f"{where}: the witness does not survive its JSON form {as_json}")
    counts = {"control": 1, "checked": 0, "violated": 0, "holds": 0, "encodings": 0, "declined": 0}
    status, witness = encoding_answer(mech, result.instance)
    if status is not None:
        counts["encodings"] += 1
        if status != "sat" or not prop.verify(mech, result.instance, witness):
            raise ContractError(f"{where}: the z3 encoding says {status} with witness {witness}")
    if prop.compares == ALLOCATION and holds_true(mech, result.instance, result):
        raise ContractError(f"{where}: the negated rule (impossibility form) holds at a violation")

    # agreement on seeded instances
    for n in users:
        for m in resources:
            for inst in sample(n, m, samples, seed, setting=prop.setting):
                for mechanism in mechanisms:
                    mech = _mechanisms.get(mechanism)
                    try:
                        result = properties.check(mech, name, inst, evaluations=evaluations, time_limit=time_limit)
                    except InputError:
                        counts["declined"] += 1
                        continue
                    counts["checked"] += 1
                    where = f"property {name}, {mech.name} at {inst.to_dict()}"
                    if result.status == Status.VIOLATED:
                        counts["violated"] += 1
                        if not prop.verify(mech, inst, result.witness):
                            raise ContractError(f"{where}: a violation whose witness does not re-verify")
                    elif result.status == Status.HOLDS:
                        counts["holds"] += 1
                    status, witness = encoding_answer(mech, inst)
                    if status in ("sat", "unsat"):
                        counts["encodings"] += 1
                        if result.status == Status.VIOLATED and status != "sat":
                            raise ContractError(f"{where}: the check says violated, the z3 encoding unsat")
                        if result.status == Status.HOLDS and status != "unsat":
                            raise ContractError(f"{where}: the check says holds, the z3 encoding sat ({witness})")
                    decided = result.status in (Status.VIOLATED, Status.HOLDS)
                    if prop.compares == ALLOCATION and decided and \
                            holds_true(mech, inst, result) != (result.status == Status.HOLDS):
                        raise ContractError(f"{where}: the negated rule disagrees with the check "
                                            f"({result.status.value})")
    return counts
