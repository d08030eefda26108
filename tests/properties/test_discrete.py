"""Discrete mechanisms hand out whole tasks, so utilities count whole tasks (floor)."""

from fairlab import properties

PDRF_62 = {"capacities": [59, 19], "demands": [[1, 4], [3, 1]]}


def test_stop_rule_is_not_pareto_efficient_in_whole_tasks():
    """PDRF §6.2: the loop that stops at the first blocked task leaves <33, 3>: B fits another task."""
    v = properties.check("drf-tasks", "pe", PDRF_62, options={"on_blocked": "stop"})
    assert v.status == "violated"
    assert v.witness == {"improvement": [2, 9], "user": 1}
    assert properties.get("pe").verify("drf-tasks", PDRF_62, v.witness, {"on_blocked": "stop"})


def test_skip_rule_is_pareto_efficient_in_whole_tasks():
    v = properties.check("drf-tasks", "pe", PDRF_62, options={"on_blocked": "skip"})
    assert v.status == "holds"


def test_a_task_too_big_for_the_cluster_is_no_pareto_improvement():
    """With divisible tasks half a task would be an improvement; with whole tasks it is not."""
    inst = {"capacities": [1, 4], "demands": [[2, 1], [1, 1]]}
    assert properties.check("drf-tasks", "pe", inst, options={"on_blocked": "skip"}).status == "holds"
    assert properties.check("drf", "pe", inst).status == "holds"


def test_sharing_incentive_counts_whole_tasks():
    """Two users each needing 2 of 3 units: the equal split (1.5) runs no whole task, so getting
    nothing does not violate sharing incentive for a discrete mechanism."""
    inst = {"capacities": [3], "demands": [[2], [2]]}
    v = properties.check("drf-tasks", "si", inst)
    assert v.status == "holds"
