"""A plug-in that declares both facts the prover may use: DRF's allocator and spec, with
`.scale_invariant = True` and `.anonymous = True` (true for DRF: it works on shares and its spec
is symmetric in the users). The declarations are the author's claims; conformance does not check
them."""

from fairlab import mechanisms
from fairlab.mechanisms import drf


def declared_drf(instance):
    """DRF through the plug-in interface, declared scale-invariant and anonymous."""
    return mechanisms.allocate("drf", instance)


declared_drf.spec = drf.spec
declared_drf.scale_invariant = True
declared_drf.anonymous = True
