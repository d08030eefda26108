"""`fairlab properties` (the property list with definitions) and `fairlab check` (one verdict).

    fairlab check asset si drf-paper --format json
    fairlab check path/to/mine.py:allocate sp instance.json --time-limit 10

`check` exits 0 whatever the verdict and 2 on bad input (including a failing plug-in, or one that
does not return within --time-limit). A violation is printed only after its witness passed
`Violation.verify` (a from-scratch exact recomputation); a witness that fails it is reported as
verdict "unknown". The verdict is decided by a counted budget (--evaluations, --seed, --rlimit);
--time-limit is only the wall-clock safety net, which gives "unknown (wall-clock safety net)"
with "stopped": "time".
"""

from __future__ import annotations

from typing import List, Optional

import typer
from rich.markup import escape
from rich.table import Table

from fairlab import properties
from fairlab.cli.commands import _params as params
from fairlab.cli.inputs import check_format, fail, parse_options, read_instance
from fairlab.cli.output import console, emit_json, listing, model_line
from fairlab.core.errors import InputError
from fairlab.core.results import domain_text, report, to_json
from fairlab.mechanisms import plugin
from fairlab.properties import plugin_properties
from fairlab.properties.base import CHECK_RLIMIT, CHECK_SAFETY_NET


def register(app: typer.Typer) -> None:
    app.command("properties")(properties_cmd)
    app.command("check")(check_cmd)


def properties_cmd(fmt: str = typer.Option("table", "--format", help="table | json"),
                   setting: str = typer.Option("all", "--setting", help="pool | machines | dynamic | all")):
    """List the fairness properties with their definitions, sources and witness shapes, then the
    properties installed packages declare (entry points of the group fairlab.properties, usable by
    name in every verb)."""
    check_format(fmt)
    try:
        chosen = params.setting(setting)
    except InputError as exc:
        fail(str(exc))
    rows = [properties.get(name) for name in properties.names(chosen)]
    extra = plugin_properties.installed()  # read from package metadata, not loaded (their setting is unknown)
    if fmt == "json":
        emit_json(listing("properties", [
            {"name": p.name, "title": p.title, "definition": p.definition, "source": p.source,
             "compares": p.compares, "witness": p.witness_shape(), "setting": p.setting} for p in rows
        ] + [
            {"name": e["name"], "title": "installed plug-in (not loaded by the listing)", "definition": "",
             "source": e["distribution"] or "", "compares": None, "witness": None, "setting": None,
             "entry_point": e["entry_point"], "distribution": e["distribution"]}
            for e in extra
        ]))
        return
    table = Table(title="fairness properties (Leontief utilities)")
    for col in ("name", "setting", "property", "definition and source", "witness"):
        table.add_column(col)
    for p in rows:
        table.add_row(p.name, p.setting, p.title, escape(p.definition), escape(p.witness_shape()))
    for e in extra:
        source = f" ({escape(e['distribution'])})" if e["distribution"] else ""
        table.add_row(escape(e["name"]), "", "installed plug-in",
                      f"entry point {escape(e['entry_point'])}{source}", "")
    console.print(table)


def check_cmd(
    mechanism: str = typer.Argument(..., metavar="MECHANISM",
                                    help="mechanism name (see `fairlab mechanisms`) or file.py:function"),
    property: str = typer.Argument(..., metavar="PROPERTY", help="property name (see `fairlab properties`), or all"),
    instance: str = typer.Argument(..., metavar="INSTANCE",
                                   help="instance JSON file, '-' for stdin, or a shipped example name"),
    time_limit: float = typer.Option(CHECK_SAFETY_NET, "--time-limit",
                                     help="wall-clock safety net in seconds (then: unknown (wall-clock safety net)); "
                                          "the counted budget decides"),
    evaluations: int = typer.Option(300, "--evaluations", help="mechanism runs a deviation search may spend"),
    seed: int = typer.Option(0, "--seed", help="seed of the random deviation candidates"),
    rlimit: int = typer.Option(CHECK_RLIMIT, "--rlimit", help="z3 resource units per solver check"),
    no_z3: bool = typer.Option(False, "--no-z3", help="numeric engines only, even with a symbolic spec"),
    option: Optional[List[str]] = typer.Option(None, "--option", "-o", help="KEY=VALUE passed to the mechanism"),
    domain: Optional[str] = typer.Option(None, "--domain", help=params.DOMAIN_HELP + "; an instance outside it (or "
                                         "outside the mechanism's declared domain) is an error"),
    fmt: str = typer.Option("table", "--format", help="table | json"),
):
    """Check PROPERTY of MECHANISM on INSTANCE: violated (with a verified witness), holds,
    none-found (within the budget) or unknown. PROPERTY `all` checks every property (a table;
    JSON: a report of one result per property; --time-limit applies to each check).

    The verdict depends only on --evaluations, --seed and --rlimit; --time-limit is a wall-clock
    safety net far above their cost (unknown (wall-clock safety net), "stopped": "time") that also
    stops a plug-in call that does not return."""
    check_format(fmt)
    try:
        params.seconds(time_limit)
        params.integer(evaluations, "--evaluations", 1)
        params.integer(rlimit, "--rlimit", 1)
        inst = read_instance(instance)
        every = property == "all"
        module = None if every else properties.get(property, every=True)
        options = parse_options(option)
        budget = dict(time_limit=time_limit, evaluations=evaluations, seed=seed, options=options,
                      symbolic=not no_z3, rlimit=rlimit, domain=params.domain(domain))
        with plugin.time_limit(time_limit if not every else time_limit * len(properties.names())):
            # also stops a plug-in's import; properties.check: a plug-in still running at the limit
            # is unknown (safety net) if it has returned before, else a one-line error (it never returns)
            if every:
                results = properties.check_all(mechanism, inst, **budget)
            else:
                assert module is not None  # one property asked
                result = properties.check(mechanism, module.name, inst, **budget)
                result = properties.reverify(result, mechanism, inst, options)
    except InputError as exc:
        fail(str(exc))
    if every:
        if fmt == "json":
            emit_json(report("check-all", results, instance=to_json(inst, versioned=False)))
            return
        print_all(results, inst)
        return
    if fmt == "json":
        emit_json(result)
        return
    print_verdict(result, inst)


def print_all(results, inst) -> None:
    """One row per property: the verdict in colour and words, the witness in words."""
    domain = f", domain {escape(domain_text(results[0].domain))}" if results[0].domain else ""
    table = Table(title=f"every property of {escape(results[0].mechanism)} on this instance "
                        f"({inst.n} users × {inst.m} resources{domain})")
    for col in ("property", "verdict", "why"):
        table.add_column(col, overflow="fold")
    for r in results:
        status = r.status.value
        colour = {"violated": "red", "holds": "green"}.get(status, "yellow")
        table.add_row(r.property, f"[{colour}]{escape(r.label())}[/{colour}]", escape(r.explanation))
    console.print(table)


def print_verdict(result, inst) -> None:
    """The verdict in colour, its witness with user and resource names, the explanation and the budget."""
    status = result.status.value
    colour = {"violated": "red", "holds": "green"}.get(status, "yellow")
    console.print(f"{result.property} of {result.mechanism}: [bold {colour}]{escape(result.label())}[/bold {colour}]")
    witness = to_json(result.witness, versioned=False)
    if witness:
        named = []
        for key, value in witness.items():
            if key in ("user", "envied", "removed") and isinstance(value, int):
                named.append(f"{key} = {value} ({inst.users[value]})")
            elif key == "resource" and isinstance(value, int):
                named.append(f"{key} = {value} ({inst.resources[value]})")
            else:
                named.append(f"{key} = {value}")
        console.print("witness: " + ", ".join(named), markup=False)
    console.print(result.explanation, markup=False)
    if result.domain:
        console.print(f"domain: {domain_text(result.domain)}", markup=False)
    if model_line(result.details):
        console.print(model_line(result.details), markup=False)
    spent = ", ".join(f"{k} {v}" for k, v in result.budget.items())
    console.print(f"budget: {spent}; {result.seconds:.2f} s", markup=False)
