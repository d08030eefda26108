"""`fairlab.search(...)` is a call (`run_search`, ``fairlab search`` on the command line) while
`fairlab.search` stays the package: ``import fairlab.search.engines`` and its modules import as before."""

import importlib
import multiprocessing
import sys

import fairlab
import fairlab.search.engines
from fairlab import search
from fairlab.core.results import Status


def test_fairlab_search_is_run_search():
    found = fairlab.search("asset", "si", 2, 2)  # asset fairness violates si (Theorem 1 of the DRF paper)
    assert found.status == Status.VIOLATED
    assert found.witness == fairlab.run_search("asset", "si", 2, 2).witness
    none = fairlab.search("drf", "si", 2, 2, candidates=20, domain="unweighted")  # twin: drf is si there
    assert none.status != Status.VIOLATED


def test_the_package_is_still_the_package():
    assert fairlab.search is sys.modules["fairlab.search"] is search
    assert isinstance(fairlab.search, search.SearchModule) and callable(fairlab.search)
    assert fairlab.search.engines is importlib.import_module("fairlab.search.engines")
    assert fairlab.search.run_search is search.run_search and "engines" in dir(fairlab.search)


def _status_in_child(queue):
    import fairlab

    queue.put(fairlab.search("asset", "si", 2, 2).status.value)


def test_callable_in_a_spawned_process():
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_status_in_child, args=(queue,))
    child.start()
    status = queue.get(timeout=300)
    child.join(60)
    assert status == "violated" and child.exitcode == 0
