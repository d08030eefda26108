"""Robustness: huge / deep / duplicated JSON input, CEEI beyond float range, non-regular instance
files, and `paper-check --out` writing all or nothing."""

import time
from fractions import Fraction as F

import pytest
from typer.testing import CliRunner

from fairlab.cli import app
from fairlab.core import json_input as instance_module
from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact, format_short, to_fraction
from fairlab.core.instance import Instance
from fairlab.core.json_input import parse_json
from fairlab.mechanisms import allocate
from fairlab.paper_checks import report

runner = CliRunner()
GOOD = '"demands": [[1, 4], [3, 1]]'


@pytest.mark.parametrize(
    "number",
    ["1e5000", "1e1000000000", "-1e-1001", "1e" + "9" * 200, "9" * 5000, "1." + "3" * 1200, "0.5e-1000"],
)
def test_out_of_range_numbers_are_one_line_errors_naming_the_field_and_fast(number):
    start = time.perf_counter()
    with pytest.raises(InputError) as exc:
        Instance.from_json(f'{{"capacities": [{number}, 18], {GOOD}}}', "f.json")
    assert time.perf_counter() - start < 1
    message = str(exc.value)
    assert message.startswith("f.json: capacities[0]: ") and "outside the exact number range" in message
    assert len(message) < 250 and "\n" not in message
    with pytest.raises(InputError, match="outside the exact number range"):
        to_fraction(number, "option x")  # the same range for numbers written as text


def test_numbers_at_the_edge_of_the_range_work_and_everything_formats():
    inst = Instance.from_json('{"capacities": [1e1000, 1e-1000], "demands": [[1e-1000, 1e-1000], [3, 1e-1000]]}')
    assert inst.capacities[0] == 10**1000
    for name in ("drf", "asset", "ks", "bmf", "ceei"):
        out = allocate(name, inst).to_dict()  # formats every exact number (some have > 4300 digits)
        assert out["tasks"]
    assert len(format_exact(F(10**5000, 3))) == 5003 and format_short(F(10**5000)).startswith("≈1")


@pytest.mark.parametrize(
    "text,needle",
    [
        ('{"capacities": [9, 18], "capacities": [1, 1], ' + GOOD + "}", "duplicate key 'capacities'"),
        ('{"capacities": [9, 18], ' + GOOD + ', "weights": ' + "[" * 5000 + "]" * 5000 + "}", "nested too deeply"),
    ],
)
def test_duplicate_keys_and_deep_nesting_are_one_line_errors(text, needle):
    with pytest.raises(InputError, match=needle):
        parse_json(text, "f.json")


def test_cli_huge_exponent_is_one_line_exit_2(tmp_path):
    path = tmp_path / "f.json"
    path.write_text(f'{{"capacities": [1e5000, 18], {GOOD}}}')
    for args in (["allocate", "drf", str(path), "--format", "json"], ["check", "drf", "pe", str(path)]):
        result = runner.invoke(app, args)
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert result.exit_code == 2 and len(lines) == 1 and "capacities[0]" in lines[0], result.output


def test_load_refuses_an_empty_path_and_caps_the_bytes_read(monkeypatch):
    with pytest.raises(InputError, match="the path is empty"):
        Instance.load("")
    monkeypatch.setattr(instance_module, "MAX_FILE_BYTES", 1000)
    with pytest.raises(InputError, match="larger than"):
        Instance.load("/dev/zero")


@pytest.mark.parametrize(
    "extra",
    ['"capacities": [1e400, 18]', '"capacities": [9, 18], "max_tasks": [1e400, 1]', '"capacities": [9, 1e-400]'],
)
@pytest.mark.parametrize("method", ["exact", "float"])
def test_ceei_beyond_float_range(extra, method):
    inst = Instance.from_json(f"{{{extra}, {GOOD}}}")
    a = allocate("ceei", inst, method=method)
    assert a.extra["status"] == ("exact" if method == "exact" else "certified")
    if extra.startswith('"capacities": [1e400'):  # only GB binds: max log x + log y, 4x + y <= 18
        expected = (F(9, 4), F(9))
        close = all(abs(t - e) < e / 10**9 for t, e in zip(a.tasks, expected))
        assert a.tasks == expected if method == "exact" else close


@pytest.mark.filterwarnings("error")  # no numpy warnings either
@pytest.mark.parametrize("weight", ["1e20", "1e400"])  # 1e20: a singular Newton system once
def test_ceei_weights_far_apart_do_not_crash(weight):
    inst = Instance.from_json(f'{{"capacities": [9, 18], {GOOD}, "weights": [{weight}, 1]}}')
    assert allocate("ceei", inst, method="exact").extra["status"] == "exact"
    assert allocate("ceei", inst, method="float").extra["status"] in ("certified", "uncertified")


def test_ceei_option_errors_stay_short():
    inst = Instance.from_json(f'{{"capacities": [9, 18], {GOOD}}}')
    with pytest.raises(InputError) as exc:
        allocate("ceei", inst, tolerance=F(10**400))
    assert "option tolerance" in str(exc.value) and len(str(exc.value)) < 200


# --------------------------------------------------------------------------- paper-check --out
def paper_check(out):
    return runner.invoke(app, ["paper-check", "--only", "drf-4.1-example", "--format", "markdown", "--out", out,
                                "--progress", "none"])  # stderr: only the error line


def one_error_line(result, needle):
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: --out") and needle in lines[0], (
        result.output
    )


def test_out_refuses_targets_that_cannot_be_replaced_before_writing_anything(tmp_path):
    (tmp_path / "a" / "report.md").mkdir(parents=True)
    (tmp_path / "b" / report.FIGURES[1]).mkdir(parents=True)
    (tmp_path / "file.json").write_text("{}")
    one_error_line(paper_check(str(tmp_path / "a")), "not a regular file")
    one_error_line(paper_check(str(tmp_path / "b")), "not a regular file")
    one_error_line(paper_check(str(tmp_path / "file.json" / "sub")), "not a directory")
    one_error_line(paper_check(""), "empty")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b", report.FIGURES[1], "file.json", "report.md"]


def test_out_failing_midway_leaves_nothing_behind(tmp_path, monkeypatch):
    def half_drawn(out_dir):
        (out_dir / report.FIGURES[0]).write_bytes(b"png")
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(report, "draw_figures", half_drawn)
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "report.md").write_text("old")
    one_error_line(paper_check(str(tmp_path / "kept")), "Permission denied")
    one_error_line(paper_check(str(tmp_path / "new" / "deep")), "Permission denied")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["kept", "report.md"]
    assert (tmp_path / "kept" / "report.md").read_text() == "old"


def test_out_writes_all_files_replacing_old_ones(tmp_path, monkeypatch):
    def drawn(out_dir):
        for name in report.FIGURES:
            (out_dir / name).write_bytes(b"png")
        return [str(out_dir / name) for name in report.FIGURES]

    monkeypatch.setattr(report, "draw_figures", drawn)
    (tmp_path / "report.md").write_text("old")
    result = paper_check(str(tmp_path / "."))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["report.md", *report.FIGURES])
    assert "](bmf-family.png)" in (tmp_path / "report.md").read_text()


def test_the_nesting_limit_is_the_labs_own_on_every_python():
    """64 levels are read, 65 refused, whatever depth the running Python's parser reaches; brackets
    inside strings do not count."""
    from fairlab.core.json_input import MAX_NESTING, nested_too_deeply

    assert MAX_NESTING == 64
    assert not nested_too_deeply("[" * 64 + "]" * 64)
    assert nested_too_deeply("[" * 65 + "]" * 65)
    assert not nested_too_deeply('{"users": ["[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["]}')
    with pytest.raises(InputError, match="nested too deeply"):
        parse_json("[" * 65 + "]" * 65, "f.json")
