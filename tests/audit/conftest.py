"""Fixtures of the audit report's tests: the sample audit document.

`audit_sample.json` is an audit document (schema ``audit``) with every status and every kind of
figure, made by `make_sample` (``python tests/audit/conftest.py > tests/audit/audit_sample.json``):
each property's row is real output of `fairlab.audit.run.audit`, taken from the audit of the
mechanism that shows that status (`SAMPLE_ROWS`): violated si (one allocation with the equal
split), sp (truthful vs misreport), pe (the allocation and one that dominates it) and rm (before
vs after the capacities grow) from tests/plugins/asym.py; violated pm (before vs after a user
leaves) and proved srf with its core from drf; none-found ef from tests/plugins/half_drf.py;
unknown bf from ceei under a time limit too short to start; n/a njc from a plug-in that declines everything;
violated gsp (truthful vs the coalition's misreports) from ceei.

The headless Chromium (`browser`) is in tests/conftest.py: the campaign report's tests use it too.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

SAMPLE = Path(__file__).with_name("audit_sample.json")


#: property -> (mechanism, users, resources, time limit) whose real audit row the sample shows
SAMPLE_ROWS = {
    "si": ("tests/plugins/asym.py:asym", 2, 2, 120), "sp": ("tests/plugins/asym.py:asym", 2, 2, 120),
    "ef": ("tests/plugins/half_drf.py:half_drf", 3, 2, 120), "pe": ("tests/plugins/asym.py:asym", 2, 2, 120),
    "srf": ("drf", 3, 2, 120), "bf": ("ceei", 2, 2, 0.05), "pm": ("drf", 3, 2, 120),
    "rm": ("tests/plugins/asym.py:asym", 2, 2, 120), "njc": ("declines.py:declines", 2, 2, 60),
    "gsp": ("ceei", 2, 2, 300),
}
DECLINES = '''"""Declines every instance (a real n/a row for the report's sample)."""
from fairlab.core.errors import InputError


def declines(instance):
    raise InputError("this sample mechanism declines every instance")
'''


def make_sample() -> dict:
    """The sample document: the drf audit's frame (reference, provenance, budget) with each
    property's row from the real audit named in `SAMPLE_ROWS` (about a minute and a half)."""
    import tempfile

    from fairlab.audit.run import audit

    root, frame, rows, commands = Path(__file__).resolve().parents[2], None, {}, []
    with tempfile.TemporaryDirectory() as scratch:
        (Path(scratch) / "declines.py").write_text(DECLINES)
        jobs: dict[tuple, list[str]] = {}
        for prop, job in SAMPLE_ROWS.items():
            jobs.setdefault(job, []).append(prop)
        for (mech, users, resources, limit), props in jobs.items():
            os.chdir(scratch if mech.startswith("declines") else root)
            doc = audit(mech, users, resources, time_limit=limit, properties_=props).to_dict()
            rows.update({row["property"]: row for row in doc["properties"]})
            commands.append(f"{doc['command']} --time-limit {limit}  # {', '.join(props)}")
            if mech == "drf":
                frame = doc
        os.chdir(root)
    frame.update(mechanism="sample", command="\n".join(commands), properties=[rows[p] for p in SAMPLE_ROWS])
    frame["about"] = {**frame["about"], "builtin": False, "title": "A sample for the report's tests: each "
                      "property's row is real audit output, from the mechanism named in the command below"}
    return frame


@pytest.fixture
def audit_sample() -> dict:
    """A fresh copy of the sample audit document (tests may change it)."""
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


if __name__ == "__main__":
    print(json.dumps(make_sample(), indent=1, ensure_ascii=False))
