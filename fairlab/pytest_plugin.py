"""The fairlab pytest plugin: budgets from the command line, fixtures, and the version in the header.

Registered as a ``pytest11`` entry point, so it is active in every pytest run of an environment
where fairlab is installed (``pytest -p no:fairlab`` turns it off). It adds:

* options ``--fairlab-seed K``, ``--fairlab-candidates N``, ``--fairlab-time-limit S``, ``--fairlab-domain D`` and
  ``--fairlab-store DIR``: the defaults of `fairlab.testing.assert_satisfies` /
  `~fairlab.testing.assert_violates` during the run (an option not given keeps the engine's
  deterministic default; without ``--fairlab-store`` nothing is stored);
* fixtures ``fairlab_budget`` (those options as a frozen `fairlab.testing.Budget`) and ``fairlab``
  (``fairlab.satisfies(mechanism, prop, up_to=...)`` / ``fairlab.violates(...)``, bound to it, and
  ``fairlab.property_contract(prop, control)``; ``prop`` may be a plug-in ``file.py:NAME``);
* a header line ``fairlab 0.1.0 (z3-solver 4.15.4.0)``.

A failed assertion raises `fairlab.testing.PropertyAssertionError`, whose message is the
counterexample; pytest prints it as it is. This module must import fast and never disturb an
unrelated test suite: it imports nothing heavy (the engine loads on the first assertion).
"""

from __future__ import annotations

import argparse
import dataclasses
from importlib import metadata

import pytest

from fairlab import __version__
from fairlab.testing import Budget, assert_satisfies, assert_violates, property_contract, use_budget

_PREVIOUS = pytest.StashKey[Budget]()


def _integer(lowest: int, words: str):
    """An option type: an integer of at least `lowest` (`words` says which, in the error)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < lowest:
            raise argparse.ArgumentTypeError(f"expected a {words} integer, got {text!r}")
        return value

    return parse


_positive_int = _integer(1, "positive")
_seed = _integer(0, "non-negative")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive finite number of seconds, got {text!r}")
    return value


def pytest_addoption(parser):
    group = parser.getgroup("fairlab", "fairlab property assertions (fairlab.testing)")
    group.addoption("--fairlab-seed", type=_seed, default=None, metavar="K",
                    help="seed of the random candidate instances (default: 0)")
    group.addoption("--fairlab-candidates", type=_positive_int, default=None, metavar="N",
                    help="candidate instances per size (default: the engine's)")
    group.addoption("--fairlab-time-limit", type=_seconds, default=None, metavar="S",
                    help="outer stop per assertion in seconds, then the property is unknown (default: the engine's)")
    group.addoption("--fairlab-domain", default=None, metavar="DOMAIN",
                    help="instance domain of the assertions: a preset (drf-paper, weighted, ...) or key=value,... "
                         "(default: all)")
    group.addoption("--fairlab-store", default=None, metavar="DIR",
                    help="store found counterexamples in DIR (default: nothing is stored)")


def budget_of(config) -> Budget:
    """The run's `Budget` from its command line."""
    return Budget(seed=config.getoption("fairlab_seed"), candidates=config.getoption("fairlab_candidates"),
                  time_limit=config.getoption("fairlab_time_limit"), store=config.getoption("fairlab_store"),
                  domain=config.getoption("fairlab_domain"))


def pytest_configure(config):
    config.stash[_PREVIOUS] = use_budget(budget_of(config))


def pytest_unconfigure(config):
    if _PREVIOUS in config.stash:
        use_budget(config.stash[_PREVIOUS])


def pytest_report_header(config):
    try:
        z3 = f" (z3-solver {metadata.version('z3-solver')})"  # package metadata: nothing imported
    except metadata.PackageNotFoundError:
        z3 = ""
    budget = budget_of(config)
    line = f"fairlab {__version__}{z3}"
    return f"{line}, assertions: {budget.describe()}" if budget != Budget() else line


@dataclasses.dataclass(frozen=True)
class Assertions:
    """`assert_satisfies` / `assert_violates` with a run's budget as defaults (the ``fairlab`` fixture);
    a keyword given to a call wins over the budget."""

    budget: Budget

    def _keywords(self, given: dict) -> dict:
        defaults = {"seed": self.budget.seed, "candidates": self.budget.candidates,
                    "time_limit": self.budget.time_limit, "store": self.budget.store, "domain": self.budget.domain}
        return {**{k: v for k, v in defaults.items() if v is not None}, **given}

    def satisfies(self, mechanism, prop, up_to=(3, 3), **keywords):
        """`fairlab.testing.assert_satisfies` with this budget."""
        __tracebackhide__ = True
        return assert_satisfies(mechanism, prop, up_to, **self._keywords(keywords))

    def violates(self, mechanism, prop, up_to=(2, 2), **keywords):
        """`fairlab.testing.assert_violates` with this budget."""
        __tracebackhide__ = True
        return assert_violates(mechanism, prop, up_to, **self._keywords(keywords))

    def property_contract(self, prop, control, **keywords):
        """`fairlab.testing.property_contract` (a plug-in property's contract tests; its seed
        defaults to this budget's)."""
        __tracebackhide__ = True
        if self.budget.seed is not None:
            keywords.setdefault("seed", self.budget.seed)
        return property_contract(prop, control, **keywords)


@pytest.fixture
def fairlab_budget(request) -> Budget:
    """The run's fairlab budget (``--fairlab-seed`` ...) as a frozen `fairlab.testing.Budget`."""
    return budget_of(request.config)


@pytest.fixture
def fairlab(fairlab_budget) -> Assertions:
    """``fairlab.satisfies(mechanism, prop, up_to=(3, 3), **keywords)`` and ``fairlab.violates(...)``."""
    return Assertions(fairlab_budget)
