"""Reproducer (issue 14 §2): asset fairness's allocator with DRF's spec attached.

The spec is satisfiable but describes another mechanism: a proof about it is a proof about DRF,
not about this allocator (which violates si: DRF paper Theorem 1). `fairlab prove` must find
the disagreement (conformance) before claiming anything.
"""

from fairlab.mechanisms import allocate, drf


def asset_with_drf_spec(instance):
    """Asset fairness carrying DRF's spec."""
    return allocate("asset", instance)


asset_with_drf_spec.spec = drf.spec
