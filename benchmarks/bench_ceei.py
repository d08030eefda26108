"""Exact `ceei` (method=exact) at 4-12 distinct users x 2-4 resources, against the method before
issue 18 (`legacy=True`: z3 evaluates every task at the algebraic price root), in the same run.

Instances: demands uniform in [1, 9], weights in [1, 3], capacities in [50, 500], no caps (seeded).
For each instance both paths run `fairlab.mechanisms._ceei_exact.optimum` with the same timeout
(`--cap` seconds, the outer stop; the z3 checks inside have their deterministic rlimit); printed:
seconds, the exactness label (rational / algebraic / timeout), the number of priced (saturated)
resources s, and the ratio legacy / new (a lower bound, ">", when legacy hit the cap).

What is met and what is not (see the README): with s <= 2 priced resources the optimum's prices
reduce to one root of a univariate polynomial, and every value is now named from its own
polynomial, so ten (and twelve) distinct users take well under a second; with s >= 3 the prices
are a common root of a multivariate system and both paths leave it to z3's nonlinear solver,
which does not finish at 6+ distinct users: `ceei` then raises ExactTimeout (method=exact) or
falls back to the certified float path, labelled approximate (method=auto).

Run: python benchmarks/bench_ceei.py [--users 4 6 8 10 12] [--resources 2 3 4] [--seeds 2] [--cap 10]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fairlab.core.exact import Algebraic  # noqa: E402
from fairlab.core.instance import Instance  # noqa: E402
from fairlab.mechanisms import _ceei_exact, ceei  # noqa: E402


def instance(n: int, m: int, seed: int) -> Instance:
    rng = random.Random(f"{n}x{m}#{seed}")
    return Instance.build(
        [rng.randint(50, 500) for _ in range(m)],
        [[rng.randint(1, 9) for _ in range(m)] for _ in range(n)],
        weights=[rng.randint(1, 3) for _ in range(n)],
    )


def run(inst: Instance, cap: float, legacy: bool):
    weights = ceei.scalar_weights(inst)
    classes = ceei._classes(inst, weights)
    start = time.perf_counter()
    result = _ceei_exact.optimum(inst, weights, classes, Fraction(cap), legacy=legacy)
    seconds = time.perf_counter() - start
    if result is None:
        return seconds, "timeout", "?", None
    tasks, _, extra = result
    label = "algebraic" if any(isinstance(x, Algebraic) for x in tasks) else "rational"
    return seconds, label, len(extra["priced_resources"]), tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, nargs="+", default=[4, 6, 8, 10, 12])
    parser.add_argument("--resources", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--cap", type=float, default=10.0, help="timeout (s) of each exact solve")
    args = parser.parse_args()
    for legacy in (False, True):  # warm-up: the lazy scipy import, z3's first algebraic numbers
        run(instance(4, 3, 1), args.cap, legacy)
    print(f"{'n x m':>7} {'seed':>4} {'s':>2} {'new s':>8} {'label':>10} {'legacy s':>9} {'label':>10} {'ratio':>8}")
    met = total = 0
    for n in args.users:
        for m in args.resources:
            for seed in range(args.seeds):
                inst = instance(n, m, seed)
                new_s, new_label, priced, new_tasks = run(inst, args.cap, legacy=False)
                old_s, old_label, old_priced, old_tasks = run(inst, args.cap, legacy=True)
                if new_tasks is not None and old_tasks is not None and new_tasks != old_tasks:
                    raise SystemExit(f"{n}x{m}#{seed}: the two methods disagree; a bug")
                if new_label == "timeout":
                    ratio = "-"
                elif old_label == "timeout":
                    ratio = f">{old_s / new_s:.0f}x"
                else:
                    ratio = f"{old_s / new_s:.1f}x"
                s = priced if priced != "?" else old_priced
                print(
                    f"{n:>3} x {m:<1} {seed:>4} {s!s:>2} {new_s:>8.2f} {new_label:>10}"
                    f" {old_s:>9.2f} {old_label:>10} {ratio:>8}",
                    flush=True,
                )
                if n <= 10:
                    total += 1
                    met += new_label != "timeout" and new_s < 10
    print(f"exact within 10 s at <= 10 users: {met} of {total} instances")


if __name__ == "__main__":
    main()
