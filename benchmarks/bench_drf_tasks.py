"""Exact fast path of `drf-tasks` vs PDRF's closed form vs the task-by-task loop.

Issue 3's configuration: 1000 users x 10 resources, reserves uniform in [50 000, 100 000],
demands uniform in [1, 10] (the PDRF paper's Table 1 setting). All three are timed in this run
on the same instances (best of `--repeat` per instance) and the ratios printed:

    fast / pdrf   (goal <= 1)        loop / fast   (goal >= 50)

Run: python benchmarks/bench_drf_tasks.py [--instances 5] [--repeat 3] [--seed 0] [--scale 1]
(`--scale 10` multiplies the reserves, to show the loop growing and the fast path not.)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from fairlab.instance import Instance
from mechanisms import get


def best_time(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--resources", type=int, default=10)
    parser.add_argument("--instances", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scale", type=int, default=1, help="multiply the reserves by this")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    drf_tasks, pdrf = get("drf-tasks"), get("pdrf")
    totals = {"fast": 0.0, "pdrf": 0.0, "loop": 0.0}
    for k in range(args.instances):
        caps = (rng.integers(50_000, 100_000, size=args.resources, endpoint=True) * args.scale).tolist()
        demands = rng.integers(1, 10, size=(args.users, args.resources), endpoint=True).tolist()
        inst = Instance.build(caps, demands)
        fast = drf_tasks(inst)
        loop = drf_tasks(inst, method="loop")
        assert fast.tasks == loop.tasks, "fast path and loop disagree"
        t_fast = best_time(lambda: drf_tasks(inst), args.repeat)
        t_pdrf = best_time(lambda: pdrf(inst), args.repeat)
        t_loop = best_time(lambda: drf_tasks(inst, method="loop"), 1)
        totals["fast"] += t_fast
        totals["pdrf"] += t_pdrf
        totals["loop"] += t_loop
        print(
            f"instance {k}: {int(sum(fast.tasks))} tasks; fast {t_fast * 1e3:.2f} ms, pdrf {t_pdrf * 1e3:.2f} ms,"
            f" loop {t_loop * 1e3:.1f} ms"
        )
    print(f"fast / pdrf = {totals['fast'] / totals['pdrf']:.2f}x  (goal <= 1x)")
    print(f"loop / fast = {totals['loop'] / totals['fast']:.1f}x  (goal >= 50x)")


if __name__ == "__main__":
    main()
