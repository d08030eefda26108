"""Hypothesis strategies for fair-allocation instances, for the lab's tests and for yours.

    from hypothesis import given
    from fairlab import strategies, check

    @given(strategies.instances(users=(2, 3), resources=(1, 3)))
    def test_my_mechanism_is_sharing_incentive(instance):
        assert check("my_mech.py:allocate", "si", instance).status != "violated"

`instances(...)` draws valid `Instance` objects: every demand row has a positive entry, every
capacity is positive, numbers are exact (ints or Fractions). Its keywords choose the size, the
range of the numbers, and whether weights and task caps may appear; the defaults are small
instances where exact solvers are fast. ``domain=`` (a `fairlab.core.domain.Domain`, a preset name
or ``key=value,...``) keeps every drawn instance inside that domain and draws what it allows:
positive demands, no, scalar or vector weights, task caps, unit capacities as it asks. Requires
hypothesis (the ``test`` extra).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st

from fairlab.core.instance import Instance

if TYPE_CHECKING:
    from fairlab.core.domain import DomainLike

__all__ = ["instances", "instance_dicts", "demand_rows"]


def _size(value: int | tuple[int, int] | st.SearchStrategy[int]) -> st.SearchStrategy[int]:
    if isinstance(value, st.SearchStrategy):
        return value
    if isinstance(value, int):
        return st.just(value)
    low, high = value
    return st.integers(low, high)


def demand_rows(m: int, largest: int = 6, smallest: int = 0, zeros: bool = True) -> st.SearchStrategy[list[int]]:
    """A demand row of `m` integers in ``smallest..largest`` with at least one positive entry
    (zero entries only if `zeros` and ``smallest == 0``)."""
    low = smallest if zeros else max(smallest, 1)
    return st.lists(st.integers(low, largest), min_size=m, max_size=m).filter(any)


@st.composite
def instance_dicts(
    draw: st.DrawFn,
    users: int | tuple[int, int] | st.SearchStrategy[int] = (1, 3),
    resources: int | tuple[int, int] | st.SearchStrategy[int] = (1, 3),
    largest_demand: int = 6,
    smallest_demand: int = 0,
    capacities: tuple[int, int] = (1, 12),
    fractional_capacities: bool = False,
    weights: bool = True,
    task_caps: bool = True,
    twins: bool = False,
    domain: DomainLike = None,
    vector_weights: bool = True,
) -> dict[str, Any]:
    """The JSON-shaped dict of an instance (what ``fairlab`` reads from a file).

    users, resources: an int, a ``(low, high)`` range or a strategy. capacities: ``(low, high)``
    integer range; `fractional_capacities` may divide them by 2 or 3. weights / task_caps: may
    (not must) appear; weights one per user, or one per user and resource (DRF paper §4.3) where the
    domain allows weight vectors (``weights=vector``, the default domain) unless `vector_weights` is
    False (a mechanism that takes scalar weights only, e.g. asset fairness). twins: may append a copy
    of user 0 (exact ties). domain: every instance drawn lies in it (`fairlab.core.domain.parse`; it
    narrows the other keywords)."""
    from fairlab.core.domain import parse

    dom = parse(domain, "domain")
    if dom.demands == "positive":
        smallest_demand = max(smallest_demand, 1)
    weights = weights and dom.weights != "none"
    task_caps = task_caps and dom.caps != "none"
    n = draw(_size(users))
    m = draw(_size(resources))
    rows = [draw(demand_rows(m, largest_demand, smallest_demand)) for _ in range(n)]
    if twins and draw(st.booleans()):
        rows.append(list(rows[0]))
        n += 1
    caps: list = [draw(st.integers(*capacities)) for _ in range(m)]
    if fractional_capacities and draw(st.booleans()):
        caps = [Fraction(c, draw(st.integers(1, 3))) for c in caps]
    if dom.capacities == "unit":
        caps = [1] * m
    data: dict = {"capacities": caps, "demands": rows}
    if weights and draw(st.booleans()):  # one weight per user, or (where the domain allows) one per resource
        values = st.sampled_from([1, 2, 3, Fraction(1, 2)])
        if dom.weights == "vector" and vector_weights and draw(st.booleans()):
            data["weights"] = [[draw(values) for _ in range(m)] for _ in range(n)]
        else:
            data["weights"] = [draw(values) for _ in range(n)]
    if task_caps and draw(st.booleans()):
        data["max_tasks"] = [draw(st.none() | st.integers(0, 8).map(lambda x: Fraction(x, 2))) for _ in range(n)]
    return data


def instances(**options: Any) -> st.SearchStrategy[Instance]:
    """`Instance` objects; keywords as `instance_dicts`."""
    return instance_dicts(**options).map(Instance.from_dict)
