"""`fairlab pdrf-tables`: regenerate the statistics of PDRF Tables 1-2 (Metin §4), seeded.

    fairlab pdrf-tables --table 1                      # the paper's Table 1 configuration
    fairlab pdrf-tables --users 1000 --resources 10 --runs 1000 --demands 1-10 --demands 1-20

Prints, per demand interval, our numbers next to the published ones when the configuration is
the paper's (see `fairlab.paper_checks.pdrf_tables` for the definitions and the seeding).
"""

from __future__ import annotations

import os
from typing import Any, List, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from fairlab.cli.commands import _params as params
from fairlab.cli.inputs import check_format, fail
from fairlab.cli.output import console, emit_json
from fairlab.core.errors import InputError
from fairlab.core.results import report
from fairlab.paper_checks import pdrf_tables as stats

# Bounds of the options, checked before any run: each run holds users × resources demands in memory.
MAX_USERS = 100_000
MAX_RESOURCES = 100
MAX_RUNS = 1_000_000
MAX_AMOUNT = 10**12  # demands and reserves (numpy draws them as int64)


def parse_range(text: str, flag: str) -> tuple[int, int]:
    """'1-10' -> (1, 10); a one-line `InputError` naming `flag` otherwise."""
    parts = str(text).replace("–", "-").split("-")
    try:
        if len(parts) != 2:
            raise ValueError
        lo, hi = int(parts[0].strip().replace("_", "")), int(parts[1].strip().replace("_", ""))
    except ValueError:
        raise InputError(f"{flag}: expected an integer range such as 1-10, got {text!r}") from None
    return lo, hi


def _fmt(value) -> str:
    if isinstance(value, int):
        return str(value)
    return f"{value:.3f}"


def register(app: typer.Typer) -> None:
    @app.command("pdrf-tables")
    def pdrf_tables_cmd(
        table: Optional[int] = typer.Option(None, "--table", help="1 or 2: the paper's configuration"),
        users: int = typer.Option(1000, "--users"),
        resources: Optional[int] = typer.Option(None, "--resources", help="default 10 (2 with --table 2)"),
        runs: int = typer.Option(1000, "--runs"),
        demands: Optional[List[str]] = typer.Option(None, "--demands", help="LO-HI, repeatable"),
        reserves: str = typer.Option("50000-100000", "--reserves", help="LO-HI"),
        seed: int = typer.Option(0, "--seed"),
        tie: str = typer.Option("paper", "--tie", help="DRF loop tie rule: paper | index"),
        on_blocked: str = typer.Option("stop", "--on-blocked", help="DRF loop: stop | skip"),
        jobs: int = typer.Option(1, "--jobs", help="worker processes"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
        no_progress: bool = typer.Option(False, "--no-progress"),
    ):
        """Regenerate PDRF Tables 1-2: users PDRF under/over-allocates vs the DRF task loop."""
        check_format(fmt)
        try:
            if table is not None and table not in stats.PRESETS:
                raise InputError(f"--table: expected 1 or 2, got {table}")
            if tie not in ("paper", "index"):
                raise InputError(f"--tie: expected paper or index, got {tie!r}")
            if on_blocked not in ("stop", "skip"):
                raise InputError(f"--on-blocked: expected stop or skip, got {on_blocked!r}")
            params.integer(jobs, "--jobs", 1, os.cpu_count() or 1, "one worker per CPU")
            params.integer(users, "--users", 1, MAX_USERS)
            if resources is not None:
                params.integer(resources, "--resources", 1, MAX_RESOURCES)
            params.integer(runs, "--runs", 1, MAX_RUNS)
            params.seed(seed)
            custom: dict[str, Any] = {"resources": 10, "demands": [(1, 10)]}
            preset = custom if table is None else stats.PRESETS.get(table, custom)
            m = resources if resources is not None else preset["resources"]
            intervals = [parse_range(d, "--demands") for d in demands] if demands else preset["demands"]
            reserve_range = parse_range(reserves, "--reserves")
            for (lo, hi), flag in [*((iv, "--demands") for iv in intervals), (reserve_range, "--reserves")]:
                if hi > MAX_AMOUNT:
                    raise InputError(f"{flag}: HI must be at most {MAX_AMOUNT:,}, got {lo}-{hi}")
            for lo, hi in intervals:
                if not 0 <= lo <= hi or hi == 0:
                    raise InputError(f"--demands: expected LO-HI with 0 <= LO <= HI and HI >= 1, got {lo}-{hi}")
            if not 1 <= reserve_range[0] <= reserve_range[1]:
                raise InputError(f"--reserves: expected LO-HI with 1 <= LO <= HI, got {reserves}")
            configs = [
                stats.Config(users, m, iv, reserve_range, runs, seed, tie, on_blocked) for iv in intervals
            ]
        except InputError as exc:
            fail(str(exc))
        progress = Progress(
            TextColumn("PDRF vs DRF loop"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            disable=no_progress or fmt != "table", transient=False,
        )
        with progress:
            bar = progress.add_task("runs", total=sum(config.runs for config in configs))
            rows = stats.compute(configs, jobs, advance=lambda k: progress.advance(bar, k))
        if fmt == "json":
            out = []
            for config in configs:
                match = stats.published_row(config)
                out.append(
                    {
                        "demands": list(config.demands),
                        "ours": rows[config.demands],
                        "published": None if match is None else {"table": match[0], **match[1]},
                    }
                )
            emit_json(report("pdrf-tables", [], users=users, resources=m, reserves=list(reserve_range), runs=runs,
                             seed=seed, tie=tie, on_blocked=on_blocked, rows=out))
            return
        for kind in stats.KINDS:
            title = (
                f"{kind}-allocations: {users} users, {m} resources, reserves {reserve_range[0]}-{reserve_range[1]},"
                f" {runs} runs, seed {seed}"
            )
            grid = Table(title=title)
            grid.add_column("demands")
            grid.add_column("source")
            for col in stats.COLUMNS:
                grid.add_column({"1": "1 task", "2": "2 tasks", ">2": "> 2 tasks", "max": "maximum",
                                 "avg": "avg.", "sd": "st. dev."}[col], justify="right")
            for config in configs:
                label = f"{config.demands[0]}-{config.demands[1]}"
                ours = rows[config.demands][kind]
                grid.add_row(label, "ours", *[_fmt(ours[c]) for c in stats.COLUMNS])
                match = stats.published_row(config)
                if match is not None:
                    theirs = match[1][kind]
                    grid.add_row("", f"paper T{match[0]}", *[_fmt(theirs[c]) for c in stats.COLUMNS],
                                 end_section=True)
            console.print(grid)
        console.print("avg./st. dev.: users per run (population sd). Printed-table inconsistencies: "
                      "paper_checks/pdrf_tables_published.json")
