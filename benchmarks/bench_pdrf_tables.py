"""Time `fairlab pdrf-tables --table 1` (3 demand ranges x 1000 runs of 1000 users x 10 resources).

Goal (issue 3): under 60 s on 2 cores. The baseline, measured in the same run on the first
`--baseline-runs` runs of each row, is the same statistic with the DRF side computed by the
task-by-task loop (`drf-tasks method=loop`) instead of the exact fast path; the ratio is per run.

Run: python benchmarks/bench_pdrf_tables.py [--runs 1000] [--jobs 2] [--baseline-runs 2]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from fairlab.core.instance import Instance
from fairlab.mechanisms import allocate
from fairlab.paper_checks import pdrf_tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--baseline-runs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    preset = pdrf_tables.PRESETS[1]
    configs = [
        pdrf_tables.Config(1000, preset["resources"], demands, (50_000, 100_000), args.runs, args.seed)
        for demands in preset["demands"]
    ]
    start = time.perf_counter()
    pdrf_tables.compute(configs, jobs=args.jobs)
    elapsed = time.perf_counter() - start
    total_runs = sum(c.runs for c in configs)

    # Baseline in this process: the same runs with the DRF loop task by task (Fractions).
    loop_time, fast_time = 0.0, 0.0
    for config in configs:
        rng = np.random.default_rng([config.seed, config.demands[0], config.demands[1], 0])
        for _ in range(args.baseline_runs):
            caps, dem = pdrf_tables.draw(rng, config)
            t0 = time.perf_counter()
            fast_dev = pdrf_tables.deviations(caps, dem)
            fast_time += time.perf_counter() - t0
            t0 = time.perf_counter()
            inst = Instance.build(caps, dem.tolist())
            drf = [int(t) for t in allocate("drf-tasks", inst, method="loop").tasks]
            pdrf = [int(t) for t in allocate("pdrf", inst).tasks]
            loop_time += time.perf_counter() - t0
            assert (np.asarray(pdrf) - np.asarray(drf)).tolist() == fast_dev.tolist()
    baseline_runs = args.baseline_runs * len(configs)
    print(f"Table 1 ({total_runs} runs, {args.jobs} jobs): {elapsed:.1f} s wall (goal < 60 s)")
    print(f"per run: fast path {fast_time / baseline_runs * 1e3:.1f} ms,"
          f" loop baseline {loop_time / baseline_runs * 1e3:.0f} ms")
    print(f"loop / fast per run = {loop_time / fast_time:.0f}x;"
          f" the loop would need ~{loop_time / baseline_runs * total_runs / args.jobs / 60:.0f} min for the table")


if __name__ == "__main__":
    main()
