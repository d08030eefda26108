"""Ledger claims about the mechanisms the lecture's "Beyond DRF" slides cite (issue 30).

Registered on import (`fairlab.paper_checks` imports this module after `claims_machines`). The
lecture (seed 003) names the mechanisms; their definitions come from reading notes rated medium or
low confidence, so every mechanism checked here is the lab's reading (its module says which). The
instances below were found by the lab (`fairlab rediscover`, `fairlab audit`), not transcribed.
"""

from __future__ import annotations

import random

from fairlab import properties
from fairlab.core.instance import Instance
from fairlab.mechanisms import allocate
from fairlab.paper_checks.ledger import LECTURE, Evidence, claim, same

#: the instance `fairlab rediscover --claim sequential-minmax-sp` finds (shipped fixture fa549ecd814e76d3)
SMM_SP = {"capacities": [1], "demands": [[1], [1]], "users": ["A", "B"]}


def _verdict(prop, mech, inst):
    return properties.check(mech, prop, inst).status.value


def _seeded_pool_instances(count: int, seed: int = 30):
    rng = random.Random(seed)
    for _ in range(count):
        n, m = rng.randint(2, 3), rng.randint(1, 2)
        yield Instance.build([rng.randint(1, 9) for _ in range(m)],
                             [[rng.randint(1, 4) for _ in range(m)] for _ in range(n)])


@claim("lecture-sequential-minmax", LECTURE, "BEYOND DRF / INDIVISIBLE TASKS: A LOWER BOUND",
       "under indivisibilities you can't have efficiency, truthfulness and proportionality at the same time "
       "[Parkes, Procaccia, Shah 2012] — applied to their SequentialMinMax (lab's reading: one task at a time to "
       "the user whose dominant share after it is smallest, among users whose next task fits)",
       "mechanism sequential-minmax on the instance the lab finds (<1>, A <1>, B <1>; B declares <1/2>): sp "
       "violated, pe and si hold there; pe on 40 seeded random whole-task instances (2-3 users, 1-2 resources)",
       "reproduced")
def check_lecture_sequential_minmax(ctx):
    truthful = allocate("sequential-minmax", SMM_SP).tasks
    lie = allocate("sequential-minmax", {**SMM_SP, "demands": [[1], ["1/2"]]}).tasks
    pe = [_verdict("pe", "sequential-minmax", inst) for inst in _seeded_pool_instances(40)]
    return Evidence([same("sp of sequential-minmax (the property it gives up)", "violated",
                          _verdict("sp", "sequential-minmax", SMM_SP)),
                     same("pe there", "holds", _verdict("pe", "sequential-minmax", SMM_SP)),
                     same("si there", "holds", _verdict("si", "sequential-minmax", SMM_SP)),
                     same("tasks truthful / B declaring <1/2>", "(1, 0) / (0, 2)",
                          f"({truthful[0]}, {truthful[1]}) / ({lie[0]}, {lie[1]})"),
                     same("pe violations on 40 seeded instances", "0", pe.count("violated"))],
                    how="exact checks (Fractions); B's two declared half-tasks are the whole resource, one real task")
