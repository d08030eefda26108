"""Speed of the dynamic-demand lab (issue 8): CTMC states/s, packets/s, Figure 2 regeneration.

    python benchmarks/bench_dynamics.py            # everything (about 2-3 minutes on 2 cores)
    python benchmarks/bench_dynamics.py --quick    # smaller sizes

Targets from the issue: report states per second for the CTMC solve and packets per second for
the simulator; the Figure 2 curve set (3 mechanisms x 10 load points) should regenerate in under
2 minutes on 2 cores. All ratios are measured in the same run; nothing here is asserted.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from fractions import Fraction

import numpy as np

from fairlab.dynamics import allocators, cluster, figures, markov, packets


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()

    req = figures.REQUIREMENTS
    A = np.array([[float(x) for x in row] for row in req])

    # ---------------------------------------------------------------- allocators
    N = 40 if args.quick else 80
    states = markov.simplex_states(3, N)
    print(f"class-level allocators on the N={N} simplex ({len(states)} states):")
    for name, f in allocators.FAST_ALLOCATORS.items():
        t = time.perf_counter()
        f(A, states)
        dt = time.perf_counter() - t
        print(f"  {name}: {len(states) / dt:,.0f} states/s ({dt:.2f} s)")
    sample = [list(s) for s in markov.simplex_states(3, 6)[1:]]
    for fast, exact in (("drf", "drf"), ("pf", "ceei"), ("bmf", "bmf")):
        try:
            allocators._registry_state.cache_clear()
            t = time.perf_counter()
            allocators.registry_rates(exact, req, sample)
            dt_exact = (time.perf_counter() - t) / len(sample)
        except Exception as exc:  # noqa: BLE001 - a mechanism not registered yet
            print(f"  exact {exact}: unavailable ({exc})")
            continue
        t = time.perf_counter()
        allocators.FAST_ALLOCATORS[fast](A, states)
        dt_fast = (time.perf_counter() - t) / len(states)
        print(f"  exact registry {exact}: {1 / dt_exact:,.0f} states/s;"
              f" fast {fast} is {dt_exact / dt_fast:,.0f}x faster per state")

    # ---------------------------------------------------------------- CTMC solve
    print(f"CTMC stationary solve (sparse LU; ILU-preconditioned GMRES above {markov.ITERATIVE_ABOVE} states),"
          " unbalanced load 0.8:")
    for N in ([30, 50] if args.quick else [30, 50, 70]):
        states, rates = markov.state_rates("pf", req, N)
        lam = np.array([float(x) for x in figures.class_loads("unbalanced", Fraction(8, 10))])
        t = time.perf_counter()
        markov.stationary(states, rates, lam, np.ones(3), N)
        dt = time.perf_counter() - t
        print(f"  N={N}: {len(states)} states in {dt:.2f} s = {len(states) / dt:,.0f} states/s")

    # ---------------------------------------------------------------- Figure 2 curve set
    markov.clear_cache()
    loads = figures.LOAD_POINTS
    t = time.perf_counter()
    data = figures.curves("unbalanced", loads=loads)
    dt = time.perf_counter() - t
    total_states = sum(r.states for m in data for r in data[m])
    worst = max(r.boundary_mass for m in data for r in data[m])
    print(f"Figure 2 curve set: 3 mechanisms x {len(loads)} loads in {dt:.1f} s (target < 120 s); "
          f"{total_states:,} states solved in total ({total_states / dt:,.0f} states/s end to end); "
          f"largest boundary mass {worst:.1e}")
    markov.clear_cache()
    with tempfile.TemporaryDirectory() as out:
        t = time.perf_counter()
        figures.draw(2, out, progress=False)
        print(f"Figure 2 PNG regenerated from a cold cache in {time.perf_counter() - t:.1f} s")

    # ---------------------------------------------------------------- packets
    flows = 3000 if args.quick else 10000
    loads3 = figures.class_loads("unbalanced", Fraction(7, 10))
    print(f"packet simulator ({flows} flows, mean 50 packets, W=5, resource-2 load 0.7):")
    for s in packets.SCHEDULERS:
        res = packets.simulate(s, req, loads3, flows=flows, mean_size=50, window=5, seed=0)
        res.gamma = [float(g) for g in res.gamma]
        fluid = [float(g) for g in markov.solve(s, req, loads3).gamma]
        diff = max(abs(a - b) / b for a, b in zip(res.gamma, fluid))
        print(f"  {s}: {res.packets:,} packets in {res.seconds:.1f} s = {res.packets_per_second:,.0f} packets/s; "
              f"γ packets {[round(g, 3) for g in res.gamma]} vs fluid {[round(g, 3) for g in fluid]} "
              f"(max rel. diff {diff:.3f})")

    # ---------------------------------------------------------------- cluster
    n = 5000 if args.quick else 20000
    print(f"cluster schedulers ({n} task completions, pools of 1000, 4 jobs):")
    for s in cluster.SCHEDULERS:
        res = cluster.simulate(s, [[1, 10], [1, 10], [10, 1], [10, 10]], [1000, 1000], completions=n, seed=0)
        print(f"  {s}: {n / res.seconds:,.0f} completions/s; max rel. error vs fluid {max(res.relative_errors()):.3f}")


if __name__ == "__main__":
    main()
