"""Asset fairness (exact) vs DRF on the same instances, and vs the generic Fraction-by-Fraction fill.

Issue 18's goal: `asset` within 3x of `drf`'s time on the same instance at 2000 users x 3
resources and 1000 x 10 (before: 1000 x 3 took 4.6 s against DRF's 0.11 s, 95 % in math.gcd;
1000 x 10 did not finish in 75 s). Instances: demands uniform in [1, 100], capacities uniform in
[50 000, 100 000] (seeded). Both mechanisms are timed here, best of `--repeat`, and the ratio
printed. The generic path (`asset.allocate_reference`, the code before issue 18) is timed once
on the smaller `--reference` sizes and its allocation compared with the fast one (equal Fractions
and rounds).

Why asset stays slower than DRF: its numbers are large by nature. A user's aggregate share per
task, sum_r d_ir / c_r, has a different denominator for nearly every user, so the level is a
common multiple of them all (~60 000 bits at 2000 x 3, ~140 000 at 1000 x 10) and every user's
exact task count is a fraction of that size; DRF's dominant shares share a few denominators.

Run: python benchmarks/bench_asset.py [--repeat 3] [--seed 0] [--reference 1000x3] [--sizes 2000x3,1000x10]
"""

from __future__ import annotations

import argparse
import random
import time

from fairlab.core.instance import Instance
from fairlab.mechanisms import asset, drf


def instance(n: int, m: int, seed: int) -> Instance:
    rng = random.Random(f"{seed}-{n}-{m}")
    return Instance.build([rng.randint(50_000, 100_000) for _ in range(m)],
                          [[rng.randint(1, 100) for _ in range(m)] for _ in range(n)])


def best(fn, inst: Instance, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(inst)
        times.append(time.perf_counter() - t0)
    return min(times), out


def sizes(text: str) -> list[tuple[int, int]]:
    return [tuple(int(x) for x in s.split("x")) for s in text.split(",") if s]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sizes", default="2000x3,1000x10")
    parser.add_argument("--reference", default="1000x3", help="sizes timed with the generic path too ('' for none)")
    args = parser.parse_args()

    for n, m in sizes(args.reference):
        inst = instance(n, m, args.seed)
        t_fast, fast = best(asset.allocate, inst, args.repeat)
        t0 = time.perf_counter()
        ref = asset.allocate_reference(inst)
        t_ref = time.perf_counter() - t0
        assert fast.tasks == ref.tasks and fast.extra == ref.extra, "fast and generic asset fills differ"
        print(f"{n}x{m}: asset fast {t_fast:.3f} s, generic fill {t_ref:.2f} s (same allocation):"
              f" generic / fast = {t_ref / t_fast:.0f}x")

    for n, m in sizes(args.sizes):
        inst = instance(n, m, args.seed)
        t_drf, _ = best(drf.allocate, inst, args.repeat)
        t_asset, alloc = best(asset.allocate, inst, args.repeat)
        bits = max(t.denominator.bit_length() for t in alloc.tasks)
        print(f"{n}x{m}: asset {t_asset:.3f} s, drf {t_drf:.3f} s: asset / drf = {t_asset / t_drf:.2f}x"
              f" (goal <= 3x; task denominators up to {bits} bits)")


if __name__ == "__main__":
    main()
