"""Proof time of DRF's properties on one domain beside another, both through `prove` with every
gate, the encodings `strategies_for` chooses and the same budget, measured in the same run.

    python benchmarks/bench_prove_domain.py [--limit SECONDS] [--sizes 2x2,3x3,4x3,4x4]
                                            [--props si,ef,pe,sp,bf,srf,pm,rm]
    python benchmarks/bench_prove_domain.py --weights [--sizes 2x2,3x3,4x4] [--props si,ef,pe,sp]
                                            [--domains unweighted,scalar,vector,all]

Default (issue 27): the DRF paper's domain (every demand positive) beside the union domain
(non-negative demands, each row non-zero), both unweighted and uncapped. srf is stated for one
resource (vacuous otherwise), so it runs at n x 1 for each size n x m. (DRF's pm differs by
domain: proved on positive demands, refuted with a zero demand from 3 x 2.)

`--weights` (issue 36): the cost of weights and task caps. Each cell is proved on the unweighted
domain (no weights, no caps: the proofs of before) and on the domains of `--domains`, interleaved
cell by cell: ``scalar`` (one unknown weight per user, the "drf-levels" encoding), ``vector`` (weight
vectors, DRF paper §4.3) and ``all`` (weight vectors and every cap pattern). The ratio is each
domain's seconds over the unweighted seconds of the same cell.

Gate 1 (conformance) is remembered per process: it runs once per size and domain before the
timings and is printed apart. Prints one line per property and size: seconds, verdict and rlimit
units spent on each domain, and the ratio ('>' or '<' where a side was stopped by the limit: a
bound). The verdict is decided by the deterministic budget (rlimit schedule); `--limit` is only the
outer stop. Timings on a shared machine are noisy: the sides of one cell run back to back.
"""

from __future__ import annotations

import argparse
import time

from fairlab import mechanisms
from fairlab.core.domain import parse
from fairlab.search.proof import ProveBudget, conformance_gate, prove

#: the `--weights` domains by short name
DOMAINS = {"unweighted": "unweighted", "scalar": "weighted,weights=scalar,caps=none", "vector": "weighted",
           "all": "all"}


def _run(drf, prop, n, m, limit, positive=False, domain=None):
    start = time.monotonic()
    proof = prove(drf, prop, n, m, time_limit=limit, positive_demands=positive, domain=domain)
    return time.monotonic() - start, proof


def _size(prop: str, n: int, m: int) -> tuple[int, int]:
    return (n, 1) if prop == "srf" else (n, m)


def _ratio(first, base) -> str:
    (t, s), (t0, s0) = first, base
    bound = ">" if s == "unknown" and s0 != "unknown" else "<" if s0 == "unknown" != s else ""
    return f"{bound}{t / t0:.2f}x"


def positive_vs_union(drf, props, sizes, limit) -> None:
    cells = list(dict.fromkeys(_size(p, n, m) for p in props for n, m in sizes))
    for n, m in cells:  # gate 1 once per size (remembered by `prove`), so no timing pays it
        start = time.monotonic()
        report = conformance_gate(drf, n, m, {}, ProveBudget(seconds=limit), start + limit, parse("unweighted"))
        print(f"conformance {n}x{m}: {report.status} in {time.monotonic() - start:.2f} s", flush=True)
    print(f"{'prop':4} {'size':5} {'positive demands':>36}   {'union (non-negative)':>36}   ratio", flush=True)
    total = {True: 0.0, False: 0.0}
    for prop in props:
        for n, m in dict.fromkeys(_size(prop, n, m) for n, m in sizes):
            line = f"{prop:4} {n}x{m:<3}"
            timed = {}
            for positive in (True, False):
                seconds, proof = _run(drf, prop, n, m, limit, positive, "unweighted")
                timed[positive] = (seconds, proof.status)
                total[positive] += seconds
                line += f" {seconds:8.2f} s {proof.status:8} {proof.budget['rlimit_spent']:>13,} units  "
            print(f"{line} {_ratio(timed[True], timed[False])}", flush=True)
    print(f"\ntotal: positive demands {total[True]:.1f} s, union {total[False]:.1f} s, "
          f"ratio {total[True] / total[False]:.2f}x (limit {limit:g} s per proof)")


def weights_vs_unweighted(drf, props, sizes, limit, names) -> None:
    names = ["unweighted", *[d for d in names if d != "unweighted"]]
    for n, m in dict.fromkeys(_size(p, n, m) for p in props for n, m in sizes):
        for name in names:
            start = time.monotonic()
            report = conformance_gate(drf, n, m, {}, ProveBudget(seconds=limit), start + limit, parse(DOMAINS[name]))
            print(f"conformance {n}x{m} {name}: {report.status} in {time.monotonic() - start:.2f} s", flush=True)
    print(f"{'prop':4} {'size':5} " + "   ".join(f"{name:>40}" for name in names), flush=True)
    total = {name: 0.0 for name in names}
    for prop in props:
        for n, m in dict.fromkeys(_size(prop, n, m) for n, m in sizes):
            line = f"{prop:4} {n}x{m:<3}"
            timed = {}
            for name in names:  # interleaved: every domain of one cell back to back
                seconds, proof = _run(drf, prop, n, m, limit, domain=DOMAINS[name])
                timed[name] = (seconds, proof.status)
                total[name] += seconds
                ratio = "" if name == "unweighted" else f" {_ratio(timed[name], timed['unweighted']):>7}"
                line += f" {seconds:8.2f} s {proof.status:8} {proof.budget['rlimit_spent']:>12,} u{ratio}"
            print(line, flush=True)
    base = total["unweighted"]
    print("\ntotal: " + ", ".join(f"{name} {t:.1f} s" + ("" if name == "unweighted" else f" ({t / base:.2f}x)")
                                  for name, t in total.items()) + f" (limit {limit:g} s per proof)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per proof (outer stop)")
    parser.add_argument("--sizes", default=None, help="default 2x2,3x3,4x3,4x4 (--weights: 2x2,3x3,4x4)")
    parser.add_argument("--props", default=None, help="default si,ef,pe,sp,bf,srf,pm,rm (--weights: si,ef,pe,sp)")
    parser.add_argument("--weights", action="store_true", help="weighted and capped domains beside the unweighted")
    parser.add_argument("--domains", default="unweighted,scalar,vector,all", help=f"with --weights: of {list(DOMAINS)}")
    args = parser.parse_args()
    default_sizes, default_props = ("2x2,3x3,4x4", "si,ef,pe,sp") if args.weights else \
        ("2x2,3x3,4x3,4x4", "si,ef,pe,sp,bf,srf,pm,rm")
    sizes = [tuple(int(x) for x in s.split("x")) for s in (args.sizes or default_sizes).split(",")]
    props = (args.props or default_props).split(",")
    drf = mechanisms.get("drf")
    if args.weights:
        names = args.domains.split(",")
        bad = [d for d in names if d not in DOMAINS]
        if bad:
            parser.error(f"--domains: {bad[0]!r} is not one of {', '.join(DOMAINS)}")
        weights_vs_unweighted(drf, props, sizes, args.limit, names)
    else:
        positive_vs_union(drf, props, sizes, args.limit)


if __name__ == "__main__":
    main()
