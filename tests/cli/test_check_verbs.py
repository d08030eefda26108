"""`fairlab properties` and `fairlab check`: JSON shape, exit codes, verified witnesses only."""

import json

from typer.testing import CliRunner

from fairlab.cli import app

runner = CliRunner()


def _instance(tmp_path, data, name="inst.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def test_properties_lists_all_with_definitions():
    result = runner.invoke(app, ["properties", "--format", "json"])
    assert result.exit_code == 0
    rows = json.loads(result.stdout)["items"]
    pool = [r["name"] for r in rows if r["setting"] == "pool"]
    assert pool == ["si", "sp", "ef", "pe", "srf", "bf", "pm", "rm", "njc", "gsp"]
    assert all(r["definition"] and r["witness"] for r in rows)
    table = runner.invoke(app, ["properties"])
    assert table.exit_code == 0 and "sharing incentive" in table.stdout


def test_check_json_violation(tmp_path):
    inst = _instance(tmp_path, {"capacities": [77, 77], "demands": [[4, 2], [1, 1]]})
    result = runner.invoke(app, ["check", "asset", "rm", inst, "--format", "json"])
    assert result.exit_code == 0
    out = json.loads(result.stdout)
    assert out["mechanism"] == "asset" and out["property"] == "rm" and out["status"] == "violated"
    assert set(out["witness"]) == {"capacities", "user"}
    assert len(out["witness"]["capacities"]) == 2


def test_check_holds_exits_zero_and_prints_table():
    result = runner.invoke(app, ["check", "drf", "si", "drf-paper"])
    assert result.exit_code == 0
    assert "holds" in result.stdout


def test_check_time_limit_and_bad_input(tmp_path):
    inst = _instance(tmp_path, {"capacities": [30, 30], "demands": [[1, 3], [1, 1]]})
    ok = runner.invoke(app, ["check", "drf", "sp", inst, "--time-limit", "5", "--format", "json"])
    assert ok.exit_code == 0 and json.loads(ok.stdout)["status"] == "holds"
    for args in (
        ["check", "drf", "nope", inst],
        ["check", "nope", "si", inst],
        ["check", "drf", "si", str(tmp_path / "missing.json")],
        ["check", "drf", "si", inst, "--format", "xml"],
        ["check", "drf", "sp", inst, "--time-limit", "0"],
        ["check", "drf", "si", _instance(tmp_path, {"capacities": [1], "demands": [[0]]}, "bad.json")],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, args
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
