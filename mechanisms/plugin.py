"""Plug-in mechanisms: ``path/to/file.py:function`` wherever a built-in mechanism name is accepted.

A researcher's mechanism is a plain Python callable ``Instance -> tasks`` in a file of their own.
It may return a sequence of task counts (one per user: int, `Fraction`, `fairlab.core.exact.Algebraic`,
decimal text or "p/q"; a float is read through its shortest decimal text, as JSON floats are), an
`Allocation`, an object with a ``tasks`` attribute, or a mapping with a ``"tasks"`` key. The
result is checked exactly feasible (non-negative, within caps and capacities).

Settings (function attributes, read once when the plug-in is loaded): ``fn.setting`` is
``"pool"`` (the default: one divisible pool, the result above), ``"machines"`` (several machines,
`Instance.machines`) or ``"dynamic"`` (agents over time, `Instance.events`); anything else is a
one-line `InputError`. A machines plug-in returns ``{"placement": [[x_ik ...] per user]}`` (x_ik
tasks of user i on machine k; the tasks are the row sums) or ``{"lottery": [[p, placement], ...]}``
(tasks: the expected row sums), as a mapping, an `Allocation` or an object with those attributes;
``fn.discrete = True`` declares whole tasks (every placement entry then checked integral), and must
be ``True`` or ``False`` (a bool, anything else — 1, "yes" — is a one-line `InputError`; default
False, ignored in the pool setting). A dynamic plug-in returns ``{"steps": [tasks after event t,
...]}`` with one task vector per event of `Instance.events` (absent users 0); the tasks are the
last step's. Each result is checked exactly in its setting (`check_setting_allocation`: each
machine's capacity, whole tasks, a lottery's probabilities summing to 1, one step per event) and
a failed check is a `PluginError`. A result labelled ``exactness: "approximate"`` keeps its
placement (lottery, steps) and its label: the properties then answer ``unknown``, never decide.

If the callable has a ``spec`` attribute (``spec(sym, tasks) -> list[Constraint]``, as in
`fairlab.mechanisms.base`), it is the plug-in's symbolic specification; otherwise only the numeric
engines serve it. Plug-ins take no options.

Every failure is an `InputError` with one line: the file or function is missing, the file does not
import, the function raises, or it returns something of the wrong shape or infeasible. A failing
run is a `PluginError` (the searches stop on it rather than skip the instance), except an
`InputError` the plug-in raises itself, which means it refuses that instance. ``SystemExit`` from
the file or the function is a failure like any other; ``KeyboardInterrupt`` still interrupts.

A plug-in is arbitrary code, so it may never return. Its allocation calls run in a worker process
of its own (forked once per plug-in and kept for later calls; a fresh one after a failure), so
any loop, even one in C code, can be stopped: inside `time_limit(seconds)` (the CLI verbs'
``--time-limit``) a call that has not returned when the limit runs out is killed and raises
`PluginTimeout` ("did not return within 3 s"). Importing the file and calling its ``spec`` run
in this process under a SIGALRM guard with the same limit (main thread only). Without a time
limit a call waits as long as the plug-in takes.

A plain Python callable (`from_callable`, what `fairlab.mechanisms.get` does with one) follows the
same rules but runs in this process: it is the caller's own code, called from the caller's session.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import hashlib
import importlib.util
import multiprocessing
import os
import signal
import sys
import threading
import time
import types
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import z3

from fairlab.core.domain import parse as parse_domain
from fairlab.core.errors import InputError, PluginCrash, PluginError, describe_exception
from fairlab.core.exact import Algebraic, to_fraction
from fairlab.core.instance import SETTINGS, Instance
from fairlab.core.lifetime import die_with_parent
from fairlab.core.stdio import output_to_stderr
from fairlab.mechanisms import _plugin_files as plugin_files
from fairlab.mechanisms import lp_plugin
from fairlab.mechanisms.base import (
    REGISTRY,
    Allocation,
    Constraint,
    Mechanism,
    Step,
    check_feasible,
    check_setting_allocation,
)

_CACHE: dict[tuple[str, float, str], Mechanism] = {}
_CALLABLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class PluginTimeout(PluginError):
    """A plug-in call did not return before the time limit ran out (the call was stopped).

    `returned_before` counts the plug-in's calls that did return within the same `time_limit`: a
    plug-in that had returned before may just be slow, and a search may read the stop as its
    outer time limit (verdict unknown) instead of a failure; one that never returned is broken."""

    def __init__(self, message: str, returned_before: int = 0):
        super().__init__(message)
        self.returned_before = returned_before


# --------------------------------------------------------------------------- time limits
@dataclass
class _Limit:
    deadline: float  # time.monotonic() at which calls are stopped
    seconds: float  # the limit as the user gave it, for messages
    returned: int = 0  # plug-in calls that returned inside this limit


_LIMITS: list[_Limit] = []


@contextlib.contextmanager
def time_limit(seconds: float | None):
    """Plug-in calls made inside stop when `seconds` have passed (None: no limit); the earliest of
    nested limits applies."""
    if seconds is None or not seconds < 1e8:  # no limit (NaN and infinity included)
        yield None
        return
    seconds = max(float(seconds), 0.0)
    limit = _Limit(time.monotonic() + seconds, seconds)
    _LIMITS.append(limit)
    try:
        yield limit
    finally:
        _LIMITS.remove(limit)


def _active() -> _Limit | None:
    return min(_LIMITS, key=lambda x: x.deadline) if _LIMITS else None


def _timeout(name: str, limit: _Limit, counted: bool = True, kind: str = "mechanism") -> PluginTimeout:
    returned = max(x.returned for x in _LIMITS) if counted and _LIMITS else 0
    # name the limit the user gave: the outermost one ending (about) when the call was stopped
    # (a search gives each candidate's check what is left of its own limit)
    given = next((x for x in _LIMITS if x.deadline <= limit.deadline + 0.05), limit)
    return PluginTimeout(f"{kind} {name!r}: did not return within {given.seconds:g} s", returned)


def _returned() -> None:
    for limit in _LIMITS:
        limit.returned += 1


class _Alarm(BaseException):
    """Raised by the SIGALRM guard (a BaseException, so a plug-in's `except Exception` cannot eat it)."""


@contextlib.contextmanager
def _guard(name: str, kind: str = "mechanism"):
    """Stop Python code of the plug-in running in this process (its import, its spec) at the active
    time limit: SIGALRM, re-fired every 0.1 s until the code gives up. Main thread only."""
    limit = _active()
    if limit is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def ring(signum, frame):
        raise _Alarm()

    previous = signal.signal(signal.SIGALRM, ring)
    try:
        signal.setitimer(signal.ITIMER_REAL, max(limit.deadline - time.monotonic(), 0.001), 0.1)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _Alarm:  # its import or spec: code that should be quick; never read as a slow run
        raise _timeout(name, limit, counted=False, kind=kind) from None
    finally:
        signal.signal(signal.SIGALRM, previous)


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
    with _guard(name):
        module = _import(resolved, name)
    fn = getattr(module, function, None)
    if fn is None:
        raise InputError(f"mechanism {name!r}: {str(path)!r} defines no function {function!r}")
    if not callable(fn):
        raise InputError(f"mechanism {name!r}: {function!r} in {str(path)!r} is not callable")
    worker = _Worker(name, fn, resolved)
    mechanism = _wrap(fn, name, f"plug-in {function} from {path.name}", str(path), module.__name__, worker.call)
    mechanism.allocate.worker = worker  # type: ignore[attr-defined]  # the worker lives as long as its mechanism
    _CACHE[key] = mechanism
    return mechanism


def import_file(path: Path, name: str, kind: str = "mechanism"):
    """Import the plug-in file `path` for the plug-in `name` (a `kind`: "mechanism", "property"),
    as `load` does: a probe import in a forked child first, within the active time limit, prints
    to stderr, any failure a one-line `PluginError` naming the plug-in and its own frames."""
    with _guard(name, kind):
        return _import(path.resolve(), name, kind)


def from_callable(fn, name: str | None = None, source: str = "") -> Mechanism:
    """A plain Python callable ``Instance -> tasks`` (anything a plug-in may return) as a `Mechanism`,
    named by `name` (an entry point's name) or else `callable_name` (``callable <module>.<qualname>``,
    which no registered name can be: a ``def drf(instance)`` is never reported as the built-in
    ``drf``). It runs in this process (no time limit stops it); its results are checked exactly
    feasible, its ``spec``, ``anonymous`` and ``scale_invariant`` attributes are read as a
    plug-in's. The same callable gives the same `Mechanism` object."""
    if not callable(fn):
        raise InputError(f"mechanism: expected a name, a Mechanism or a callable, got {type(fn).__name__}")
    try:
        return _CALLABLES[fn]
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
        _CALLABLES[fn] = mechanism
    except TypeError:  # not weak-referenceable: not cached
        pass
    return mechanism


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
                                   allocate=_allocator(name, worker.call, loaded.discrete),
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
    return Mechanism(
        name=name,
        summary=doc[0] if doc else fallback_summary,
        source=source,
        allocate=_allocator(name, call, discrete),
        spec=None if spec is None else _guarded_spec(name, spec),
        module=module,
        # the author's claims (function attributes), passed through unverified; default False
        scale_invariant=getattr(fn, "scale_invariant", False) is True,
        anonymous=getattr(fn, "anonymous", False) is True,
        setting=setting,
        discrete=discrete,
        domain=domain,
    )


def _import(path: Path, name: str, kind: str = "mechanism"):
    """Import the plug-in file `path` (a fresh module named after its path; its prints go to stderr),
    after a probe import in a forked child; a failure is one line naming the `kind` and `name`."""
    _probe_import(path, name, kind)
    module_name = "fairlab_plugin_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise InputError(f"{kind} {name!r}: cannot load {str(path)!r} as a Python file")
    module = importlib.util.module_from_spec(spec)
    before = set(sys.modules)
    try:
        sys.modules[module_name] = module
        with contextlib.redirect_stdout(sys.stderr):  # stdout carries results only
            spec.loader.exec_module(module)
    except _Alarm:
        sys.modules.pop(module_name, None)
        raise
    except (Exception, SystemExit) as exc:  # a researcher's file: report any failure on one line
        sys.modules.pop(module_name, None)
        raise PluginError(f"{kind} {name!r}: importing {str(path)!r} failed: {_describe(exc)}") from None
    plugin_files.record_import(path, module, before)
    return module


def loaded_files(name: str) -> dict[str, str]:
    """Resolved file -> sha256 of every source file the plug-in ``path/file.py:function`` loaded in
    this process so far (its own file, the modules of the researcher's it imported, also from its
    calls): what identifies the plug-in by content (`fairlab.mechanisms._plugin_files`)."""
    path, _ = parse(name)
    return plugin_files.digests(plugin_files.loaded(path.resolve()))


def changed_files(recorded: dict[str, str]) -> list[str]:
    """The files of `recorded` (`loaded_files` of an earlier run) whose content is not the recorded
    one now (edited, or gone)."""
    now = plugin_files.digests(recorded)
    return [file for file, digest in recorded.items() if now.get(file) != digest]


_IMPORTED, _FAILED = 97, 98  # exit codes of the import probe


def _probe_import(path: Path, name: str, kind: str = "mechanism") -> None:
    """Import the file once in a forked child first: an import that ends the process (``os._exit``,
    a crash, a signal) would otherwise end the lab silently. Within the active time limit."""
    if not hasattr(os, "fork"):
        return
    limit = _active()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: import quietly, report by exit code only
        code = _FAILED
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
            spec = importlib.util.spec_from_file_location("fairlab_plugin_probe", path)
            if spec is None or spec.loader is None:
                raise ImportError(path)
            spec.loader.exec_module(importlib.util.module_from_spec(spec))
            code = _IMPORTED
        except BaseException:
            code = _FAILED
        finally:
            os._exit(code)
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if limit is not None and time.monotonic() >= limit.deadline:
                raise _timeout(name, limit, counted=False, kind=kind)
            time.sleep(0.005)
    except BaseException:  # the limit, or the import guard's alarm: the probe must not outlive us
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) in (_IMPORTED, _FAILED):
        return  # a failure is reported by the real import with its message
    how = (f"exit code {os.WEXITSTATUS(status)}" if os.WIFEXITED(status)
           else f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"status {status}")
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


def _allocator(name: str, call, discrete: bool = False):
    """The allocator of a plug-in whose call ``instance -> (kind, value)`` is `_run`'s reply
    (in a worker process for a file plug-in, in this one for a callable)."""

    def allocate(instance: Instance, **options) -> Allocation:
        kind, value = call(instance, options)
        if kind == "refuses":  # the plug-in refuses this instance
            raise InputError(f"mechanism {name!r}: {value}")
        if kind == "crashed":  # it raised on this instance: a finding, see `PluginCrash`
            raise PluginCrash(*value)
        if kind != "ok":  # raised, exited, returned something unusable, or died
            raise PluginError(value)
        encoded, approximate, error_bound, shape = value
        tasks = tuple(_decode(v) for v in encoded)
        try:
            check_feasible(instance, tasks, f"mechanism {name!r}")
        except InputError as exc:  # an unusable result is a failure, not a refusal
            raise PluginError(str(exc)) from None
        if approximate and instance.setting == "pool":  # e.g. a wrapper of CEEI's float path: the label stays
            return Allocation(name, instance, tasks, exactness="approximate", error_bound=error_bound)
        if instance.setting == "dynamic" and "steps" in shape:
            events = instance.events or ()
            if len(shape["steps"]) != len(events):
                raise PluginError(f"mechanism {name!r}: gave {len(shape['steps'])} steps for "
                                  f"{len(events)} events (one task vector per event)")
            present: set[int] = set()
            steps = []
            for event, row in zip(events, shape["steps"]):
                present = present | {event[1]} if event[0] == "arrive" else present - {event[1]}
                steps.append(Step(event, tuple(sorted(present)), row))
            shape = {"steps": tuple(steps)}
        label = {"exactness": "approximate", "error_bound": error_bound} if approximate else {}
        # an approximate placement / lottery / steps keeps its shape and its label: it never decides
        allocation = Allocation(name, instance, tasks, **shape, **label)
        if instance.setting != "pool":
            try:
                check_setting_allocation(allocation, f"mechanism {name!r}", discrete=discrete)
            except InputError as exc:  # an unusable result is a failure, not a refusal
                raise PluginError(str(exc)) from None
        return allocation

    return allocate


# --------------------------------------------------------------------------- the worker process
class _Worker:
    """One forked process running a plug-in's calls, so a call that never returns can be killed."""

    def __init__(self, name: str, fn, path: Path | None = None):
        self.name, self.fn, self.path = name, fn, path  # path: the plug-in's file (its calls' imports are its)
        self.process: multiprocessing.process.BaseProcess | None = None
        self.conn: Connection | None = None

    def _start(self) -> None:
        ctx = multiprocessing.get_context("fork")
        parent, child = ctx.Pipe()
        process = ctx.Process(target=_serve, args=(child, self.fn, self.name), daemon=True,
                              name=f"fairlab plug-in {self.name}")
        process.start()
        child.close()
        self.process, self.conn = process, parent
        _WORKERS.add(self)

    def stop(self) -> None:
        if self.process is not None:
            if self.process.is_alive():
                self.process.kill()
            self.process.join(5)
            if self.conn is not None:
                self.conn.close()
        self.process = self.conn = None

    def call(self, instance: Instance, options: dict | None = None) -> tuple[str, object]:
        """("ok", (encoded tasks, approximate?, error bound)) | ("refuses", message) | ("failed", one-line message).
        `options`: keyword options of the call (a `Mechanism` from an installed package may take some)."""
        limit = _active()
        if self.process is None or not self.process.is_alive():
            self.stop()
            self._start()
        conn = self.conn
        assert conn is not None  # set by _start
        try:
            conn.send((instance, dict(options or {})))
            if limit is not None and not conn.poll(max(limit.deadline - time.monotonic(), 0.0)):
                self.stop()
                raise _timeout(self.name, limit)
            reply = conn.recv()
            while reply[0] == "loaded":  # modules the call imported (the reply follows at once)
                if self.path is not None:
                    plugin_files.add(self.path, reply[1])
                reply = conn.recv()
        except (EOFError, OSError):
            code = self.process.exitcode if self.process is not None else None
            self.stop()
            return "failed", f"mechanism {self.name!r}: its process ended without an answer (exit code {code})"
        except BaseException:  # KeyboardInterrupt while waiting: do not leave the call running
            self.stop()
            raise
        if reply[0] == "interrupt":
            raise KeyboardInterrupt
        if reply[0] == "ok":
            _returned()
        return reply


_WORKERS: weakref.WeakSet[_Worker] = weakref.WeakSet()


def _forget_inherited() -> None:
    """In a forked child: the workers belong to the parent (only it can wait for them, and its
    calls use their pipes). Drop this copy of them; the child starts its own when it needs one."""
    for worker in list(_WORKERS):
        if worker.conn is not None:
            try:
                worker.conn.close()
            except OSError:
                pass
        worker.process = worker.conn = None


os.register_at_fork(after_in_child=_forget_inherited)


@atexit.register
def _stop_all() -> None:
    """Kill every worker at exit (SIGKILL: a plug-in may ignore SIGTERM, which multiprocessing's own
    exit handler would then wait for)."""
    for worker in list(_WORKERS):
        worker.stop()


def _serve(conn, fn, name: str) -> None:
    """The worker's loop: one instance in, one reply out, until the pipe closes."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # SIGTERM ends it, whatever handler the parent had (a campaign's pool worker that forked it
    # handles SIGTERM, and its exit waits for this process after sending one)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sys.stdout.flush()
    os.dup2(2, 1)  # the plug-in's prints (Python or C) go to stderr: stdout carries results only
    sys.stdout = sys.stderr
    known, count = set(sys.modules), len(sys.modules)  # what the call imports is new since here
    while True:
        try:
            instance, options = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        try:
            reply = _run(fn, instance, name, options)
            if len(sys.modules) != count:  # the call imported something: the parent records its files
                count, fresh = len(sys.modules), plugin_files.new_since(known)
                if fresh:
                    conn.send(("loaded", fresh))
            conn.send(reply)
        except BaseException as exc:  # e.g. an unpicklable value in the reply
            try:
                conn.send(("failed", f"mechanism {name!r}: raised {_describe(exc)}"))
            except BaseException:
                os._exit(1)


def _run(fn, instance: Instance, name: str, options: dict | None = None) -> tuple[str, object]:
    try:
        result = fn(instance, **options) if options else fn(instance)
    except PluginError as exc:
        return "failed", str(exc)
    except InputError as exc:  # the plug-in refuses this instance
        return "refuses", str(exc)
    except KeyboardInterrupt:
        return "interrupt", ""
    except Exception as exc:  # the plug-in raised on this instance: a finding (`PluginCrash`)
        where = _own_frame(exc)
        at = f" at {where}" if where else ""
        return "crashed", (f"mechanism {name!r}: raised {_describe(exc)}{at}", _describe(exc), where)
    except BaseException as exc:  # the plug-in failed (e.g. SystemExit): one line, naming it
        return "failed", f"mechanism {name!r}: raised {_describe(exc)}"
    if lp_plugin.is_lp(result):  # pulp model(s): solved exactly here (`fairlab.mechanisms.lp_plugin`)
        try:
            staged = True
            if isinstance(result, types.GeneratorType):  # a generator of LPs, or of plain task counts
                staged, result = lp_plugin.peek(result)
            if staged:
                result = lp_plugin.run(result, instance.n, f"mechanism {name!r}")
        except InputError as exc:  # an unusable or unsolvable LP is a failure, not a refusal
            return "failed", str(exc)
        except KeyboardInterrupt:
            return "interrupt", ""
        except BaseException as exc:  # the generator of a staged LP raised
            return "failed", f"mechanism {name!r}: raised {_describe(exc)}"
    try:
        shape = _setting_parts(result, instance, name)
        if isinstance(result, Mapping) and "tasks" not in result and shape:
            tasks = _derived_tasks(shape)  # a placement / lottery / steps alone says the tasks
        else:
            tasks = tasks_of(result, instance, name)
    except InputError as exc:  # an unusable result is a failure, not a refusal
        return "failed", str(exc)
    except BaseException as exc:  # e.g. a result whose iteration raises
        return "failed", f"mechanism {name!r}: reading its result raised {_describe(exc)}"
    approximate, error_bound = _approximation(result)
    return "ok", (tuple(_encode(t) for t in tasks), approximate, error_bound, shape)


def _derived_tasks(shape: dict) -> tuple:
    """The tasks a placement (row sums), a lottery (expected row sums) or steps (the last) give."""
    if "placement" in shape:
        return tuple(sum(row, Fraction(0)) for row in shape["placement"])
    if "lottery" in shape:
        rows = [sum((p * sum(pl[i], Fraction(0)) for p, pl in shape["lottery"]), Fraction(0))
                for i in range(len(shape["lottery"][0][1]))]
        return tuple(rows)
    return tuple(shape["steps"][-1]) if shape["steps"] else ()


def _setting_parts(result, instance: Instance, name: str) -> dict:
    """A machines or dynamic plug-in's placement / lottery / steps (exact numbers, nested tuples),
    read from an `Allocation`, an object with those attributes or a mapping with those keys:
    ``placement`` n rows of k task counts; ``lottery`` [(probability, placement), ...] (or
    [{"probability": p, "placement": ...}]); ``steps`` one task vector per event (or `Step` s /
    {"tasks": [...]}). Nothing for a pool instance."""
    if instance.setting == "pool":
        return {}
    read = result.get if isinstance(result, Mapping) else (lambda key: getattr(result, key, None))
    number = lambda v, where: to_fraction(v.item() if type(v).__module__ == "numpy" else v, where)  # noqa: E731
    grid = lambda rows, where: tuple(tuple(number(v, f"{where}[{i}][{k}]") for k, v in enumerate(row))  # noqa: E731
                                     for i, row in enumerate(rows))
    out: dict = {}
    if instance.setting == "machines":
        placement, given = read("placement"), read("lottery")
        if placement is not None:
            out["placement"] = grid(placement, f"mechanism {name!r}: placement")
        if given is not None:
            lottery = []
            for t, item in enumerate(given):
                p, pl = (item["probability"], item["placement"]) if isinstance(item, Mapping) else item
                lottery.append((number(p, f"mechanism {name!r}: lottery[{t}] probability"),
                                grid(pl, f"mechanism {name!r}: lottery[{t}] placement")))
            out["lottery"] = tuple(lottery)
    else:
        raw = read("steps")
        if raw is not None:
            rows = []
            for t, step in enumerate(raw):
                tasks: Any = step.get("tasks") if isinstance(step, Mapping) else getattr(step, "tasks", step)
                rows.append(tuple(number(v, f"mechanism {name!r}: steps[{t}][{i}]") for i, v in enumerate(tasks)))
            out["steps"] = tuple(rows)
    return out


def _approximation(result) -> tuple[bool, str | None]:
    """(approximate?, error bound) as the plug-in's result labels itself: an approximate
    `Allocation`, or any object or mapping with ``exactness == "approximate"`` (and ``error_bound``)."""
    if isinstance(result, Allocation):
        return (not result.is_exact()), (result.error_bound if not result.is_exact() else None)
    read = result.get if isinstance(result, Mapping) else (lambda key: getattr(result, key, None))
    if read("exactness") != "approximate":
        return False, None
    bound = read("error_bound")
    return True, None if bound is None else str(bound)


def _encode(value):
    """A task count that can cross the pipe: Fractions as they are, algebraic numbers as z3 text."""
    if isinstance(value, Algebraic):
        return ("root", value.ref.sexpr())
    return value


def _decode(value):
    if isinstance(value, tuple) and value[:1] == ("root",):
        [equation] = z3.parse_smt2_string(f"(declare-const v Real)(assert (= v {value[1]}))")
        return Algebraic.of(equation.arg(1))
    return value


#: the lab's own package folders (a traceback frame in them is not the plug-in's)
_LAB_DIRS = tuple(str(Path(__file__).resolve().parent.parent / d) + os.sep for d in
                  ("fairlab", "mechanisms", "properties", "search", "counterexamples", "paper_checks", "dynamics"))


def _own_frame(exc: BaseException) -> str | None:
    """``file:line`` where the plug-in's own code raised: the first traceback frame outside the lab
    names the plug-in's file; the innermost frame in that file is the line (None if none)."""
    import traceback

    own_file, own = None, None
    for frame in traceback.extract_tb(exc.__traceback__):
        path = frame.filename or ""
        resolved = str(Path(path).resolve()) if path and not path.startswith("<") else path
        if own_file is None and not resolved.startswith(_LAB_DIRS):
            own_file = path
        if own_file is not None and path == own_file:
            own = f"{path}:{frame.lineno}"
    return own


def _describe(exc: BaseException) -> str:
    """``Type: message (at file.py:line in fn ...)`` of a plug-in's exception: its own frames, innermost
    first (``SystemExit: exit code 3`` for an exit); `fairlab.core.errors.describe_exception`."""
    return describe_exception(exc)


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
    out: list[Fraction | Algebraic] = []
    for i, v in enumerate(values):
        if isinstance(v, Algebraic):
            out.append(v)
            continue
        if type(v).__module__ == "numpy" and hasattr(v, "item"):  # numpy scalars -> int / float
            v = v.item()
        out.append(to_fraction(v, f"mechanism {name!r}: tasks[{i}]"))
    return tuple(out)
