"""Plug-ins that misbehave in the ways an adversarial audit tried (issue 14): a spec that returns
garbage, a mechanism that prints, and results labelled approximate (a spec that never returns:
`hangs.py:slow_spec`)."""

import os
import sys

from fairlab.mechanisms import allocate


def spec_garbage(instance):
    return [0] * instance.n


spec_garbage.spec = lambda sym, tasks: [1, 2, 3]


def prints(instance):
    print("HELLO FROM PLUGIN")
    sys.stdout.flush()
    os.write(1, b"RAW C-LEVEL WRITE\n")
    return [0] * instance.n


class _Labelled:
    def __init__(self, tasks, exactness, error_bound):
        self.tasks, self.exactness, self.error_bound = tasks, exactness, error_bound


def ceei_float_object(instance):
    """CEEI's certified float path, returned as a plain object that keeps the label."""
    a = allocate("ceei", instance, method="float")
    return _Labelled(a.tasks, a.exactness, a.error_bound)


def ceei_float_mapping(instance):
    a = allocate("ceei", instance, method="float")
    return {"tasks": list(a.tasks), "exactness": "approximate", "error_bound": a.error_bound}
