"""The speed table of the "fast exact arithmetic and a loop in seconds" work, one row per figure,
each measured in this run beside the figure it was filed with (the "filed" column: measured on
this 2-core machine, quiet, before the work) and the goal. Where a row is a ratio, both sides are
measured here, interleaved.

    python benchmarks/bench_loop.py [--repeat 2] [--candidates 60] [--suite]

Rows:
* asset / drf, 2000 x 3 and 1000 x 10: CPU seconds of the two exact fills on the same instance
  (`bench_asset.instance`), best of --repeat, their ratio;
* audit of a spec-less plug-in at 3 x 3 (serial dictatorship): `fairlab audit ... --no-store`
  in a fresh process, wall and CPU seconds (its process and those it waited for);
* the same allocator with its spec against without (`benchmarks/plugins/spec_twins.py`), 3 x 3:
  the ratio of the two audits' wall seconds (CPU beside it);
* sp search at drf 3 x 3, grid + random: exact candidates decided per second
  (`fairlab.search.engines.search`, --candidates candidates);
* `fairlab rediscover`: wall and CPU seconds in a fresh process;
* the default suite (--suite only: minutes): wall seconds of `python -m pytest -q`.

On a machine shared with other work the wall clock moves with the load; the CPU column much less.
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
from fairlab.search import engines  # noqa: E402

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


def audit(mechanism: str) -> tuple[float, float, list]:
    wall, cpu, out = child([sys.executable, "-m", "fairlab", "audit", mechanism, "-n", "3", "-m", "3", "--no-store",
                            "--format", "json", "--progress", "none"])
    return wall, cpu, [(row["property"], row["status"]) for row in json.loads(out)["properties"]]


def row(what: str, now: str, filed: str, goal: str, met: bool | None) -> None:
    mark = "" if met is None else ("met" if met else "NOT met")
    print(f"| {what} | {now} | {filed} | {goal} | {mark} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--candidates", type=int, default=60)
    parser.add_argument("--suite", action="store_true", help="also time the default suite (minutes)")
    args = parser.parse_args()
    drf, asset = mechanisms.get("drf"), mechanisms.get("asset")
    print("| what | now (this run) | filed | goal | |", "|---|---|---|---|---|", sep="\n", flush=True)

    for n, m, filed in ((2000, 3, "16×"), (1000, 10, "178×")):
        inst = asset_instance(n, m, 0)
        best = {"drf": float("inf"), "asset": float("inf")}
        for _ in range(args.repeat):
            for name, mech in (("drf", drf), ("asset", asset)):
                best[name] = min(best[name], cpu_of(mech.allocate, inst)[0])
        ratio = best["asset"] / best["drf"]
        row(f"asset / drf, {n} users × {m} resources", f"{ratio:.1f}× (asset {best['asset']:.2f} s CPU)", filed,
            "≤ 3×", ratio <= 3)

    wall, cpu, _ = audit(SD)
    row("audit of a plug-in without spec, 3×3 (serial dictatorship)", f"{wall:.1f} s ({cpu:.1f} s CPU)", "10.7 s",
        "≤ 8 s", wall <= 8)

    without = audit(f"{TWINS}:without_spec")
    with_ = audit(f"{TWINS}:with_spec")
    ratio = with_[0] / without[0]
    row("the same allocator with its spec / without, 3×3 (static partition)",
        f"{ratio:.2f}× ({with_[0]:.1f} s against {without[0]:.1f} s; CPU {with_[1]:.1f} / {without[1]:.1f} s)",
        "15.7× (204 s against 13 s)", "≤ 1.5×", ratio <= 1.5)

    start = time.monotonic()
    result = engines.search(drf, "sp", 3, 3, engines=["grid", "random"], candidates=args.candidates)
    seconds = time.monotonic() - start
    decided = sum((result.details.get("evaluated") or {}).values())
    rate = decided / seconds if seconds else float("inf")
    row("sp search, drf 3×3, grid + random", f"{rate:.1f} candidates/s ({decided} in {seconds:.1f} s, "
        f"{result.status})", "1–3 /s", "≥ 20 /s", rate >= 20)

    wall, cpu, _ = child([sys.executable, "-m", "fairlab", "rediscover"])
    row("`fairlab rediscover`", f"{wall:.1f} s ({cpu:.1f} s CPU)", "6.8 s", "≤ 3 s", wall <= 3)

    if args.suite:
        start = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=ROOT,
                              capture_output=True, text=True)
        wall = time.monotonic() - start
        tail = (done.stdout.strip().splitlines() or [""])[-1]
        row("default suite (2 cores)", f"{wall / 60:.1f} min (exit {done.returncode}: {tail})", "about 5 min",
            "≤ 3 min", wall <= 180 and done.returncode == 0)
    else:
        row("default suite (2 cores)", "not run (--suite; `python benchmarks/bench_suite.py`)", "about 5 min",
            "≤ 3 min", None)


if __name__ == "__main__":
    main()
