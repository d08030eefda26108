"""Proof time of DRF's properties on the DRF paper's domain (every demand positive) beside the
union domain (non-negative demands, each row non-zero), both through `prove` with every gate, the
encodings `strategies_for` chooses and the same budget, measured in the same run (issue 27).

    python benchmarks/bench_prove_domain.py [--limit SECONDS] [--sizes 2x2,3x3,4x3,4x4]
                                            [--props si,ef,pe,sp,bf,srf,pm,rm]

Gate 1 (conformance) does not depend on the domain and is remembered per process: it runs once
per size before the timings and is printed apart. srf is stated for one resource (vacuous
otherwise), so it runs at n x 1 for each size n x m. Prints one line per property and size:
seconds, verdict and rlimit units spent on positive demands, the same on the union domain, and
the ratio positive / union ('>' or '<' where a side was stopped by the limit: a bound). The
verdict is decided by the deterministic budget (rlimit schedule); `--limit` is only the outer stop.
(DRF's pm differs by domain: proved on positive demands, refuted with a zero demand from 3 x 2.)
"""

from __future__ import annotations

import argparse
import time

from fairlab import mechanisms
from fairlab.search.proof import ProveBudget, conformance_gate, prove


def _run(drf, prop, n, m, limit, positive):
    start = time.monotonic()
    proof = prove(drf, prop, n, m, time_limit=limit, positive_demands=positive)
    return time.monotonic() - start, proof


def _size(prop: str, n: int, m: int) -> tuple[int, int]:
    return (n, 1) if prop == "srf" else (n, m)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per proof (outer stop)")
    parser.add_argument("--sizes", default="2x2,3x3,4x3,4x4")
    parser.add_argument("--props", default="si,ef,pe,sp,bf,srf,pm,rm")
    args = parser.parse_args()
    sizes = [tuple(int(x) for x in s.split("x")) for s in args.sizes.split(",")]
    props = args.props.split(",")
    drf = mechanisms.get("drf")
    cells = list(dict.fromkeys(_size(p, n, m) for p in props for n, m in sizes))
    for n, m in cells:  # gate 1 once per size (remembered by `prove`), so no timing pays it
        start = time.monotonic()
        report = conformance_gate(drf, n, m, {}, ProveBudget(seconds=args.limit), start + args.limit)
        print(f"conformance {n}x{m}: {report.status} in {time.monotonic() - start:.2f} s", flush=True)
    print(f"{'prop':4} {'size':5} {'positive demands':>36}   {'union (non-negative)':>36}   ratio", flush=True)
    total = {True: 0.0, False: 0.0}
    for prop in props:
        for n, m in dict.fromkeys(_size(prop, n, m) for n, m in sizes):
            line = f"{prop:4} {n}x{m:<3}"
            timed = {}
            for positive in (True, False):
                seconds, proof = _run(drf, prop, n, m, args.limit, positive)
                timed[positive] = (seconds, proof.status)
                total[positive] += seconds
                line += f" {seconds:8.2f} s {proof.status:8} {proof.budget['rlimit_spent']:>13,} units  "
            (t_pos, s_pos), (t_all, s_all) = timed[True], timed[False]
            bound = ">" if s_pos == "unknown" and s_all != "unknown" else "<" if s_all == "unknown" != s_pos else ""
            print(f"{line} {bound}{t_pos / t_all:.2f}x", flush=True)
    print(f"\ntotal: positive demands {total[True]:.1f} s, union {total[False]:.1f} s, "
          f"ratio {total[True] / total[False]:.2f}x (limit {args.limit:g} s per proof)")


if __name__ == "__main__":
    main()
