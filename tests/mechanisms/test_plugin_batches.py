"""A plug-in's runs batched through its worker's pipe (`fairlab.mechanisms.plugin.paired`, `send_ahead`,
`fairlab.properties.base.PLUGIN_BATCHES`): every call still gets the reply to exactly its own
instance, what was sent ahead and never asked for has no effect (a hang, a crash), and the
determinism check still sees two real runs."""

import time
from pathlib import Path

import pytest

from fairlab import mechanisms, properties
from fairlab.core.errors import PluginError
from fairlab.core.instance import Instance
from fairlab.mechanisms import plugin
from fairlab.properties import base

PLUGIN = '''
import time
from fractions import Fraction

CALLS = []


def first_share(instance):
    """User i gets (i + 1) / (n + 1) of what fits for it alone; hangs on capacity 13, raises on 17."""
    cap = instance.capacities[0]
    if cap == 13:
        time.sleep(60)
    if cap == 17:
        raise RuntimeError("seventeen")
    CALLS.append(cap)
    return [Fraction(i + 1, instance.n + 1) * min(Fraction(c, d) for c, d in zip(instance.capacities, row) if d)
            for i, row in enumerate(instance.demands)]


def alternating(instance):
    """Answers differently on every other call: not a mechanism."""
    CALLS.append(1)
    return [Fraction(len(CALLS) % 2)] + [Fraction(0)] * (instance.n - 1)
'''


def _inst(cap: int) -> Instance:
    return Instance.build([cap, 10], [[1, 2], [2, 1]])


@pytest.fixture
def mech(tmp_path):
    path = tmp_path / "batched.py"
    path.write_text(PLUGIN)
    return lambda name: mechanisms.get(f"{path}:{name}")


def _direct(inst: Instance) -> tuple:
    from fractions import Fraction

    return tuple(Fraction(i + 1, inst.n + 1) * min(Fraction(c, d) for c, d in zip(inst.capacities, row) if d)
                 for i, row in enumerate(inst.demands))


def test_each_call_gets_the_reply_to_its_own_instance_whatever_was_sent_ahead(mech):
    m = mech("first_share")
    with plugin.time_limit(30):
        assert plugin.send_ahead(m, [_inst(c) for c in (20, 21, 22)], {}, runs=1)
        assert m(_inst(20)).tasks == _direct(_inst(20))  # the first sent ahead
        assert m(_inst(30)).tasks == _direct(_inst(30))  # not the next one sent: those are dropped
        assert m(_inst(21)).tasks == _direct(_inst(21))  # asked again now: a fresh request
        assert plugin.send_ahead(m, [_inst(c) for c in (40, 41)], {}, runs=2)
        for c in (40, 40, 41, 41):  # each sent twice: the determinism check's pair
            assert m(_inst(c)).tasks == _direct(_inst(c))


def test_a_hang_or_crash_sent_ahead_but_never_asked_for_has_no_effect(mech):
    m = mech("first_share")
    with plugin.time_limit(5):
        plugin.send_ahead(m, [_inst(20), _inst(13), _inst(17)], {}, runs=1)  # 13 hangs, 17 raises
        assert m(_inst(20)).tasks == _direct(_inst(20))
        start = time.monotonic()
        assert m(_inst(25)).tasks == _direct(_inst(25))  # the hanging worker is replaced, not waited for
        assert time.monotonic() - start < 4
        plugin.send_ahead(m, [_inst(17), _inst(20)], {}, runs=2)
        with pytest.raises(Exception, match="seventeen"):  # asked for: the crash is its answer
            m(_inst(17))
        assert m(_inst(20)).tasks == _direct(_inst(20))


def test_a_search_batched_and_one_request_per_run_give_the_same_verdict(mech, monkeypatch):
    m = mech("first_share")
    inst = Instance.build([12, 10], [[1, 2], [2, 1]])
    batched = properties.check(m, "sp", inst, evaluations=40)
    monkeypatch.setattr(base, "PLUGIN_BATCHES", False)
    single = properties.check(m, "sp", inst, evaluations=40)
    assert batched.status == single.status
    assert batched.witness == single.witness
    assert batched.budget["candidates"] == single.budget["candidates"]


def test_the_determinism_check_still_sees_two_runs(mech):
    m = mech("alternating")
    with base.allocation_cache(), pytest.raises(PluginError, match="not a deterministic mechanism"):
        base.run(m, _inst(20), {})


PLUGINS = Path(__file__).parents[1] / "plugins"
SUITE_PLUGINS = ["unfair.py:dictator", "unfair.py:equal_split", "with_spec.py:ceei_without_spec",
                 "with_spec.py:drf_copy", "sp_sneak.py:sp_sneak", "breaks_at_three.py:breaks_at_three"]


@pytest.mark.parametrize("name", SUITE_PLUGINS)
@pytest.mark.parametrize("prop", ["sp", "rm"])
def test_batched_and_unbatched_plugin_checks_agree(name, prop, monkeypatch):
    """The suite's plug-ins: the same status, witness, candidates and explanation either way."""
    inst = Instance.build([100, 100], [[16, 1], [1, 2]])
    target = f"{PLUGINS / name}"

    def check():
        with base.allocation_cache():
            r = properties.check(target, prop, inst, evaluations=40)
        return r.status, r.witness, r.budget.get("candidates"), r.explanation

    batched = check()
    monkeypatch.setattr(base, "PLUGIN_BATCHES", False)
    assert check() == batched


def test_an_audit_gives_the_same_profile_batched_or_not(monkeypatch):
    from fairlab.audit.run import audit

    def profile():
        report = audit(f"{PLUGINS / 'unfair.py'}:dictator", 2, 2, candidates=15, properties_=["sp", "rm", "si"])
        return [(r["property"], r["status"], r["instance"], r["witness"], r["candidates_by_size"])
                for r in report.to_dict()["properties"]]

    batched = profile()
    monkeypatch.setattr(base, "PLUGIN_BATCHES", False)
    assert profile() == batched
