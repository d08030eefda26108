"""Statistics of PDRF Tables 1-2 (Metin §4), and the paper's published numbers to compare with:
how far PDRF's task counts are from the DRF loop's.

One run: `users` users with demands drawn uniformly from the integers [lo, hi] per resource,
reserves uniformly from [reserve_lo, reserve_hi] (both ends included), PDRF vs the DRF task loop
(``tie=paper, on_blocked=stop`` by default: the loop of the DRF paper as the PDRF experiments ran
it), both exact. Per run: the number of users under-allocated by 1, 2, >2 tasks and the largest
shortfall, likewise over-allocated. A table row aggregates runs: means of those counts, the maximum
deviation over all runs, and the mean and standard deviation (population, ddof=0 — the paper does
not say which) of the number of users under- / over-allocated per run.

Seeding: runs are drawn in fixed chunks of `CHUNK`, chunk c of a row from
``numpy.random.default_rng([seed, lo, hi, c])``, so the numbers do not depend on how many worker
processes computed them.
"""

from __future__ import annotations

import json
import math
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources as importlib_resources
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from fairlab.core import processes
from fairlab.core.errors import InputError
from fairlab.mechanisms._drf_loop import fast_loop
from fairlab.mechanisms._pdrf_kernel import pdrf_counts
from fairlab.mechanisms._task_problem import from_integers

CHUNK = 25
KINDS = ("under", "over")
COLUMNS = ("1", "2", ">2", "max", "avg", "sd")


@dataclass(frozen=True)
class Config:
    users: int
    resources: int
    demands: tuple[int, int]
    reserves: tuple[int, int]
    runs: int
    seed: int = 0
    tie: str = "paper"
    on_blocked: str = "stop"

    def validate(self) -> None:
        """One-line `InputError` naming the field (the CLI checks its flags before building a Config)."""
        if self.users < 1:
            raise InputError(f"users: must be at least 1, got {self.users}")
        if self.resources < 1:
            raise InputError(f"resources: must be at least 1, got {self.resources}")
        if self.runs < 1:
            raise InputError(f"runs: must be at least 1, got {self.runs}")
        lo, hi = self.demands
        if not 0 <= lo <= hi or hi == 0:
            raise InputError(f"demands: expected a range LO-HI with 0 <= LO <= HI and HI >= 1, got {lo}-{hi}")
        rlo, rhi = self.reserves
        if not 1 <= rlo <= rhi:
            raise InputError(f"reserves: expected a range LO-HI with 1 <= LO <= HI, got {rlo}-{rhi}")


def draw(rng: np.random.Generator, config: Config):
    """One random run's reserves and demands (each user's demand vector has a positive entry)."""
    caps = rng.integers(config.reserves[0], config.reserves[1], size=config.resources, endpoint=True)
    dem = rng.integers(config.demands[0], config.demands[1], size=(config.users, config.resources), endpoint=True)
    zero = ~(dem > 0).any(axis=1)
    while zero.any():  # only possible when the range starts at 0: redraw those users
        dem[zero] = rng.integers(config.demands[0], config.demands[1], size=(int(zero.sum()), config.resources),
                                 endpoint=True)
        zero = ~(dem > 0).any(axis=1)
    return caps.tolist(), dem


def deviations(caps, dem, tie: str = "paper", on_blocked: str = "stop") -> np.ndarray:
    """PDRF tasks minus DRF-loop tasks, per user (exact integers)."""
    problem = from_integers(caps, dem)
    pdrf = pdrf_counts(problem)
    drf = fast_loop(problem, tie, on_blocked).counts
    return np.asarray(pdrf, dtype=np.int64) - np.asarray(drf, dtype=np.int64)


def run_stats(dev: np.ndarray) -> list[int]:
    """[under 1, under 2, under >2, max shortfall, over 1, over 2, over >2, max excess]."""
    out = []
    for side in (-dev, dev):
        out += [int((side == 1).sum()), int((side == 2).sum()), int((side > 2).sum()), int(max(side.max(), 0))]
    return out


def chunk_stats(config: Config, chunk: int) -> list[list[int]]:
    rng = np.random.default_rng([config.seed, config.demands[0], config.demands[1], chunk])
    count = min(CHUNK, config.runs - chunk * CHUNK)
    out = []
    for _ in range(count):
        caps, dem = draw(rng, config)
        out.append(run_stats(deviations(caps, dem, config.tie, config.on_blocked)))
    return out


def chunks(config: Config) -> int:
    return math.ceil(config.runs / CHUNK)


def _chunk(args):
    config, chunk = args
    return config.demands, chunk_stats(config, chunk)


def compute(configs: list[Config], jobs: int = 1, advance: Callable[[int], None] | None = None) -> dict:
    """A table row (`aggregate`) per config, keyed by its demand interval; the chunks of runs are
    spread over `jobs` processes (the seeding makes the numbers independent of `jobs`).
    `advance(k)` is called as each chunk of k runs completes (a progress display)."""
    for config in configs:
        config.validate()
    work = [(config, k) for config in configs for k in range(chunks(config))]
    per_row: dict = {config.demands: [] for config in configs}
    done: Iterator[Any]
    if jobs <= 1 or len(work) <= 1:
        done = map(_chunk, work)
    else:
        pool = ProcessPoolExecutor(max_workers=min(jobs, len(work)), mp_context=processes.context())
        done = pool.map(_chunk, work)
    try:
        for demands, stats in done:
            per_row[demands] += stats
            if advance is not None:
                advance(len(stats))
    finally:
        if jobs > 1 and len(work) > 1:
            pool.shutdown()
    return {config.demands: aggregate(per_row[config.demands]) for config in configs}


def aggregate(per_run: Iterable[list[int]]) -> dict:
    """A table row: {'under': {'1', '2', '>2', 'max', 'avg', 'sd'}, 'over': {...}}.

    Sums are exact integers (means and variance as Fractions), so the row does not depend on the
    order the runs arrive in; floats only at the end, for printing."""
    runs = [list(map(int, run)) for run in per_run]
    count = len(runs)
    if count == 0:
        raise InputError("runs: no runs to aggregate")
    row = {}
    for k, kind in enumerate(KINDS):
        cols = [[run[4 * k + c] for run in runs] for c in range(4)]
        totals = [a + b + c for a, b, c in zip(cols[0], cols[1], cols[2])]
        mean = Fraction(sum(totals), count)
        variance = Fraction(sum(t * t for t in totals), count) - mean * mean
        row[kind] = {
            "1": float(Fraction(sum(cols[0]), count)),
            "2": float(Fraction(sum(cols[1]), count)),
            ">2": float(Fraction(sum(cols[2]), count)),
            "max": max(cols[3]),
            "avg": float(mean),
            "sd": math.sqrt(variance),
        }
    return row


def published() -> dict:
    """The transcription of the paper's Tables 1-2 (paper_checks/pdrf_tables_published.json)."""
    text = importlib_resources.files("fairlab.paper_checks").joinpath("pdrf_tables_published.json").read_text("utf-8")
    return json.loads(text)


def published_row(config: Config) -> tuple[int, dict] | None:
    """(table number, row) of the paper for this configuration, if the paper has one."""
    for table in published()["tables"]:
        if (
            table["users"] == config.users
            and table["resources"] == config.resources
            and tuple(table["reserves"]) == tuple(config.reserves)
        ):
            for row in table["rows"]:
                if tuple(row["demands"]) == tuple(config.demands):
                    return table["table"], row
    return None


PRESETS: dict[int, dict[str, Any]] = {
    1: {"resources": 10, "demands": [(1, 10), (1, 20), (10, 20)]},
    2: {"resources": 2, "demands": [(1, 100), (1, 1000)]},
}
