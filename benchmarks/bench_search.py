"""Search speed, each figure with a baseline measured in the same run.

1. sp candidates per second at 3×3 for drf (target >= 50): candidates decided per second by the
   grid and random engines (each candidate's exact sp check: 60 exact deviation runs and one z3
   question), interleaved with the baseline of the same run: the spec namespacing's walk over z3
   terms in Python (`spec_names.unknowns` before its C-API walk, kept below as
   `python_walk_unknowns`; everything else as today, the allocation cache on); then the default
   portfolio (with the symbolic engine) on the same candidate budget, new and baseline. The verdict,
   counts and witness of each pair must be identical (checked, printed).
2. Engines interleaved: asset si at 4×3 by the portfolio against the grid alone (target: the
   portfolio within a small factor of the grid, not seconds behind it), with the symbolic engine
   sliced (the default) and unsliced (``symbolic_slices=0``: the old schedule, one full-rlimit z3
   question before the grid's first turn).

    python benchmarks/bench_search.py [--candidates 30] [--rounds 2] [--skip-interleaving] [--skip-portfolio]
"""

from __future__ import annotations

import argparse
import contextlib
import time

import z3

from fairlab import mechanisms
from fairlab.mechanisms import spec_names
from fairlab.properties import base
from fairlab.search import engines

SP_TARGET = 50.0


def timed(**kwargs):
    start = time.monotonic()
    result = engines.search(**kwargs)
    return result, time.monotonic() - start


def python_walk_unknowns(exprs):
    """`spec_names.unknowns` as it was before issue 28: a Python object per sub-expression."""
    consts, funcs = {}, {}
    seen: set = set()
    stack = [e for e in exprs if isinstance(e, z3.ExprRef)]
    while stack:
        e = stack.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if z3.is_app(e):
            if e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
                if e.num_args() == 0:
                    consts.setdefault(e.decl().name(), e)
                else:
                    funcs.setdefault(e.decl().name(), e.decl())
            stack.extend(e.children())
        elif z3.is_quantifier(e):
            stack.append(e.body())
    return consts, funcs


@contextlib.contextmanager
def baseline(on: bool):
    """The path before the C-API walk (when `on`): `spec_names.unknowns` walking in Python."""
    fast = spec_names.unknowns
    if on:
        spec_names.unknowns = python_walk_unknowns
    base._ALLOCATIONS.clear()
    try:
        yield
    finally:
        spec_names.unknowns = fast


def decided(result) -> tuple:
    return (result.status.value, result.budget["candidates_used"], result.details["evaluated"],
            result.details["searched"], result.witness, result.instance)


def sp_rate(candidates: int, rounds: int, portfolio: bool) -> None:
    """(The portfolio's rate is bounded by its symbolic engine: when the candidates are spent, the z3
    question under way is still finished, and for drf sp 3x3 that question ran to the time limit, 600 s,
    on a loaded machine: z3's nonlinear arithmetic does work its rlimit does not charge.)"""
    drf = mechanisms.get("drf")
    sets = (("grid+random", ("grid", "random")), ("portfolio (symbolic, grid, random)", None))
    for label, engine_set in sets if portfolio else sets[:1]:
        seconds = {"baseline": 0.0, "new": 0.0}
        used = {}
        outcomes = {}
        for _ in range(rounds):  # interleaved: the shared machine's load hits both alike
            for which in ("baseline", "new"):
                with baseline(which == "baseline"):
                    result, took = timed(mechanism=drf, prop="sp", n=3, m=3, engines=engine_set,
                                         candidates=candidates, time_limit=600)
                seconds[which] += took
                used[which] = result.budget["candidates_used"]
                outcomes[which] = decided(result)
        same = outcomes["baseline"] == outcomes["new"]
        rate = {k: used[k] * rounds / seconds[k] for k in seconds}
        print(f"sp drf 3x3, {label}: {used['new']} candidates ({outcomes['new'][0]}), new {rate['new']:.2f} per s, "
              f"baseline {rate['baseline']:.2f} per s -> {rate['new'] / rate['baseline']:.2f}x; target >= "
              f"{SP_TARGET:g} per s -> {rate['new'] / SP_TARGET:.2f} of target; verdict, counts and witness "
              f"{'identical' if same else 'DIFFERENT'}", flush=True)


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
    parser.add_argument("--rounds", type=int, default=2, help="baseline/new pairs, interleaved")
    parser.add_argument("--skip-interleaving", action="store_true")
    parser.add_argument("--skip-portfolio", action="store_true", help="sp rate of grid+random only")
    args = parser.parse_args()
    if not args.skip_interleaving:
        interleaving()
    sp_rate(args.candidates, args.rounds, not args.skip_portfolio)


if __name__ == "__main__":
    main()
