"""Regressions found by the audits of the machines and dynamic settings (issue 19)."""

from __future__ import annotations

import os

import pytest

from fairlab import mechanisms
from fairlab.core.errors import InputError
from fairlab.dynamics import shares_over_time
from fairlab.search import prove


@pytest.mark.parametrize("mechanism, prop", [("dynamic-drf", "dynamic-dpo"), ("drf-machines", "machines-si")])
def test_positive_demands_is_refused_not_dropped(mechanism, prop):
    """Audit F1: the settings' provers do not honour --positive-demands; dropping it silently gave a
    refutation with a zero demand, outside the domain asked for."""
    with pytest.raises(InputError, match="--positive-demands: not available"):
        prove(mechanism, prop, 2, 2, positive_demands=True)


@pytest.mark.skipif(os.geteuid() == 0 and not os.path.isdir("/proc/self"), reason="needs /proc")
def test_figure_to_a_path_the_system_refuses_is_one_line(tmp_path):
    """Audit F4: /proc/x.png was an internal error (exit 3); nothing partial is left behind."""
    allocation = mechanisms.allocate("drf-rerun", "dynamic-departure")
    with pytest.raises(InputError, match="--figure: cannot write '/proc/x.png'"):
        shares_over_time.draw(allocation, "/proc/x.png")
    shares_over_time.draw(allocation, tmp_path / "shares.svg")
    assert [p.name for p in tmp_path.iterdir()] == ["shares.svg"]
