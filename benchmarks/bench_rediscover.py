"""`fairlab rediscover` speed: seconds per claim and in total, against the 60 s target, and against
a baseline measured in the same run — the same claims with the symbolic engine switched off
(grid and random engines only).

Also `--schedule`: every claim on 2 workers as `fairlab rediscover` runs them (`lab_sweeps.rediscover`),
costliest first (`Claim.cost`, today's schedule) against the claims' own order (the schedule before,
every cost equal), interleaved in the same run, the results compared.

    python benchmarks/bench_rediscover.py [--baseline] [--schedule [--rounds 2]]
"""

from __future__ import annotations

import argparse
import sys
import time

from fairlab.search import rediscover

TARGET = 60.0


def run(label: str, engines_used=None) -> dict[str, float]:
    out = {}
    for claim in rediscover.CLAIMS:
        start = time.monotonic()
        outcome = rediscover.run_claim(claim, engines_used=engines_used)
        out[claim.id] = time.monotonic() - start
        print(f"  {label:9} {claim.id:22} {outcome.status:10} {out[claim.id]:7.2f} s  ({outcome.details['engine']})",
              flush=True)
    return out


def cli_two_workers() -> float:
    """`fairlab rediscover --workers 2` as users run it (a fresh process, claims in parallel)."""
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as home:
        start = time.monotonic()
        subprocess.run([sys.executable, "-m", "fairlab", "rediscover", "--workers", "2"], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**__import__("os").environ,
                                                                                 "HOME": home})
        return time.monotonic() - start


def schedule(rounds: int) -> None:
    import dataclasses

    from fairlab.campaign import executors, lab_sweeps

    costly = list(rediscover.CLAIMS)
    flat = [dataclasses.replace(c, cost=0.5) for c in costly]
    took = {"costliest first": 0.0, "claims' order (baseline)": 0.0}
    found = {}
    with executors.local(2) as pool:
        for _ in range(rounds):  # interleaved: the shared machine's load hits both alike
            for label, chosen in (("claims' order (baseline)", flat), ("costliest first", costly)):
                start = time.monotonic()
                results = lab_sweeps.rediscover(chosen, executor=pool, store=None)
                took[label] += time.monotonic() - start
                found[label] = [(r.details["claim"], r.status.value, r.instance, r.witness) for r in results]
    new, old = took["costliest first"] / rounds, took["claims' order (baseline)"] / rounds
    same = found["costliest first"] == found["claims' order (baseline)"]
    print(f"rediscover on 2 workers: costliest first {new:.1f} s, claims' order {old:.1f} s -> {old / new:.2f}x; "
          f"target 3 s -> {new / 3:.2f} of target; results {'identical' if same else 'DIFFERENT'}", flush=True)


def main() -> None:
    if "--schedule" in sys.argv:
        parser = argparse.ArgumentParser()
        parser.add_argument("--schedule", action="store_true")
        parser.add_argument("--rounds", type=int, default=2)
        schedule(parser.parse_args().rounds)
        return
    seconds = cli_two_workers()
    print(f"fairlab rediscover --workers 2: {seconds:.1f} s; target 5 s -> {seconds / 5:.2f} of target", flush=True)
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", action="store_true", help="also run without the symbolic engine")
    args = parser.parse_args()
    portfolio = run("portfolio")
    total = sum(portfolio.values())
    print(f"total {total:.1f} s for {len(portfolio)} claims; target {TARGET:.0f} s -> {total / TARGET:.2f} of budget")
    if args.baseline:
        baseline = run("no-z3", engines_used=("grid", "random"))
        base_total = sum(baseline.values())
        print(f"baseline (grid + random only) {base_total:.1f} s; portfolio speed-up {base_total / total:.2f}x")


if __name__ == "__main__":
    main()
