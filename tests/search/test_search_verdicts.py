"""Issue 14 §3-§5 on the search/check side: honest verdicts (n/a, holds, unknown), deterministic
budgets with the wall clock only as an outer stop, and plug-ins that never return."""

import json
import os
import re
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest

from fairlab import mechanisms, properties
from fairlab.core.instance import Instance
from fairlab.properties.base import parse_budget
from fairlab.search import engines, shrink

PLUGINS = Path(__file__).parents[1] / "plugins"
HANGS = PLUGINS / "hangs.py"
GOOD = {"capacities": [9, 18], "demands": [[1, 4], [3, 1]]}
HANG_GUARD = 90  # seconds: a subprocess that outlives this has hung (the test fails, nothing hangs)


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "fairlab.cli", *args], capture_output=True, text=True,
                          timeout=HANG_GUARD, env=env)


def run_json(*args, env=None):
    out = run(*args, "--format", "json", env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout[out.stdout.index("{"):])


def one_line_error(out, needle):
    lines = [line for line in out.stderr.strip().splitlines() if not re.match(r"\[\d+/\d+\] ", line)]  # progress
    assert out.returncode == 2 and out.stdout == "", (out.returncode, out.stdout, out.stderr)
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], out.stderr


# --------------------------------------------------------------------------- §3 verdicts
def test_matrix_maxmin_on_two_resources_is_n_a_with_the_reason():
    cells = run_json("matrix", "--mechanism", "maxmin", "--no-store")["results"]
    assert len(cells) == len(properties.names())
    for cell in cells:
        assert cell["status"] == "n/a", cell
        assert "single-resource mechanism" in cell["explanation"]
        assert sum(cell["details"]["declined"].values()) == cell["budget"]["candidates"]
        assert not sum(cell["details"]["evaluated"].values())
    table = run("matrix", "--mechanism", "maxmin", "--no-store")
    [row] = [line for line in table.stdout.splitlines() if line.startswith("│ maxmin")]
    assert row.count("n/a") == len(properties.names()) and "none" not in row
    assert "n/a: the mechanism declined all 300 candidates" in table.stdout


def test_search_maxmin_si_is_n_a_not_none_found():
    data = run_json("search", "maxmin", "si", "--no-store")
    assert data["status"] == "n/a" and "single-resource mechanism" in data["explanation"]
    assert sum(data["details"]["evaluated"].values()) == 0
    assert sum(data["details"]["declined"].values()) == data["budget"]["candidates"]


def test_search_maxmin_on_one_resource_evaluates():
    hunt = engines.search(mechanisms.get("maxmin"), "ef", 2, 1, candidates=100, time_limit=120)
    assert hunt.status in ("holds", "none-found") and not sum(hunt.details["declined"].values())


def test_search_at_a_size_out_of_reach_is_unknown_not_none_found():
    data = run_json("search", "drf", "si", "-n", "12", "-m", "5", "--time-limit", "2", "--no-store")
    if data["status"] == "none-found":  # a very fast machine: then it really evaluated candidates
        assert sum(data["details"]["evaluated"].values()) > 0
    else:
        assert data["status"] == "unknown" and data["explanation"].startswith("time")
        assert data["budget"]["stopped"] == "time"


def test_symbolic_unsat_is_holds_at_the_size_with_its_core():
    data = run_json("search", "drf", "si", "-n", "2", "-m", "2", "--domain", "unweighted", "--no-store")
    assert data["status"] == "holds" and data["details"]["engine"] == "symbolic"
    core = data["certificate"]["core"]
    assert "v.violated" in core and any(c.startswith("drf.") for c in core)
    assert data["certificate"]["control"]["dropped"] in core
    assert "2 users × 2 resources" in data["explanation"] and "seeded instances" in data["explanation"]
    assert data["budget"]["rlimit"] > 0 and data["budget"]["candidates_used"] == 0
    table = run("search", "drf", "si", "-n", "2", "-m", "2", "--domain", "unweighted", "--no-store")
    assert "holds at 2×2" in table.stdout and "unsat core:" in table.stdout


def test_holds_needs_the_spec_to_match_the_allocator(tmp_path):
    """A plug-in whose spec is DRF's but whose allocator is not DRF: z3 finds spec ∧ ¬si unsat,
    yet `holds` is not claimed (the spec does not describe the mechanism)."""
    plug = tmp_path / "liar.py"
    plug.write_text(
        "from fairlab.mechanisms import drf\n"
        "def f(instance):\n"
        "    return [0] * instance.n\n"
        "f.spec = drf.spec\n"
    )
    hunt = engines.search(mechanisms.get(f"{plug}:f"), "pe", engines=["symbolic"], time_limit=120)
    assert hunt.status != "holds"
    assert any("holds not claimed" in note for note in hunt.details["notes"]), hunt.details["notes"]


def test_every_result_records_its_budget():
    data = run_json("search", "asset", "si", "--candidates", "50", "--seed", "4", "--rlimit", "9000000", "--no-store")
    budget = data["budget"]
    assert (budget["candidates"], budget["seed"], budget["rlimit"]) == (50, 4, 9_000_000)
    assert {"schedule", "check", "time_limit", "shrink_trials", "candidates_used"} <= set(budget)
    assert data["status"] == "violated" and data["seconds"] >= 0
    check = run_json("check", "ceei", "sp", "drf-paper", "--evaluations", "20", "--rlimit", "3000000")
    assert check["budget"]["rlimit"] == 3_000_000 and check["budget"]["max_evaluations"] == 20


# --------------------------------------------------------------------------- §4 determinism
def test_schedule_is_round_robin_by_count():
    pulls = []

    def engine(name):
        k = 0
        while True:
            k += 1
            pulls.append(name)
            yield Instance.build([1, 1], [[1, k], [k, 1]])

    hunt = engines.hunt({"symbolic": engine("symbolic"), "grid": engine("grid"), "random": engine("random")},
                        lambda inst: ("evaluated", None), candidates=13)
    assert pulls == (["symbolic"] + ["grid"] * 3 + ["random"] * 2
                     + ["symbolic"] + ["grid"] * 3 + ["random"] * 2
                     + ["symbolic"])
    assert hunt.status == "none-found" and hunt.details["evaluated"] == {"symbolic": 3, "grid": 6, "random": 4}


def test_no_candidate_decided_is_unknown():
    hunt = engines.hunt({"grid": iter([Instance.from_dict(GOOD)])}, lambda inst: ("undecided", "z3"), candidates=5)
    assert hunt.status == "unknown" and "could be decided" in hunt.explanation
    hunt = engines.hunt({"grid": iter([])}, lambda inst: ("evaluated", None), candidates=5)
    assert hunt.status == "unknown" and hunt.explanation == "no candidate was evaluated"


def test_budget_exhaustion_is_a_count_and_time_only_stops():
    b = parse_budget({"evaluations": 3, "time_limit": 1000})
    assert not b.exhausted() and not b.time_up()
    b.used_evaluations = 3
    assert b.exhausted() and not b.time_up()
    b = parse_budget({"evaluations": 3, "time_limit": "1/1000000"})
    time.sleep(0.01)
    assert b.time_up() and not b.exhausted()


def test_a_check_stopped_by_the_time_limit_is_unknown_not_none_found():
    slow = f"{HANGS}:slow"  # 0.25 s per run, 300 evaluations: far more than 1 s on any machine
    v = properties.check(slow, "sp", Instance.from_dict(GOOD), time_limit=1)
    assert v.status == "unknown" and v.budget["stopped"] == "time"
    three = Instance.build([1, 1], [[1, 2], [2, 1], [1, 1]])
    v = properties.check(slow, "pm", three, time_limit="1/2")
    assert v.status == "unknown" and v.budget["stopped"] == "time"


def test_shrinking_is_bounded_by_trials_not_seconds():
    hunt = engines.search(mechanisms.get("asset"), "si", engines=["random"], seed=3, time_limit=120)
    again = engines.search(mechanisms.get("asset"), "si", engines=["random"], seed=3, time_limit=120)
    assert hunt.instance == again.instance and hunt.budget["shrink_trials_used"] == again.budget["shrink_trials_used"]
    calls = []

    def violates(inst):
        calls.append(inst)
        return "v"

    shrink.shrink(Instance.build([9, 9], [[5, 7], [3, 8]]), "v", violates, trials=4)
    assert len(calls) == 4


SEARCHES = [
    ("search", "ceei", "sp", "--no-store"),  # symbolic model, shrunk
    ("search", "drf-tasks", "sp", "--candidates", "120", "--seed", "5", "--no-store"),  # numeric engines
    ("search", "pdrf", "ef", "--candidates", "150", "--no-store"),  # none-found with counts
    ("search", "asset", "bf", "--engine", "random", "--seed", "2", "--no-store"),  # random engine, 60+ shrink trials
]


def _decided(data):
    keep = ("status", "explanation", "instance", "witness", "certificate")
    out = {k: data[k] for k in keep}
    out.update({k: data["details"][k] for k in ("engine", "evaluated", "declined", "undecided")})
    out["budget"] = {k: v for k, v in data["budget"].items()}
    return out


@pytest.mark.parametrize("args", SEARCHES, ids=lambda a: " ".join(a[1:3]))
def test_same_search_twice_gives_the_same_json(args):
    env = dict(os.environ)
    first = run_json(*args, env={**env, "PYTHONHASHSEED": "1"})
    second = run_json(*args, env={**env, "PYTHONHASHSEED": "2"})
    assert "stopped" not in first["budget"] and _decided(first) == _decided(second)


def test_same_check_twice_gives_the_same_json():
    first = run_json("check", "ceei", "sp", "drf-paper", "--evaluations", "40")
    second = run_json("check", "ceei", "sp", "drf-paper", "--evaluations", "40")
    first.pop("seconds"), second.pop("seconds")
    assert first == second


@pytest.mark.slow
@pytest.mark.parametrize("args", SEARCHES, ids=lambda a: " ".join(a[1:3]))
def test_same_search_on_a_loaded_machine_gives_the_same_json(args):
    quiet = run_json(*args)
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(3)]
    try:
        loaded = run_json(*args)
    finally:
        for p in busy:
            p.kill()
            p.wait()
    assert "stopped" not in loaded["budget"] and _decided(quiet) == _decided(loaded)


# --------------------------------------------------------------------------- §5 plug-ins that never return
@pytest.mark.parametrize("verb", [
    ["check", f"{HANGS}:f", "si", "drf-paper"],
    ["check", f"{HANGS}:f", "sp", "drf-paper"],
    ["allocate", f"{HANGS}:f", "drf-paper"],
    ["search", f"{HANGS}:f", "si", "--no-store"],
    ["search", f"{HANGS}:stubborn", "sp", "--no-store"],
    ["matrix", "--mechanism", f"{HANGS}:sleeps", "--no-store"],
], ids=["check-si", "check-sp", "allocate", "search", "search-stubborn", "matrix-sleeps"])
def test_a_plugin_that_never_returns_is_stopped_at_the_time_limit(verb):
    out = run(*verb, "--time-limit", "3")  # subprocess.TimeoutExpired = the hang this guards against
    one_line_error(out, "did not return within 3 s")
    assert "hangs.py" in out.stderr


def test_a_plugin_spec_that_never_returns_is_stopped():
    out = run("search", f"{HANGS}:slow_spec", "si", "--no-store", "--time-limit", "3")
    one_line_error(out, "did not return within 3 s")


def test_a_plugin_that_returned_before_is_read_as_the_time_limit():
    """A plug-in known to return, still running when the limit comes: the search is unknown (time),
    and the note names what was stopped; no error."""
    data = run_json("search", f"{HANGS}:first_then_hangs", "si", "--time-limit", "3", "--no-store")
    assert data["status"] == "unknown" and data["budget"]["stopped"] == "time"
    assert any("did not return within 3 s" in note for note in data["details"]["notes"])


def test_allocate_time_limit_leaves_a_good_plugin_alone():
    data = run_json("allocate", f"{PLUGINS / 'with_spec.py'}:drf_copy", "drf-paper", "--time-limit", "30")
    assert data["tasks"] == ["3", "2"]
    out = run("allocate", "drf", "drf-paper", "--time-limit", "0")
    one_line_error(out, "--time-limit")


def test_the_worker_process_keeps_results_exact(tmp_path):
    """A plug-in's result crosses from its worker process exactly: Fractions, and algebraic numbers."""
    plug = tmp_path / "algebraic.py"
    plug.write_text(
        "import z3\n"
        "from fairlab.core.exact import Algebraic\n"
        "def f(instance):\n"
        "    x = z3.Real('x'); s = z3.Solver(); s.add(x * x == 2, x > 0); s.check()\n"
        "    return [Algebraic.of(s.model()[x]) / 100, '1/3']\n"
    )
    tasks = mechanisms.allocate(f"{plug}:f", Instance.build([1, 1], [[1, 1], [1, 2]])).tasks
    assert tasks[0] * tasks[0] == Fraction(1, 5000) and tasks[1] == Fraction(1, 3)
