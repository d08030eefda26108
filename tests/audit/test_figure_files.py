"""`fairlab audit ... --figures DIR` (`fairlab.audit.figure_files`): every figure the HTML report
draws, as a standalone SVG and PDF drawn by matplotlib from the report's own drawing code, with
deterministic names and bytes (no dates), written only into DIR; a DIR that is a file is refused in
one line (exit 2) before any work."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from fairlab.audit import figure_files
from fairlab.audit import html as report
from fairlab.audit.figures import Canvas, draw, layout
from fairlab.core.errors import InputError

SVG = "{http://www.w3.org/2000/svg}"


def figured(sample: dict) -> list[str]:
    return [p["property"] for p in sample["properties"] if p["status"] == "violated" and p.get("allocations")]


def test_one_svg_and_one_pdf_per_figure_of_the_report(audit_sample, tmp_path):
    folder = tmp_path / "new" / "figures"  # created, parents too
    written = figure_files.write([audit_sample], folder)
    props = figured(audit_sample)
    page = report.render(audit_sample)
    assert len(re.findall(r'<figure class="allocation-figure"', page)) == len(props) > 0  # the report's figures
    assert [p.name for p in written] == [f"sample-{prop}.{fmt}" for prop in props for fmt in ("svg", "pdf")]
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in written)  # nothing else
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new"]
    for path in written:
        data = path.read_bytes()
        if path.suffix == ".pdf":
            assert data.startswith(b"%PDF-") and b"/CreationDate" not in data and b"/Type3" not in data
        else:
            root = ET.fromstring(data)
            assert root.tag == f"{SVG}svg" and b"<dc:date>" not in data
            assert float(root.get("width").removesuffix("pt")) > 100


def test_the_files_are_reproducible_across_processes(audit_sample, tmp_path):
    script = ("import json, sys; from fairlab.audit import figure_files; "
              "figure_files.write([json.load(open(sys.argv[1]))], sys.argv[2])")
    sample = tmp_path / "sample.json"
    sample.write_text(__import__("json").dumps(audit_sample), encoding="utf-8")
    for name in ("a", "b"):
        subprocess.run([sys.executable, "-c", script, str(sample), str(tmp_path / name)], check=True, timeout=120)
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "b").iterdir()) and names
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


class Recorder(Canvas):
    """What a canvas is asked to draw (the figure's content, whatever the output format)."""

    def __init__(self):
        self.texts, self.rects, self.lines = [], [], []

    def text(self, x, y, text, **keywords):
        self.texts.append(text)

    def line(self, x1, y1, x2, y2, **keywords):
        self.lines.append((x1, y1, x2, y2))

    def rect(self, x, y, width, height, **keywords):
        self.rects.append(keywords.get("cls"))


def test_the_files_draw_what_the_report_draws(audit_sample):
    """The same drawing code: the matplotlib canvas is asked for the same texts and shapes as the
    report's SVG, and the SVG's segments are the recorded ones."""
    allocations = next(p["allocations"] for p in audit_sample["properties"] if p["property"] == "sp")
    panels, _, _, _ = layout(allocations)
    seen = Recorder()
    draw(panels, seen)
    svg = report.panels_svg(allocations)
    assert seen.rects.count("segment") == svg.count('class="segment"') > 0
    assert seen.rects.count("witness") == svg.count('class="witness"') > 0
    assert "truthful" in seen.texts and any("witness" in t for t in seen.texts)
    fig = figure_files.figure(allocations)
    drawn = [t.get_text() for t in fig.axes[0].texts]
    assert drawn == seen.texts
    # a panel's shapes are placed like the SVG's: the second panel's texts lie right of the first's
    xs = [t.get_position()[0] for t in fig.axes[0].texts if t.get_text() in ("truthful", allocations[1]["label"])]
    assert len(xs) == 2 and xs[1] > xs[0] + panels[0].width


def test_a_folder_that_is_a_file_is_refused(tmp_path):
    afile = tmp_path / "figures"
    afile.write_text("not a folder")
    with pytest.raises(InputError, match="--figures: .* is a file, not a folder"):
        figure_files.check_folder(afile)
    link = tmp_path / "link"
    link.symlink_to(tmp_path)
    with pytest.raises(InputError, match="symbolic link"):
        figure_files.check_folder(link)
    with pytest.raises(InputError, match="installed package"):
        figure_files.check_folder(__import__("pathlib").Path(figure_files.__file__).parent / "figs")


def test_matplotlibs_settings_are_left_alone(audit_sample, tmp_path):
    import matplotlib

    before = dict(matplotlib.rcParams)
    figure_files.write([audit_sample], tmp_path)
    assert dict(matplotlib.rcParams) == before


def test_names_carry_the_domain_when_several_are_asked(audit_sample):
    other = {**audit_sample, "domain": {"name": "drf-paper", "note": ""}}
    one = [stem for stem, _, _ in figure_files.figure_names([audit_sample])]
    two = [stem for stem, _, _ in figure_files.figure_names([audit_sample, other])]
    assert one == [f"sample-{p}" for p in figured(audit_sample)]
    assert len(two) == 2 * len(one) == len(set(two))
    assert all(stem.endswith("-drf-paper") for stem in two[len(one):])
    hostile = {**audit_sample, "mechanism": "../../etc/x y.py:f"}
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", stem) for stem, _, _ in figure_files.figure_names([hostile]))
