"""The core CLI verbs: allocate, mechanisms, examples; bad input is one line on stderr, exit 2."""

import json
import subprocess
import sys

import pytest


def run(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "fairlab.cli", *args], input=stdin, capture_output=True, text=True, timeout=120
    )


def test_allocate_json_is_exact(tmp_path):
    path = tmp_path / "inst.json"
    path.write_text(json.dumps({"capacities": [9, 18], "demands": [[1, 4], [3, 1]]}))
    out = run("allocate", "asset", str(path), "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["schema_version"] == 1 and data["provenance"]["lab"]
    assert data["mechanism"] == "asset"
    assert data["tasks"] == ["63/25", "54/25"]
    assert data["bundles"][0] == ["63/25", "252/25"]


def test_allocate_table_from_stdin_and_example():
    out = run("allocate", "drf", "-", stdin='{"capacities": [9, 18], "demands": [[1, 4], [3, 1]]}')
    assert out.returncode == 0 and "dominant share" in out.stdout and "2/3" in out.stdout
    out = run("allocate", "maxmin", "maxmin-notes", "--format", "json")
    assert json.loads(out.stdout)["tasks"] == ["2", "13/5", "27/10", "27/10"]


def test_mechanisms_lists_the_registry():
    out = run("mechanisms", "--format", "json")
    listing = json.loads(out.stdout)
    assert listing["schema_version"] == 1 and listing["kind"] == "mechanisms"
    names = {m["name"] for m in listing["items"]}
    assert {"drf", "asset", "ks", "maxmin"} <= names


@pytest.mark.parametrize(
    "args,stdin,needle",
    [
        (["allocate", "drf", "-"], '{"capacities": [1, -1], "demands": [[1, 1]]}', "capacities[1]"),
        (["allocate", "drf", "-"], '{"capacities": [1, NaN], "demands": [[1, 1]]}', "NaN"),
        (["allocate", "drf", "-"], '{"capacities": [0], "demands": [[1]]}', "capacities[0]"),
        (["allocate", "drf", "-"], '{"capacities": [1, 1], "demands": [[1, 1], [2]]}', "ragged"),
        (["allocate", "drf", "-"], '{"capacities": [1, 1], "demands": [[0, 0]]}', "all zero"),
        (["allocate", "drf", "-"], '{"capacities": [1, 1], "demands": [[1, 1]]', "malformed JSON"),
        (["allocate", "nope", "-"], '{"capacities": [1], "demands": [[1]]}', "mechanism 'nope'"),
        (["allocate", "drf", "/no/such/file.json"], None, "no such file"),
        (["allocate", "drf", "drf-paper", "--option", "x=1"], None, "not an option"),
        (["allocate", "drf", "drf-paper", "--format", "xml"], None, "--format"),
    ],
)
def test_bad_input_is_one_line_exit_2(args, stdin, needle):
    out = run(*args, stdin=stdin)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], out.stderr
    assert out.stdout == ""
