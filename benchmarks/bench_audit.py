"""Audit speed (issue 28), each figure beside a baseline measured in the same run: the schedule
before issue 28, kept behind ``--jobs 1 --prove-spec`` (one property after another, a plug-in's
declared spec proved at every size) with every plug-in run its own round trip through the pipe
(``fairlab.properties.base.PLUGIN_BATCHES = False``), against the default (the properties on every
core, a plug-in's spec proved only when asked, its runs batched: the determinism check's two runs
in one request, a search's next instances sent ahead). Both run `fairlab audit ... --no-store` in a
fresh process, as a user runs it, interleaved; the JSON verdicts of the two are compared
(statuses, instances, witnesses, proved sizes, candidates per size).

Targets at 3×3: a spec-less plug-in within 8 s (serial dictatorship, equal split, a greedy rule),
one with a z3 spec within 1.5× that (12 s); drf within 3 s; drf at 4×4 within 30 s.

    python benchmarks/bench_audit.py [--only drf-3x3] [--baseline-limit 200] [--batches-only]

``--batches-only``: both runs ``--jobs 1``, only the plug-in batches differ (what they save alone).

Each row also gives the CPU seconds of both (the audit's process and those it waited for): on a
machine shared with other work the wall clock depends on the load, the CPU time much less.

The spec plug-in's baseline proves sp at 2×3, 3×2, 3×3 for minutes each: it runs under
``--time-limit`` BASELINE_LIMIT (then its time is a lower bound, shown as ">=", and its verdicts
are not compared).
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
SD = f"{ROOT / 'examples/plugins/serial_dictatorship.py'}:serial_dictatorship"
SPEC_LESS = ROOT / "benchmarks/plugins/spec_less.py"
SPEC = f"{ROOT / 'examples/pytest/my_mechanism.py'}:static_partition"

#: name -> (mechanism, users, resources, target seconds)
CASES = {
    "serial-dictatorship-3x3": (SD, 3, 3, 8.0),
    "equal-split-3x3": (f"{SPEC_LESS}:equal_split", 3, 3, 8.0),
    "greedy-3x3": (f"{SPEC_LESS}:greedy", 3, 3, 8.0),
    "spec-plugin-3x3": (SPEC, 3, 3, 12.0),
    "drf-3x3": ("drf", 3, 3, 3.0),
    "drf-4x4": ("drf", 4, 4, 30.0),
}


#: the CLI with the plug-in batches off (the baseline's round trips)
UNBATCHED = ("import sys; from fairlab.properties import base; base.PLUGIN_BATCHES = False; "
             "from fairlab.cli import main; sys.argv[0] = 'fairlab'; main()")


def run(mechanism: str, users: int, resources: int, *extra: str, batches: bool = True) -> tuple[float, float, dict]:
    """Wall seconds, CPU seconds (the audit's process and every process it waited for: its pool, its
    plug-in workers) and the JSON document of one audit."""
    command = ["-m", "fairlab"] if batches else ["-c", UNBATCHED]
    args = [sys.executable, *command, "audit", mechanism, "-n", str(users), "-m", str(resources),
            "--no-store", "--format", "json", "--progress", "none", *extra]
    start, before = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(args, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    seconds, after = time.monotonic() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(args)}: exit {out.returncode}: {out.stderr.strip()[-500:]}")
    return seconds, cpu, json.loads(out.stdout)


def verdicts(document: dict) -> list:
    return [(row["property"], row["status"], row["instance"], row["witness"], row["found_by"], row["proved_sizes"],
             row["candidates_by_size"]) for row in document["properties"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", action="append", choices=sorted(CASES), help="these cases only (repeatable)")
    parser.add_argument("--baseline-limit", type=float, default=200.0,
                        help="--time-limit of the spec plug-in's baseline (seconds)")
    parser.add_argument("--batches-only", action="store_true",
                        help="both runs --jobs 1, without --prove-spec: only the plug-in batches differ")
    args = parser.parse_args()
    print(f"{'case':26} {'baseline s':>11} {'default s':>10} {'ratio':>7} {'target s':>9}  met  "
          f"{'cpu base s':>10} {'cpu new s':>9} {'cpu ratio':>9}  verdicts")
    for name in args.only or CASES:
        mechanism, users, resources, target = CASES[name]
        limited = name.startswith("spec-plugin")
        extra = ["--time-limit", f"{args.baseline_limit:g}"] if limited else []
        if args.batches_only:
            base_s, base_cpu, base_doc = run(mechanism, users, resources, "--jobs", "1", batches=False)
            new_s, new_cpu, new_doc = run(mechanism, users, resources, "--jobs", "1")
        else:
            base_s, base_cpu, base_doc = run(mechanism, users, resources, "--jobs", "1", "--prove-spec", *extra,
                                             batches=False)
            new_s, new_cpu, new_doc = run(mechanism, users, resources)
        stopped = base_doc["budget"].get("stopped") == "time"
        same = "not compared (baseline stopped)" if stopped else (
            "identical" if verdicts(base_doc) == verdicts(new_doc) else "DIFFERENT")
        ratio = base_s / new_s
        bound = ">=" if stopped else ""
        met = "yes" if new_s <= target else "no"
        print(f"{name:26} {bound + f'{base_s:.1f}':>11} {new_s:>10.1f} {bound + f'{ratio:.1f}x':>7} {target:>9.1f}"
              f"  {met:>3}  {bound + f'{base_cpu:.1f}':>10} {new_cpu:>9.1f} {bound + f'{base_cpu / new_cpu:.1f}x':>9}"
              f"  {same}", flush=True)


if __name__ == "__main__":
    main()
