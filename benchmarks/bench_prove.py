"""Proof speed: DRF si, ef, pe, sp at growing sizes, and the DRF strategyproofness encodings
against each other (the generic one as the baseline, measured in the same run).

    python benchmarks/bench_prove.py [--limit SECONDS] [--sizes 2x2,3x2,3x3,4x2,3x4]

Prints a table (mechanism, property, n, m, encoding, seconds, verdict) and, for sp, the ratio
baseline / specialised encoding where both finished (">" where the baseline timed out).
"""

from __future__ import annotations

import argparse
import time

from fairlab import mechanisms
from fairlab.search.proof import prove, run_strategy


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per proof")
    parser.add_argument("--sizes", default="2x2,2x3,3x2,3x3,4x2")
    args = parser.parse_args()
    sizes = [tuple(int(x) for x in s.split("x")) for s in args.sizes.split(",")]
    drf = mechanisms.get("drf")
    print(f"{'mechanism':10} {'property':8} {'n':>2} {'m':>2} {'encoding':12} {'seconds':>8}  verdict")
    for n, m in sizes:
        for prop in ("si", "ef", "pe", "sp"):
            start = time.monotonic()
            proof = prove(drf, prop, n, m, time_limit=args.limit)
            encoding = proof.details["reductions"][-1].split(":")[1].split("(")[0].strip()
            print(f"{'drf':10} {prop:8} {n:>2} {m:>2} {encoding:12} {time.monotonic() - start:8.2f}  {proof.status}",
                  flush=True)
    print("\nDRF sp: generic encoding (baseline) vs bundle coordinates, same run")
    for n, m in sizes:
        timings = {}
        for strategy in ("generic", "drf-bundles"):
            start = time.monotonic()
            result = run_strategy(strategy, drf, "sp", n, m, args.limit, {}, False)
            timings[strategy] = (time.monotonic() - start, result["verdict"])
        (tg, vg), (tb, vb) = timings["generic"], timings["drf-bundles"]
        ratio = f"{tg / tb:.1f}x" if vg != "unknown" else f">{args.limit / tb:.1f}x"
        print(f"  {n}x{m}: generic {tg:7.2f} s ({vg}), bundles {tb:7.2f} s ({vb}), speed-up {ratio}", flush=True)


if __name__ == "__main__":
    main()
