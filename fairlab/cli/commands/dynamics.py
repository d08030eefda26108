"""`fairlab dynamics rates|figure|packets|cluster|optimal-ratio`: dynamic demand (Bonald & Roberts §3-§4)
and agents over time.

* ``rates``   — γ_k of the §4.1 Markov model for one mechanism and per-class loads.
* ``figure``  — regenerate Figure 1, 2 or 3 as PNG and print the orderings the text states.
* ``packets`` — SFQ packet schedulers (§3.1-§3.3) under dynamic flows, compared with the fluid model.
* ``cluster`` — "serve the most deprived job" task schedulers, long-run shares vs fluid allocation.
* ``optimal-ratio`` — the best fairness ratio any online mechanism with at most d disruptions per event
  can guarantee (one resource, at most k agents; exact), beside the lab's dynamic mechanisms' worst
  ratios (`fairlab.search.optimal_ratio`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from fairlab.cli.commands import _params as params
from fairlab.cli.inputs import check_format, fail
from fairlab.cli.output import emit_json
from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact, to_fraction
from fairlab.core.results import report, to_json
from fairlab.dynamics import cluster, figures, markov, packets

console = Console()

DEFAULT_REQUIREMENTS = "0.1,1;1,0.1;1,1"
# Bounds checked before any work. Default --max-states of `markov.solve`: 150 000 for drf/pf/bmf,
# 3 000 for a registry mechanism; MAX_STATES keeps the sparse solve within minutes and memory.
MAX_STATES = 1_000_000
MAX_FLOWS = 1_000_000  # packet simulations: about 3·10^5 packets/s, flows × mean size packets
MAX_MEAN_SIZE = 1_000
MAX_COMPLETIONS = 10_000_000  # cluster: about 2·10^4 completions/s
MAX_TASKS = 1_000_000  # cluster: tasks one pool holds at once (launched one by one)
MAX_CAPACITY = 10**15


def _check_tol(tol: float) -> None:
    params.number(tol, "--tol", 0, 1, open_lo=True, open_hi=True)


def _check_packet_options(flows: int, mean_size: float, window: int, seed: int) -> None:
    """The options of `packets.simulate`, checked before any simulation."""
    params.integer(flows, "--flows", 10, MAX_FLOWS)
    params.number(mean_size, "--mean-size", 1, MAX_MEAN_SIZE)
    params.integer(window, "--window", 1)
    params.seed(seed)


def _check_out_dir(out: str) -> None:
    """--out must be (or be creatable as) a directory: no existing file on its path."""
    path = Path(out)
    while not path.exists() and path != path.parent:
        path = path.parent
    if path.exists() and not path.is_dir():
        raise InputError(f"--out: {str(path)!r} exists and is not a directory")


def _check_cluster(demands, capacities: str) -> list:
    """Capacities, exactly: one per resource, each job's task fits, at most MAX_TASKS tasks per pool."""
    C = markov.parse_vector(capacities, "capacities", len(demands[0]), per="resource")
    for j, c in enumerate(C):
        if c > MAX_CAPACITY:
            raise InputError(f"capacities[{j}]: at most 10^15, got {capacities.split(',')[j].strip()}")
        used = [row[j] for row in demands if row[j] > 0]
        if any(d > c for d in used):
            raise InputError("demands: a task needs more of some resource than the whole pool")
        if used and c / min(used) > MAX_TASKS:
            raise InputError(f"capacities[{j}]: the pool holds {int(c / min(used)):,} tasks of its smallest demand "
                             f"at once; at most {MAX_TASKS:,} are simulated")
    return C


def register(app: typer.Typer) -> None:
    sub = typer.Typer(no_args_is_help=True,
                      help="Dynamic demand: Markov service rates, packet and cluster schedulers"
                           " (Bonald & Roberts §3-§4); the optimal fairness ratio with disruptions.")
    app.add_typer(sub, name="dynamics")

    @sub.command("rates")
    def rates_cmd(
        mechanism: str = typer.Option("pf", "--mechanism", "-m",
                                      help="drf | pf | bmf (fast), or any registered mechanism (exact, slow)"),
        requirements: str = typer.Option(DEFAULT_REQUIREMENTS, "--requirements",
                                         help="class requirement vectors 'a11,a12;a21,a22;...'"),
        loads: str = typer.Option(..., "--loads", help="per-class loads ρ1,ρ2,... (condition (8) must hold)"),
        mu: Optional[str] = typer.Option(None, "--mu", help="per-class 1/mean work (default 1)"),
        truncation: Optional[int] = typer.Option(None, "--truncation",
                                                 help="max total transactions N (default: adaptive)"),
        tol: float = typer.Option(1e-5, "--tol", help="adaptive truncation: target boundary mass"),
        max_states: Optional[int] = typer.Option(
            None, "--max-states",
            help="largest state space, also for --truncation (default 150000; 3000 for a registry mechanism)"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
    ):
        """Mean service rates γ_k = λ_k/(μ_k E n_k) of the §4.1 Markov model."""
        check_format(fmt)
        try:
            _check_tol(tol)
            if max_states is not None:
                params.integer(max_states, "--max-states", 1, MAX_STATES)
            req = markov.parse_requirements(requirements)
            rho = markov.parse_vector(loads, "loads", len(req))
            mus = markov.parse_vector(mu, "mu", len(req)) if mu is not None else None
            if truncation is not None:
                params.integer(truncation, "--truncation", 1)
                limit = max_states or markov.default_max_states(mechanism)
                states = markov.simplex_size(len(req), truncation)
                if states > limit:
                    raise InputError(f"--truncation: N={truncation} gives {states:,} states for {len(req)} classes, "
                                     f"more than --max-states {limit:,}")
            result = markov.solve(mechanism, req, rho, mu=mus, truncation=truncation, tol=tol, max_states=max_states)
        except InputError as exc:
            fail(str(exc))
        if fmt == "json":
            emit_json(report("dynamics-rates", [], **to_json(result, versioned=False)))
            return
        table = Table(title=f"{mechanism}: service rates (Bonald & Roberts §4.1)")
        for col in ("class", "requirements", "load ρ", "E(n)", "γ"):
            table.add_column(col, justify="right")
        for k, g in enumerate(result.gamma):
            table.add_row(str(k + 1), ",".join(format_exact(x) for x in result.requirements[k]),
                          format_exact(result.loads[k]), f"{result.mean_transactions[k]:.6g}", f"{g:.6g}")
        console.print(table)
        console.print("resource loads (8): " + ", ".join(format_exact(x) for x in result.resource_loads))
        console.print(f"truncation: N={result.truncation}, {result.states} states,"
                      f" boundary mass {result.boundary_mass:.2e}")
        for note in result.notes:
            console.print(f"note: {note}")

    @sub.command("figure")
    def figure_cmd(
        number: int = typer.Argument(..., metavar="NUMBER", help="1, 2 or 3"),
        out: str = typer.Option(".", "--out", help="directory for figureN.png"),
        tol: float = typer.Option(1e-4, "--tol", help="target boundary mass of the truncation"),
        loads: Optional[str] = typer.Option(
            None, "--loads", help="load points of the most loaded resource (default 0.1..0.8, 0.85, 0.9)"),
        flows: int = typer.Option(10000, "--flows", help="figure 3: flow arrivals per packet simulation"),
        mean_size: float = typer.Option(50, "--mean-size", help="figure 3: mean flow size (packets)"),
        window: int = typer.Option(5, "--window", help="figure 3: per-flow window W (packets)"),
        seed: int = typer.Option(0, "--seed", help="figure 3: random seed"),
        progress: bool = typer.Option(True, "--progress/--no-progress"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
    ):
        """Regenerate Figure 1, 2 or 3 of §4 (PNG) and print the orderings the text states."""
        check_format(fmt)
        if number not in (1, 2, 3):
            fail(f"figure: expected 1, 2 or 3, got {number}")
        try:
            _check_tol(tol)
            _check_packet_options(flows, mean_size, window, seed)
            _check_out_dir(out)
            points = figures.LOAD_POINTS
            if loads is not None:
                points = tuple(to_fraction(x, f"loads[{i}]") for i, x in enumerate(loads.split(",")))
                for i, x in enumerate(points):
                    if not 0 < x < 1:
                        raise InputError(f"loads[{i}]: a resource load must be in (0, 1), got {format_exact(x)}")
            info = figures.draw(number, out, loads=points, tol=tol, progress=progress and fmt == "table",
                                packet_options={"flows": flows, "mean_size": mean_size, "window": window, "seed": seed})
        except InputError as exc:
            fail(str(exc))
        if fmt == "json":
            emit_json(report("dynamics-figure", [], **info))
            return
        typer.echo(f"wrote {info['path']} in {info['seconds']:.1f} s (fluid curves {info['fluid_seconds']:.1f} s); "
                      f"largest truncation boundary mass {info['max_boundary_mass']:.1e}")
        for m, pts in info["packets"].items():
            for p in pts:
                fl = ", ".join(f"{x:.3f}" for x in p["fluid"]) if p["fluid"] else "-"
                pk = ", ".join(f"{x:.3f}" for x in p["gamma"])
                typer.echo(f"  {m} load {p['load']}: packets γ = {pk}; fluid γ = {fl}")
        for c in info["orderings"]:
            mark = "holds" if c["holds"] else "FAILS"
            typer.echo(f"[{mark}] Figure {c['figure']}: {c['claim']} — {c['detail']}")

    @sub.command("packets")
    def packets_cmd(
        scheduler: str = typer.Option("all", "--scheduler", "-s", help="drf | pf | bmf | all"),
        requirements: str = typer.Option(DEFAULT_REQUIREMENTS, "--requirements", help="class requirement vectors"),
        loads: str = typer.Option(..., "--loads", help="per-class loads ρ1,ρ2,..."),
        flows: int = typer.Option(3000, "--flows", help="number of flow arrivals"),
        mean_size: float = typer.Option(50, "--mean-size", help="mean flow size in packets (geometric)"),
        window: int = typer.Option(5, "--window", help="per-flow window W (packets)"),
        seed: int = typer.Option(0, "--seed"),
        progress: bool = typer.Option(True, "--progress/--no-progress"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
    ):
        """Simulate the SFQ packet schedulers (§3) and compare γ_k with the fluid model (§4.4)."""
        check_format(fmt)
        names = packets.SCHEDULERS if scheduler == "all" else (scheduler,)
        out = []
        try:
            _check_packet_options(flows, mean_size, window, seed)
            req = markov.parse_requirements(requirements)
            rho = markov.parse_vector(loads, "loads", len(req))
            markov.check_stable(req, rho)
            for name in names:
                res = packets.simulate(name, req, rho, flows=flows, mean_size=mean_size, window=window, seed=seed,
                                       progress=progress and fmt == "table")
                fluid = markov.solve(name, req, rho)
                out.append((res, fluid))
        except InputError as exc:
            fail(str(exc))
        if fmt == "json":
            emit_json(report("dynamics-packets", [], runs=[
                {**to_json(r, versioned=False), "packets_per_second": r.packets_per_second, "fluid_gamma": f.gamma,
                 "relative_difference": [abs(a - b) / b for a, b in zip(r.gamma, f.gamma)]} for r, f in out]))
            return
        table = Table(title=f"packet schedulers vs fluid model"
                            f" ({flows} flows, mean {mean_size} packets, W={window}, seed {seed})")
        for col in ("scheduler", "class", "γ packets", "γ fluid", "rel. diff", "packets/s"):
            table.add_column(col, justify="right")
        for r, f in out:
            for k in range(len(r.gamma)):
                table.add_row(r.scheduler if k == 0 else "", str(k + 1), f"{r.gamma[k]:.4f}", f"{f.gamma[k]:.4f}",
                              f"{abs(r.gamma[k] - f.gamma[k]) / f.gamma[k]:.3f}",
                              f"{r.packets_per_second:,.0f}" if k == 0 else "")
        console.print(table)

    @sub.command("cluster")
    def cluster_cmd(
        scheduler: str = typer.Option("all", "--scheduler", "-s", help="drf | pf | bmf | all"),
        demands: str = typer.Option("1,10;10,1;10,10", "--demands", help="per-task demands of each job 'd11,d12;...'"),
        capacities: str = typer.Option("1000,1000", "--capacities", help="pool sizes C1,C2,..."),
        completions: int = typer.Option(20000, "--completions", help="task completions to simulate"),
        seed: int = typer.Option(0, "--seed"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
    ):
        """Most-deprived-job task schedulers (§3): long-run running tasks vs the fluid allocation."""
        check_format(fmt)
        names = cluster.SCHEDULERS if scheduler == "all" else (scheduler,)
        try:
            params.integer(completions, "--completions", 100, MAX_COMPLETIONS)
            params.seed(seed)
            D = markov.parse_requirements(demands)
            C = _check_cluster(D, capacities)
            out = [cluster.simulate(n, D, C, completions=completions, seed=seed) for n in names]
        except InputError as exc:
            fail(str(exc))
        if fmt == "json":
            emit_json(report("dynamics-cluster", [], runs=[
                {**to_json(r, versioned=False), "relative_error": r.relative_errors()} for r in out]))
            return
        table = Table(title=f"cluster schedulers ({completions} task completions, seed {seed})")
        for col in ("scheduler", "job", "mean running tasks", "fluid tasks", "rel. error"):
            table.add_column(col, justify="right")
        for r in out:
            for i, (m, f) in enumerate(zip(r.mean_tasks, r.fluid_tasks)):
                table.add_row(r.scheduler if i == 0 else "", str(i + 1), f"{m:.3f}", f"{f:.3f}",
                              f"{abs(m - f) / f:.3f}")
        console.print(table)

    @sub.command("optimal-ratio")
    def optimal_ratio_cmd(
        agents: int = typer.Option(4, "--agents", "-k", help="largest number of agents present at once (1..4)"),
        mechanisms: bool = typer.Option(True, "--mechanisms/--no-mechanisms",
                                        help="also the worst ratios of controlled-drf, fpv-optimal and dynamic-drf "
                                             "over every event sequence of up to k agents (k = 4: minutes)"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
    ):
        """The best fairness ratio any online mechanism with at most d disruptions per event can guarantee
        (one resource, at most k agents present; exact), beside the dynamic mechanisms' worst ratios."""
        from fairlab.search import optimal_ratio

        check_format(fmt)
        try:
            params.integer(agents, "--agents", 1, optimal_ratio.MAX_TABLE_AGENTS)
            found = optimal_ratio.table(agents, mechanisms=mechanisms,
                                        progress=(lambda text: typer.echo(text, err=True)) if mechanisms else None)
        except InputError as exc:
            fail(str(exc))
        if fmt == "json":
            emit_json(report("optimal-fairness-ratio", [], **found))
            return
        console.print(f"model: {found['model']}")
        for setting in ("arrivals only", "arrivals and departures"):
            rows = [r for r in found["rows"] if r["setting"] == setting]
            table = Table(title=f"optimal fairness ratio, {setting} (exact; the mechanisms: worst over every sequence "
                                f"of up to k agents, each arriving once and leaving at most once)")
            for col in ("k", "d", "optimum", "fpv-optimal", "controlled-drf", "dynamic-drf"):
                table.add_column(col, justify="right")
            for r in rows:
                cells = {m["mechanism"]: m for m in r["mechanisms"]}

                def cell(name, cells=cells):
                    m = cells.get(name)
                    if m is None:
                        return "-"
                    if m["ratio"] is None:
                        return f"declined ({m['declined']})"
                    return format_exact(m["ratio"]) + (f" ({m['disruptions']} disr.)" if name == "dynamic-drf" else "")

                table.add_row(str(r["agents"]), str(r["d"]), format_exact(r["optimum"]), cell("fpv-optimal"),
                              cell("controlled-drf"), cell("dynamic-drf"))
            console.print(table)
        console.print("d >= k - 1 always reaches 1 (every present agent may be moved to 1/k). The optimum is "
                      "exact over every event sequence (a finite safety game on classes of shares r/c); a "
                      "mechanism's ratio is its worst on the family listed, so below the optimum proves it "
                      "suboptimal.")
