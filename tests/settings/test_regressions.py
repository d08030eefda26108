"""Regressions found by the audits of the machines and dynamic settings (issue 19)."""

from __future__ import annotations

import os

import pytest

from fairlab import mechanisms
from fairlab.core.errors import InputError
from fairlab.dynamics import shares_over_time
from fairlab.search import prove


def test_positive_demands_is_refused_not_dropped():
    """Audit F1: a setting's prover that does not explore positive demands must refuse
    --positive-demands; dropping it silently gave a refutation with a zero demand, outside the domain
    asked for. dynamic-drf declares positive demands, so its prover explores exactly them (issue 27)."""
    with pytest.raises(InputError, match="--positive-demands: not available"):
        prove("drf-machines", "machines-si", 2, 2, positive_demands=True)
    result = prove("dynamic-drf", "dynamic-dpo", 2, 1, positive_demands=True, time_limit=60)
    assert result.domain["demands"] == "positive"
    if result.instance is not None:
        assert all(d != "0" and d != 0 for row in result.instance["demands"] for d in row)


@pytest.mark.skipif(os.geteuid() == 0 and not os.path.isdir("/proc/self"), reason="needs /proc")
def test_figure_to_a_path_the_system_refuses_is_one_line(tmp_path):
    """Audit F4: /proc/x.png was an internal error (exit 3); nothing partial is left behind."""
    allocation = mechanisms.allocate("drf-rerun", "dynamic-departure")
    with pytest.raises(InputError, match="--figure: cannot write '/proc/x.png'"):
        shares_over_time.draw(allocation, "/proc/x.png")
    shares_over_time.draw(allocation, tmp_path / "shares.svg")
    assert [p.name for p in tmp_path.iterdir()] == ["shares.svg"]
