"""Plug-in attributes of the settings (audit 19m F4): a non-bool ``discrete`` is refused in one line."""

import pytest

from fairlab import properties
from fairlab.core.errors import InputError
from fairlab.mechanisms import plugin

TWO = {"machines": [[4, 8], [6, 4]], "demands": [[1, 2], [2, 1]], "users": ["A", "B"]}
PLUG = '''
def d1(inst):
    return {"placement": [["1/2", 1], [1, 1]]}
d1.setting = "machines"; d1.discrete = 1
def dyes(inst):
    return {"placement": [["1/2", 1], [1, 1]]}
dyes.setting = "machines"; dyes.discrete = "yes"
def dtrue(inst):
    return {"placement": [[1, 1], [1, 1]]}
dtrue.setting = "machines"; dtrue.discrete = True
def sone(inst):
    return [1, 1]
sone.setting = 1
'''


@pytest.fixture
def plug(tmp_path):
    (tmp_path / "p.py").write_text(PLUG)
    return lambda fn: f"{tmp_path / 'p.py'}:{fn}"


@pytest.mark.parametrize("fn, shown", [("d1", "1"), ("dyes", "'yes'")])
def test_non_bool_discrete_is_one_line(plug, fn, shown):
    with pytest.raises(InputError) as err:
        properties.check(plug(fn), "machines-ef", TWO)
    message = str(err.value)
    assert f"its discrete attribute {shown} is not True or False" in message and "\n" not in message


def test_bool_discrete_and_bad_setting(plug):
    assert plugin.load(plug("dtrue")).discrete is True
    with pytest.raises(InputError, match="its setting attribute 1 is not one of pool, machines, dynamic"):
        plugin.load(plug("sone"))


def test_docstring_documents_the_settings():
    doc = plugin.__doc__
    assert '"placement"' in doc and '"lottery"' in doc and '"steps"' in doc and "fn.discrete" in doc


def test_zero_resource_on_every_machine_is_named():
    # audit 19m F5b: the pooled capacities are derived, so the message names machines and the resource
    from fairlab.core.instance import Instance
    with pytest.raises(InputError) as err:
        Instance.from_dict({"machines": [[4, 0], [6, 0]], "demands": [[1, 1]]})
    assert str(err.value) == "machines: resource r2 has capacity 0 on every machine"
    with pytest.raises(InputError, match="^machines: resource mem has capacity 0 on every machine$"):
        Instance.from_dict({"machines": [[4, 0], [6, 0]], "demands": [[1, 1]], "resources": ["cpu", "mem"]})
