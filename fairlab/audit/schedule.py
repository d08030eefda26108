"""The order in which an audit runs its steps (`fairlab.audit.run`): its progress units, and the
properties as cells in processes of their own (`_run_cells`, ``audit --jobs``): each property's
examples and sizes run exactly as the serial schedule runs them for it."""

from __future__ import annotations

import concurrent.futures
import time

from fairlab import mechanisms, properties
from fairlab.audit.steps import AuditBudget, Size, _audit_size, _check_examples, _Clock, _Property, size_text
from fairlab.core.progress import Unit
from fairlab.counterexamples.store import Store
from fairlab.mechanisms import plugin
from fairlab.mechanisms.base import Mechanism
from fairlab.search import proof


def _resolve(mechanism, options: dict, budget: AuditBudget) -> Mechanism:
    with plugin.time_limit(budget.time_limit):  # also stops a plug-in's import (a safety net)
        mech = mechanisms.get(mechanism)
    proof.check_options(mech, options)
    return mech


def _units_left(plan: list) -> int:
    """How many of the (size, property) units in `plan` are still to run (a decided property's
    larger sizes are not)."""
    return sum(prop.needs(size) for size, prop in plan)


def _examples_unit(state: dict[str, _Property], left: int, seconds: float) -> Unit:
    """The progress event of the shipped examples' check (the first unit of an audit)."""
    violated = [name for name, prop in state.items() if prop.found_by == "example"]
    return Unit(1, 1 + left, "examples", f"violated {', '.join(violated)}" if violated else "none violated", seconds)


def _property_cell(mechanism: str, prop: _Property, sizes: list[Size], options: dict, budget: AuditBudget,
                   deadline: float, store: Store | None, examples_up_to: Size | None) -> tuple:
    """One property's part of an audit in a worker process (`_run_cells`): the shipped examples that
    fit in `examples_up_to` (if given), then each of `sizes` it still needs, smallest first, exactly
    as the serial schedule runs them for it. Returns the property's state, its units (name, status,
    seconds) and whether the time limit stopped it."""
    clock = _Clock(max(deadline - time.monotonic(), 0.0))
    clock.deadline = deadline
    with plugin.time_limit(max(deadline - time.monotonic(), 0.0)), properties.base.allocation_cache():
        mech = _resolve(mechanism, options, budget)
        if examples_up_to is not None:
            _check_examples(mech, {prop.name: prop}, *examples_up_to, options, budget, clock, None, store)
        units = []
        for size in sizes:
            if prop.needs(size):
                _audit_size(mech, prop, size, options, budget, clock, None, store)
                record = prop.sizes[-1]
                units.append((f"{prop.name} {size_text(size)}", record["status"], record["seconds"]))
    return prop, units, clock.stopped


def _longest_first(prop: _Property) -> int:
    """The cells' submission order: the deviation searches (sp, rm: the longest cells) first, so the
    pool's processes end close together; the verdicts and their order do not depend on it."""
    module = properties.get(prop.name)
    return 0 if getattr(module, "candidates", None) is not None and getattr(module, "exhaustive", None) is None else 1


def _run_cells(executor: concurrent.futures.Executor, mechanism: str, state: dict[str, _Property],
               sizes: list[Size], options: dict, budget: AuditBudget, clock: _Clock, progress,
               store: Store | None, examples_up_to: Size | None) -> None:
    """Every property of `state` as cells on `executor` (`_property_cell`): first the shipped
    examples (one cell per property; the examples' unit when all have ended), then its sizes (one
    cell per property, its units reported when it ends: one not yet ended counts the sizes it
    needed after the examples as left). The results are put back in `state`."""

    def rounds(stage_sizes: list[Size], examples: Size | None):
        futures = [executor.submit(_property_cell, mechanism, prop, stage_sizes, options, budget, clock.deadline,
                                   store, examples) for prop in sorted(state.values(), key=_longest_first)]
        try:
            for future in concurrent.futures.as_completed(futures):
                prop, units, stopped = future.result()
                state[prop.name] = prop
                clock.stopped = clock.stopped or stopped
                yield prop.name, units
        finally:
            for future in futures:
                future.cancel()

    if progress:
        progress(Unit(0, int(examples_up_to is not None) + len(state) * len(sizes)))
    done = 0
    if examples_up_to is not None:
        for _ in rounds([], examples_up_to):
            pass
        done = 1
        if progress:
            left = _units_left([(size, prop) for size in sizes for prop in state.values()])
            progress(_examples_unit(state, left, time.monotonic() - clock.start))
    pending = {name: sum(prop.needs(size) for size in sizes) for name, prop in state.items()}  # at most
    for name, units in rounds(sizes, None):
        del pending[name]
        for index, (label, status, seconds) in enumerate(units):
            done += 1
            if progress:
                left = len(units) - index - 1 + sum(pending.values())
                progress(Unit(done, done + left, label, status, seconds))
