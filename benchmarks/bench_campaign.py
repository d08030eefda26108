"""`fairlab campaign run` speed: the same cells with 2 workers against 1 (the baseline, measured in
the same run), and the overhead per cell (a cell's process, JSON across the pipe, the atomic
result file) against the seconds the cells report themselves.

    python benchmarks/bench_campaign.py [--cells-per-mechanism K]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from fairlab.campaign import report, run

SPEC = """verb = "search"
[sweep]
mechanisms = ["drf", "asset", "ceei", "maxmin"]
properties = ["si", "ef", "bf", "njc"]
sizes = [[2, 2]]
seeds = {seeds}
[budget]
candidates = 60
time_limit = 60
"""


def measure(spec: Path, workers: int) -> tuple[float, float, int]:
    """(wall seconds, the cells' own seconds summed, cells)."""
    with tempfile.TemporaryDirectory() as out:
        start = time.monotonic()
        summary = run.run(spec, out, workers=workers)
        wall = time.monotonic() - start
        _, rows = report.read(out)
        inside = sum(row["seconds"] or 0 for row in rows)
        assert "missing" not in summary["outcomes"], summary
        return wall, inside, summary["cells"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=2, help="seeds per mechanism × property (cells = 16 × seeds)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        spec = Path(folder) / "bench.toml"
        spec.write_text(SPEC.format(seeds=json.dumps(list(range(args.seeds)))))
        one, inside_one, cells = measure(spec, 1)
        two, inside_two, _ = measure(spec, 2)
    print(f"{cells} cells (search at 2×2, 60 candidates each)")
    print(f"  1 worker : {one:7.2f} s wall, cells' own time {inside_one:7.2f} s, "
          f"overhead {(one - inside_one) / cells * 1000:6.1f} ms per cell")
    print(f"  2 workers: {two:7.2f} s wall, cells' own time {inside_two:7.2f} s")
    print(f"  speed-up of 2 workers over 1: {one / two:.2f}x")


if __name__ == "__main__":
    main()
