"""Plug-ins of the exactness tests (issue 35): the LP how-to's pattern, a researcher's LP, a tied LP,
LPs whose coefficients pulp turns into floats, and plug-ins that answer wrongly on some instances."""

from fractions import Fraction

import pulp


def variable(problem, name, low=None, up=None):
    """pulp 3.3: ``problem.add_variable`` (a bare LpVariable is deprecated there); older pulp: LpVariable."""
    if hasattr(problem, "add_variable"):
        return problem.add_variable(name, low, up)
    return pulp.LpVariable(name, low, up)


def equal_tasks(instance):
    """The LP how-to's pattern: every user the same number of tasks, the most that fit (one LP)."""
    problem = pulp.LpProblem("equal_tasks", pulp.LpMaximize)
    level = variable(problem, "level", 0)
    tasks = [variable(problem, f"tasks_{i}", 0) for i in range(instance.n)]
    problem += level
    for r in range(instance.m):
        problem += pulp.lpSum(tasks[i] * instance.demands[i][r] for i in range(instance.n)) <= instance.capacities[r]
    for i in range(instance.n):
        problem += tasks[i] == level
    return problem


def weighted_floor(instance):
    """A researcher's LP: the largest floor t with every user's dominant share >= t (shares of the
    instance's capacities), then the most tasks in all at that floor (a lexicographic pair)."""
    n, m = instance.n, instance.m
    dominant = [max(instance.demands[i][r] / instance.capacities[r] for r in range(m)) for i in range(n)]

    def base(name):
        problem = pulp.LpProblem(name, pulp.LpMaximize)
        tasks = [variable(problem, f"tasks_{i}", 0) for i in range(n)]
        floor = variable(problem, "floor", 0)
        for r in range(m):
            problem += pulp.lpSum(tasks[i] * instance.demands[i][r] for i in range(n)) <= instance.capacities[r]
        for i in range(n):
            problem += tasks[i] * dominant[i] >= floor
        return problem, tasks, floor

    first, _, floor = base("floor")
    first += floor
    second, tasks, _ = base("total")
    second += pulp.lpSum(tasks)
    return [first, second]


def utilitarian(instance):
    """Maximise the total number of tasks (one LP): its optimum is often tied between users."""
    problem = pulp.LpProblem("utilitarian", pulp.LpMaximize)
    tasks = [variable(problem, f"tasks_{i}", 0) for i in range(instance.n)]
    problem += pulp.lpSum(tasks)
    for r in range(instance.m):
        problem += pulp.lpSum(tasks[i] * instance.demands[i][r] for i in range(instance.n)) <= instance.capacities[r]
    return problem


def own_fraction_bound(instance):
    """Equal tasks, capped by a constant the builder makes itself: pulp turns ``lpSum(...) <= 1/3`` into the
    float -0.333...: the lab cannot know the exact number, so the allocation is not exact."""
    problem = equal_tasks(instance)
    tasks = [v for v in problem.variables() if v.name.startswith("tasks_")]
    problem += pulp.lpSum(tasks) <= Fraction(1, 3)
    return problem


def float_coefficient(instance):
    """Equal tasks with a float coefficient written by the author (0.1): not exact."""
    problem = equal_tasks(instance)
    tasks = [v for v in problem.variables() if v.name.startswith("tasks_")]
    problem += pulp.lpSum(t * 0.1 for t in tasks) <= 5
    return problem


for _fn in (equal_tasks, weighted_floor, utilitarian, own_fraction_bound):
    _fn.spec = "lp"
    _fn.domain = "unweighted"  # the LPs read no weights and no task caps: declared, as the how-to says


def triple_at_two(instance):
    """A feasible split (each user 1/n of every resource), except that at n = 2 user 0's tasks are tripled."""
    tasks = [min(instance.capacities[r] / (instance.n * instance.demands[i][r]) for r in range(instance.m)
                 if instance.demands[i][r] > 0) for i in range(instance.n)]
    if instance.n == 2:
        tasks[0] = tasks[0] * 3
    return tasks


def negative_at_two(instance):
    """Nothing, except a negative count for user 1 once there are two users."""
    return [0] + [-1] * (instance.n - 1)


def one_short_at_two(instance):
    """One task count too few once there are two users."""
    return [0] * (instance.n if instance.n < 2 else instance.n - 1)


_CALLS = [0]


def alternates(instance):
    """Every other call gives user 0 one task more: not a deterministic mechanism."""
    _CALLS[0] += 1
    return [Fraction(_CALLS[0] % 2, 10**6)] + [0] * (instance.n - 1)


def returns_floats(instance):
    """The equal split written with Python floats: numerically right, but a float never decides."""
    return [min(float(c) / instance.n / float(d) for c, d in zip(instance.capacities, row) if d > 0)
            for row in instance.demands]


triple_at_two.domain = "unweighted"  # reads no weights and no caps: its only wrong answer is the tripling
