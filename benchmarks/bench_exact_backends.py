"""Exact arithmetic back ends and the faster exact CEEI, each against its baseline in the same run.

Rows (goals of the "fast exact arithmetic" issue):

* asset / drf at 2000 users x 3 resources and 1000 x 10 (goal <= 3x): both mechanisms on both back
  ends of `fairlab.core.exact.arithmetic` (GMP, the default, and Python's Fraction), the
  allocations compared (the same Fractions, the same rounds). Instances as `bench_asset.py`'s.
* exact CEEI on small random instances: the current path against `_ceei_float.BASELINE` (numpy's
  interior point at every size, scipy's nnls, z3 substitutions for the rational KKT re-check and
  tasks), the allocations compared as JSON (tasks, prices, notes).
* `fairlab rediscover`'s claims, one by one, current against baseline (the Fraction back end and
  the CEEI baseline together), statuses, instances and witnesses compared; and the CPU seconds of
  importing scipy.optimize in a fresh process (each worker paid it, the current path does not).

Timings are CPU seconds of this process (`time.process_time`), best of `--repeat`, baseline and
new interleaved: the machine these were written on is shared by several engineers, and wall
clocks there measure the queue. Claims run with the wall-clock safety net raised to 600 s (a
claim's result never depends on it unless it fires, and under a load of 15 on two cores it fired).

    python benchmarks/bench_exact_backends.py [--repeat 3] [--skip-rediscover] [--claims id,id]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_asset import instance as asset_instance  # noqa: E402

from fairlab.core import exact  # noqa: E402
from fairlab.core.instance import Instance  # noqa: E402
from fairlab.mechanisms import _ceei_float, asset, ceei, drf  # noqa: E402


@contextmanager
def baseline(on: bool):
    """The previous arithmetic and CEEI path (on) or the current one (off)."""
    before = _ceei_float.BASELINE
    _ceei_float.BASELINE = on
    try:
        with exact.backend("fraction" if on else "gmp"):
            yield
    finally:
        _ceei_float.BASELINE = before


def cpu(fn, *args):
    start = time.process_time()
    out = fn(*args)
    return time.process_time() - start, out


@contextmanager
def gcd_constructor():
    """`coprime_fraction` as it was before: ``Fraction(num, den)``, which recomputes the gcd."""
    kept = exact.coprime_fraction
    exact.coprime_fraction = Fraction  # type: ignore[assignment]
    try:
        yield
    finally:
        exact.coprime_fraction = kept


def fills(repeat: int, sizes: list[tuple[int, int]], before: bool = False) -> None:
    for n, m in sizes:
        inst = asset_instance(n, m, 0)
        best: dict[tuple[str, str], float] = {}
        out: dict[tuple[str, str], object] = {}
        for _ in range(repeat):
            for name in exact.BACKENDS:
                with exact.backend(name):
                    for mech, allocate in (("drf", drf.allocate), ("asset", asset.allocate)):
                        seconds, alloc = cpu(allocate, inst)
                        best[name, mech] = min(best.get((name, mech), seconds), seconds)
                        out[name, mech] = alloc
        same = all(out["gmp", mech].tasks == out["fraction", mech].tasks  # type: ignore[attr-defined]
                   and out["gmp", mech].extra == out["fraction", mech].extra for mech in ("drf", "asset"))  # type: ignore[attr-defined]
        g, f = best["gmp", "asset"] / best["gmp", "drf"], best["fraction", "asset"] / best["fraction", "drf"]
        fa, fd = best["fraction", "asset"], best["fraction", "drf"]
        print(f"asset / drf, {n} x {m}: GMP asset {best['gmp', 'asset']:.3f} s, drf {best['gmp', 'drf']:.3f} s -> "
              f"{g:.1f}x | Fraction back end asset {fa:.3f} s, drf {fd:.3f} s -> {f:.1f}x | goal <= 3x"
              f" | allocations {'identical' if same else 'DIFFERENT'}", flush=True)
        if before:  # the code before: Fraction back end, coprime_fraction through Fraction(num, den)'s gcd
            with exact.backend("fraction"), gcd_constructor():
                seconds, alloc = cpu(asset.allocate, inst)
            print(f"  before (Fraction(num, den) recomputing the gcd): asset {seconds:.2f} s -> "
                  f"{seconds / best['gmp', 'drf']:.0f}x the GMP drf, {seconds / fd:.0f}x the Fraction drf"
                  f" | allocation {'identical' if alloc.tasks == out['gmp', 'asset'].tasks else 'DIFFERENT'}",  # type: ignore[attr-defined]
                  flush=True)


def ceei_instances(count: int) -> list[Instance]:
    rng = random.Random(39)
    out = []
    for _ in range(count):
        n, m = rng.randint(1, 4), rng.randint(1, 3)
        demands = [[rng.choice([0, rng.randint(1, 9)]) for _ in range(m)] for _ in range(n)]
        for row in demands:
            if not any(row):
                row[0] = 1
        caps = [None if rng.random() < 0.7 else Fraction(rng.randint(1, 20), rng.randint(1, 3)) for _ in range(n)]
        out.append(Instance.build([rng.randint(5, 30) for _ in range(m)], demands,
                                  weights=[rng.randint(1, 3) for _ in range(n)], max_tasks=caps))
    return out


def exact_ceei(repeat: int) -> None:
    instances = ceei_instances(40)

    def run():
        return [json.dumps(ceei.allocate(i, method="exact").to_dict(), sort_keys=True, default=str) for i in instances]

    best, out = {True: float("inf"), False: float("inf")}, {}
    for _ in range(repeat):
        for on in (True, False):
            with baseline(on):
                seconds, out[on] = cpu(run)
            best[on] = min(best[on], seconds)
    same = out[True] == out[False]
    print(f"exact CEEI, {len(instances)} small instances: {best[False]:.2f} s, baseline {best[True]:.2f} s -> "
          f"{best[True] / best[False]:.1f}x faster | allocations {'identical' if same else 'DIFFERENT'}", flush=True)


def import_cost() -> float:
    code = "import time; import scipy.optimize; print(time.process_time())"
    with_scipy = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    bare = float(subprocess.run([sys.executable, "-c", "import time; import numpy; print(time.process_time())"],
                                capture_output=True, text=True, check=True).stdout)
    return with_scipy - bare


def rediscover(claims: list[str] | None) -> None:
    from fairlab.search import rediscover as rd

    chosen = [c for c in rd.CLAIMS if claims is None or c.id in claims]
    totals = {True: 0.0, False: 0.0}
    longest = {True: 0.0, False: 0.0}
    all_same = True
    for claim in chosen:
        seen = {}
        for on in (True, False):  # interleaved claim by claim
            with baseline(on):
                seconds, result = cpu(lambda c=claim: rd.run_claim(c, time_limit=600.0))
            totals[on] += seconds
            longest[on] = max(longest[on], seconds)
            seen[on] = (result.status, result.instance, result.witness, seconds)
        same = seen[True][:3] == seen[False][:3]
        all_same = all_same and same
        print(f"  {claim.id:24} {seen[False][0]!s:10} {seen[False][3]:6.2f} s, baseline {seen[True][3]:6.2f} s"
              f"{'' if same else '  RESULT DIFFERS'}", flush=True)
    scipy = import_cost()
    estimate = {on: max(totals[on] / 2, longest[on]) for on in (True, False)}
    print(f"rediscover, {len(chosen)} claims, CPU: {totals[False]:.1f} s, baseline {totals[True]:.1f} s + "
          f"{2 * scipy:.1f} s of scipy.optimize imports on two workers -> "
          f"{(totals[True] + 2 * scipy) / totals[False]:.2f}x less work | on two cores at least "
          f"{estimate[False]:.1f} s (longest claim {longest[False]:.1f} s), baseline {estimate[True] + scipy:.1f} s"
          f" | goal <= 3 s | results {'identical' if all_same else 'DIFFERENT'}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="2000x3,1000x10")
    parser.add_argument("--skip-rediscover", action="store_true")
    parser.add_argument("--before", action="store_true", help="also asset as before (gcd per task): ~30 s at 1000 x 10")
    parser.add_argument("--claims", default="", help="comma-separated claim ids (default: all)")
    args = parser.parse_args()
    fills(args.repeat, [tuple(int(x) for x in s.split("x")) for s in args.sizes.split(",") if s], args.before)  # type: ignore[misc]
    exact_ceei(args.repeat)
    if not args.skip_rediscover:
        rediscover([c for c in args.claims.split(",") if c] or None)


if __name__ == "__main__":
    main()
