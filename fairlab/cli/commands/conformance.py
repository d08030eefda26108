"""`fairlab conformance`: does a mechanism's symbolic spec describe its numeric allocator?

    fairlab conformance drf -n 3 -m 3
    fairlab conformance path/to/mine.py:allocate --samples 20 --seed 7 --format json
    fairlab conformance ceei --instance thm4-ceei-sp

On each instance of a seeded sample (or the one given), `fairlab.mechanisms.conformance.check`: the exact
numeric allocation satisfies the spec, and (single-valued mechanisms) the spec admits no other
allocation. The same sample and budget give the same answers on any machine (z3 resource limits
decide; `--time-limit` is only an outer stop that makes an answer `unknown`). This is gate 1 of
`fairlab prove`. Exit 0 if every checked instance agrees, 1 otherwise (a disagreement, an
exhausted budget, or nothing checked), 2 on bad input.
"""

from __future__ import annotations

import time
from typing import List, Optional

import typer
from rich.markup import escape
from rich.table import Table

from fairlab import mechanisms
from fairlab.cli.commands import _params as params
from fairlab.cli.inputs import check_format, fail, parse_options, read_instance
from fairlab.cli.output import console, emit_json
from fairlab.core.errors import InputError
from fairlab.core.results import to_json
from fairlab.core.solving import SolverBudget
from fairlab.core.stdio import output_to_stderr
from fairlab.mechanisms import conformance
from fairlab.mechanisms.plugin import time_limit as plugin_time_limit


def register(app: typer.Typer) -> None:
    @app.command("conformance")
    def conformance_cmd(
        mechanism: str = typer.Argument(..., metavar="MECHANISM",
                                        help="mechanism name or file.py:function (with a .spec)"),
        users: int = typer.Option(2, "--users", "-n", help="users of the sampled instances"),
        resources: int = typer.Option(2, "--resources", "-m", help="resources of the sampled instances"),
        samples: int = typer.Option(8, "--samples", help="instances in the seeded sample"),
        seed: int = typer.Option(0, "--seed", help="seed of the sample"),
        instance: Optional[str] = typer.Option(None, "--instance",
                                               help="check this one instance (JSON file, '-' or example name)"),
        rlimit: int = typer.Option(20_000_000, "--rlimit", help="z3 resource limit of each query (decides)"),
        time_limit: float = typer.Option(1800.0, "--time-limit",
                                         help="wall-clock safety net in seconds (gives unknown (wall-clock safety "
                                              "net)); --rlimit decides"),
        option: Optional[List[str]] = typer.Option(None, "--option", "-o", help="mechanism option KEY=VALUE"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
    ):
        """Check that MECHANISM's symbolic spec agrees with its numeric allocator on a seeded sample."""
        check_format(fmt)
        try:
            params.seconds(time_limit)
            params.size(users, resources)
            params.integer(samples, "--samples", 1, 1000)
            params.seed(seed)
            params.integer(rlimit, "--rlimit", 1)
            mech = mechanisms.get(mechanism)
            if mech.spec is None:
                raise InputError(f"mechanism {mech.name!r}: has no symbolic specification to check against")
            options = parse_options(option)
            budget = SolverBudget(rlimit=rlimit)
            deadline = time.monotonic() + time_limit
            with output_to_stderr(), plugin_time_limit(time_limit):
                if instance is not None:
                    inst = read_instance(instance)
                    report = conformance.check_sample(mech, inst.n, inst.m, budget=budget, options=options,
                                                      instances=[inst], deadline=deadline)
                    checked = conformance.results_of(report)
                    if checked and checked[0].status == "skipped":
                        raise InputError(checked[0].explanation)
                else:
                    report = conformance.check_sample(mech, users, resources, samples=samples, seed=seed,
                                                      budget=budget, options=options, deadline=deadline)
        except InputError as exc:
            fail(str(exc))
        report = report.replace(budget={**report.budget, "time_limit": time_limit})
        if fmt == "json":
            emit_json(to_json(report))
        else:
            _table(report, instance)
        if report.status != "agrees":
            raise typer.Exit(1)

    def _table(report, instance) -> None:
        d = report.details
        where = (f"instance {instance}" if instance is not None else
                 f"{d['samples']} seeded instances (seed {d['seed']})"
                 f" of {d['users']} users × {d['resources']} resources")
        table = Table(title=f"conformance of {report.mechanism}: spec vs numeric allocator on {where}")
        for col in ("#", "instance", "numeric tasks", "status", "why", "rlimit spent"):
            table.add_column(col, overflow="fold")
        colours = {"agrees": "green", "disagrees": "red", "unknown": "yellow", "skipped": "dim"}
        for k, r in enumerate(conformance.results_of(report)):
            allocation = (r.certificate or {}).get("allocation")
            tasks = ", ".join(allocation) if allocation is not None else ""
            colour = colours[r.status.value]
            table.add_row(str(k), escape(conformance.describe(r.instance)), tasks,
                          f"[{colour}]{r.status.value}[/{colour}]", escape(r.explanation), f"{conformance.spent(r):,}")
        console.print(table)
        console.print(f"{report.status.value}: {escape(report.explanation)}")
        console.print(f"budget: rlimit {report.budget['rlimit']:,} per query (seed {report.budget['seed']}), "
                      f"{conformance.spent(report):,} spent, {report.seconds:.2f} s")
