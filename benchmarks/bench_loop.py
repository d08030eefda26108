"""The speed table of the "fast exact arithmetic and a loop in seconds" work, one row per figure,
each measured in this run beside the figure it was filed with (the "filed" column: measured on
this 2-core machine, quiet, before the work) and the goal. Where a row is a ratio, both sides are
measured here, interleaved.

    python benchmarks/bench_loop.py [--repeat 2] [--candidates 500] [--suite]

Rows:
* asset / drf, 2000 x 3 and 1000 x 10: CPU seconds of the two exact fills on the same instance
  (`bench_asset.instance`), best of --repeat, their ratio;
* audit of a spec-less plug-in at 3 x 3 (serial dictatorship): `fairlab audit ... --no-store`
  in a fresh process, wall seconds and the CPU seconds of its own process (not its workers');
* the same allocator with its spec against without (`benchmarks/plugins/spec_twins.py`), 3 x 3:
  the ratio of the two audits' wall seconds (CPU beside it);
* sp search at drf 3 x 3, grid + random: exact candidates decided per second
  (`fairlab.search.engines.search`, --candidates candidates: by default `fairlab search`'s 500,
  so each instance shape's template, built once, weighs as in a user's run);
* `fairlab rediscover`: wall seconds in a fresh process (CPU: the command's own process only; the
  workers the fork server starts are not its children);
* the default suite (--suite only: minutes): wall seconds of `python -m pytest -q`.

A row whose goal is not met says, in its last column, what limits it (measured in this run where it
can be: the audit's costliest properties from its own report, one sp check's cost with and without
its z3 question, the costliest rediscover claims) and the next step.

On a machine shared with other work the wall clock moves with the load; the CPU column much less.

Two filed figures are not what the filing day's code measures on this machine today: at 6a3e384
(the commit that added this table, 2026-11-27) the same spec-less audit took 77.8 s and
`fairlab rediscover` 15.8 s (2026-11-29, quiet), against 10.7 s and 6.8 s filed. Read those rows'
"now" against these too.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_asset import instance as asset_instance  # noqa: E402

from fairlab import mechanisms  # noqa: E402
from fairlab.properties import _parametric  # noqa: E402
from fairlab.search import engines  # noqa: E402
from fairlab.search.budgets import CHECK_EVALUATIONS, CHECK_RLIMIT, DEFAULT_CANDIDATES  # noqa: E402

#: what the CPU column of a command counts: its own process (workers started by the fork server are
#: not its children, so their CPU is not in `RUSAGE_CHILDREN`)
OWN = " in the command's own process"
SD = f"{ROOT / 'examples/plugins/serial_dictatorship.py'}:serial_dictatorship"
TWINS = ROOT / "benchmarks/plugins/spec_twins.py"


def cpu_of(fn, *args):
    start = time.process_time()
    out = fn(*args)
    return time.process_time() - start, out


def child(args: list[str]) -> tuple[float, float, str]:
    """Wall and CPU seconds (the child and every process it waited for) and stdout of a command."""
    start, before = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(args, capture_output=True, text=True, stdin=subprocess.DEVNULL, cwd=ROOT)
    wall, after = time.monotonic() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)}: exit {done.returncode}: {done.stderr.strip()[-400:]}")
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), done.stdout


def audit(mechanism: str) -> tuple[float, float, dict]:
    """Wall and CPU seconds and the JSON report of a 3 x 3 audit in a fresh process."""
    wall, cpu, out = child([sys.executable, "-m", "fairlab", "audit", mechanism, "-n", "3", "-m", "3", "--no-store",
                            "--format", "json", "--progress", "none"])
    return wall, cpu, json.loads(out)


def sp_check_split(count: int = 12) -> tuple[float, float, float]:
    """Milliseconds of one exact sp check of drf at 3 x 3 as the search asks it (its per-check budget)
    with its z3 questions from warm templates, without them (`symbolic=False`: the numeric
    misreports alone), mean over the search's first `count` random candidates; and of building one
    shape's template (`fairlab.properties._parametric`: the first check of a shape, less a warm one)."""
    import itertools

    from fairlab import properties
    from fairlab.properties import _parametric
    from fairlab.search import space

    instances = list(itertools.islice(space.random_instances(3, 3, seed=0), count))

    def mean(symbolic: bool) -> float:
        start = time.process_time()
        for inst in instances:
            properties.check("drf", "sp", inst, symbolic=symbolic, evaluations=CHECK_EVALUATIONS,
                             rlimit=CHECK_RLIMIT)
        return 1000 * (time.process_time() - start) / count

    mean(True)  # the templates of these shapes built
    warm, numeric = mean(True), mean(False)
    _parametric.forget()
    first = time.process_time()
    properties.check("drf", "sp", instances[0], evaluations=CHECK_EVALUATIONS, rlimit=CHECK_RLIMIT)
    build = 1000 * (time.process_time() - first) - warm
    return warm, numeric, build


def row(what: str, now: str, filed: str, goal: str, met: bool | None, limit: str = "") -> None:
    """One row; `limit` (said only when the goal is not met): what limits the figure, measured in
    this run where it can be, and the next step."""
    mark = "" if met is None else ("met" if met else "NOT met")
    print(f"| {what} | {now} | {filed} | {goal} | {mark} | {'' if met else limit} |", flush=True)


def audit_split(report: dict) -> dict[str, tuple[float, int]]:
    """Seconds and searched candidates per property of an audit's JSON report."""
    return {p["property"]: (float(p["seconds"]), sum(s.get("candidates", 0) for s in p["sizes"]))
            for p in report["properties"]}


def costliest(split: dict[str, tuple[float, int]], k: int = 3) -> str:
    return ", ".join(f"{name} {sec:.0f} s for {cands} candidates ({1000 * sec / max(cands, 1):.0f} ms each)"
                     for name, (sec, cands) in sorted(split.items(), key=lambda kv: -kv[1][0])[:k])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--candidates", type=int, default=DEFAULT_CANDIDATES,
                        help="of the sp search row (default: `fairlab search`'s)")
    parser.add_argument("--suite", action="store_true", help="also time the default suite (minutes)")
    args = parser.parse_args()
    drf, asset = mechanisms.get("drf"), mechanisms.get("asset")
    stolen_before = stolen()
    print("| what | now (this run) | filed | goal | | what limits it · next step |", "|---|---|---|---|---|---|",
          sep="\n", flush=True)

    for n, m, filed in ((2000, 3, "16×"), (1000, 10, "178×")):
        inst = asset_instance(n, m, 0)
        best = {"drf": float("inf"), "asset": float("inf")}
        tasks: tuple = ()
        for _ in range(args.repeat):
            for name, mech in (("drf", drf), ("asset", asset)):
                seconds, allocation = cpu_of(mech.allocate, inst)
                best[name] = min(best[name], seconds)
                tasks = allocation.tasks if name == "asset" else tasks
        ratio = best["asset"] / best["drf"]
        bits = max(t.numerator.bit_length() for t in tasks)
        row(f"asset / drf, {n} users × {m} resources", f"{ratio:.1f}× (asset {best['asset']:.2f} s CPU)", filed,
            "≤ 3×", ratio <= 3,
            f"asset's tasks are level / sigma_i with numerators of up to {bits} bits (DRF's are small): the "
            "Fractions handed back are the floor; next: keep the tasks on the GMP back end until they are printed")

    wall, cpu, report = audit(SD)
    split = audit_split(report)
    total = sum(cands for _, cands in split.values())
    row("audit of a plug-in without spec, 3×3 (serial dictatorship)", f"{wall:.1f} s ({cpu:.1f} s CPU{OWN})", "10.7 s",
        "≤ 8 s", wall <= 8,
        f"the counted budget: {total} candidates (--candidates 100 per size and property); the costliest: "
        f"{costliest(split)}. A candidate of a deviation property is a search of up to {CHECK_EVALUATIONS} exact "
        "evaluations, "
        "each run twice (the determinism check) in the plug-in's process. Next: run a candidate's whole deviation "
        "search inside the plug-in's worker (one round trip per candidate) and an exact best response for "
        "piecewise-linear allocators")

    without = audit(f"{TWINS}:without_spec")
    with_ = audit(f"{TWINS}:with_spec")
    ratio = with_[0] / without[0]
    base = audit_split(without[2])
    extra = {name: (sec - base.get(name, (0.0, 0))[0], cands) for name, (sec, cands) in audit_split(with_[2]).items()}
    row("the same allocator with its spec / without, 3×3 (static partition)",
        f"{ratio:.2f}× ({with_[0]:.1f} s against {without[0]:.1f} s; CPU {with_[1]:.1f} / {without[1]:.1f} s{OWN})",
        "15.7× (204 s against 13 s)", "≤ 1.5×", ratio <= 1.5,
        f"the spec adds the symbolic engine and, for sp, rm and gsp, a z3 question per candidate; the extra "
        f"seconds by property: {costliest(extra)}. Where task caps are allowed the symbolic engine asks one "
        "question per cap pattern (2^n, plus one with unit weights and no caps), each in growing rlimit slices "
        "(up to twice --rlimit); at pm 3×3 all 9 give up (`fairlab search ...:with_spec pm -n 3 -m 3 "
        "--candidates 100`: 279 s against 4.4 s without the spec, on a loaded machine). Next: one question over "
        "every cap pattern (an indicator per cap) and one rlimit per size shared by the streams")

    start, cpu_start = time.monotonic(), time.process_time()
    result = engines.search(drf, "sp", 3, 3, engines=["grid", "random"], candidates=args.candidates)
    seconds, search_cpu = time.monotonic() - start, time.process_time() - cpu_start
    decided = sum((result.details.get("evaluated") or {}).values())
    rate = decided / seconds if seconds else float("inf")
    shapes = _parametric.built()
    with_z3, numeric, build = sp_check_split()
    row(f"sp search, drf 3×3, grid + random ({args.candidates} candidates, `fairlab search`'s default)",
        f"{rate:.1f} candidates/s ({decided} in {seconds:.1f} s, {search_cpu:.1f} s CPU: {engines.summary(result)}; "
        f"one check {with_z3:.0f} ms CPU with its z3 questions, {numeric:.0f} ms for the {CHECK_EVALUATIONS} numeric "
        f"misreports alone; {shapes} instance shapes, each template built once in about {build:.0f} ms)", "1–3 /s",
        "≥ 20 /s", rate >= 20,
        "z3's questions, built once per instance shape over unknown numbers (fairlab.properties._parametric) and asked "
        "first; what is left is z3 itself (a fresh context per question, about 4 live questions per candidate) and "
        "each shape's template. Next: one fresh context per check for its questions")

    wall, cpu, out = child([sys.executable, "-m", "fairlab", "rediscover", "--format", "json"])
    claims = sorted(((r["details"]["claim"], r["seconds"]) for r in json.loads(out)["results"]), key=lambda c: -c[1])
    work = sum(sec for _, sec in claims)
    row("`fairlab rediscover`", f"{wall:.1f} s ({cpu:.1f} s CPU{OWN})", "6.8 s", "≤ 3 s", wall <= 3,
        f"the claims' own searches: {work:.1f} s in all on 2 workers (at least {max(claims[0][1], work / 2):.1f} s), "
        f"the costliest {', '.join(f'{name} {sec:.1f} s' for name, sec in claims[:4])}, plus the start of the "
        "command and its workers; next: the exact LP and BMF's mapping enumeration in GMP, z3 questions of the "
        "symbolic claims reused across runs (a cache keyed by the query)")

    if args.suite:
        start = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=ROOT,
                              capture_output=True, text=True)
        wall = time.monotonic() - start
        tail = (done.stdout.strip().splitlines() or [""])[-1]
        row("default suite (2 cores)", f"{wall / 60:.1f} min (exit {done.returncode}: {tail})", "about 5 min",
            "≤ 3 min", wall <= 180 and done.returncode == 0, SUITE_LIMIT)
    else:
        row("default suite (2 cores)", "not run (--suite; `python benchmarks/bench_suite.py`)", "about 5 min",
            "≤ 3 min", None)
    after = stolen()
    if stolen_before is not None and after is not None and after[1] > stolen_before[1]:
        share = (after[0] - stolen_before[0]) / (after[1] - stolen_before[1])
        print(f"\nCPU time the host took from this machine during the run (steal, /proc/stat): {share:.1%}; "
              "a run with more than a few percent is not the quiet machine the filed figures were measured on.")


def stolen() -> tuple[int, int] | None:
    """(steal, total) jiffies of /proc/stat's cpu line, or None where there is none."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    except (OSError, ValueError, IndexError):
        return None
    return (fields[7] if len(fields) > 7 else 0), sum(fields)


#: what limits the suite (tests/conftest.py HEAVY lists each slow test and what it buys)
SUITE_LIMIT = ("the whole-run tests (tests/conftest.py HEAVY: the tests of 8 s or more, each saying what it buys) and "
               "the searches, audits and proofs the other tests run end to end; without the heavy tier "
               "(`-m 'not slow and not heavy'`) about 11 min; next: the cheaper searches above, and tests sharing "
               "one session-scoped audit where they read the same report")


if __name__ == "__main__":
    main()
