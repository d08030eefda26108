"""A campaign cell is identified by what its plug-in may read: every file of the plug-in's folder
tree (or the spec's declared ``data_files``), so an edited data file gives a new cell that runs,
and an unchanged one reuses the result."""

from __future__ import annotations

import concurrent.futures
import json
import os
from pathlib import Path

import pytest

from fairlab.campaign import run, spec
from fairlab.core.errors import InputError

#: a plug-in that allocates as the mechanism named in params.json beside it
READS_PARAMS = ("import json\nfrom pathlib import Path\nfrom fairlab import mechanisms\n"
                "def alloc(i):\n"
                "    name = json.loads((Path(__file__).parent / 'params.json').read_text())['mechanism']\n"
                "    return mechanisms.get(name).allocate(i).tasks\n")
CHECK = ('verb = "check"\n[sweep]\nmechanisms = ["p.py:alloc"]\nproperties = ["si"]\n'
         'instances = ["thm1-asset-si"]\n')


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _ids(folder: Path, text: str = CHECK) -> list[str]:
    return [c.id for c in spec.expand(spec.load(_write(folder / "s.toml", text)), folder)]


def test_an_edited_data_file_reruns_the_cell_and_an_unchanged_one_is_reused(tmp_path):
    _write(tmp_path / "p.py", READS_PARAMS)
    _write(tmp_path / "params.json", '{"mechanism": "drf"}')
    path = _write(tmp_path / "s.toml", CHECK)
    out = tmp_path / "out"  # inside the plug-in's folder: its results are not the plug-in's data
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        first = run.run(path, out, executor=pool)
        again = run.run(path, out, executor=pool)
        _write(tmp_path / "params.json", '{"mechanism": "asset"}')
        edited = run.run(path, out, executor=pool)
    assert (first["ran"], first["outcomes"]) == (1, {"holds": 1}), first
    assert (again["ran"], again["reused"], again["outcomes"]) == (0, 1, {"holds": 1}), again  # no edit: reused
    assert (edited["ran"], edited["outcomes"]) == (1, {"violated": 1}), edited  # the edit: a new cell, run


def test_every_file_below_the_plugin_counts_and_what_the_lab_writes_does_not(tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRLAB_STORE", str(tmp_path / "store"))
    _write(tmp_path / "p.py", READS_PARAMS)
    _write(tmp_path / "tables" / "deep" / "t.csv", "1,2\n")
    before = _ids(tmp_path)
    _write(tmp_path / "tables" / "deep" / "t.csv", "1,3\n")
    after = _ids(tmp_path)
    assert before != after  # a data file two folders down: a new cell
    # hidden files, caches, a campaign's output and the store are not what a plug-in reads
    _write(tmp_path / ".cache" / "x", "1")
    _write(tmp_path / "__pycache__" / "p.pyc", "1")
    _write(tmp_path / "results" / "campaign.json", "{}")
    _write(tmp_path / "results" / "cells" / "a.json", "{}")
    _write(tmp_path / "store" / "drf-si-0.json", "{}")
    assert _ids(tmp_path) == after


def test_declared_data_files_identify_the_cell_instead_of_the_tree(tmp_path):
    _write(tmp_path / "p.py", READS_PARAMS)
    _write(tmp_path / "params.json", '{"mechanism": "drf"}')
    _write(tmp_path / "elsewhere" / "shared.csv", "1\n")
    declared = 'data_files = ["elsewhere/shared.csv", "params.json"]\n' + CHECK
    before = _ids(tmp_path, declared)
    _write(tmp_path / "notes.txt", "not read by the plug-in")
    assert _ids(tmp_path, declared) == before  # a file not declared: the same cell
    _write(tmp_path / "elsewhere" / "shared.csv", "2\n")
    assert _ids(tmp_path, declared) != before  # a declared one: a new cell
    with pytest.raises(InputError, match="data_files: no such file"):
        _ids(tmp_path, 'data_files = ["missing.json"]\n' + CHECK)
    with pytest.raises(InputError, match="data_files: expected a list"):
        _ids(tmp_path, 'data_files = "params.json"\n' + CHECK)


def test_a_tree_too_large_to_hash_is_one_line_naming_the_remedy(tmp_path, monkeypatch):
    monkeypatch.setattr(spec, "MAX_TREE_FILES", 4)
    _write(tmp_path / "p.py", READS_PARAMS)
    for k in range(2):
        _write(tmp_path / f"d{k}.json", "{}")
    assert _ids(tmp_path)  # p.py, d0.json, d1.json and s.toml: within the limit
    _write(tmp_path / "d2.json", "{}")
    with pytest.raises(InputError, match=r"more than 4 files.*data_files"):
        _ids(tmp_path)
    _write(tmp_path / "params.json", "{}")
    _write(tmp_path / "d3.json", "{}")
    assert _ids(tmp_path, 'data_files = ["params.json"]\n' + CHECK)  # declared: the tree is not walked


def test_a_large_file_is_known_by_its_size_and_time(tmp_path, monkeypatch):
    monkeypatch.setattr(spec, "MAX_FILE_BYTES", 4)
    _write(tmp_path / "p.py", READS_PARAMS)
    big = _write(tmp_path / "big.bin", "123456")
    before = _ids(tmp_path)
    big.write_text("654321")  # same size: the modification time tells the edit
    stamp = big.stat()
    os.utime(big, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 10**9))
    assert _ids(tmp_path) != before
    cell = spec.expand(spec.load(tmp_path / "s.toml"), tmp_path)[0]
    assert json.dumps(cell.description).count("tree_sha256") == 1
