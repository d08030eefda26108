"""A finding's identity: the machines stay in instance order (drf-machines depends on it) and the
mechanism options are part of it (audit 19m F3); empty options keep the pool hashes."""

from fairlab import properties
from fairlab.core.instance import Instance
from fairlab.counterexamples.store import canonical_hash

A = {"machines": [[5, 4], [5, 2]], "demands": [[2, 2], [3, 2]]}
B = {"machines": [[5, 2], [5, 4]], "demands": [[2, 2], [3, 2]]}


def test_machine_order_is_part_of_a_finding():
    a, b = Instance.from_dict(A), Instance.from_dict(B)
    # same machines, other order: drf-machines places differently, and only one is a violation
    assert properties.check("drf-machines", "machines-pe", a).status == "holds"
    assert properties.check("drf-machines", "machines-pe", b).status == "violated"
    assert canonical_hash("drf-machines", "machines-pe", a, False) != canonical_hash("drf-machines", "machines-pe", b,
                                                                                      False)


def test_options_are_part_of_a_finding():
    inst = Instance.from_dict(A)
    plain = canonical_hash("drf-machines", "machines-pe", inst, False)
    assert canonical_hash("drf-machines", "machines-pe", inst, False, options={}) == plain
    greedy = canonical_hash("drf-machines", "machines-pe", inst, False, options={"fill": "greedy"})
    assert greedy != plain
    assert canonical_hash("drf-machines", "machines-pe", inst, False, options={"fill": "literal"}) != greedy


def test_pool_hash_without_options_is_unchanged():
    # the shipped fixture drf-pm-dcb259b3a6df77c3.json (no options): its hash is the same as before
    inst = Instance.from_dict({"capacities": [1, 1], "demands": [[1, 0], [0, 1]]})
    digest = canonical_hash("drf", "pm", inst)
    assert digest == canonical_hash("drf", "pm", inst, options=None) == canonical_hash("drf", "pm", inst, options={})
    import json
    from pathlib import Path

    import fairlab.counterexamples as cx
    fixture = json.loads((Path(cx.__file__).parent / "fixtures" / "drf-pm-dcb259b3a6df77c3.json").read_text())
    assert not fixture.get("options")
    assert canonical_hash("drf", "pm", Instance.from_dict(fixture["instance"])) == "dcb259b3a6df77c3"
