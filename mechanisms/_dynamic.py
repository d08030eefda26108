"""What the dynamic mechanisms (agents over time) share, exactly (`Fraction`).

* `normalised(instance, i)`: user i's demand as fractions of the capacities, scaled so that its
  dominant share is 1 (Kash, Procaccia & Shah, JAIR 51 (2014) §2, who normalise every demand
  vector so; a user's *dominant share* x_i is then its tasks times its dominant share per task);
* `static_drf(instance, present)`: the static DRF allocation (progressive filling, DRF paper
  §4 / appendix A.1, `fairlab.mechanisms.drf`) of the users in `present`, tasks per user of the
  whole instance (0 for a user not present) — drf-rerun's allocation and the *ideal* of the
  fairness ratio;
* `fairness_ratio(instance, steps)`: the lecture's fairness ratio ``min_t min_i u_i^t / ideal_t``
  (Procaccia & Psomas lecture, "Dynamic fair division" slide; Friedman, Psomas & Vardi, EC 2015,
  whose benchmark is "the ratio of the minimal share to the ideal share, 1/k when there are k
  agents in the system"). Here ideal_t of user i is its tasks in the static DRF allocation of the
  users present after event t; u_i^t / ideal_t is the ratio of tasks (equivalently of dominant
  shares). With one resource and k users that ideal is 1/k of the resource each: the lecture's form.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from fairlab.core.errors import InputError
from fairlab.core.instance import Instance
from fairlab.mechanisms import _filling
from fairlab.mechanisms.base import Step


def dynamic_events(instance: Instance, who: str) -> tuple[tuple[str, int], ...]:
    """The instance's events; InputError for an instance without arrivals."""
    if instance.events is None:
        raise InputError(f"{who}: the instance has no arrival order (give \"arrivals\")")
    return instance.events


def normalised(instance: Instance, i: int) -> tuple[Fraction, ...]:
    """d_ir / c_r / (max_s d_is / c_s): user i's per-resource use per unit of dominant share."""
    sigma = instance.dominant_share_per_task(i)
    return tuple(instance.demand_share(i, r) / sigma for r in range(instance.m))


def sub_instance(instance: Instance, present: Sequence[int]) -> Instance:
    """The pool instance of the users in `present` (in index order), same capacities."""
    keep = sorted(present)
    return Instance.build(capacities=list(instance.capacities), demands=[list(instance.demands[i]) for i in keep],
                          users=[instance.users[i] for i in keep], resources=list(instance.resources))


def static_drf(instance: Instance, present: Sequence[int]) -> tuple[Fraction, ...]:
    """Tasks per user (whole instance; 0 if absent) of static DRF among `present`."""
    out = [Fraction(0)] * instance.n
    if not present:
        return tuple(out)
    keep = sorted(present)
    sub = sub_instance(instance, keep)
    tasks, _ = _filling.fill(sub, [sub.dominant_share_per_task(k) for k in range(sub.n)])
    for k, i in enumerate(keep):
        out[i] = tasks[k]
    return tuple(out)


def fairness_ratio(instance: Instance, steps: Sequence[Step]) -> tuple[Fraction | None, list]:
    """(min over steps of the step's ratio, per-step records {"ratio", "ideal"}); a step with nobody
    present has ratio None (no user to measure) and is left out of the minimum."""
    records = []
    best: Fraction | None = None
    for step in steps:
        ideal = static_drf(instance, step.present)
        ratios = [step.tasks[i] / ideal[i] for i in step.present]
        ratio = min(ratios) if ratios else None
        records.append({"ratio": ratio, "ideal": list(ideal)})
        if ratio is not None and (best is None or ratio < best):
            best = ratio
    return best, records


def with_ratio(instance: Instance, steps: Sequence[Step]) -> dict:
    """The `Allocation.extra` of a dynamic allocation: ``fairness_ratio`` and per-step values."""
    best, records = fairness_ratio(instance, steps)
    return {"fairness_ratio": best, "fairness_ratio_steps": [r["ratio"] for r in records],
            "ideal_steps": [r["ideal"] for r in records],
            "fairness_ratio_definition": "min over steps t of min over present users i of tasks_i(t) / ideal_i(t), "
                                         "ideal = static DRF of the users present at t (lecture 'fairness ratio'; "
                                         "Friedman, Psomas & Vardi 2015)"}
