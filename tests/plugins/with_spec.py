"""A plug-in with a symbolic specification: DRF re-exported, its spec attached as `.spec`."""

from fairlab import mechanisms
from fairlab.mechanisms import drf


def drf_copy(instance):
    """DRF, through the plug-in interface (returns an Allocation)."""
    return mechanisms.allocate("drf", instance)


drf_copy.spec = drf.spec


def numpy_tasks(instance):
    """DRF tasks as a numpy array of floats (the half-integers are exact in binary)."""
    import numpy as np

    return np.array([float(t) for t in mechanisms.allocate("drf", instance).tasks])


def ceei_without_spec(instance):
    """CEEI through the plug-in interface, without its spec: only the numeric engines serve it."""
    return mechanisms.allocate("ceei", instance).tasks


def broken_spec(instance):
    """DRF with a symbolic spec that raises: the numeric search must still run."""
    return mechanisms.allocate("drf", instance)


def _raising_spec(sym, tasks):
    raise ValueError("spec not implemented")


broken_spec.spec = _raising_spec
