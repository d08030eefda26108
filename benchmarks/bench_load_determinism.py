"""Same checks, same statuses, idle and under load: 30 checks that were undecided at first (before
the budgets were made counted, 28 of them ended ``unknown`` on the 30 s wall clock of a check on a
loaded 2-core machine, and two were decided only 10-20 s before it) run one after another in this
process, first as the machine is, then beside two busy processes (``while True: pass``), and both
status lists are printed. They must be identical: every status is decided by a counted budget
(mechanism runs, z3 resource units, seeds); the wall clock is only a safety net far above what that
budget costs (`fairlab.properties.base.CHECK_SAFETY_NET`), and a check it stops would print
``unknown (wall-clock safety net)``.

    python benchmarks/bench_load_determinism.py [--only K] [--busy 2]

Exit code 0 when the two lists are identical, 1 otherwise. The seconds are printed for scale only
(they depend on the machine's load); no status may.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import fairlab

#: (mechanism, property, instance), one line each: positive demands throughout (the DRF paper's own
#: domain), random instances (3 users, 2-3 resources, capacities 1..20, demands 1..9). With the code
#: before this benchmark (a check's 30 s wall clock, 50 million z3 units), on a 2-core machine shared
#: by about eight busy processes, the first 28 ended "unknown (stopped by the time limit)" and the
#: last two were decided after 20 s and 11 s: their status depended on the machine's load.
_CHECKS = """
drf rm {"capacities": [12, 16, 7], "demands": [[6, 4, 8], [3, 1, 8], [3, 8, 7]]}
drf rm {"capacities": [7, 1, 18], "demands": [[8, 4, 9], [3, 2, 5], [3, 5, 2]]}
drf rm {"capacities": [11, 1, 2], "demands": [[3, 8, 2], [4, 5, 1], [6, 3, 4]]}
drf rm {"capacities": [5, 17, 11], "demands": [[6, 6, 5], [8, 4, 7], [2, 4, 4]]}
drf rm {"capacities": [13, 17, 1], "demands": [[5, 1, 1], [4, 4, 2], [6, 4, 3]]}
drf rm {"capacities": [4, 3, 5], "demands": [[9, 5, 4], [9, 6, 2], [4, 1, 3]]}
drf rm {"capacities": [5, 12, 19], "demands": [[3, 2, 8], [5, 4, 4], [5, 1, 1]]}
drf rm {"capacities": [8, 5, 20], "demands": [[9, 9, 8], [4, 8, 3], [5, 9, 7]]}
drf sp {"capacities": [17, 20, 14], "demands": [[4, 3, 3], [5, 8, 3], [2, 7, 9]]}
drf sp {"capacities": [2, 8, 8], "demands": [[1, 7, 1], [9, 3, 3], [5, 8, 5]]}
drf sp {"capacities": [3, 17, 19], "demands": [[8, 5, 2], [2, 7, 2], [2, 7, 6]]}
drf sp {"capacities": [20, 5, 20], "demands": [[7, 2, 8], [2, 9, 9], [3, 1, 2]]}
drf sp {"capacities": [3, 14, 3], "demands": [[8, 1, 8], [5, 1, 1], [4, 3, 2]]}
drf sp {"capacities": [19, 3, 3], "demands": [[4, 1, 4], [1, 4, 8], [6, 7, 8]]}
drf sp {"capacities": [6, 10, 7], "demands": [[7, 9, 1], [7, 3, 1], [2, 5, 6]]}
drf sp {"capacities": [14, 2, 18], "demands": [[7, 6, 1], [2, 6, 9], [7, 2, 7]]}
asset sp {"capacities": [14, 4, 20], "demands": [[9, 9, 4], [4, 6, 1], [3, 6, 2]]}
asset sp {"capacities": [17, 8, 1], "demands": [[3, 1, 3], [3, 2, 9], [6, 7, 5]]}
asset sp {"capacities": [1, 4, 14], "demands": [[2, 8, 1], [5, 9, 1], [4, 1, 7]]}
asset sp {"capacities": [10, 15, 2], "demands": [[3, 8, 7], [8, 7, 8], [3, 4, 8]]}
asset sp {"capacities": [5, 6, 16], "demands": [[3, 3, 1], [8, 3, 9], [6, 9, 1]]}
asset sp {"capacities": [20, 11, 5], "demands": [[5, 8, 7], [8, 7, 4], [8, 7, 2]]}
ceei sp {"capacities": [16, 13], "demands": [[9, 7], [5, 6], [9, 3]]}
ceei sp {"capacities": [16, 4], "demands": [[6, 6], [4, 1], [1, 5]]}
ceei sp {"capacities": [2, 11], "demands": [[8, 2], [5, 4], [2, 5]]}
ceei sp {"capacities": [4, 16], "demands": [[4, 7], [6, 9], [1, 5]]}
ceei sp {"capacities": [10, 9], "demands": [[7, 8], [8, 8], [6, 9]]}
ceei sp {"capacities": [10, 20], "demands": [[2, 1], [6, 7], [5, 9]]}
bmf sp {"capacities": [2, 20], "demands": [[3, 5], [3, 4], [9, 1]]}
ceei rm {"capacities": [1, 9], "demands": [[1, 5], [1, 1]]}
"""


def _load() -> list[tuple[str, str, dict]]:
    import json

    out = []
    for line in _CHECKS.strip().splitlines():
        mech, prop, instance = line.split(" ", 2)
        out.append((mech, prop, json.loads(instance)))
    return out


def run(checks: list[tuple[str, str, dict]], label: str) -> list[tuple[str, float]]:
    out = []
    for k, (mech, prop, inst) in enumerate(checks, 1):
        start = time.monotonic()
        result = fairlab.check(mech, prop, inst)
        seconds = time.monotonic() - start
        out.append((result.label(), seconds))
        print(f"  [{label} {k:2}/{len(checks)}] {mech} {prop} {inst['capacities']} {inst['demands']}: "
              f"{result.label()} ({seconds:.1f} s)", file=sys.stderr, flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", type=int, default=None, help="the first K checks only")
    parser.add_argument("--busy", type=int, default=2, help="busy processes beside the loaded run (default 2)")
    args = parser.parse_args()
    checks = _load()[: args.only]
    print(f"{len(checks)} checks, idle first, then beside {args.busy} busy processes", flush=True)
    idle = run(checks, "idle")
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    try:
        loaded = run(checks, "loaded")
    finally:
        for process in busy:  # the processes this benchmark started, by their own handles
            process.kill()
            process.wait()
    print(f"\n{'#':>3}  {'check':<44} {'idle':<34} {'loaded':<34}")
    for k, ((mech, prop, inst), (a, ta), (b, tb)) in enumerate(zip(checks, idle, loaded), 1):
        about = f"{mech} {prop} {len(inst['demands'])}x{len(inst['capacities'])} {inst['capacities']}"
        print(f"{k:>3}  {about:<44} {a + f' ({ta:.1f} s)':<34} {b + f' ({tb:.1f} s)':<34}"
              + ("" if a == b else "   <- differs"))
    statuses_idle, statuses_loaded = [a for a, _ in idle], [b for b, _ in loaded]
    print(f"\nidle:   {statuses_idle}")
    print(f"loaded: {statuses_loaded}")
    same = statuses_idle == statuses_loaded
    print(f"identical: {'yes' if same else 'NO'} ({sum(a == b for a, b in zip(statuses_idle, statuses_loaded))} "
          f"of {len(checks)}); seconds idle {sum(t for _, t in idle):.0f}, loaded {sum(t for _, t in loaded):.0f}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
