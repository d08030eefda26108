"""The optimal fairness ratio with at most d disruptions per event (`fairlab.mechanisms._disruptions`),
cross-checked by methods that share nothing with its reduction to classes of shares:

* by hand: d = 0 gives 1/H_k with arrivals only (the t-th agent keeps forever what it gets, at least
  r/t, so r (1 + 1/2 + ... + 1/k) <= 1, reached by the harmonic allocation) and 1/k with departures
  (all but one agent may leave and nobody may be raised, so each of k present agents holds r);
* arrivals only: every choice of the agents disrupted at each arrival, each an exact LP over the shares
  (`fairlab.core.lp`: certified HiGHS basis or z3), the best over the choices;
* departures: the same game with shares on a grid of 1/N, twice — every share a multiple of 1/N
  and ratio r demanded exactly (a real mechanism: a lower bound), and every share rounded down to the
  grid with the demand relaxed by 1/N (every real mechanism rounds down into it: an upper bound).
  The exact value must lie in the bracket, and a wrong one (the arrivals-only value) must not.

And the lab's reading of the optimal mechanism (`fpv-optimal`) reaches the optimum on every sequence
of the family, with at most d disruptions per event.
"""

import itertools
from fractions import Fraction as F

import pytest

from fairlab.core.errors import InputError, OptionError
from fairlab.core.lp import OPTIMAL, solve_lp
from fairlab.mechanisms import allocate
from fairlab.mechanisms._disruptions import optimum, strategy
from fairlab.search.fairness_ratio import worst_ratio
from fairlab.search.optimal_ratio import disruptions, table


# --------------------------------------------------------------------------- by hand
@pytest.mark.parametrize("k", range(1, 6))
def test_no_disruption_by_hand(k):
    assert optimum(k, 0, False).ratio == 1 / sum(F(1, t) for t in range(1, k + 1))
    assert optimum(k, 0, True).ratio == F(1, k)


def test_enough_disruptions_reach_one_and_fewer_do_not():
    for k in range(2, 6):
        assert optimum(k, k - 1, False).ratio == 1 and optimum(k, k - 1, True).ratio == 1
        assert optimum(k, k - 2, False).ratio < 1  # the k-th arrival must move all k-1 others to 1/k
    # more disruptions never hurt; departures never help the mechanism
    for k in range(1, 5):
        for d in range(k - 1):
            for departures in (False, True):
                assert optimum(k, d, departures).ratio <= optimum(k, d + 1, departures).ratio
            assert optimum(k, d, True).ratio <= optimum(k, d, False).ratio


# --------------------------------------------------------------------------- arrivals only: exact LPs
def lp_value(k: int, d: int) -> F:
    """max r over the sets D_t of agents that may change at arrival t (|D_t| = min(d, t - 1)), each an LP in
    the shares x[t][i] (agent i after arrival t): sum_i x[t][i] <= 1, t x[t][i] >= r, x[t][i] = x[t-1][i]
    outside D_t."""
    index = {}
    for t in range(1, k + 1):
        for i in range(1, t + 1):
            index[(t, i)] = len(index)
    r = len(index)
    size = r + 1
    best = F(0)
    choices = [list(itertools.combinations(range(1, t), min(d, t - 1))) for t in range(2, k + 1)]
    for picks in itertools.product(*choices):
        A_ub, b_ub, A_eq, b_eq = [], [], [], []
        for t in range(1, k + 1):
            row = [0] * size
            for i in range(1, t + 1):
                row[index[(t, i)]] = 1
                low = [0] * size
                low[r], low[index[(t, i)]] = 1, -t
                A_ub.append(low)
                b_ub.append(0)
            A_ub.append(row)
            b_ub.append(1)
            if t > 1:
                for i in range(1, t):
                    if i not in picks[t - 2]:
                        same = [0] * size
                        same[index[(t, i)]], same[index[(t - 1, i)]] = 1, -1
                        A_eq.append(same)
                        b_eq.append(0)
        objective = [0] * size
        objective[r] = 1
        result = solve_lp(objective, A_ub, b_ub, A_eq or None, b_eq or None, maximize=True)
        assert result.status == OPTIMAL
        best = max(best, result.value)
    return best


@pytest.mark.parametrize("k,d", [(k, d) for k in range(1, 5) for d in range(k)])
def test_arrivals_only_equals_the_best_lp(k, d):
    assert optimum(k, d, False).ratio == lp_value(k, d)


def test_the_lp_tells_a_wrong_value_apart():
    # negative twin: the departures value is not the arrivals-only LP's (k = 3, d = 1: 3/4 against 6/7)
    assert lp_value(3, 1) == F(6, 7) != optimum(3, 1, True).ratio


# --------------------------------------------------------------------------- departures: the grid bracket
def grid_game_wins(k: int, d: int, departures: bool, grid: int, allowed) -> bool:
    """The game with shares in units of 1/grid (1..grid): `allowed(count, units)` says whether a share is
    allowed with `count` agents present. True iff the mechanism keeps every step allowed forever."""
    states = [()]
    for count in range(1, k + 1):
        states += [s for s in itertools.combinations_with_replacement(range(1, grid + 1), count)
                   if sum(s) <= grid and all(allowed(count, x) for x in s)]
    alive = set(states)

    def minus(state, gone):
        rest = list(state)
        for x in gone:
            rest.remove(x)
        return tuple(rest)

    while True:
        # reach[j]: multisets that j more (free) shares turn into a state of `alive`
        reach = {0: set(alive)}
        for j in range(1, d + 2):
            reach[j] = {minus(s, gone) for s in alive for gone in itertools.combinations(s, j) if len(s) >= j}

        def answerable(rest, extra, reach=reach):
            return any(minus(rest, gone) in reach[len(gone) + extra]
                       for size in range(min(d, len(rest)) + 1) for gone in set(itertools.combinations(rest, size)))

        dead = set()
        for s in alive:
            moves = [(s, 1)] if len(s) < k else []
            if departures:
                moves += [(minus(s, (x,)), 0) for x in set(s)]
            if not all(answerable(rest, extra) for rest, extra in moves):
                dead.add(s)
        if not dead:
            return () in alive
        alive -= dead


def bracket(k: int, d: int, grid: int) -> tuple[F, F]:
    """(L, U) with L <= the exact value <= U (the module docstring)."""
    candidates = sorted({F(c * j, grid) for c in range(1, k + 1) for j in range(grid + 1)})

    def best(allowed_for):
        won = [r for r in candidates if grid_game_wins(k, d, True, grid, allowed_for(r))]
        return max(won)

    lower = best(lambda r: (lambda count, x: count * x >= r * grid))
    upper = best(lambda r: (lambda count, x: count * (x + 1) > r * grid))
    return lower, upper


@pytest.mark.parametrize("k,d,grid", [(2, 0, 12), (2, 1, 12), (3, 0, 12), (3, 1, 24), (3, 2, 12)])
def test_departures_lie_in_the_grid_bracket(k, d, grid):
    lower, upper = bracket(k, d, grid)
    assert lower <= optimum(k, d, True).ratio <= upper, (lower, upper)
    assert upper - lower <= F(k, grid)  # the bracket is tight enough to mean something


def test_the_bracket_tells_a_wrong_value_apart():
    # negative twin: the arrivals-only value 6/7 is not in the departures bracket of k = 3, d = 1
    lower, upper = bracket(3, 1, 24)
    assert not lower <= optimum(3, 1, False).ratio <= upper


# --------------------------------------------------------------------------- the mechanism read off the game
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("departures", [False, True])
def test_fpv_optimal_reaches_the_optimum_on_every_sequence(k, departures):
    for d in range(k):
        found = worst_ratio("fpv-optimal", k, departures=departures,
                            options={"d": d, "k": k, "departures": "yes" if departures else "no"})
        assert found["declined"] == 0 and found["ratio"] == optimum(k, d, departures).ratio


def test_fpv_optimal_by_hand_and_its_disruptions():
    one = {"capacities": [6], "demands": [[2]] * 3, "users": list("ABC"), "arrivals": list("ABC")}
    # arrivals only, d = 0: the harmonic allocation, r = 6/11: A 6/11, B 3/11, C 2/11 of the resource
    a = allocate("fpv-optimal", one, d=0, departures="no")
    assert [list(s.tasks) for s in a.steps][-1] == [F(6, 11) * 3, F(3, 11) * 3, F(2, 11) * 3]
    assert a.extra["fairness_ratio"] == F(6, 11) and a.extra["disrupted"] == [[], [], []]
    # with departures, d = 1: every event changes at most one present agent, and the ratio is at least 3/4
    inst = {"capacities": [1], "demands": [[1]] * 3, "users": list("ABC"), "arrivals": list("ABC"),
            "departures": [{"user": "A", "after": 3}]}
    b = allocate("fpv-optimal", inst, d=1)
    assert all(len(changed) <= 1 for changed in b.extra["disrupted"])
    assert b.extra["fairness_ratio"] >= F(3, 4)
    assert disruptions(None, b.steps) <= 1


def test_every_answer_of_the_strategy_changes_at_most_d_agents():
    for k in range(1, 5):
        for d in range(k):
            for departures in (False, True):
                for (_, _), ((pairs, _), _) in strategy(k, d, departures).items():
                    assert sum(old != new for old, new in pairs) <= d


def test_fpv_optimal_declines_what_is_outside_its_model():
    base = {"capacities": [1], "demands": [[1]] * 2, "users": ["A", "B"], "arrivals": ["A", "B"]}
    with pytest.raises(InputError, match="one divisible resource"):
        allocate("fpv-optimal", {**base, "capacities": [1, 1], "demands": [[1, 1]] * 2})
    with pytest.raises(InputError, match="more than k"):
        allocate("fpv-optimal", base, k=1)
    with pytest.raises(InputError, match="departures=no"):
        allocate("fpv-optimal", {**base, "departures": [{"user": "A", "after": 2}]}, departures="no")
    for bad in ({"d": -1}, {"d": "x"}, {"k": 0}, {"k": 99}, {"departures": "maybe"}):
        with pytest.raises(OptionError):
            allocate("fpv-optimal", base, **bad)


def test_the_table_prints_the_optimum_beside_the_mechanisms():
    rows = table(3)["rows"]
    assert len(rows) == 2 * (1 + 2 + 3)
    row = next(r for r in rows if r["departures"] and r["agents"] == 3 and r["d"] == 1)
    assert row["optimum"] == F(3, 4)
    found = {m["mechanism"]: m for m in row["mechanisms"]}
    assert found["controlled-drf"]["ratio"] == F(1, 2) < row["optimum"]  # strictly suboptimal, by an instance
    assert found["fpv-optimal"]["ratio"] == row["optimum"] and found["fpv-optimal"]["disruptions"] <= 1
    first = next(r for r in rows if not r["departures"] and r["agents"] == 3 and r["d"] == 0)
    assert {m["mechanism"]: m["disruptions"] for m in first["mechanisms"]}["dynamic-drf"] == 0
    with pytest.raises(InputError):
        table(5)
