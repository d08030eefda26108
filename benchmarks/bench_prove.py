"""Proof speed: DRF si, ef, pe, sp at growing sizes, the current strategy (`strategies_for`: the
tasks-normalised encoding) against the baseline (`baseline_strategies_for`: the generic encoding,
for sp the bundle coordinates then the generic one), both through `prove` with every gate and the
same budget, measured in the same run.

    python benchmarks/bench_prove.py [--limit SECONDS] [--sizes 3x4,4x3,4x4] [--props si,ef,pe,sp]
                                     [--baseline-limit SECONDS] [--no-baseline]

Gate 1 (conformance: the spec against the allocator on a seeded sample) does not depend on the
encoding and is remembered per process: it runs once per size before both timings and is printed
apart ("conformance"). Prints one line per property and size (seconds, verdict, rlimit units spent, for both) and the
ratio baseline / current ('>' where the baseline was stopped by the limit: the ratio is a lower
bound), then the largest size proved per property by the current strategy. The verdict is decided
by the deterministic budget (rlimit schedule); `--limit` is only the outer stop.
"""

from __future__ import annotations

import argparse
import time

from fairlab import mechanisms
from fairlab.search.proof import ProveBudget, baseline_strategies_for, conformance_gate, prove, strategies_for


def _run(drf, prop, n, m, limit, strategies):
    start = time.monotonic()
    # the unweighted domain: the baseline encodings predate weights and caps
    proof = prove(drf, prop, n, m, time_limit=limit, strategies=strategies, domain="unweighted")
    return time.monotonic() - start, proof


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per proof (outer stop)")
    parser.add_argument("--sizes", default="2x2,3x3,3x4,4x3,4x4")
    parser.add_argument("--props", default="si,ef,pe,sp")
    parser.add_argument("--baseline-limit", type=float, default=None, help="baseline outer stop")
    parser.add_argument("--no-baseline", action="store_true", help="only the current strategy")
    args = parser.parse_args()
    sizes = [tuple(int(x) for x in s.split("x")) for s in args.sizes.split(",")]
    drf = mechanisms.get("drf")
    largest: dict[str, tuple[int, int] | None] = {}
    print(f"{'prop':4} {'size':5} {'current':>30}   {'baseline':>40}   ratio", flush=True)
    for n, m in sizes:  # gate 1 once per size (remembered by `prove`), so neither timing pays it
        start = time.monotonic()
        report = conformance_gate(drf, n, m, {}, ProveBudget(seconds=args.limit), start + args.limit)
        print(f"conformance {n}x{m}: {report.status} in {time.monotonic() - start:.2f} s", flush=True)
    for prop in args.props.split(","):
        largest.setdefault(prop, None)
        for n, m in sizes:
            new = strategies_for(drf, prop, {})
            t_new, p_new = _run(drf, prop, n, m, args.limit, new)
            line = (f"{prop:4} {n}x{m:<3} {'+'.join(new):>14} {t_new:6.2f} s {p_new.status:8}"
                    f" {p_new.budget['rlimit_spent']:>11,}")
            if p_new.status == "proved" and (largest[prop] is None or n * m >= largest[prop][0] * largest[prop][1]):
                largest[prop] = (n, m)
            if not args.no_baseline:
                old = baseline_strategies_for(drf, prop, {})
                t_old, p_old = _run(drf, prop, n, m, args.baseline_limit or args.limit, old)
                bound = "" if p_old.status != "unknown" else ">"
                line += (f"   {'+'.join(old):>18} {t_old:6.2f} s {p_old.status:8} {p_old.budget['rlimit_spent']:>11,}"
                         f"   {bound}{t_old / t_new:.1f}x")
            print(line, flush=True)
    print("\nlargest size proved (current strategy, limit "
          f"{args.limit:g} s): " + ", ".join(f"{p} {'x'.join(map(str, s)) if s else '-'}" for p, s in largest.items()))


if __name__ == "__main__":
    main()
