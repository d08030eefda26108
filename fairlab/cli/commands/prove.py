"""`fairlab prove`: machine-checked proofs (UNSAT over the reals) and the theorem catalogue.

Parses, calls `fairlab.search.prove` (a refutation is stored in the user's store: ``--store DIR``,
else ``$FAIRLAB_STORE``, else the per-user default) or the catalogue
(`fairlab.campaign.lab_sweeps.catalogue`: its entries in parallel), and prints the `Result`
(``--format json``: `to_json`) or the catalogue's `report`.
"""

from __future__ import annotations

import json
from typing import List, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from fairlab.campaign import lab_sweeps
from fairlab.cli import progress as progress_
from fairlab.cli.commands import _all_sizes
from fairlab.cli.commands import _parallel as parallel
from fairlab.cli.commands import _params as params
from fairlab.cli.commands.search import STORE_HELP
from fairlab.cli.inputs import check_format, fail, parse_options
from fairlab.cli.output import console, emit_json
from fairlab.core.errors import InputError
from fairlab.core.results import domain_text, report, to_json
from fairlab.core.stdio import output_to_stderr
from fairlab.counterexamples.store import Store
from fairlab.mechanisms.plugin import time_limit as plugin_time_limit
from fairlab.search import prove
from fairlab.search.budgets import PROVE_SAFETY_NET
from fairlab.search.findings import writable_store
from fairlab.search.proof_gates import DOMAIN_PREFIX


def core_count(core: list[str]) -> str:
    """How many constraints of an unsat `core` the line lists: its domain bounds (``domain.*``) are
    left out, and the count says so ("11 of 19 shown; 8 domain bounds omitted")."""
    hidden = sum(1 for c in core if c.startswith(DOMAIN_PREFIX))
    if not hidden:
        return str(len(core))
    return f"{len(core) - hidden} of {len(core)} shown; {hidden} domain bound{'s' if hidden != 1 else ''} omitted"

def register(app: typer.Typer) -> None:
    @app.command("prove")
    def prove_cmd(
        mechanism: Optional[str] = typer.Argument(None, metavar="[MECHANISM]",
                                                  help="mechanism name or file.py:function (with a .spec)"),
        prop: Optional[str] = typer.Argument(None, metavar="PROPERTY",
                                             help="property name, or 'unique', or 'same-as:MECHANISM'"),
        users: int = typer.Option(2, "--users", "-n"),
        resources: int = typer.Option(2, "--resources", "-m"),
        time_limit: Optional[float] = typer.Option(
            None, "--time-limit", show_default=False,
            help="wall-clock safety net in seconds (default 600; per size with --catalogue; the larger of 600 and "
                 "the all-size prover's own with --all-sizes): gives unknown (wall-clock safety net); the counted "
                 "budget (--rlimit, --attempts) decides"),
        rlimit: int = typer.Option(None, "--rlimit", show_default=False,
                                   help="z3 resource limit of the first proof attempt (decides; default "
                                        "10,000,000, doubling per attempt)"),
        attempts: int = typer.Option(None, "--attempts", show_default=False,
                                     help="proof attempts: seeds 0, 1, ... with the rlimit doubling (default 4)"),
        positive: bool = typer.Option(False, "--positive-demands",
                                      help="assume every demand > 0 (the same as --domain demands=positive)"),
        domain: Optional[str] = typer.Option(None, "--domain", help=params.DOMAIN_HELP),
        option: Optional[List[str]] = typer.Option(None, "--option", "-o", help="mechanism option KEY=VALUE"),
        catalogue: bool = typer.Option(False, "--catalogue", help="run the theorem catalogue"),
        all_sizes: bool = typer.Option(False, "--all-sizes",
                                       help="prove for every number of users and resources (not -n/-m)"),
        fast: bool = typer.Option(False, "--fast", help="with --catalogue: only the sizes of the CI subset"),
        store: Optional[str] = typer.Option(None, "--store", metavar="DIR", help=STORE_HELP),
        no_store: bool = typer.Option(False, "--no-store", help="do not write a fixture for a refutation"),
        workers: Optional[int] = parallel.workers_option(),
        scheduler: Optional[str] = parallel.scheduler_option(),
        cluster: Optional[str] = parallel.cluster_option(),
        out: Optional[str] = parallel.out_option(),
        fmt: str = typer.Option("table", "--format", help="table | json"),
        progress: Optional[str] = progress_.option(),
    ):
        """Prove PROPERTY of MECHANISM for all real demands of a size (spec ∧ ¬property UNSAT), or refute it."""
        check_format(fmt)
        if time_limit is None:
            time_limit = max(PROVE_SAFETY_NET, _all_sizes.DEFAULT_TIME_LIMIT) if all_sizes else PROVE_SAFETY_NET
        try:
            params.seconds(time_limit)
            if rlimit is not None:
                params.integer(rlimit, "--rlimit", 1, 10 ** 12)
            if attempts is not None:
                params.integer(attempts, "--attempts", 1, 12)
            progress = progress_.choose(progress)
            if catalogue and (mechanism is not None or prop is not None or option):
                extra = " ".join([*filter(None, (mechanism, prop)), *(f"-o {o}" for o in option or [])])
                raise InputError(f"--catalogue: runs every catalogue entry, takes no MECHANISM, PROPERTY or "
                                 f"--option (got {extra})")
            if not catalogue and (workers, scheduler, cluster, out) != (None,) * 4:
                raise InputError("--workers, --scheduler, --cluster and --out go with --catalogue (one proof runs "
                                 "in this process)")
            asked = params.domain(domain)
            if catalogue and domain is not None:
                raise InputError("--domain: the catalogue's entries carry their own domains")
            if all_sizes:
                _all_sizes.check_options(catalogue, users, resources, attempts)
            if not catalogue:
                params.size(users, resources)
                target = None if no_store else writable_store(Store(store))  # a bad store: one line, up front
        except InputError as exc:
            fail(str(exc))
        if catalogue:
            try:
                where = parallel.check(workers, scheduler, cluster)
                with parallel.executor(where) as pool, progress_.Reporter(progress, "prove --catalogue") as shown:
                    rows = lab_sweeps.catalogue(time_limit, fast, executor=pool, rlimit=rlimit, attempts=attempts,
                                                out=out, progress=shown)
            except InputError as exc:
                fail(str(exc))
            if fmt == "json":
                emit_json(report("catalogue", rows, time_limit=time_limit))
            else:
                print_catalogue(rows, time_limit, rlimit, attempts)
            if any(not r.details["ok"] for r in rows):
                raise typer.Exit(1)
            return
        if mechanism is None or prop is None:
            fail("prove: give MECHANISM and PROPERTY, or --catalogue")
        try:
            with output_to_stderr(), plugin_time_limit(time_limit):
                if all_sizes:
                    result = prove(mechanism, prop, store=target, all_sizes=True, time_limit=time_limit,
                                   options=parse_options(option), positive_demands=positive, rlimit=rlimit,
                                   domain=asked)
                else:
                    result = prove(mechanism, prop, users, resources, store=target,
                                   time_limit=time_limit, options=parse_options(option), positive_demands=positive,
                                   rlimit=rlimit, attempts=attempts, domain=asked)
        except InputError as exc:
            fail(str(exc))
        if fmt == "json":
            emit_json(to_json(result))
            return
        if all_sizes:
            _all_sizes.print_result(result)
            return
        print_proof(result)


def print_catalogue(rows, time_limit: float, rlimit, attempts) -> None:
    b = rows[0].budget if rows else {"rlimit": rlimit, "attempts": attempts}
    table = Table(title=f"theorem catalogue (rlimit {b['rlimit']:,} doubling over {b['attempts']} attempts; "
                        f"outer stop {time_limit:g} s per size)")
    for col in ("entry", "expected", "largest (n, m) as expected", "checked", "source"):
        table.add_column(col, overflow="fold")
    for r in rows:
        d = r.details
        checked = ", ".join(f"{c['users']}×{c['resources']} {c['status']} {c['seconds']:.1f}s "
                            f"{c['rlimit_spent'] / 1e6:.1f}M" for c in d["checked"])
        largest = "×".join(map(str, d["largest"])) if d["largest"] else "[red]none[/red]"
        table.add_row(d["entry"], d["expected"], largest, checked, d["source"])
    out = Console()
    out.width = max(out.width, 160)
    out.print(table)


def _print_grid_proof(console, result) -> None:
    d, b = result.details, result.budget
    console.print(f"method: {escape(str(d.get('method', '')))}")
    if result.witness:
        console.print(f"instance: {to_json(result.instance, versioned=False)}\n"
                      f"witness: {to_json(result.witness, versioned=False)}")
    if d.get("fixture"):
        console.print(f"fixture: {d['fixture']}")
    console.print(f"budget: {escape(json.dumps(to_json(b, versioned=False)))}", markup=False)


def print_proof(result) -> None:
    d, b = result.details, result.budget
    certificate = result.certificate or {}
    colour = {"proved": "green", "refuted": "red"}.get(result.status, "yellow")
    label = escape(result.label())
    console.print(f"[bold]{escape(result.mechanism)}[/bold] {result.property} at {d['users']} users × "
                  f"{d['resources']} resources: [{colour}]{label}[/{colour}] in {result.seconds:.2f} s")
    console.print(f"why: {escape(result.explanation)}")
    if result.domain:
        console.print(f"domain: {escape(domain_text(result.domain))}")
    if "gates" not in d:  # a setting without a symbolic proof (machines): an exhaustive finite grid
        _print_grid_proof(console, result)
        return
    if d.get("scope"):
        note = " (the declared spec, not the allocator)" if d["scope"] == "spec" else ""
        console.print(f"scope: {d['scope']}{note}")
    for r in d["reductions"]:
        console.print(f"  · {r}")
    gates = ", ".join(f"{g} {state}" for g, state in d["gates"].items())
    console.print(f"gates: {gates}")
    for report_ in d["conformance"]:
        console.print(f"  · {escape(str(report_.get('summary', report_.get('explanation', ''))))}")
    core = certificate.get("core") or []
    if core:
        shown = ", ".join(c for c in core if not c.startswith(DOMAIN_PREFIX))
        console.print(f"core ({core_count(core)}): {shown}")
    if certificate.get("control"):
        control = certificate["control"]
        dropped = ", ".join(control.get("dropped_together") or [control["dropped"]])
        console.print(f"positive control: without {dropped} z3 finds a violation "
                      f"(instance {control['instance']})")
    if result.witness:
        console.print(f"instance: {to_json(result.instance, versioned=False)}\n"
                      f"witness: {to_json(result.witness, versioned=False)}")
    if d.get("fixture"):
        console.print(f"fixture: {d['fixture']}")
    console.print(f"budget: rlimit {b['rlimit']:,} doubling over {b['attempts']} attempts (seeds "
                  f"{', '.join(str(seed) for seed, _ in b['schedule'])}), {len(d['queries'])} z3 queries, "
                  f"{b['rlimit_spent']:,} units spent; outer stop {b['time_limit']:g} s")
