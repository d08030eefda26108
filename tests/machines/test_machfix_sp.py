"""machines-sp counts a misreport the mechanism declines as declined, not as evaluated (audit 19m F1)."""

from fairlab import properties

TWO = {"machines": [[4, 8], [6, 4]], "demands": [[1, 2], [2, 1]], "users": ["A", "B"]}

PICKY = '''
from fairlab.core.errors import InputError
from fractions import Fraction as F
def picky(inst):
    if [list(map(F, r)) for r in inst.demands] != [[1, 2], [2, 1]]:
        raise InputError("I only do the two-servers instance")
    return {"placement": [[1, 1], [1, 1]]}
picky.setting = "machines"; picky.discrete = True
def lot(inst):
    if [list(map(F, r)) for r in inst.demands] != [[1, 2], [2, 1]]:
        return {"lottery": [[1, [[0, 0], [0, 0]]]]}
    return {"placement": [[1, 1], [1, 1]]}
lot.setting = "machines"; lot.discrete = True
def half(inst):
    if [list(map(F, r)) for r in inst.demands] != [[1, 2], [2, 1]] and inst.demands[0][0] > 1:
        raise InputError("declined")
    return {"placement": [[1, 1], [1, 1]]}
half.setting = "machines"; half.discrete = True
'''


def _plug(tmp_path, name):
    path = tmp_path / "plug.py"
    path.write_text(PICKY)
    return f"{path}:{name}"


def test_all_declined_is_unknown_not_none_found(tmp_path):
    r = properties.check(_plug(tmp_path, "picky"), "machines-sp", TWO)
    # 300 evaluations: the truthful run + 299 over-reports, every one declined
    assert r.status.value == "unknown", r.explanation
    assert "299 declined by the mechanism" in r.explanation
    assert "evaluated exactly" not in r.explanation
    assert r.budget["evaluated"] == 0 and r.budget["declined"] == 299


def test_a_lottery_on_a_misreport_is_judged_ex_ante(tmp_path):
    # issue 30: a lottery is no longer unreadable; its expected real tasks (here 0) are compared
    r = properties.check(_plug(tmp_path, "lot"), "machines-sp", TWO)
    assert r.status.value == "none-found", r.explanation
    assert r.budget["evaluated"] == 299 and r.budget["unreadable"] == 0 and r.budget["declined"] == 0


def test_some_declined_counts_both(tmp_path):
    r = properties.check(_plug(tmp_path, "half"), "machines-sp", TWO)
    assert r.status.value == "none-found", r.explanation
    ev, de = r.budget["evaluated"], r.budget["declined"]
    assert ev > 0 and de > 0 and ev + de == 299
    assert f"no gain among {ev} over-reports evaluated exactly, of 299 tried; {de} declined" in r.explanation
