"""`fairlab lift FINDING -n N -m M`: a found violation at a larger size (see `fairlab.search.lift`).

    fairlab lift thm1-asset-si -n 8 -m 8 --out lifted.json     # a rediscover claim's shipped fixture
    fairlab lift my-finding.json -n 5 -m 3 --format json        # a fixture file; the result on stdout

The lifted finding is verified exactly before anything is said or written; ``--out`` writes it as a
fixture (re-verified from scratch again first) that ``fairlab store verify`` checks. Exit 0 when the
finding was lifted, 1 when no rule kept it or it was not decided (nothing written), 2 on bad input.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from fairlab.cli.commands import _params as params
from fairlab.cli.commands.search import STORE_HELP
from fairlab.cli.inputs import check_format, fail
from fairlab.cli.output import console, emit_json
from fairlab.core.errors import InputError
from fairlab.core.results import Status


def register(app: typer.Typer) -> None:
    @app.command("lift")
    def lift_cmd(
        finding: str = typer.Argument(..., metavar="FINDING", help="a fixture file, a rediscover claim (its shipped "
                                      "fixture) or the id of a finding in the store"),
        users: int = typer.Option(..., "--users", "-n", help="users of the lifted instance (at least the finding's)"),
        resources: int = typer.Option(..., "--resources", "-m", help="resources of the lifted instance (at least "
                                      "the finding's)"),
        out: Optional[Path] = typer.Option(None, "--out", "-o", metavar="FILE",
                                           help="write the lifted finding there (a fixture file)"),
        store: Optional[str] = typer.Option(None, "--store", metavar="DIR", help=STORE_HELP),
        plugin: Optional[List[Path]] = typer.Option(None, "--plugin", metavar="PATH",
                                                    help="a plug-in file the finding names (repeatable)"),
        domain: Optional[str] = typer.Option(None, "--domain", help=params.DOMAIN_HELP + "; the lifted instance must "
                                             "lie in it too"),
        evaluations: int = typer.Option(300, "--evaluations", help="mechanism runs the property's check may spend "
                                        "when the carried-over witness does not show the violation"),
        seed: int = typer.Option(0, "--seed", help="seed of that check"),
        time_limit: float = typer.Option(300.0, "--time-limit", help="outer stop in seconds (then: unknown)"),
        fmt: str = typer.Option("table", "--format", help="table | json"),
    ):
        """Lift FINDING to N users × M resources: added users are inert (whole tasks) or copies of a user,
        added resources copies of the mean-share column or of a resource, and the lifted violation is
        verified exactly (exit 1 and nothing written if no rule keeps it). Also says which sizes the
        finding's lifting covers and by which lemma."""
        check_format(fmt)
        from fairlab.search import lift as lifting

        try:
            params.seconds(time_limit)
            params.integer(evaluations, "--evaluations", 1)
            if out is not None and str(out).strip() == "":
                raise InputError("--out: the file name is empty")
            result = lifting.lift(finding, users, resources, store=store, plugins=plugin or (),
                                  domain=params.domain(domain), time_limit=time_limit, evaluations=evaluations,
                                  seed=seed)
            written = None
            if out is not None and result.status in (Status.VIOLATED, Status.FOUND):
                written = lifting.write(result, out, plugin or ())
        except InputError as exc:
            fail(str(exc))
        if fmt == "json":
            emit_json(result)
        else:
            _print(result, written)
        if result.status not in (Status.VIOLATED, Status.FOUND):
            raise typer.Exit(1)


def _print(result, written) -> None:
    d = result.details
    status = result.status.value
    colour = "red" if status in ("violated", "found") else "yellow"
    console.print(f"{result.mechanism} vs {result.property} lifted from {d['base']['users']}×"
                  f"{d['base']['resources']} to {d['users']}×{d['resources']}: [bold {colour}]{status}[/bold {colour}]")
    console.print(result.explanation, markup=False)
    if result.status not in (Status.VIOLATED, Status.FOUND):
        for t in d["tried"]:
            console.print(f"  tried users {t['users'] or '—'}, resources {t['resources'] or '—'}: {t['outcome']}",
                          markup=False)
    console.print(f"sizes covered: {d['coverage']['sizes']}", markup=False)
    if written is not None:
        console.print(f"written: {written} (re-verified exactly)", markup=False)
    elif result.status not in (Status.VIOLATED, Status.FOUND):
        console.print("nothing written", markup=False)
