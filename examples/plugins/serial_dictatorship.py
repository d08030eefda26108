"""A typed plug-in mechanism: serial dictatorship (docs/howto/plugin-mechanism.md).

Users take turns in index order; each runs as many tasks as what the users before it left allows
(and its task cap). The first user is a dictator, so the mechanism is not sharing incentive: on
the DRF paper's example user A takes 4.5 tasks and all the memory, and B runs nothing.

A plug-in is a plain function ``Instance -> tasks per user`` (exact numbers); the package is typed
(``fairlab/py.typed``), so a plug-in file type-checks against the lab's own types with mypy
(tests/project/test_typing.py runs mypy on this folder). Use it as

    fairlab allocate examples/plugins/serial_dictatorship.py:serial_dictatorship drf-paper
    fairlab check examples/plugins/serial_dictatorship.py:serial_dictatorship si drf-paper
    python examples/plugins/serial_dictatorship.py       # the same check from Python
"""

from __future__ import annotations

from fractions import Fraction

import fairlab
from fairlab import Instance, Result, Status


def serial_dictatorship(instance: Instance) -> list[Fraction]:
    """Tasks per user: in index order, the most tasks that fit in what is left (and under the cap)."""
    left = list(instance.capacities)
    tasks: list[Fraction] = []
    for i, row in enumerate(instance.demands):
        fits = [left[r] / row[r] for r in range(instance.m) if row[r] > 0]
        take = min(fits, default=Fraction(0))  # a user demanding nothing runs no task
        cap = instance.max_tasks[i]
        if cap is not None:
            take = min(take, cap)
        tasks.append(take)
        left = [c - take * d for c, d in zip(left, row)]
    return tasks


def main() -> Status:
    result: Result = fairlab.check(serial_dictatorship, "si", "drf-paper")
    print(result)
    return result.status


if __name__ == "__main__":
    main()
