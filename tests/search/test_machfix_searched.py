"""A candidate whose own check is only a finite search (a per-instance none-found) is counted as
"searched", and the search result does not call it decided exactly (audit 19m F2)."""

from fairlab.mechanisms import get, plugin
from fairlab.search import engines, machines

ZERO = '''
def zero(inst):
    return {"placement": [[0] * inst.k for _ in range(inst.n)]}
zero.setting = "machines"; zero.discrete = True
'''


def test_machines_sp_candidates_are_searched_not_decided(tmp_path):
    (tmp_path / "z.py").write_text(ZERO)
    mech = plugin.load(f"{tmp_path / 'z.py'}:zero")
    r = machines.search(mech, "machines-sp", candidates=5)
    assert r.status == "none-found"
    # every one of the 5 candidates: machines-sp's own check is a finite misreport search (none-found)
    assert sum(r.details["searched"].values()) == 5 and sum(r.details["evaluated"].values()) == 5
    assert "5 candidates, each only searched within its budget" in r.explanation
    assert "decided exactly" not in r.explanation and "decided exactly" not in engines.summary(r)
    assert "(5 searched within their budget)" in engines.summary(r)


def test_exact_checks_keep_the_old_wording():
    # pool pe of drf: each candidate's check is complete (holds) or violated, never a finite search
    r = engines.search(get("drf"), "pe", 2, 2, candidates=4, time_limit=60)
    if r.status == "none-found":
        assert sum(r.details["searched"].values()) == 0
        assert "candidates decided exactly" in r.explanation


def test_candidate_words():
    assert engines.candidate_words(7, {"a": 0}) == "7 candidates decided exactly"
    assert engines.candidate_words(7, {"a": 2, "b": 1}).startswith("7 candidates: 4 decided exactly, 3 searched")
    assert engines.candidate_words(3, {"a": 3}).startswith("3 candidates, each only searched within its budget")
