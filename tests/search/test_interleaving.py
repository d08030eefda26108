"""The symbolic engine works in slices of its rlimit, so the cheap engines are not starved; the
schedule is counted work, so the same budget gives the same result."""

from fairlab import mechanisms
from fairlab.core.results import Result
from fairlab.properties import base
from fairlab.search import engines


def _fake_engine(items):
    yield from items


def test_working_pulls_are_not_candidates():
    pool = {"symbolic": _fake_engine([engines.WORKING] * 5), "grid": _fake_engine(["a", "b", "c", "d"])}
    seen = []

    def classify(item):
        seen.append(item)
        return "evaluated", None

    result = engines.hunt(pool, classify, candidates=3)
    assert isinstance(result, Result) and seen == ["a", "b", "c"]
    assert result.budget["candidates_used"] == 3


def test_a_question_under_way_is_finished_when_the_candidates_are_spent():
    sym = engines.symbolic_candidates  # only the protocol matters here: WORKING, then Unsat
    assert callable(sym)
    unsat = engines.Unsat([], set(), None)
    pool = {"symbolic": _fake_engine([engines.WORKING, engines.WORKING, unsat]), "grid": _fake_engine(["a"] * 10)}
    result = engines.hunt(pool, lambda item: ("evaluated", None), candidates=2,
                          on_unsat=lambda u: ("holds", {"reason": "r", "core": [], "control": {}, "notes": []}))
    assert result.status == "holds"


def test_grid_not_starved_and_deterministic():
    asset = mechanisms.get("asset")
    # unweighted: the plain grid and random streams, as before weights and caps were drawn
    first = engines.search(asset, "si", 4, 3, domain="unweighted")
    again = engines.search(asset, "si", 4, 3, domain="unweighted")
    assert first.status == "violated" and first.details["engine"] == "grid"
    assert (first.instance, first.witness, first.budget["candidates_used"]) == \
        (again.instance, again.witness, again.budget["candidates_used"])


def test_slices_do_not_change_a_holds():
    drf = mechanisms.get("drf")
    sliced = engines.search(drf, "si", 2, 2, domain="unweighted")
    whole = engines.search(drf, "si", 2, 2, symbolic_slices=0, domain="unweighted")
    assert sliced.status == whole.status == "holds"
    assert sliced.certificate == whole.certificate


def test_allocation_cache_lives_only_inside_a_search():
    engines.search(mechanisms.get("drf"), "sp", 2, 2, engines=("grid",), candidates=3)
    assert base._ALLOCATIONS == {} and base._CACHE_DEPTH == 0
