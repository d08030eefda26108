"""The utilitarian mechanism as one LP in pulp: ``examples/lp/utilitarian.py:utilitarian``.

Maximise the total number of tasks, sum_i tasks_i, within the capacities and each user's task
cap. Its optimum is often tied
(two users whose tasks cost the same on the binding resource): the lab picks the lexicographically
greatest optimal solution (``tasks_0`` first), the same on every solver version, and the derived
spec (``.spec = "lp"``) encodes the same tie-break, so the proof below is about the allocation the
lab computes. Any optimum of the total is Pareto efficient:

    fairlab allocate examples/lp/utilitarian.py:utilitarian drf-paper
    fairlab prove examples/lp/utilitarian.py:utilitarian pe -n 2 -m 2
"""

import pulp


def utilitarian(instance):
    """The most tasks in all (one LP; ties broken by the lab, tasks_0 first)."""
    problem = pulp.LpProblem("utilitarian", pulp.LpMaximize)
    make = getattr(problem, "add_variable", None) or pulp.LpVariable  # pulp 3.3: problem.add_variable
    tasks = [make(f"tasks_{i}", 0) for i in range(instance.n)]
    problem += pulp.lpSum(tasks)
    for r in range(instance.m):
        problem += pulp.lpSum(tasks[i] * instance.demands[i][r] for i in range(instance.n)) <= instance.capacities[r]
    for i, cap in enumerate(instance.max_tasks):  # a user's task cap bounds its tasks (weights play no part)
        if cap is not None:
            problem += tasks[i] <= cap
    return problem


utilitarian.spec = "lp"  # type: ignore[attr-defined]  # derive the z3 spec from the LP's optimality conditions
