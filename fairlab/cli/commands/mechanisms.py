"""`fairlab mechanisms` (the registry) and `fairlab allocate` (one mechanism on one instance).

    fairlab allocate drf drf-paper
    fairlab allocate path/to/mine.py:allocate instance.json --format json
"""

from __future__ import annotations

from typing import List, Optional

import typer
from rich.markup import escape
from rich.table import Table

from fairlab import mechanisms
from fairlab.cli.commands import _params as params
from fairlab.cli.inputs import check_format, fail, parse_options, read_instance
from fairlab.cli.output import allocation_document, console, emit_json, listing
from fairlab.core import network
from fairlab.core.errors import InputError
from fairlab.core.exact import format_short
from fairlab.core.instance import examples
from fairlab.dynamics import shares_over_time
from fairlab.mechanisms import plugin, registry

#: the default time limit of `fairlab allocate` on a plug-in's call (seconds): a safety net, far above what
#: a plug-in that returns at all takes on one instance
ALLOCATE_SECONDS = 300.0


def register(app: typer.Typer) -> None:
    app.command("mechanisms")(mechanisms_cmd)
    app.command("allocate")(allocate_cmd)


def mechanisms_cmd(fmt: str = typer.Option("table", "--format", help="table | json"),
                   setting: str = typer.Option("all", "--setting", help="pool | machines | dynamic | all")):
    """List the registered mechanisms with their options and sources, then the mechanisms installed
    packages declare (entry points of the group fairlab.mechanisms, usable by name in every verb)."""
    check_format(fmt)
    try:
        chosen = params.setting(setting)
    except InputError as exc:
        fail(str(exc))
    rows = [mechanisms.REGISTRY[name] for name in mechanisms.names(chosen)]
    extra = registry.installed()
    if fmt == "json":
        emit_json(listing("mechanisms", [
            {"name": m.name, "aliases": list(m.aliases), "summary": m.summary, "source": m.source,
             "options": dict(m.options), "symbolic": m.spec is not None, "discrete": m.discrete,
             "setting": m.setting}
            for m in rows
        ] + [
            {"name": e["name"], "aliases": [], "summary": "installed plug-in (not loaded by the listing)",
             "source": e["distribution"] or "", "options": {}, "symbolic": None, "discrete": None,
             "entry_point": e["entry_point"], "distribution": e["distribution"]}
            for e in extra
        ]))
        return
    table = Table(title="mechanisms")
    for col in ("name", "setting", "aliases", "what it does", "options", "source"):
        table.add_column(col)
    for m in rows:
        opts = "\n".join(f"{k}: {v}" for k, v in m.options.items())
        table.add_row(m.name, m.setting, ", ".join(m.aliases), m.summary, opts, m.source)
    for e in extra:
        table.add_row(escape(e["name"]), "", "", f"installed plug-in: entry point {escape(e['entry_point'])}", "",
                      escape(e["distribution"] or ""))
    console.print(table)


def allocate_cmd(
    mechanism: str = typer.Argument(..., metavar="MECHANISM",
                                    help="mechanism name (see `fairlab mechanisms`) or file.py:function"),
    instance: str = typer.Argument(..., metavar="INSTANCE",
                                   help="instance JSON file, '-' for stdin, or a shipped example name"),
    option: Optional[List[str]] = typer.Option(None, "--option", "-o", help="KEY=VALUE passed to the mechanism"),
    time_limit: float = typer.Option(ALLOCATE_SECONDS, "--time-limit",
                                     help="stop a plug-in that has not returned after S seconds"),
    fmt: str = typer.Option("table", "--format", help="table | json"),
    figure: Optional[str] = typer.Option(None, "--figure", help="agents over time: draw each user's dominant share "
                                         "over the steps into PATH (.png or .svg); a network: each flow's "
                                         "bottleneck (.svg)"),
):
    """Run MECHANISM on INSTANCE and print the exact allocation (agents over time: after each step,
    with the fairness ratio)."""
    check_format(fmt)
    try:
        if figure is not None:
            shares_over_time.check_path(figure)  # a bad path is refused before any work
        params.seconds(time_limit)
        inst = read_instance(instance)
        pool_file = examples().get(instance, instance) if figure is not None and inst.setting == "pool" else None
        net = network.network_of(pool_file) if pool_file is not None else None
        if figure is not None and inst.setting != "dynamic" and net is None:
            raise InputError("--figure: draws the shares over the steps of an instance with arrivals, or a network "
                             "instance with each flow's bottleneck")
        options = parse_options(option)
        with plugin.time_limit(time_limit):  # also stops a plug-in's import
            allocation = _allocate_twice(mechanism, inst, options)
        if net is not None:
            network.write_figure(net, allocation, figure)
        elif figure is not None:
            shares_over_time.draw(allocation, figure)
    except InputError as exc:
        fail(str(exc))
    if fmt == "json":
        emit_json(allocation_document(allocation))
        return
    print_allocation(allocation)
    if allocation.steps is not None:
        print_steps(allocation)


def _allocate_twice(name: str, inst, options: dict):
    """The allocation of `name` on `inst`; a mechanism that is not one of the lab's built-ins is asked
    twice (in one round trip to its worker) and must give the same answer both times, as everywhere
    the lab judges one (`fairlab.properties.base.run`): a one-line error otherwise."""
    mechanism = mechanisms.get(name)
    if registry.is_builtin(mechanism):
        return mechanism(inst, **options)
    with plugin.paired():
        first = mechanism(inst, **options)
        again = mechanism(inst, **options)
    if (first.tasks, first.placement, first.lottery, first.steps) != (again.tasks, again.placement, again.lottery,
                                                                      again.steps):
        show = lambda a: "<" + ", ".join(format_short(t) for t in a.tasks) + ">"  # noqa: E731
        raise plugin.bad_answer(mechanism.name, f"returned different allocations for the same instance ({show(first)} "
                                f"then {show(again)}): not a deterministic mechanism; no allocation",
                                getattr(mechanism.allocate, "defined_at", None))
    return first


def print_allocation(allocation) -> None:
    """The allocation as a table: per user its tasks, per resource amount / share, its dominant share."""
    inst = allocation.instance
    table = Table(title=f"{allocation.mechanism} on {inst.n} users × {inst.m} resources, "
                        f"{allocation.describe_exactness()}")
    table.add_column("user")
    table.add_column("tasks", justify="right")
    for r in inst.resources:
        table.add_column(f"{r} (amount / share)", justify="right")
    table.add_column("dominant share", justify="right")
    for i, user in enumerate(inst.users):
        cells = [
            f"{format_short(allocation.bundles[i][r])} / {format_short(allocation.shares[i][r])}" for r in range(inst.m)
        ]
        table.add_row(user, format_short(allocation.tasks[i]), *cells, format_short(allocation.dominant_shares[i]))
    table.add_row(
        "[bold]used[/bold]", "", *[f"{format_short(u)} of capacity" for u in allocation.utilisation], "",
        end_section=True,
    )
    console.print(table)
    print_placements(allocation)
    for note in allocation.notes:
        console.print(f"note: {note}")


def print_steps(allocation) -> None:
    """Agents over time: one table user × step (tasks / dominant share after each event; "·" for a
    user not present), the per-step fairness ratio, then the fairness ratio."""
    inst = allocation.instance
    extra = allocation.extra or {}
    table = Table(title=f"{allocation.mechanism}: allocation after each step (tasks / dominant share)")
    table.add_column("user")
    for label in shares_over_time.step_labels(allocation):
        table.add_column(label.replace("\n", " "), justify="right")
    for i, user in enumerate(inst.users):
        cells = [f"{format_short(s.tasks[i])} / {format_short(s.tasks[i] * inst.dominant_share_per_task(i))}"
                 if i in s.present else "·" for s in allocation.steps]
        table.add_row(user, *cells)
    ratios = extra.get("fairness_ratio_steps")
    if ratios is not None:
        table.add_row("[bold]ratio[/bold]", *["–" if r is None else format_short(r) for r in ratios],
                      end_section=True)
    console.print(table)
    if "fairness_ratio" in extra:
        ratio = extra["fairness_ratio"]
        console.print(f"fairness ratio: {'–' if ratio is None else format_short(ratio)}  (min over steps of min over "
                      "present users of tasks / tasks in the static DRF of the users present)")


def print_placements(allocation) -> None:
    """Several machines: the placement (users × machines, tasks) beside the totals; a lottery: one
    such table per outcome with its probability."""
    inst = allocation.instance
    if inst.machines is None:
        return
    names = inst.machine_names
    tables = []
    if allocation.placement is not None:
        tables.append(("placement (tasks per machine)", allocation.placement))
    for p, placement in allocation.lottery or ():
        tables.append((f"lottery outcome, probability {format_short(p)}", placement))
    for title, placement in tables:
        table = Table(title=title)
        table.add_column("user")
        for name, machine in zip(names, inst.machines):
            table.add_column(f"{name} <{', '.join(format_short(c) for c in machine)}>", justify="right")
        table.add_column("total", justify="right")
        for i, user in enumerate(inst.users):
            row = placement[i]
            table.add_row(user, *(format_short(x) for x in row), format_short(sum(row)))
        console.print(table)
