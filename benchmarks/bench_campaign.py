"""Campaign speed: the same cells with 2 workers against 1 (the baseline, measured in the same
run), on the local process pool and on a Dask LocalCluster (if `fairlab[cluster]` is installed),
and the overhead per cell (a cell's process, JSON across the pipe, the atomic result file, and for
Dask the scheduler's round trip) against the seconds the cells report themselves. Then the lab's
own sweeps: `rediscover` and `matrix` with 2 workers against running their cells one after
another in this process (`fairlab.search`'s sequential functions).

    python benchmarks/bench_campaign.py [--seeds K] [--no-dask] [--no-lab]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from fairlab.campaign import executors, lab_sweeps, report, run
from fairlab.search import rediscover
from fairlab.search.matrix import matrix

SPEC = """verb = "search"
[sweep]
mechanisms = ["drf", "asset", "ceei", "maxmin"]
properties = ["si", "ef", "bf", "njc"]
sizes = [[2, 2]]
seeds = {seeds}
[budget]
candidates = 60
time_limit = 60
"""


def measure(spec: Path, executor) -> tuple[float, float, int]:
    """(wall seconds, the cells' own seconds summed, cells)."""
    with tempfile.TemporaryDirectory() as out:
        start = time.monotonic()
        summary = run.run(spec, out, executor=executor)
        wall = time.monotonic() - start
        _, rows = report.read(out)
        inside = sum(row["seconds"] or 0 for row in rows)
        assert "missing" not in summary["outcomes"], summary
        return wall, inside, summary["cells"]


def pool_line(label: str, wall: float, inside: float, cells: int, workers: int) -> str:
    overhead = (wall * workers - inside) / cells * 1000  # worker-seconds not spent inside a cell
    return f"  {label:24}: {wall:7.2f} s wall, cells' own time {inside:7.2f} s, overhead {overhead:6.1f} ms per cell"


def campaigns(spec: Path, dask: bool) -> None:
    kinds = [("local pool", executors.local)]
    if dask:
        kinds.append(("Dask LocalCluster", lambda n: executors.dask(local_workers=n)))
    for label, opener in kinds:
        walls = {}
        for workers in (1, 2):
            start = time.monotonic()
            with opener(workers) as pool:
                opened = time.monotonic() - start
                wall, inside, cells = measure(spec, pool)
            walls[workers] = wall
            print(pool_line(f"{label}, {workers} worker{'s' * (workers > 1)}", wall, inside, cells, workers)
                  + f" (started in {opened:.2f} s)", flush=True)
        print(f"  {label}: speed-up of 2 workers over 1: {walls[1] / walls[2]:.2f}x", flush=True)


def lab_sweeps_vs_sequential() -> None:
    claims = list(rediscover.CLAIMS)
    start = time.monotonic()
    alone = [rediscover.run_claim(c) for c in claims]
    one = time.monotonic() - start
    with executors.local(2) as pool:
        start = time.monotonic()
        together = lab_sweeps.rediscover(claims, executor=pool)
        two = time.monotonic() - start
    assert [r.status for r in alone] == [r.status for r in together]
    print(f"  rediscover ({len(claims)} claims): one after another {one:6.2f} s, 2 workers {two:6.2f} s: "
          f"{one / two:.2f}x", flush=True)
    mechs = ["drf", "asset", "ks", "pdrf"]
    budget = {"candidates": 100, "rlimit": 50_000_000, "seed": 0, "time_limit": 60.0}
    with tempfile.TemporaryDirectory() as store:
        start = time.monotonic()
        alone = matrix(mechs, 2, 2, write=False, store=store, **budget)
        one = time.monotonic() - start
        with executors.local(2) as pool:
            start = time.monotonic()
            together = lab_sweeps.matrix(mechs, 2, 2, executor=pool, write=False, store=store, **budget)
            two = time.monotonic() - start
    assert [r.status for r in alone] == [r.status for r in together]
    print(f"  matrix ({len(alone)} cells at 2×2): one after another {one:6.2f} s, 2 workers {two:6.2f} s: "
          f"{one / two:.2f}x", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=2, help="seeds per mechanism × property (cells = 16 × seeds)")
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask LocalCluster")
    parser.add_argument("--no-lab", action="store_true", help="skip rediscover and matrix")
    args = parser.parse_args()
    dask = not args.no_dask
    if dask:
        try:
            import distributed  # noqa: F401
        except ImportError:
            print("(Dask is not installed: pip install 'fairlab[cluster]'; skipping it)")
            dask = False
    with tempfile.TemporaryDirectory() as folder:
        spec = Path(folder) / "bench.toml"
        spec.write_text(SPEC.format(seeds=json.dumps(list(range(args.seeds)))))
        print(f"{16 * args.seeds} campaign cells (search at 2×2, 60 candidates each)")
        campaigns(spec, dask)
    if not args.no_lab:
        print("the lab's sweeps as campaigns")
        lab_sweeps_vs_sequential()


if __name__ == "__main__":
    main()
