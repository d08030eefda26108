"""Search speed, each figure with a baseline measured in the same run.

1. sp candidates per second at 3×3 for drf (target >= 50): candidates decided per second by the
   grid and random engines (each candidate's exact sp check: 60 exact deviation runs and one z3
   question), with the allocation cache of `fairlab.properties.base.run` on and off (off: the old
   path, every run from scratch); and the default portfolio (with the symbolic engine) on the
   same candidate budget.
2. Engines interleaved: asset si at 4×3 by the portfolio against the grid alone (target: the
   portfolio within a small factor of the grid, not seconds behind it), with the symbolic engine
   sliced (the default) and unsliced (``symbolic_slices=0``: the old schedule, one full-rlimit z3
   question before the grid's first turn).

    python benchmarks/bench_search.py [--candidates 30]
"""

from __future__ import annotations

import argparse
import time

from fairlab import mechanisms
from fairlab.properties import base
from fairlab.search import engines

SP_TARGET = 50.0


def timed(**kwargs):
    start = time.monotonic()
    result = engines.search(**kwargs)
    return result, time.monotonic() - start


def sp_rate(candidates: int) -> None:
    drf = mechanisms.get("drf")
    for label, cache, engine_set in (("grid+random, allocation cache off (old path)", False, ("grid", "random")),
                                     ("grid+random, allocation cache on", True, ("grid", "random")),
                                     ("portfolio (symbolic, grid, random)", True, None)):
        base.ALLOCATION_CACHE = cache
        base._ALLOCATIONS.clear()
        result, seconds = timed(mechanism=drf, prop="sp", n=3, m=3, engines=engine_set, candidates=candidates,
                                time_limit=600)
        used = result.budget["candidates_used"]
        print(f"sp drf 3x3, {label}: {used} candidates in {seconds:.2f} s = {used / seconds:.2f} per s "
              f"({result.status.value}); target >= {SP_TARGET:g} per s -> {used / seconds / SP_TARGET:.2f} of target",
              flush=True)
    base.ALLOCATION_CACHE = True


def interleaving() -> None:
    asset = mechanisms.get("asset")
    grid, grid_s = timed(mechanism=asset, prop="si", n=4, m=3, engines=("grid",))
    print(f"asset si 4x3, grid alone: {grid.status.value} in {grid_s:.3f} s", flush=True)
    for label, slices in (("portfolio, unsliced symbolic engine (old schedule)", 0),
                          ("portfolio, interleaved (sliced) symbolic engine", engines.SYMBOLIC_SLICES)):
        result, seconds = timed(mechanism=asset, prop="si", n=4, m=3, symbolic_slices=slices)
        print(f"asset si 4x3, {label}: {result.status.value} by {result.details['engine']} in {seconds:.3f} s "
              f"-> {seconds / grid_s:.1f}x the grid alone", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--candidates", type=int, default=30)
    args = parser.parse_args()
    interleaving()
    sp_rate(args.candidates)


if __name__ == "__main__":
    main()
