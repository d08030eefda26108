"""Plug-in mechanisms: ``path/to/file.py:function`` wherever a built-in mechanism name is accepted.

A researcher's mechanism is a plain Python callable ``Instance -> tasks`` in a file of their own.
It is given the instance with its numbers as `fairlab.mechanisms.plugin_numbers.ExactNumber` s
(Fractions that stay exact through pulp's arithmetic). It may return a sequence of task counts (one
per user: int, `Fraction`, `fairlab.core.exact.Algebraic`, decimal text or "p/q"), an `Allocation`,
an object with a ``tasks`` attribute, or a mapping with a ``"tasks"`` key. A float anywhere in the
answer (or a float coefficient in its LP) is read through its shortest decimal text but the
allocation is then labelled approximate, with a note naming the floats: it never decides a verdict.
An exact result is checked exactly feasible (non-negative, within caps and capacities).

Settings (function attributes, read once when the plug-in is loaded): ``fn.setting`` is
``"pool"`` (the default: one divisible pool, the result above), ``"machines"`` (several machines,
`Instance.machines`) or ``"dynamic"`` (agents over time, `Instance.events`); anything else is a
one-line `InputError`. A machines plug-in returns ``{"placement": [[x_ik ...] per user]}`` (x_ik
tasks of user i on machine k; the tasks are the row sums) or ``{"lottery": [[p, placement], ...]}``
(tasks: the expected row sums), as a mapping, an `Allocation` or an object with those attributes;
``fn.valuation = "containers"`` declares the valuation model of its paper (default ``"pooled"``;
`fairlab.mechanisms.base.VALUATIONS`), the one the machines properties judge it in;
``fn.discrete = True`` declares whole tasks (every placement entry then checked integral), and must
be ``True`` or ``False`` (a bool, anything else — 1, "yes" — is a one-line `InputError`; default
False, ignored in the pool setting). A dynamic plug-in returns ``{"steps": [tasks after event t,
...]}`` with one task vector per event of `Instance.events` (absent users 0); the tasks are the
last step's. Each result is checked exactly in its setting (`check_setting_allocation`: each
machine's capacity, whole tasks, a lottery's probabilities summing to 1, one step per event) and
a failed check is a wrong answer (below). A result labelled ``exactness: "approximate"`` keeps its
placement (lottery, steps) and its label: the properties then answer ``unknown``, never decide.

If the callable has a ``spec`` attribute (``spec(sym, tasks) -> list[Constraint]``, as in
`fairlab.mechanisms.base`), it is the plug-in's symbolic specification; otherwise only the numeric
engines serve it. Plug-ins take no options.

Every failure is an `InputError` with one line: the file or function is missing, the file does not
import, or it returns something unusable. A failing run is a `PluginError` (the searches stop on it
rather than skip the instance), except an `InputError` the plug-in raises itself, which means it
refuses that instance. A raise on one instance is a `PluginCrash`, and a wrong answer on one
instance (the wrong number of task counts, negative or infeasible tasks, an LP with no optimum, a
different answer to the same question) a `PluginBadAnswer`: findings about that instance (the
properties' status ``error``, shrunk, with the plug-in's file:line), not the end of a run. ``SystemExit`` from
the file or the function is a failure like any other; ``KeyboardInterrupt`` still interrupts.

A plug-in is arbitrary code, so it may never return. Its allocation calls run in a worker process
of its own (started once per plug-in and kept for later calls, a fresh one after a failure; a
child of the lab's fork server that imports the plug-in's file again, `fairlab.core.processes`), so
any loop, even one in C code, can be stopped: inside `time_limit(seconds)` (the CLI verbs'
``--time-limit``) a call that has not returned when the limit runs out is killed and raises
`PluginTimeout` ("did not return within 3 s"). Importing the file and calling its ``spec`` run
in this process under a SIGALRM guard with the same limit (main thread only). Without a time
limit a call waits as long as the plug-in takes. Requests may be batched (`paired`: the determinism
check's two runs of an instance in one request; `send_ahead`: the instances a search will ask for
next): the worker answers in order, each call reads the reply to exactly its own instance and
options, and a reply no call asks for is dropped (`fairlab.mechanisms._plugin_worker`).

A plain Python callable (`from_callable`, what `fairlab.mechanisms.get` does with one) follows the
same rules but runs in this process: it is the caller's own code, called from the caller's session.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import sys
import time
import weakref
from pathlib import Path

import z3

from fairlab.core import processes
from fairlab.core.domain import parse as parse_domain
from fairlab.core.errors import InputError, PluginBadAnswer, PluginCrash, PluginError
from fairlab.core.instance import SETTINGS, Instance
from fairlab.core.stdio import output_to_stderr
from fairlab.mechanisms import _plugin_files as plugin_files
from fairlab.mechanisms._plugin_limits import (  # noqa: F401  (re-exported: the public names live on here)
    PluginTimeout,
    _active,
    _Alarm,
    _guard,
    _timeout,
    starting,
    time_limit,
)
from fairlab.mechanisms._plugin_worker import (  # noqa: F401  (re-exported, as above)
    _MAIN_HINT,
    FAILED,
    IMPORTED,
    STARTUP_SECONDS,
    Recipe,
    _decode,
    _describe,
    _run,
    _Worker,
    module_name,
    paired,
    probe_child,
    tasks_of,
)
from fairlab.mechanisms.base import (
    REGISTRY,
    VALUATIONS,
    Allocation,
    Constraint,
    Mechanism,
    Step,
    check_feasible,
    check_setting_allocation,
)

_CACHE: dict[tuple[str, float, str], Mechanism] = {}
_CALLABLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


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
    worker = _Worker(name, fn, resolved, Recipe(str(resolved), function))
    mechanism = _wrap(fn, name, f"plug-in {function} from {path.name}", str(path), module.__name__, worker.call)
    mechanism.allocate.worker = worker  # type: ignore[attr-defined]  # the worker lives as long as its mechanism
    _CACHE[key] = mechanism
    return mechanism


def import_file(path: Path, name: str, kind: str = "mechanism"):
    """Import the plug-in file `path` for the plug-in `name` (a `kind`: "mechanism", "property"),
    as `load` does: a probe import in a child process first, within the active time limit, prints
    to stderr, any failure a one-line `PluginError` naming the plug-in and its own frames."""
    return _import(path.resolve(), name, kind)


def from_callable(fn, name: str | None = None, source: str = "") -> Mechanism:
    """A plain Python callable ``Instance -> tasks`` (anything a plug-in may return) as a `Mechanism`,
    named by `name` (an entry point's name) or else `callable_name` (``callable <module>.<qualname>``,
    which no registered name can be: a ``def drf(instance)`` is never reported as the built-in
    ``drf``). It runs in this process (no time limit stops it); its results are checked exactly
    feasible, its ``spec``, ``anonymous`` and ``scale_invariant`` attributes are read as a
    plug-in's. The same callable with the same declared attributes gives the same `Mechanism` object;
    an attribute set or changed after a first use (``fn.spec = ...``) is read again, never ignored."""
    if not callable(fn):
        raise InputError(f"mechanism: expected a name, a Mechanism or a callable, got {type(fn).__name__}")
    declared = _declared(fn)
    try:
        cached_declared, cached = _CALLABLES[fn]
        if len(cached_declared) == len(declared) and all(a is b for a, b in zip(cached_declared, declared)):
            return cached
    except (KeyError, TypeError):
        pass
    name = name or callable_name(fn)
    module = getattr(fn, "__module__", None) or ""

    def call(instance: Instance, options: dict):
        kind, value = _run(fn, instance, name, options)
        if kind == "interrupt":
            raise KeyboardInterrupt
        return kind, value

    mechanism = _wrap(fn, name, f"Python {name}", source or module, module, call)
    try:
        _CALLABLES[fn] = (declared, mechanism)
    except TypeError:  # not weak-referenceable: not cached
        pass
    return mechanism


#: the function attributes `_wrap` reads: a plug-in's declarations
DECLARED_ATTRIBUTES = ("spec", "setting", "discrete", "domain", "valuation", "scale_invariant", "anonymous",
                       "__doc__")


def _declared(fn) -> tuple:
    """What `fn` declares now: each attribute's value (a cached `Mechanism` is reused only while these are the
    same objects; holding them keeps their identities from being reused)."""
    return tuple(getattr(fn, attr, None) for attr in DECLARED_ATTRIBUTES)


def load_entry_point(ep, name: str) -> Mechanism:
    """Import an installed package's entry point `ep` (``importlib.metadata.EntryPoint``) — stopped
    at the active time limit, its prints sent to stderr, a failure one line naming it — and wrap
    what it names (`from_entry_point`)."""
    with _guard(name):
        try:
            with output_to_stderr():
                loaded = ep.load()
        except (Exception, SystemExit) as exc:  # a broken package: one line naming it
            raise PluginError(f"mechanism {name!r}: entry point {ep.value!r} does not load: "
                              f"{_describe(exc)}") from None
    return from_entry_point(loaded, name, f"entry point {ep.value}")


def from_entry_point(loaded, name: str, source: str) -> Mechanism:
    """What an installed package registers under `name` (group ``fairlab.mechanisms``) as a
    `Mechanism` whose calls run in a worker process, like a file plug-in's: a call that never
    returns is stopped at the time limit, its prints go to stderr, its results are checked as a
    plug-in's. A `Mechanism` object keeps its spec, options and declared facts (renamed `name`:
    it is foreign code whatever name it gives itself); a callable is wrapped as a plug-in's."""
    if isinstance(loaded, Mechanism) and REGISTRY.get(loaded.name) is loaded:
        return loaded  # the lab's own mechanism, re-exported under another name
    if isinstance(loaded, Mechanism):
        worker = _Worker(name, loaded.allocate)
        return dataclasses.replace(loaded, name=name, aliases=(), source=source,
                                   allocate=_allocator(name, worker.call, loaded.discrete, defined_at(loaded.allocate)),
                                   spec=None if loaded.spec is None else _guarded_spec(name, loaded.spec))
    if not callable(loaded):
        raise PluginError(f"mechanism {name!r}: {source} is a {type(loaded).__name__}, expected a Mechanism or a "
                          "callable")
    worker = _Worker(name, loaded)
    mechanism = _wrap(loaded, name, f"installed plug-in {name}", source, getattr(loaded, "__module__", "") or "",
                      worker.call)
    mechanism.allocate.worker = worker  # type: ignore[attr-defined]  # as in _load_file
    return mechanism


def callable_name(fn) -> str:
    """``callable <module>.<qualname>`` of a plain Python callable: the word and the space keep it
    apart from every registered name and alias (and from ``file.py:function`` plug-ins, whose names
    a fixture may record), the module and qualified name say which callable it was."""
    qualname = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__qualname__
    module = getattr(fn, "__module__", None) or getattr(type(fn), "__module__", None)
    return f"callable {module}.{qualname}" if module else f"callable {qualname}"


def _wrap(fn, name: str, fallback_summary: str, source: str, module: str, call) -> Mechanism:
    spec = getattr(fn, "spec", None)
    if isinstance(spec, str) and spec == "lp":  # an LP mechanism: the spec is derived from its LPs
        from fairlab.mechanisms.lp_spec import derived_spec

        spec = derived_spec(fn, name)
    if spec is not None and not callable(spec):
        raise InputError(f"mechanism {name!r}: its spec attribute is not callable")
    doc = (fn.__doc__ or "").strip().splitlines()
    setting = getattr(fn, "setting", "pool")
    if not isinstance(setting, str) or setting not in SETTINGS:
        raise InputError(f"mechanism {name!r}: its setting attribute {setting!r} is not one of {', '.join(SETTINGS)}")
    declared = getattr(fn, "discrete", False)
    if not isinstance(declared, bool):  # 1 or "yes" must not silently mean divisible
        raise InputError(f"mechanism {name!r}: its discrete attribute {declared!r} is not True or False")
    # whole tasks (placements checked integral) — the author's claim, read for the new settings only
    discrete = setting != "pool" and declared
    # the instances it is defined on: a Domain, a preset name or key=value,... (`fairlab.core.domain.parse`)
    domain = parse_domain(getattr(fn, "domain", None), flag=f"mechanism {name!r}: its domain attribute")
    # the valuation model of its paper (machines setting: "pooled", the default, or "containers")
    valuation = getattr(fn, "valuation", "pooled")
    if not isinstance(valuation, str) or valuation not in VALUATIONS:
        raise InputError(f"mechanism {name!r}: its valuation attribute {valuation!r} is not one of "
                         f"{', '.join(VALUATIONS)}")
    return Mechanism(
        name=name,
        summary=doc[0] if doc else fallback_summary,
        source=source,
        allocate=_allocator(name, call, discrete, defined_at(fn)),
        spec=None if spec is None else _guarded_spec(name, spec),
        module=module,
        # the author's claims (function attributes), passed through unverified; default False
        scale_invariant=getattr(fn, "scale_invariant", False) is True,
        anonymous=getattr(fn, "anonymous", False) is True,
        setting=setting,
        discrete=discrete,
        domain=domain,
        valuation=valuation,
    )


def _import(path: Path, name: str, kind: str = "mechanism"):
    """Import the plug-in file `path` (a fresh module named after its path; its prints go to stderr),
    after a probe import in a child process, stopped at the active time limit (`_guard`); a failure
    is one line naming the `kind` and `name`."""
    _probe_import(path, name, kind)
    module = module_name(path)
    spec = importlib.util.spec_from_file_location(module, path)
    if spec is None or spec.loader is None:
        raise InputError(f"{kind} {name!r}: cannot load {str(path)!r} as a Python file")
    loaded = importlib.util.module_from_spec(spec)
    before = set(sys.modules)
    try:
        sys.modules[module] = loaded
        with _guard(name, kind), contextlib.redirect_stdout(sys.stderr):  # stdout carries results only
            spec.loader.exec_module(loaded)
    except _Alarm:
        sys.modules.pop(module, None)
        raise
    except (Exception, SystemExit) as exc:  # a researcher's file: report any failure on one line
        sys.modules.pop(module, None)
        raise PluginError(f"{kind} {name!r}: importing {str(path)!r} failed: {_describe(exc)}") from None
    plugin_files.record_import(path, loaded, before)
    return loaded


def loaded_files(name: str) -> dict[str, str]:
    """Resolved file -> sha256 of every source file the plug-in ``path/file.py:function`` loaded in
    this process so far (its own file, the modules of the researcher's it imported, also from its
    calls): what identifies the plug-in by content (`fairlab.mechanisms._plugin_files`)."""
    path, _ = parse(name)
    return plugin_files.digests(plugin_files.loaded(path.resolve()))


def send_ahead(mechanism: Mechanism, instances: list[Instance], options: dict, runs: int = 1) -> bool:
    """Send the plug-in's worker process `instances` (each with `options`, run `runs` times) ahead
    of the calls that will ask for them, in that order (`_Worker.ahead`): those calls then read
    their replies without a round trip each. Whether `mechanism` has such a worker (a file or
    installed plug-in). A hint only: a call asks for what it asks, and gets the reply to that."""
    worker = getattr(mechanism.allocate, "worker", None)
    if not isinstance(worker, _Worker):
        return False
    worker.ahead([(instance, options) for instance in instances], runs)
    return True


def changed_files(recorded: dict[str, str]) -> list[str]:
    """The files of `recorded` (`loaded_files` of an earlier run) whose content is not the recorded
    one now (edited, or gone)."""
    now = plugin_files.digests(recorded)
    return [file for file, digest in recorded.items() if now.get(file) != digest]


def _probe_import(path: Path, name: str, kind: str = "mechanism") -> None:
    """Import the file once in a child process first (`fairlab.core.processes`): an import that
    ends the process (``os._exit``, a crash, a signal) would otherwise end the lab silently.
    Within the active time limit; the time the child took to start (a fork server starting on a
    loaded machine) is not the plug-in's: the limits are moved by as much (`starting`)."""
    limit = _active()
    sys.stdout.flush()
    sys.stderr.flush()
    ctx = processes.context()
    reader, writer = ctx.Pipe(duplex=False)
    probe = ctx.Process(target=probe_child, args=(str(path), writer), daemon=True, name=f"fairlab probe {name}")
    with starting():  # starting the process is not the import's time
        try:
            probe.start()
        except Exception as exc:
            raise PluginError(f"{kind} {name!r}: the process importing {str(path)!r} first did not start: "
                              f"{_describe(exc)}{_MAIN_HINT}") from None
        finally:
            writer.close()
        try:
            started = reader.poll(STARTUP_SECONDS) and reader.recv() == ("ready",)
        except (EOFError, OSError):
            started = False
        finally:
            reader.close()
    if not started:
        probe.kill()
        probe.join()
        raise PluginError(f"{kind} {name!r}: the process importing {str(path)!r} first did not start "
                          f"(exit code {probe.exitcode}){_MAIN_HINT}")
    deadline = None if limit is None else limit.deadline
    try:
        while True:
            probe.join(0.05 if deadline is None else max(0.0, min(0.05, deadline - time.monotonic())))
            if probe.exitcode is not None:
                break
            if deadline is not None and time.monotonic() >= deadline:
                assert limit is not None
                raise _timeout(name, limit, counted=False, kind=kind)
    except BaseException:  # the limit, or the import guard's alarm: the probe must not outlive us
        probe.kill()
        probe.join()
        raise
    code = probe.exitcode
    if code in (IMPORTED, FAILED):
        return  # a failure is reported by the real import with its message
    how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
    raise PluginError(f"{kind} {name!r}: importing {str(path)!r} ended the process ({how})")


def _guarded_spec(name: str, spec):
    def guarded(*args, **kwargs):
        with _guard(name), contextlib.redirect_stdout(sys.stderr):
            out = spec(*args, **kwargs)
        return _constraints(name, out)

    guarded.__doc__ = spec.__doc__
    return guarded


def _constraints(name: str, out) -> list[Constraint]:
    """A spec's result as named z3 constraints, or a one-line `PluginError` saying what it returned."""
    if isinstance(out, (str, bytes)) or not hasattr(out, "__iter__"):
        raise PluginError(f"mechanism {name!r}: its spec returned {type(out).__name__}, expected a list of"
                          " named z3 constraints (fairlab.mechanisms.base.Constraint)")
    items = []
    for k, item in enumerate(out):
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], z3.BoolRef):
            items.append(Constraint(*item))
        else:
            raise PluginError(f"mechanism {name!r}: item {k} of its spec is {type(item).__name__}, expected a named"
                              " z3 constraint (fairlab.mechanisms.base.Constraint(name, z3 boolean))")
    return items


def defined_at(fn) -> str | None:
    """``file:line`` where the plug-in's function (or its class's ``__call__``) is defined, or None:
    the place a wrong answer (which has no line of its own) is reported at."""
    target = fn
    for _ in range(3):  # a bound method, a functools.partial, a callable object
        code = getattr(target, "__code__", None)
        if code is not None:
            return f"{code.co_filename}:{code.co_firstlineno}"
        call = vars(type(target)).get("__call__") if not isinstance(target, type) else None
        target = getattr(target, "__func__", None) or getattr(target, "func", None) or call
        if target is None:
            return None
    return None


def bad_answer(name: str, what: str, where: str | None) -> PluginBadAnswer:
    """The finding of a wrong answer on one instance (`PluginBadAnswer`), one line naming the plug-in."""
    at = f" (mechanism defined at {where})" if where else ""
    return PluginBadAnswer(f"mechanism {name!r}: wrong answer: {what}{at}", f"wrong answer: {what}", where)


def _allocator(name: str, call, discrete: bool = False, where: str | None = None):
    """The allocator of a plug-in whose call ``instance -> (kind, value)`` is `_run`'s reply
    (in a worker process for a file plug-in, in this one for a callable). A wrong answer (the wrong
    number of task counts, negative or infeasible tasks or placement, an LP with no optimum) is a
    `PluginBadAnswer` at `where` (the function's definition); an answer holding floats keeps its
    numbers, labelled approximate with a note (its feasibility is then only noted, never a finding)."""

    def allocate(instance: Instance, **options) -> Allocation:
        kind, value = call(instance, options)
        if kind == "refuses":  # the plug-in refuses this instance
            raise InputError(f"mechanism {name!r}: {value}")
        if kind == "crashed":  # it raised on this instance: a finding, see `PluginCrash`
            raise PluginCrash(*value)
        if kind == "bad":  # a wrong answer on this instance: a finding too
            raise bad_answer(name, str(value), where)
        if kind != "ok":  # raised, exited, returned something unusable, or died
            raise PluginError(value)
        encoded, approximate, error_bound, shape, notes = value
        tasks = tuple(_decode(v) for v in encoded)
        try:
            check_feasible(instance, tasks, f"mechanism {name!r}")
        except InputError as exc:
            if not approximate:  # an exact answer that is infeasible: a finding about this instance
                raise bad_answer(name, _after_name(str(exc), name), where) from None
            notes = (*notes, f"not exactly feasible either: {_after_name(str(exc), name)}")
        if approximate and instance.setting == "pool":  # e.g. a wrapper of CEEI's float path: the label stays
            return Allocation(name, instance, tasks, exactness="approximate", error_bound=error_bound, notes=notes)
        if instance.setting == "dynamic" and "steps" in shape:
            events = instance.events or ()
            if len(shape["steps"]) != len(events):
                raise bad_answer(name, f"gave {len(shape['steps'])} steps for {len(events)} events (one task "
                                       "vector per event)", where)
            present: set[int] = set()
            steps = []
            for event, row in zip(events, shape["steps"]):
                present = present | {event[1]} if event[0] == "arrive" else present - {event[1]}
                steps.append(Step(event, tuple(sorted(present)), row))
            shape = {"steps": tuple(steps)}
        label = {"exactness": "approximate", "error_bound": error_bound} if approximate else {}
        # an approximate placement / lottery / steps keeps its shape and its label: it never decides
        allocation = Allocation(name, instance, tasks, **shape, **label, notes=notes)
        if instance.setting != "pool":
            try:
                check_setting_allocation(allocation, f"mechanism {name!r}", discrete=discrete)
            except InputError as exc:
                if not approximate:  # an infeasible placement, lottery or steps: a finding
                    raise bad_answer(name, _after_name(str(exc), name), where) from None
                allocation = dataclasses.replace(allocation, notes=(
                    *allocation.notes, f"not exactly feasible either: {_after_name(str(exc), name)}"))
        return allocation

    allocate.defined_at = where  # type: ignore[attr-defined]  # where a wrong answer is reported (`run`)
    FEASIBILITY_CHECKED.add(allocate)
    return allocate


#: the allocators `_allocator` built: each exact allocation they return has passed `check_feasible` on
#: the instance it was asked for (an infeasible one is a `PluginBadAnswer`), so the properties' `run`
#: does not check it again (identity, not an attribute a foreign allocator could set)
FEASIBILITY_CHECKED: weakref.WeakSet = weakref.WeakSet()


def _after_name(message: str, name: str) -> str:
    """`message` without its leading ``mechanism 'name': ``."""
    prefix = f"mechanism {name!r}: "
    return message[len(prefix):] if message.startswith(prefix) else message
