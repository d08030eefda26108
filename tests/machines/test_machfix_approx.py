"""An approximate machines plug-in keeps its placement and is labelled approximate: the properties
answer unknown for that reason, never "needs a placement or a lottery" and never a verdict (audit 19m F5a)."""

import pytest

from fairlab import properties
from fairlab.mechanisms import plugin

TWO = {"machines": [[4, 8], [6, 4]], "demands": [[1, 2], [2, 1]], "users": ["A", "B"]}
PLUG = '''
def ap(inst):
    return {"placement": [[1, 1], [1, 1]], "exactness": "approximate", "error_bound": "1e-9"}
ap.setting = "machines"; ap.discrete = True
def pool(inst):
    return {"tasks": [1, 1], "exactness": "approximate"}
'''


@pytest.fixture
def plug(tmp_path):
    (tmp_path / "p.py").write_text(PLUG)
    return lambda fn: f"{tmp_path / 'p.py'}:{fn}"


def test_placement_kept_and_labelled(plug):
    from fairlab.core.instance import Instance
    alloc = plugin.load(plug("ap"))(Instance.from_dict(TWO))
    assert alloc.exactness == "approximate" and alloc.placement is not None
    assert [[int(x) for x in row] for row in alloc.placement] == [[1, 1], [1, 1]]


@pytest.mark.parametrize("prop", ["machines-ef", "machines-pe", "machines-sp", "thm7-pairwise"])
def test_approximate_never_decides(plug, prop):
    r = properties.check(plug("ap"), prop, TWO)
    assert r.status == "unknown", (r.status, r.explanation)
    assert "approximate" in r.explanation and "needs a placement" not in r.explanation


def test_pool_approximate_unchanged(plug):
    r = properties.check(plug("pool"), "si", {"capacities": [2, 2], "demands": [[1, 0], [0, 1]]})
    assert r.status == "unknown" and "approximate" in r.explanation
