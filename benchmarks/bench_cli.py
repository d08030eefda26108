"""CLI start-up and instance reading, each as a ratio against a baseline measured in the same run.

1. ``fairlab allocate drf drf-paper`` (a fresh interpreter, as users run it) against
   ``python -c "import numpy, z3"``: target ratio <= 1.5 (median of --repeat runs each).
2. ``fairlab audit``'s start-up: the modules the audit command loads before it runs (its command,
   the audit, the --jobs pool) against the same baseline; printed with the modules of numpy,
   scipy, highspy, rich and matplotlib it loads (scipy and matplotlib: none expected).
3. Reading a 10 000 × 10 instance (`Instance.from_json`) against ``json.loads`` on the same text:
   target ratio <= 10; measured for small integer demands (the lab's usual instances), large
   distinct integers, two-decimal numbers (values repeat) and six-decimal numbers (almost all
   distinct: one exact conversion each).

    python benchmarks/bench_cli.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time

from fairlab.core.instance import Instance

CLI_TARGET = 1.5
READ_TARGET = 10.0


def wall(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def cli(repeat: int) -> float:
    base, ours = [], []
    for _ in range(repeat):  # interleaved, so load changes hit both alike
        base.append(wall([sys.executable, "-c", "import numpy, z3"]))
        ours.append(wall([sys.executable, "-m", "fairlab", "allocate", "drf", "drf-paper"]))
    b, o = statistics.median(base), statistics.median(ours)
    print(f"cli: python -c 'import numpy, z3' {b:.3f} s, fairlab allocate drf drf-paper {o:.3f} s "
          f"(medians of {repeat}) -> ratio {o / b:.2f} (target <= {CLI_TARGET})")
    return o / b


AUDIT_IMPORTS = "import fairlab.cli.commands.audit, fairlab.campaign.executors, fairlab.audit.run"


def audit_startup(repeat: int) -> float:
    base, ours = [], []
    for _ in range(repeat):  # interleaved
        base.append(wall([sys.executable, "-c", "import numpy, z3"]))
        ours.append(wall([sys.executable, "-c", AUDIT_IMPORTS]))
    b, o = statistics.median(base), statistics.median(ours)
    probe = (f"{AUDIT_IMPORTS}; import sys; print(' '.join(m for m in ('numpy', 'scipy', 'highspy', 'rich', "
             "'matplotlib') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    print(f"audit start-up: python -c 'import numpy, z3' {b:.3f} s, the audit command's modules {o:.3f} s "
          f"(medians of {repeat}) -> ratio {o / b:.2f}; loads {loaded or 'none of numpy, scipy, highspy, rich'}")
    return o / b


def instance_text(kind: str, n: int = 10_000, m: int = 10) -> str:
    rng = random.Random(0)
    if kind == "small integers":
        rows = [[rng.randint(1, 20) for _ in range(m)] for _ in range(n)]
    elif kind == "large integers":
        rows = [[rng.randint(10**6, 10**12) for _ in range(m)] for _ in range(n)]
    elif kind == "distinct decimals":  # six decimals: almost every number differs
        rows = [[round(rng.uniform(0.1, 20), 6) for _ in range(m)] for _ in range(n)]
    else:
        rows = [[round(rng.uniform(0.1, 20), 2) for _ in range(m)] for _ in range(n)]
    return json.dumps({"capacities": [rng.randint(10**13, 10**14) for _ in range(m)], "demands": rows})


def reading(repeat: int) -> dict[str, float]:
    out = {}
    for kind in ("small integers", "large integers", "two decimals", "distinct decimals"):
        text = instance_text(kind)
        base, ours = [], []
        for _ in range(repeat):
            start = time.perf_counter()
            json.loads(text)
            base.append(time.perf_counter() - start)
            start = time.perf_counter()
            Instance.from_json(text)
            ours.append(time.perf_counter() - start)
        b, o = min(base), min(ours)
        out[kind] = o / b
        print(f"read 10000x10 ({kind}, {len(text) / 1e6:.1f} MB): json.loads {b * 1000:.1f} ms, "
              f"Instance.from_json {o * 1000:.1f} ms -> ratio {o / b:.1f} (target <= {READ_TARGET:g})")
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    cli(args.repeat)
    audit_startup(args.repeat)
    reading(args.repeat)


if __name__ == "__main__":
    main()
