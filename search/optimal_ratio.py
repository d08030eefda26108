"""The optimal fairness ratio table: for one divisible resource, at most k agents present and at most d
disruptions per event, the best ratio ANY online mechanism can guarantee (exact:
`fairlab.mechanisms._disruptions`), beside the worst ratios of the lab's dynamic mechanisms.

Two settings: arrivals only, and arrivals with departures (Friedman, Psomas & Vardi, EC 2015, study
both; the lecture's fairness ratio). For each k and each d in 0..k-1 (d >= k-1 always reaches 1):

* ``optimum``: max over mechanisms of min over every event sequence (unbounded with departures) of
  the run's fairness ratio — a finite safety game, solved exactly (its docstring argues the
  reduction); the mechanism knows k;
* each mechanism's worst ratio over `fairlab.search.fairness_ratio.family` (1..k agents, every
  arrival order, every choice of departures; each agent arrives once and leaves at most once, so
  for a mechanism this is a worst case over that family only, an upper bound on its worst case over
  every sequence), with the most disruptions it made per event on the family (``disruptions``):
  ``controlled-drf`` with its option d, ``fpv-optimal`` (the game's strategy) with d and k,
  ``dynamic-drf`` (it knows n = k; arrivals only: it declines departures; it never changes a present
  agent with one resource, so it sits in the d = 0 column).

A mechanism whose worst ratio on the family is below the optimum is strictly suboptimal (proved by
that instance); equal on the family is consistent with optimal, not a proof of it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.mechanisms import _disruptions
from fairlab.mechanisms.registry import get
from fairlab.search.fairness_ratio import family

#: the largest k of the table (the mechanisms' families grow like k! · (k+1)!)
MAX_TABLE_AGENTS = 4

MODEL = ("one divisible resource of size 1; agents arrive (and depart) one at a time in any order an adversary "
         "chooses; at most k agents present at once, known to the mechanism; after each event at most d of the agents "
         "present before it (and still present) may have their share changed (up or down); fairness ratio = min over "
         "steps and present agents of share / (1/k_t), k_t agents present")


def disruptions(instance: Instance, steps) -> int:
    """The most present agents (other than the one arriving or leaving) whose tasks changed at one event."""
    most, before = 0, None
    for step in steps:
        _, who = step.event
        if before is not None:
            changed = [i for i in step.present if i != who and i in before.present and step.tasks[i] != before.tasks[i]]
            most = max(most, len(changed))
        before = step
    return most


def worst(mechanism: str, agents: int, departures: bool, options: dict) -> dict:
    """The mechanism's worst fairness ratio over the family, the most disruptions per event, the
    instance reaching the worst ratio, and the counts (evaluated, declined)."""
    mech = get(mechanism)
    ratio: Fraction | None = None
    witness, most, evaluated, declined = None, 0, 0, 0
    for inst in family(agents, departures=departures):
        try:
            allocation = mech(inst, **options)
        except InputError:
            declined += 1
            continue
        evaluated += 1
        most = max(most, disruptions(inst, allocation.steps or ()))
        value = allocation.extra["fairness_ratio"]
        if value is not None and (ratio is None or value < ratio):
            ratio, witness = value, inst.to_dict()
    return {"mechanism": mechanism, "options": options, "ratio": ratio, "disruptions": most, "instance": witness,
            "evaluated": evaluated, "declined": declined}


def table(agents: int = MAX_TABLE_AGENTS, mechanisms: bool = True,
          progress: Callable[[str], None] | None = None) -> dict:
    """The table (module docstring) for k = 1..`agents`: ``{"model", "rows": [...]}``, one row per setting, k
    and d, each with the exact ``optimum`` (and the game's size) and, with `mechanisms`, each
    mechanism's worst ratio on the family."""
    if isinstance(agents, bool) or not isinstance(agents, int) or not 1 <= agents <= MAX_TABLE_AGENTS:
        raise InputError(f"agents: expected a whole number 1..{MAX_TABLE_AGENTS}, got {agents!r}")
    rows = []
    for departures in (False, True):
        for k in range(1, agents + 1):
            for d in range(k):
                best = _disruptions.optimum(k, d, departures)
                row: dict[str, Any] = {"setting": "arrivals and departures" if departures else "arrivals only",
                       "departures": departures, "agents": k, "d": d, "optimum": best.ratio,
                       "game": {"states": best.states, "thresholds_decided": best.tried,
                                "harmonic": best.harmonic}, "mechanisms": []}
                if mechanisms:
                    if progress:
                        progress(f"k = {k}, d = {d}, {row['setting']}: the mechanisms' worst ratios")
                    found = [worst("controlled-drf", k, departures, {"d": d}),
                             worst("fpv-optimal", k, departures, {"d": d, "k": k,
                                                                  "departures": "yes" if departures else "no"})]
                    if d == 0 and not departures:
                        found.append(worst("dynamic-drf", k, departures, {}))
                    row["mechanisms"] = found
                rows.append(row)
    return {"model": MODEL, "family": "every instance of fairlab.search.fairness_ratio.family: 1..k agents, every "
                                      "arrival order, every choice of departures (each agent once), one resource",
            "rows": rows}


__all__ = ["table", "worst", "disruptions", "MODEL", "MAX_TABLE_AGENTS"]
