"""BMF at cluster sizes: `bmf` with method=levels vs `ceei` (default method) on the same instance.

Issue 18's goal: an exact BMF allocation of 200 users x 10 resources within 10x of ceei's time on
the same instance, membership re-checked exactly. ceei's exact path does not return at this size,
so its default method is timed (certified float, labelled approximate). The enumeration (bmf's
default method, the leximin rule) is exponential in users: it is timed on `--small` users with a
`--small-timeout`, and its allocation compared with the level path's there.

Run: python benchmarks/bench_bmf.py [--users 200] [--resources 10] [--seed 0] [--small 12]
"""

from __future__ import annotations

import argparse
import random
import time

from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.mechanisms import allocate, bmf


def instance(n: int, m: int, seed: int) -> Instance:
    rng = random.Random(f"{seed}-{n}-{m}")
    return Instance.build([rng.randint(50_000, 100_000) for _ in range(m)],
                          [[rng.randint(1, 100) for _ in range(m)] for _ in range(n)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--resources", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--small", type=int, default=12)
    parser.add_argument("--small-timeout", type=float, default=30)
    args = parser.parse_args()

    inst = instance(args.users, args.resources, args.seed)
    t0 = time.perf_counter()
    ceei = allocate("ceei", inst)
    t_ceei = time.perf_counter() - t0
    t0 = time.perf_counter()
    a = allocate("bmf", inst, method="levels", timeout=None)
    t_bmf = time.perf_counter() - t0
    t0 = time.perf_counter()
    holds = bmf.is_bmf(inst, a.tasks).holds
    t_check = time.perf_counter() - t0
    print(f"{args.users}x{args.resources}: bmf levels {t_bmf:.2f} s ({a.extra.get('method', 'enumerate')},"
          f" {a.extra['solver_checks']} steps, is_bmf {holds} in {t_check:.2f} s), ceei ({ceei.describe_exactness()})"
          f" {t_ceei:.2f} s: bmf / ceei = {t_bmf / t_ceei:.1f}x (goal <= 10x)")

    small = instance(args.small, 3, args.seed)
    t0 = time.perf_counter()
    fast = allocate("bmf", small, method="levels")
    t_fast = time.perf_counter() - t0
    t0 = time.perf_counter()
    try:
        ref = allocate("bmf", small, timeout=args.small_timeout)
        t_ref = time.perf_counter() - t0
        print(f"{args.small}x3: enumeration {t_ref:.2f} s, levels {t_fast:.3f} s: enumeration / levels ="
              f" {t_ref / t_fast:.0f}x; same allocation: {ref.tasks == fast.tasks}")
    except InputError as err:
        print(f"{args.small}x3: enumeration did not finish ({err}); levels {t_fast:.3f} s")


if __name__ == "__main__":
    main()
