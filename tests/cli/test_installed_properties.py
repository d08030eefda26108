"""`fairlab properties` lists the properties installed packages declare (group fairlab.properties),
as `fairlab mechanisms` lists installed mechanisms; an unknown name suggests them too."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairlab import properties
from fairlab.cli.app import app
from fairlab.core import schemas
from fairlab.core.errors import InputError
from fairlab.properties import plugin_properties

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A package declaring ``ef1-installed`` (a dist-info folder on sys.path), and one reusing the
    lab's own name ``si`` (left out: the lab's property wins)."""
    (tmp_path / "their_props.py").write_text((ROOT / "examples" / "properties" / "ef1.py").read_text())
    info = tmp_path / "their_props-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: their-props\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[fairlab.properties]\nef1-installed = their_props:EF1\n"
                                           "si = their_props:EF1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_installed_reads_metadata_and_leaves_out_the_labs_names(installed):
    rows = plugin_properties.installed()
    assert [r["name"] for r in rows] == ["ef1-installed"]
    assert rows[0]["entry_point"] == "their_props:EF1" and rows[0]["distribution"] == "their-props 1.0"


def test_properties_table_lists_installed(installed):
    out = CliRunner().invoke(app, ["properties"], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    assert "ef1-installed" in out.output and "their_props:EF1" in out.output and "their-props 1.0" in out.output


def test_properties_json_lists_installed_and_validates(installed):
    out = CliRunner().invoke(app, ["properties", "--format", "json"])
    assert out.exit_code == 0, out.output
    document = json.loads(out.stdout)
    schemas.validate(document, "listing")
    extra = [item for item in document["items"] if item.get("entry_point")]
    assert [(item["name"], item["entry_point"], item["witness"]) for item in extra] == [
        ("ef1-installed", "their_props:EF1", None)]
    assert sum(item["name"] == "si" for item in document["items"]) == 1


def test_nothing_installed_nothing_listed():
    document = json.loads(CliRunner().invoke(app, ["properties", "--format", "json"]).stdout)
    assert not [item for item in document["items"] if "entry_point" in item]


def test_unknown_name_suggests_an_installed_property(installed):
    with pytest.raises(InputError) as err:
        properties.get("ef1-instaled")
    assert "did you mean 'ef1-installed'?" in str(err.value) and "ef1-installed" in str(err.value).split("known:")[1]
