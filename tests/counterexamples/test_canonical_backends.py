"""The canonical form (a finding's identity) is computed in the hot-path back end (GMP by default);
it must be the same form, of the same Fractions, as Python's `Fraction` back end gives."""

from __future__ import annotations

import itertools

from fairlab.core.exact import backend
from fairlab.core.instance import Instance
from fairlab.counterexamples.store import canonical_form, canonical_hash
from fairlab.search import space


def _instances():
    yield from itertools.islice(space.grid(2, 2), 400)  # plain, weighted and capped, interleaved
    yield from itertools.islice(space.grid(3, 2), 200)
    yield Instance.build(["1/3", 2], [[1, "2/7"], [3, 1]], weights=[[1, 2], [3, "1/2"]], max_tasks=["5/2", None])
    yield Instance.load("machines-two-servers")


def test_gmp_and_fraction_give_the_same_form_and_hash():
    for inst in _instances():
        for rescale in (True, False):
            gmp = canonical_form(inst, rescale)
            with backend("fraction"):
                reference = canonical_form(inst, rescale)
                reference_hash = canonical_hash("drf", "si", inst, rescale)
            assert repr(gmp) == repr(reference), inst.to_dict()
            assert canonical_hash("drf", "si", inst, rescale) == reference_hash


def test_a_different_instance_has_a_different_form():
    a = Instance.build([1, 1], [[1, 2], [2, 1]])
    b = Instance.build([1, 1], [[1, 2], [2, 3]])
    assert canonical_form(a) != canonical_form(b)
