"""Small LP mechanisms in pulp (issue 29): one LP, a lexicographic list, and broken ones."""

from fractions import Fraction

import pulp


def variable(problem, name, low=None, up=None):
    """pulp 3.3: ``problem.add_variable`` (a bare LpVariable is deprecated there); older pulp: LpVariable."""
    if hasattr(problem, "add_variable"):
        return problem.add_variable(name, low, up)
    return pulp.LpVariable(name, low, up)


def _base(instance, name):
    problem = pulp.LpProblem(name, pulp.LpMaximize)
    tasks = [variable(problem, f"tasks_{i}", 0) for i in range(instance.n)]
    for r in range(instance.m):
        problem += pulp.lpSum(tasks[i] * instance.demands[i][r] for i in range(instance.n)) <= instance.capacities[r]
    return problem, tasks


def equal_tasks(instance):
    """Every user the same number of tasks, as many as fit: one LP."""
    problem, tasks = _base(instance, "equal")
    level = variable(problem, "level")
    problem += level
    for t in tasks:
        problem += t == level
    return problem


def max_min_then_total(instance):
    """Lexicographic: the largest common floor of tasks, then the most tasks in all (two LPs)."""
    first, tasks = _base(instance, "floor")
    floor = variable(first, "floor")
    first += floor
    for t in tasks:
        first += t >= floor
    second, tasks2 = _base(instance, "total")
    floor2 = variable(second, "floor")
    for t in tasks2:
        second += t >= floor2
    second += pulp.lpSum(tasks2) + floor2 * Fraction(1, 1000)  # a tie-break that keeps the optimum unique here
    return [first, second]


def infeasible(instance):
    problem, tasks = _base(instance, "infeasible")
    problem += tasks[0]
    problem += tasks[0] >= 10 ** 9
    return problem


def unnamed(instance):
    problem = pulp.LpProblem("unnamed", pulp.LpMaximize)
    x = variable(problem, "x", 0, 1)
    problem += x
    return problem


def floats_the_demands(instance):
    """Converts an instance number to float: works numerically, has no derived spec."""
    problem, tasks = _base(instance, "floats")
    problem += pulp.lpSum(tasks) * float(instance.demands[0][0] + 1)
    return [problem]


for _fn in (equal_tasks, floats_the_demands):
    _fn.spec = "lp"
    _fn.domain = "unweighted"  # the LPs read no weights and no task caps: declared, as the how-to says
