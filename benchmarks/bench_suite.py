"""The default test suite's wall time on every core (pytest-xdist, `-n auto`, the suite's default)
against the baseline measured in the same run: the same suite on one worker (`-n 0`). Target: the
whole default suite within 3 minutes on 2 cores.

    python benchmarks/bench_suite.py [--only-parallel] [pytest args...]

Each run is a fresh `python -m pytest -q -p no:cacheprovider` process from the repository's root;
the exit codes are printed too (a failing suite is no benchmark).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 180.0


def timed(workers: str, extra: list[str]) -> tuple[float, int, str]:
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", workers, *extra],
                          cwd=ROOT, capture_output=True, text=True)
    seconds = time.monotonic() - start
    tail = (done.stdout.strip().splitlines() or [""])[-1]
    return seconds, done.returncode, tail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only-parallel", action="store_true", help="skip the one-worker baseline")
    args, extra = parser.parse_known_args()
    print(f"cores: {os.cpu_count()}; target {TARGET:.0f} s for the default suite", flush=True)
    parallel, code, tail = timed("auto", extra)
    print(f"  -n auto : {parallel:7.1f} s  exit {code}  {tail}", flush=True)
    if args.only_parallel:
        return
    serial, code, tail = timed("0", extra)
    print(f"  -n 0    : {serial:7.1f} s  exit {code}  {tail}", flush=True)
    print(f"ratio -n 0 / -n auto: {serial / parallel:.2f}x; target {'met' if parallel <= TARGET else 'not met'}")


if __name__ == "__main__":
    main()
