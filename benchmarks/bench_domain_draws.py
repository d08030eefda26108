"""What the engines draw of the domain, and what it costs: per engine, the share of candidates drawn
with weights other than 1 and with task caps, and the time per candidate beside the unweighted,
uncapped baseline measured in the same run (interleaved, same budget).

* grid, random (`fairlab.search.space`): `engines.search` with that engine alone on the domain
  ``all`` (weights and caps drawn) and on ``unweighted`` (the baseline: the plain stream of earlier
  versions), for a mechanism and a property that hold (every candidate is evaluated); the shares
  are of the candidates the exact check evaluated (``details["drawn"]``);
* symbolic: its candidates are z3 models of unit-weight, uncapped unknowns (the shares are 0 until
  its encodings take weights and caps);
* impossibility families (`fairlab.search.impossibility`): the share of bases with weights or caps
  over the whole finite family generator (plain ones first), and the time per family's joint
  system, decorated against plain, on a sample of each;
* machines (`fairlab.search.machines`): the random stream caps every other candidate.

    python benchmarks/bench_domain_draws.py [--candidates 60] [--rounds 2] [--families 8]

Timings on a shared machine are noisy; the ratios compare runs interleaved in the same process.
"""

from __future__ import annotations

import argparse
import itertools
import time

from fairlab import mechanisms
from fairlab.core.domain import parse as parse_domain
from fairlab.search import engines, impossibility, space

CASES = (("drf", "pe", 2, 2), ("drf", "sp", 2, 2), ("bmf", "pe", 3, 2), ("drf", "ef", 3, 3))
MACHINE_CASES = (("drf-machines", "machines-si", 2, 2),)


def run(mech, prop, n, m, engine, domain, candidates):
    start = time.monotonic()
    result = engines.search(mechanisms.get(mech), prop, n, m, engines=[engine], candidates=candidates,
                            time_limit=600, domain=domain)
    seconds = time.monotonic() - start
    drawn = result.details.get("drawn") or {}
    used = result.budget.get("candidates_used") or 0
    return result, seconds, drawn, used


def share(part, whole):
    return f"{part / whole:5.0%}" if whole else "  n/a"


def engines_table(candidates: int, rounds: int, cases=CASES) -> None:
    print(f"per engine, {candidates} candidates, best of {rounds} interleaved rounds (seconds per candidate)")
    print(f"{'case':24} {'engine':8} {'weighted':>8} {'vector':>7} {'capped':>7} {'s/cand all':>11} "
          f"{'s/cand unw.':>11} {'ratio':>6}  verdicts")
    for mech, prop, n, m in cases:
        for engine in ("grid", "random", "symbolic"):
            best = {"all": float("inf"), "unweighted": float("inf")}
            for _ in range(rounds):
                for domain in ("unweighted", "all"):
                    result, seconds, drawn, used = run(mech, prop, n, m, engine, domain, candidates)
                    per = seconds / max(used, 1)
                    best[domain] = min(best[domain], per)
                    if domain == "all":
                        shown, status = drawn, result.status.value
                    else:
                        base_status = result.status.value
            evaluated = shown.get("evaluated", 0)
            weighted, vector, capped = (share(shown.get(k, 0), evaluated) for k in ("weighted", "vector_weights",
                                                                                    "capped"))
            print(f"{mech} {prop} {n}×{m}".ljust(24) + f" {engine:8} {weighted:>8} {vector:>7} {capped:>7} "
                  f"{best['all']:11.4f} {best['unweighted']:11.4f} {best['all'] / best['unweighted']:6.2f}  "
                  f"{status} / {base_status}")


def families_table(sample: int) -> None:
    print(f"\nimpossibility families (bases of the whole generator; time per joint system, {sample} of each kind)")
    for label, generator, props, kwargs in (
            ("rm: si+pe+rm", impossibility.capacity_increase_families, ("si", "pe", "rm"), {}),
            ("sp: si+pe+sp, whole tasks", impossibility.misreport_families, ("si", "pe", "sp"), {}),
            ("pm: si+pe+pm", impossibility.departure_families, ("si", "pe", "pm"), {})):
        fams = list(generator(**kwargs))
        shapes = [space.drawn_domain(f.base) for f in fams]
        weighted = sum(s.weights != "none" for s in shapes)
        capped = sum(s.caps != "none" for s in shapes)
        plain = [f for f, s in zip(fams, shapes) if s.weights == "none" and s.caps == "none"][:sample]
        decorated = [f for f, s in zip(fams, shapes) if s.weights != "none" or s.caps != "none"][:sample]
        indivisible = label.endswith("whole tasks")
        times = {}
        for kind, chosen in (("plain", plain), ("decorated", decorated)):
            start = time.monotonic()
            for family in chosen:
                impossibility.solve(family, props, indivisible)
            times[kind] = (time.monotonic() - start) / max(len(chosen), 1)
        print(f"{label:28} {len(fams):5} families: weighted {share(weighted, len(fams))}, capped "
              f"{share(capped, len(fams))}; s/family decorated {times['decorated']:.4f}, plain {times['plain']:.4f}, "
              f"ratio {times['decorated'] / max(times['plain'], 1e-9):.2f}")


def machines_table(candidates: int) -> None:
    print("\nmachines search (random engine caps every other candidate where the domain allows caps)")
    from fairlab.search import machines

    for mech, prop, n, m in MACHINE_CASES:
        out = {}
        for domain in ("caps=none", "all"):
            start = time.monotonic()
            result = machines.search(mechanisms.get(mech), prop, n, m, candidates=candidates, time_limit=600,
                                     domain=parse_domain(domain))
            used = result.budget.get("candidates_used") or 1
            out[domain] = ((time.monotonic() - start) / used, result.details["drawn"], result.status.value)
        drawn = out["all"][1]
        print(f"{mech} {prop} {n}×{m}: capped {share(drawn['capped'], drawn['evaluated'])} of "
              f"{drawn['evaluated']} evaluated; s/cand all {out['all'][0]:.4f}, no caps {out['caps=none'][0]:.4f}, "
              f"ratio {out['all'][0] / out['caps=none'][0]:.2f}; verdicts {out['all'][2]} / {out['caps=none'][2]}")


def stream_shares(count: int = 400) -> None:
    print(f"\nthe streams themselves (first {count} candidates at 2×2 on all)")
    for name, stream in (("grid", space.grid(2, 2)), ("random", space.random_instances(2, 2, seed=0))):
        shapes = [space.drawn_domain(i) for i in itertools.islice(stream, count)]
        print(f"{name:7} weighted {share(sum(s.weights != 'none' for s in shapes), len(shapes))}, vector "
              f"{share(sum(s.weights == 'vector' for s in shapes), len(shapes))}, capped "
              f"{share(sum(s.caps != 'none' for s in shapes), len(shapes))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--families", type=int, default=8)
    args = parser.parse_args()
    stream_shares()
    engines_table(args.candidates, args.rounds)
    families_table(args.families)
    machines_table(args.candidates)


if __name__ == "__main__":
    main()
