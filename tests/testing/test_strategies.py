"""The hypothesis strategies a user imports from the installed lab (`fairlab.strategies`) draw
what a researcher's property test needs: weights, task caps and zero demands."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import find, given, settings

from fairlab.core.instance import Instance
from fairlab.strategies import instance_dicts, instances

FAST = settings(database=None, max_examples=2000)


def test_instances_draw_weights_task_caps_and_zero_demands():
    weighted = find(instances(users=2, resources=2), lambda i: i.weights_given != "none", settings=FAST)
    assert isinstance(weighted, Instance) and weighted.n == 2 and weighted.m == 2
    capped = find(instances(), lambda i: any(cap is not None for cap in i.max_tasks), settings=FAST)
    assert capped.max_tasks.count(None) < capped.n
    zero = find(instances(resources=(2, 3)), lambda i: any(0 in row for row in i.demands), settings=FAST)
    assert all(any(row) for row in zero.demands)  # a zero entry, never a row of zeros
    plain = find(instance_dicts(weights=False, task_caps=False), lambda d: True, settings=FAST)
    assert set(plain) == {"capacities", "demands"}


def test_they_are_importable_from_an_installed_lab_outside_the_checkout(tmp_path):
    code = ("import fairlab.strategies as s; from hypothesis import find; "
            "print(find(s.instances(users=3), lambda i: i.n == 3).n, s.__all__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("3 ['instances', 'instance_dicts', 'demand_rows']")


def test_weight_vectors_where_the_domain_allows_them_and_only_there():
    vector = find(instances(users=2, resources=2), lambda i: i.weights_given == "vector", settings=FAST)
    assert vector.to_dict()["weights"][0] and len(vector.to_dict()["weights"][0]) == 2  # one weight per resource
    scalar_only = settings(database=None, max_examples=300)

    @scalar_only
    @given(instances(users=2, resources=2, domain="weights=scalar"))
    def never_a_vector(instance):
        assert instance.weights_given != "vector"

    never_a_vector()

    @scalar_only
    @given(instances(users=2, resources=2, vector_weights=False))
    def asked_not_to(instance):
        assert instance.weights_given != "vector"

    asked_not_to()
