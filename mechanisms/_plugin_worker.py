"""A plug-in's worker process and what runs in it (`fairlab.mechanisms.plugin`): `_Worker` starts
one process per plug-in (`fairlab.core.processes`: a fork server's child, never a fork of this
process) and sends it instances over a pipe; the process rebuilds the plug-in from its `Recipe`
(imports its file again by path, with this process's ``sys.path`` and working folder); `_run` calls
the plug-in and reads its result into exact task counts (and a placement, lottery or steps), or a
one-line failure."""

from __future__ import annotations

import atexit
import collections
import contextlib
import hashlib
import importlib.util
import multiprocessing
import os
import signal
import sys
import time
import types
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Callable

import z3

from fairlab.core import processes
from fairlab.core.errors import InputError, PluginError, describe_exception
from fairlab.core.exact import Algebraic
from fairlab.core.instance import Instance
from fairlab.core.lifetime import die_with_parent
from fairlab.mechanisms import _plugin_files as plugin_files
from fairlab.mechanisms import lp_plugin
from fairlab.mechanisms._plugin_limits import _active, _returned, _timeout, starting
from fairlab.mechanisms.base import Allocation
from fairlab.mechanisms.plugin_numbers import exact_view, float_note, read_number


@dataclass(frozen=True)
class Recipe:
    """How a worker process gets the plug-in's callable: ``file`` + ``function`` (a plug-in file,
    imported again by path in the worker: `module_name`, its prints to stderr), or ``target`` (a
    callable the worker receives by reference, e.g. an installed package's function)."""

    file: str | None = None
    function: str | None = None
    target: Callable | None = None

    def build(self) -> Callable:
        if self.target is not None:
            return self.target
        assert self.file is not None and self.function is not None
        path = Path(self.file)
        name = module_name(path)
        module = sys.modules.get(name)
        if module is None:
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {self.file!r} as a Python file")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                sys.modules.pop(name, None)
                raise
        fn = getattr(module, self.function, None)
        if not callable(fn):
            raise ImportError(f"{self.file!r} defines no function {self.function!r}")
        return fn


def module_name(path: Path) -> str:
    """The module name a plug-in file is imported under (the same in the lab and in its worker)."""
    return "fairlab_plugin_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]


class _Worker:
    """One process running a plug-in's calls, so a call that never returns can be killed."""

    def __init__(self, name: str, fn, path: Path | None = None, recipe: Recipe | None = None):
        self.name, self.fn, self.path = name, fn, path  # path: the plug-in's file (its calls' imports are its)
        self.recipe = recipe or (Recipe(str(path), getattr(fn, "__name__", None)) if path is not None
                                 else Recipe(target=fn))
        self.process: multiprocessing.process.BaseProcess | None = None
        self.conn: Connection | None = None
        self.start_seconds: float | None = None  # how long the last start took (the plug-in imported)
        # requests sent, their replies not read yet: [(instance, options), runs left], in order
        self.queue: collections.deque[list] = collections.deque()

    def _start(self) -> None:
        """Start the worker and wait until it has built the plug-in (its ("ready",)), up to
        `STARTUP_SECONDS`: the start is not a call's time (`starting` moves the limits)."""
        with starting():
            began = time.monotonic()
            ctx = processes.context()
            parent, child = ctx.Pipe()
            process = ctx.Process(target=_serve, args=(child, self.recipe, self.name), daemon=True,
                                  name=f"fairlab plug-in {self.name}")
            try:
                process.start()
            except Exception as exc:  # e.g. the plug-in's callable cannot be sent to a process
                parent.close()
                child.close()
                raise PluginError(f"mechanism {self.name!r}: its worker process did not start: {_describe(exc)}"
                                  + _MAIN_HINT) from None
            child.close()
            self.process, self.conn = process, parent
            _WORKERS.add(self)
            try:
                ready = parent.poll(STARTUP_SECONDS) and parent.recv() == ("ready",)
            except (EOFError, OSError):
                ready = False
            except BaseException:  # interrupted while it starts
                self.stop()
                raise
            if not ready:
                code = process.exitcode
                self.stop()
                raise PluginError(f"mechanism {self.name!r}: its worker process did not start (exit code {code})"
                                  + _MAIN_HINT)
            self.start_seconds = time.monotonic() - began

    def stop(self) -> None:
        if self.process is not None:
            if self.process.is_alive():
                self.process.kill()
            self.process.join(5)
            if self.conn is not None:
                self.conn.close()
        self.process = self.conn = None
        self.queue.clear()

    def call(self, instance: Instance, options: dict | None = None) -> tuple[str, object]:
        """("ok", (encoded tasks, approximate?, error bound)) | ("refuses", message) | ("failed", one-line message).
        `options`: keyword options of the call (a `Mechanism` from an installed package may take some).

        Inside `paired()` the worker is asked to run the plug-in twice on the instance (the second
        run right after the first, in its process): the first reply is returned now, the second to
        the next call with the same instance and options (the determinism check's second run,
        `fairlab.properties.base.run`), without another round trip through the pipe. A call whose
        instance and options were sent ahead (`ahead`) gets the reply to that request."""
        options = dict(options or {})
        limit = _active()
        if self.queue and not (self._alive() and _same(self.queue[0][0], (instance, options))):
            self._abandon()  # what was sent ahead is not what is asked now
        if not self.queue:
            if not self._alive():
                self.stop()
                self._start()
            if not self._send([(instance, options, 2 if _PAIRED else 1)]):
                return self._ended()
        return self._next(limit)

    def ahead(self, requests: list[tuple[Instance, dict]], runs: int) -> None:
        """Send `requests` (instance, options) ahead, each to be run `runs` times in order: the calls
        that ask for them next, in the same order, read the replies without a round trip each. A
        call asking for something else first drops what is left of them (`_abandon`)."""
        if not requests or self.queue and not self._abandon():
            return
        if not self._alive():
            self.stop()
            self._start()
        self._send([(instance, dict(options), runs) for instance, options in requests])

    def _send(self, requests: list) -> bool:
        conn = self.conn
        assert conn is not None  # set by _start
        try:
            conn.send(requests)
        except (EOFError, OSError):
            return False
        except BaseException:
            self.stop()
            raise
        self.queue.extend([(instance, options), runs] for instance, options, runs in requests)
        return True

    def _next(self, limit) -> tuple[str, object]:
        """The reply to the request at the head of the queue (the worker answers in order)."""
        head = self.queue[0]
        reply = self._reply(limit)
        if self.queue and self.queue[0] is head:
            head[1] -= 1
            if head[1] == 0 or reply[0] != "ok":  # no second run after a refusal, a crash or a failure
                self.queue.popleft()
        return reply

    def _alive(self) -> bool:
        return self.process is not None and self.process.is_alive()

    def _reply(self, limit) -> tuple[str, object]:
        """The worker's next reply (the modules its call imported recorded first), within `limit`.
        (A worker's start is not a call's time: `_start` waits for it.)"""
        conn = self.conn
        assert conn is not None
        try:
            if limit is not None and not conn.poll(max(limit.deadline - time.monotonic(), 0.0)):
                self.stop()
                raise _timeout(self.name, limit)
            reply = conn.recv()
            while reply[0] == "loaded":  # modules the call imported (the reply follows at once)
                self._note(reply)
                reply = conn.recv()
        except (EOFError, OSError):
            return self._ended()
        except BaseException:  # KeyboardInterrupt while waiting: do not leave the call running
            self.stop()
            raise
        if reply[0] == "interrupt":
            self.stop()
            raise KeyboardInterrupt
        if reply[0] == "ok":
            _returned()
        return reply

    def _note(self, message: tuple) -> None:
        """A message of the worker that is not a reply: ("loaded", modules a call imported)."""
        if message[0] == "loaded" and self.path is not None:
            plugin_files.add(self.path, message[1])

    def _ended(self) -> tuple[str, str]:
        code = self.process.exitcode if self.process is not None else None
        self.stop()
        return "failed", f"mechanism {self.name!r}: its process ended without an answer (exit code {code})"

    def _abandon(self) -> bool:
        """Drop the requests sent ahead that no call asked for: their replies are read (and dropped)
        while they come quickly; a worker still busy with them after `ABANDON_SECONDS` is stopped
        (a fresh one serves the next call), or after the time a fresh one took to start if that was
        longer (it imports the plug-in's file again). Whether the worker was kept."""
        conn = self.conn
        until = time.monotonic() + max(ABANDON_SECONDS, self.start_seconds or 0.0)
        try:
            while self.queue and conn is not None and conn.poll(max(until - time.monotonic(), 0.0)):
                reply = conn.recv()
                if reply[0] == "loaded":
                    self._note(reply)
                    continue
                head = self.queue[0]
                head[1] -= 1
                if head[1] == 0 or reply[0] != "ok":
                    self.queue.popleft()
        except (EOFError, OSError):
            pass
        if self.queue:
            self.stop()
            return False
        return True


#: what a worker that could not start says: the usual cause under forkserver / spawn
_MAIN_HINT = ("; a script that runs a plug-in must keep its top-level work under if __name__ == '__main__': "
              "(Python imports the main module again in each process it starts)")


#: how long a worker may take to start (a fork server importing the lab on a loaded machine, the
#: plug-in's file imported again) before it is given up: a safety net, not a call's time limit
STARTUP_SECONDS = 300.0

#: how long a worker may go on with requests sent ahead that no call asked for before it is
#: stopped (their replies dropped) rather than waited for (seconds)
ABANDON_SECONDS = 0.05


def _same(a: tuple, b: tuple) -> bool:
    try:
        return bool(a[0] == b[0] and a[1] == b[1])
    except Exception:  # an option value that cannot be compared: not the same call
        return False


_PAIRED = 0


@contextlib.contextmanager
def paired():
    """Plug-in calls inside run the plug-in twice in its worker process, the second run's result
    kept for the next call with the same instance and options (`_Worker.call`): the determinism
    check's two runs (`fairlab.properties.base.run`) in one round trip through the pipe."""
    global _PAIRED
    _PAIRED += 1
    try:
        yield
    finally:
        _PAIRED -= 1


_WORKERS: weakref.WeakSet[_Worker] = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    """Kill every worker at exit (SIGKILL: a plug-in may ignore SIGTERM, which multiprocessing's own
    exit handler would then wait for)."""
    for worker in list(_WORKERS):
        worker.stop()


IMPORTED, FAILED = 97, 98  # exit codes of the import probe (`probe_child`)


def probe_child(path: str, conn) -> None:
    """The probe import of a plug-in file (`fairlab.mechanisms.plugin`): say it has started, then
    import the file quietly and report by exit code only (anything else: the import ended the process)."""
    code = FAILED
    try:
        conn.send(("ready",))
        conn.close()
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
        spec = importlib.util.spec_from_file_location("fairlab_plugin_probe", path)
        if spec is None or spec.loader is None:
            raise ImportError(path)
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
        code = IMPORTED
    except BaseException:
        code = FAILED
    finally:
        os._exit(code)


def _serve(conn, recipe: Recipe, name: str) -> None:
    """The worker's loop: one instance in, one reply out, until the pipe closes. The plug-in is
    built from `recipe` first (its file imported again here); if that fails, every call fails
    with the reason."""
    die_with_parent()
    if not processes.parent_alive():
        os._exit(0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # SIGTERM ends it, whatever handler the process that started it has
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sys.stdout.flush()
    os.dup2(2, 1)  # the plug-in's prints (Python or C) go to stderr: stdout carries results only
    sys.stdout = sys.stderr
    fn, broken = None, None
    try:
        fn = recipe.build()
    except BaseException as exc:  # the lab imported the same file already: this is rare (a changed file)
        broken = f"mechanism {name!r}: its worker process could not import it again: {_describe(exc)}"
    conn.send(("ready",))
    known, count = set(sys.modules), len(sys.modules)  # what the call imports is new since here
    while True:
        try:
            requests = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        for instance, options, runs in requests:
            if broken is not None:
                conn.send(("failed", broken))
                continue
            count = _serve_one(conn, fn, name, instance, options, runs, known, count)


def _serve_one(conn, fn, name: str, instance: Instance, options: dict, runs: int, known: set, count: int) -> int:
    """Run the plug-in `runs` times on `instance` (stopping after a reply that is not "ok"), each
    reply sent as it is ready; the number of modules loaded now."""
    for _ in range(runs):  # two: the determinism check's second run follows at once (`paired`)
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
            break
        if reply[0] != "ok":  # no second run after a refusal, a crash or a failure
            break
    return count


class BadAnswer(InputError):
    """The plug-in's answer on this instance is wrong in itself (the wrong number of task counts, a
    negative or infeasible one, an LP with no optimum): a finding about that instance, reported
    like a raise (`fairlab.core.errors.PluginBadAnswer`), not the end of the run."""


def _run(fn, instance: Instance, name: str, options: dict | None = None) -> tuple[str, object]:
    """The plug-in's reply on `instance`: ("ok", (encoded tasks, approximate?, error bound, setting
    parts, notes)) | ("refuses", message) | ("crashed", (message, exception, file:line)) |
    ("bad", what was wrong) | ("failed", message) | ("interrupt", ""). The plug-in is given
    `exact_view(instance)` (its numbers stay exact through pulp); any float in its answer makes the
    allocation approximate, with a note naming the floats."""
    given = exact_view(instance)
    try:
        result = fn(given, **options) if options else fn(given)
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
    floats: list[str] = []  # the numbers of the answer that were floats: then it is not exact
    what = "answer"
    lp_notes: tuple[str, ...] = ()
    if lp_plugin.is_lp(result):  # pulp model(s): solved exactly here (`fairlab.mechanisms.lp_plugin`)
        try:
            staged = True
            if isinstance(result, types.GeneratorType):  # a generator of LPs, or of plain task counts
                staged, result = lp_plugin.peek(result)
            if staged:
                result, inexact = lp_plugin.run(result, instance.n, f"mechanism {name!r}")
                floats.extend(inexact)
                what, lp_notes = "LP", (lp_plugin.TIE_BREAK,)
        except lp_plugin.NoOptimum as exc:  # infeasible or unbounded on this instance: a wrong answer
            return "bad", str(exc)
        except InputError as exc:  # an unusable or unsolvable LP is a failure, not a refusal
            return "failed", str(exc)
        except KeyboardInterrupt:
            return "interrupt", ""
        except BaseException as exc:  # the generator of a staged LP raised
            return "failed", f"mechanism {name!r}: raised {_describe(exc)}"
    try:
        shape = _setting_parts(result, instance, name, floats)
        if isinstance(result, Mapping) and "tasks" not in result and shape:
            tasks = _derived_tasks(shape)  # a placement / lottery / steps alone says the tasks
        else:
            tasks = tasks_of(result, instance, name, floats)
    except BadAnswer as exc:  # e.g. the wrong number of task counts: a finding about this instance
        return "bad", str(exc)
    except InputError as exc:  # an unusable result is a failure, not a refusal
        return "failed", str(exc)
    except BaseException as exc:  # e.g. a result whose iteration raises
        return "failed", f"mechanism {name!r}: reading its result raised {_describe(exc)}"
    approximate, error_bound = _approximation(result)
    notes: tuple[str, ...] = lp_notes
    if floats:
        approximate, notes = True, (float_note(floats, what), *notes)
    return "ok", (tuple(_encode(t) for t in tasks), approximate, error_bound, shape, notes)


def _derived_tasks(shape: dict) -> tuple:
    """The tasks a placement (row sums), a lottery (expected row sums) or steps (the last) give."""
    if "placement" in shape:
        return tuple(sum(row, Fraction(0)) for row in shape["placement"])
    if "lottery" in shape:
        rows = [sum((p * sum(pl[i], Fraction(0)) for p, pl in shape["lottery"]), Fraction(0))
                for i in range(len(shape["lottery"][0][1]))]
        return tuple(rows)
    return tuple(shape["steps"][-1]) if shape["steps"] else ()


def _setting_parts(result, instance: Instance, name: str, floats: list[str] | None = None) -> dict:
    """A machines or dynamic plug-in's placement / lottery / steps (exact numbers, nested tuples),
    read from an `Allocation`, an object with those attributes or a mapping with those keys:
    ``placement`` n rows of k task counts; ``lottery`` [(probability, placement), ...] (or
    [{"probability": p, "placement": ...}]); ``steps`` one task vector per event (or `Step` s /
    {"tasks": [...]}). Nothing for a pool instance."""
    if instance.setting == "pool":
        return {}
    read = result.get if isinstance(result, Mapping) else (lambda key: getattr(result, key, None))
    number = lambda v, where: read_number(v, where, floats)  # noqa: E731
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


def tasks_of(result, instance: Instance, name: str, floats: list[str] | None = None) -> tuple:
    """Tasks per user from whatever the plug-in returned, or an `InputError` (`BadAnswer`: the wrong
    number of them). A float is read through its shortest decimal text and named in `floats`."""
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
        raise BadAnswer(f"returned {len(values)} task counts for {instance.n} users")
    out: list[Fraction | Algebraic] = []
    for i, v in enumerate(values):
        if isinstance(v, Algebraic):
            out.append(v)
            continue
        out.append(read_number(v, f"mechanism {name!r}: tasks[{i}]", floats))
    return tuple(out)
