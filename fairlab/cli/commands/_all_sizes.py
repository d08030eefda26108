"""`fairlab prove MECHANISM PROPERTY --all-sizes`: its option checks and its table output
(`fairlab.search.all_sizes.prove_all_sizes`)."""

from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape

from fairlab.core.errors import InputError
from fairlab.core.results import domain_text, to_json

#: the outer stop of an all-size proof when --time-limit is not given (seconds)
DEFAULT_TIME_LIMIT = 600.0


def check_options(catalogue: bool, users: int, resources: int, attempts) -> None:
    """--all-sizes proves every size: -n/-m, --attempts and --catalogue do not go with it."""
    if catalogue:
        raise InputError("--all-sizes: not with --catalogue (the catalogue proves fixed sizes)")
    if (users, resources) != (2, 2):
        raise InputError(f"--all-sizes: proves every number of users and resources; drop -n/-m (got {users} x "
                         f"{resources})")
    if attempts is not None:
        raise InputError("--attempts: for fixed-size proofs (an all-size proof has one z3 query per step)")


def print_result(result) -> None:
    """The all-size proof as text: verdict, domain, gates, the abstraction, each step with its core
    and control, the induction lemmas, the large-size mutant, what the proof rests on, the budget."""
    d, b = result.details, result.budget
    cert = result.certificate or {}
    console = Console()
    colour = {"proved": "green", "proved-by-lemma": "green"}.get(result.status, "yellow")
    console.print(f"[bold]{escape(result.mechanism)}[/bold] {result.property} at every size "
                  f"({d.get('users', 'n >= 1')} users, {d.get('resources', 'm >= 1')} resources): "
                  f"[{colour}]{result.status}[/{colour}] in {result.seconds:.1f} s")
    console.print(f"why: {escape(result.explanation)}")
    if result.domain:
        console.print(f"domain: {escape(domain_text(result.domain))}")
    if d.get("scope"):
        console.print(f"scope: {d['scope']}" + (" (the declared spec, not the allocator)" if d["scope"] == "spec"
                                                 else ""))
    if d.get("gates"):
        console.print("gates: " + ", ".join(f"{g} {state}" for g, state in d["gates"].items()))
    if d.get("abstraction"):
        console.print("abstraction (each statement proved from the schema, at every size):")
        for s in d["abstraction"]:
            console.print(f"  · {escape(s['statement'])}: {escape(s['text'])}")
    for step in d.get("steps", []):
        line = f"step {step['step']} ({escape(step['shows'])}): {step['result']}, {step['instances']} instances"
        if step.get("core"):
            line += f", core {len(step['core'])}"
        control = step.get("control")
        if control:
            size = f"{control['size'][0]}x{control['size'][1]}"
            line += f"; control: without {', '.join(control['dropped'])} a {size} instance violates it"
        console.print(line, markup=False)
    if d.get("lemmas"):
        console.print(f"lemmas ({len(d['lemmas'])}, each by induction, base and step UNSAT):")
        for lemma in d["lemmas"]:
            console.print(f"  · {escape(lemma['lemma'])}: {escape(lemma['statement'])}")
    mutant = d.get("large_size_mutant")
    if mutant and mutant.get("passed"):
        where = json.dumps(to_json(mutant["instance"], versioned=False))
        console.print(f"large-size mutant ({mutant['mutant']}): not proved — step {mutant['failing_step']} fails at "
                      f"{mutant['size'][0]}x{mutant['size'][1]} on {where}", markup=False)
    for rule in d.get("rules", []):
        console.print(f"rests on: {escape(rule)}")
    console.print(f"budget: rlimit {b['rlimit']:,} per step and lemma query, {len(d.get('queries', []))} z3 queries, "
                  f"{b['rlimit_spent']:,} units spent; outer stop {b['time_limit']:g} s", markup=False)
    if cert and result.status in ("proved", "proved-by-lemma"):
        console.print("certificate: the steps' unsat cores, controls and lemmas (--format json)")
