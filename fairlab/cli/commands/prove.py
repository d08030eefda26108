"""`fairlab prove`: machine-checked proofs (UNSAT over the reals) and the theorem catalogue."""

from __future__ import annotations

import time
from typing import List, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from fairlab.cli.commands import _params as params
from fairlab.cli.commands.conformance import output_to_stderr
from fairlab.core.errors import InputError
from fairlab.mechanisms.plugin import time_limit as plugin_time_limit


def proof_fixture(proof, mechanism, options: dict) -> dict | None:
    """A refutation of a property is also a counterexample: the fixture record for it, hashed and
    re-verifiable exactly as `fairlab.counterexamples.verify` does it (same canonical form, same options).
    None for a relation (`same-as:X`): a disagreement of two mechanisms is not a property violation."""
    from fairlab.counterexamples import store
    from fairlab.core.instance import Instance

    if proof.property.startswith("same-as:"):
        return None
    inst = Instance.from_dict(proof.instance)
    return {
        "kind": "nonunique" if proof.property == "unique" else "violation",
        "claim": None,
        "mechanism": proof.mechanism,
        "property": proof.property,
        "options": dict(options),
        "instance": inst.to_dict(),
        "witness": proof.witness,
        "explanation": proof.reason,
        "engine": "prove",
        "seed": None,
        "seconds": round(proof.seconds, 3),
        "minimality": store.minimality(inst),
        "canonical_hash": store.canonical_hash(proof.mechanism, proof.property, inst,
                                               rescale_rows=not mechanism.discrete),
        "found_by": "z3 model of spec ∧ ¬property found by `fairlab prove`, confirmed exactly",
    }


def run_catalogue(time_limit: float, fast_only: bool, entries=None, progress=None, rlimit: int | None = None,
                  attempts: int | None = None) -> list[dict]:
    """For each entry, the sizes in order until one is not decided as expected within the budget
    (`rlimit`/`attempts`: the proof schedule, default `fairlab.search.prove`'s; `time_limit`: the outer
    stop per size)."""
    from fairlab import mechanisms
    from fairlab.search.catalogue import CATALOGUE
    from fairlab.search.prove import ProveBudget, prove

    budget = ProveBudget(seconds=float(time_limit), **({"rlimit": rlimit} if rlimit is not None else {}),
                         **({"attempts": attempts} if attempts is not None else {}))
    rows = []
    for entry in entries or CATALOGUE:
        sizes = entry.fast if fast_only else entry.sizes
        if not sizes:
            continue
        checked = []
        for n, m in sizes:
            if progress:
                progress(f"{entry.id} at {n}×{m}")
            proof = prove(mechanisms.get(entry.mechanism), entry.property, n, m, time_limit=time_limit,
                          positive_demands=entry.positive_demands, budget=budget, options=dict(entry.options))
            checked.append({"users": n, "resources": m, "verdict": proof.verdict, "seconds": round(proof.seconds, 3),
                            "rlimit_spent": proof.rlimit_spent, "reason": proof.reason})
            if proof.verdict != entry.expected:
                break
        as_expected = [c for c in checked if c["verdict"] == entry.expected]
        largest = max(((c["users"], c["resources"]) for c in as_expected), default=None)
        rows.append({
            "entry": entry.id, "mechanism": entry.mechanism, "property": entry.property,
            "options": dict(entry.options),
            "expected": entry.expected, "source": entry.source, "note": entry.note,
            "largest": list(largest) if largest else None, "checked": checked, "budget": budget.to_dict(),
            "ok": bool(checked) and all(c["verdict"] == entry.expected for c in checked[:1]),
        })
    return rows


def register(app: typer.Typer) -> None:
    from fairlab.cli import check_format, emit_json, fail, parse_options

    @app.command("prove")
    def prove_cmd(
        mechanism: Optional[str] = typer.Argument(None, help="mechanism name or file.py:function (with a .spec)"),
        prop: Optional[str] = typer.Argument(None, metavar="PROPERTY",
                                             help="property name, or 'unique', or 'same-as:MECHANISM'"),
        users: int = typer.Option(2, "--users", "-n"),
        resources: int = typer.Option(2, "--resources", "-m"),
        time_limit: float = typer.Option(60.0, "--time-limit",
                                         help="seconds, outer stop only: gives unknown (time) (per size with --catalogue)"),
        rlimit: int = typer.Option(None, "--rlimit", show_default=False,
                                   help="z3 resource limit of the first proof attempt (decides; default "
                                        "10,000,000, doubling per attempt)"),
        attempts: int = typer.Option(None, "--attempts", show_default=False,
                                     help="proof attempts: seeds 0, 1, ... with the rlimit doubling (default 4)"),
        positive: bool = typer.Option(False, "--positive-demands", help="assume every demand > 0"),
        option: Optional[List[str]] = typer.Option(None, "--option", "-o", help="mechanism option KEY=VALUE"),
        catalogue: bool = typer.Option(False, "--catalogue", help="run the theorem catalogue"),
        fast: bool = typer.Option(False, "--fast", help="with --catalogue: only the sizes of the CI subset"),
        no_store: bool = typer.Option(False, "--no-store", help="do not write a fixture for a refutation"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
    ):
        """Prove PROPERTY of MECHANISM for all real demands of a size (spec ∧ ¬property UNSAT), or refute it."""
        from fairlab import mechanisms
        from fairlab.counterexamples import store
        from fairlab.search.prove import prove

        check_format(fmt)
        try:
            params.seconds(time_limit)
            if rlimit is not None:
                params.integer(rlimit, "--rlimit", 1, 10 ** 12)
            if attempts is not None:
                params.integer(attempts, "--attempts", 1, 12)
            if catalogue and (mechanism is not None or prop is not None or option):
                extra = " ".join([*filter(None, (mechanism, prop)), *(f"-o {o}" for o in option or [])])
                raise InputError(f"--catalogue: runs every catalogue entry, takes no MECHANISM, PROPERTY or "
                                 f"--option (got {extra})")
            if not catalogue:
                params.size(users, resources)
        except InputError as exc:
            fail(str(exc))
        if catalogue:
            console = Console(stderr=True)
            with console.status("catalogue") as status, output_to_stderr():
                rows = run_catalogue(time_limit, fast, progress=lambda text: status.update(text), rlimit=rlimit,
                                     attempts=attempts)
            if fmt == "json":
                emit_json(rows, result=True)
            else:
                b = rows[0]["budget"] if rows else {"rlimit": rlimit, "attempts": attempts}
                table = Table(title=f"theorem catalogue (rlimit {b['rlimit']:,} doubling over {b['attempts']} attempts; "
                                    f"outer stop {time_limit:g} s per size)")
                for col in ("entry", "expected", "largest (n, m) as expected", "checked", "source"):
                    table.add_column(col, overflow="fold")
                for r in rows:
                    checked = ", ".join(f"{c['users']}×{c['resources']} {c['verdict']} {c['seconds']:.1f}s "
                                        f"{c['rlimit_spent'] / 1e6:.1f}M" for c in r["checked"])
                    largest = "×".join(map(str, r["largest"])) if r["largest"] else "[red]none[/red]"
                    table.add_row(r["entry"], r["expected"], largest, checked, r["source"])
                out = Console()
                out.width = max(out.width, 160)
                out.print(table)
            if any(not r["ok"] for r in rows):
                raise typer.Exit(1)
            return
        if mechanism is None or prop is None:
            fail("prove: give MECHANISM and PROPERTY, or --catalogue")
        try:
            with output_to_stderr(), plugin_time_limit(time_limit):
                mech = mechanisms.get(mechanism)
                proof = prove(mech, prop, users, resources, time_limit=time_limit, options=parse_options(option),
                              positive_demands=positive, rlimit=rlimit, attempts=attempts)
        except InputError as exc:
            fail(str(exc))
        data = proof.to_dict()
        data["fixture"] = None
        record = proof_fixture(proof, mech, parse_options(option)) if proof.verdict == "refuted" else None
        if record is not None and not no_store:
            path, _ = store.save(record)
            data["fixture"] = str(path)
        if fmt == "json":
            emit_json(data, result=True)
            return
        console = Console()
        colour = {"proved": "green", "refuted": "red"}.get(proof.verdict, "yellow")
        console.print(f"[bold]{mech.name}[/bold] {prop} at {users} users × {resources} resources: "
                      f"[{colour}]{proof.verdict}[/{colour}] in {proof.seconds:.2f} s")
        console.print(f"why: {escape(proof.reason)}")
        for r in proof.reductions:
            console.print(f"  · {r}")
        gates = ", ".join(f"{g} {state}" for g, state in proof.gates.items())
        console.print(f"gates: {gates}")
        for report in proof.conformance:
            console.print(f"  · {escape(report['explanation'])}")
        if proof.core:
            console.print(f"core ({len(proof.core)}): {', '.join(c for c in proof.core if not c.startswith('domain.'))}")
        if proof.control:
            console.print(f"positive control: without {proof.control['dropped']} z3 finds a violation "
                          f"(instance {proof.control['instance']})")
        if proof.witness:
            console.print(f"instance: {proof.instance}\nwitness: {proof.witness}")
        if data["fixture"]:
            console.print(f"fixture: {data['fixture']}")
        b = proof.budget
        console.print(f"budget: rlimit {b['rlimit']:,} doubling over {b['attempts']} attempts (seeds "
                      f"{', '.join(str(seed) for seed, _ in b['schedule'])}), {len(proof.queries)} z3 queries, "
                      f"{proof.rlimit_spent:,} units spent; outer stop {b['time_limit']:g} s")
