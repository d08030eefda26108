"""The engines draw the whole domain they explore: weights (scalar and vector) and task caps on the
grid, in the random stream, in the impossibility families and in the machines search; shrinking
reduces them (weights towards 1 and equal, caps towards none) and never leaves the domain."""

from __future__ import annotations

import itertools
from fractions import Fraction

from fairlab.core.domain import ALL, PRESETS, Domain
from fairlab.core.instance import Instance
from fairlab.search import impossibility, machines, space
from fairlab.search.shrink import shrink

UNWEIGHTED = PRESETS["unweighted"]


def kinds(instances):
    return [space.drawn_domain(i) for i in instances]


def test_the_grid_draws_weights_and_caps_in_a_fixed_cycle_and_keeps_the_old_corner():
    drawn = list(itertools.islice(space.grid(2, 2), 400))
    shapes = kinds(drawn)
    seen = ["weighted" if s.weights != "none" else "capped" if s.caps != "none" else "plain" for s in shapes]
    assert seen[:96] == ["plain", "plain", "weighted", "capped"] * 24  # 1/2 plain, 1/4 weighted, 1/4 capped
    assert seen.count("plain") == len(list(space.plain_grid(2, 2)))  # the plain grid ends, the others go on
    assert {s.weights for s in shapes} == {"none", "scalar", "vector"}
    # the plain candidates are the grid of earlier versions, in its order
    plain = [i for i, s in zip(drawn, shapes) if s == space.drawn_domain(Instance.build([1], [[1]]))]
    assert plain == list(itertools.islice(space.plain_grid(2, 2), len(plain)))
    assert plain == list(itertools.islice(space.grid(2, 2, domain=UNWEIGHTED), len(plain)))
    # caps: quarters of the user's solo tasks; weights small integers, never all equal
    for inst in drawn:
        for i, cap in enumerate(inst.max_tasks):
            if cap is not None:
                alone = min(c / d for c, d in zip(inst.capacities, inst.demands[i]) if d > 0)
                assert cap / alone in {Fraction(1, 4), Fraction(1, 2), Fraction(3, 4)}
        if inst.weights_given != "none":
            assert {w for row in inst.weights for w in row} <= {1, 2, 3}
            assert len({w for row in inst.weights for w in row}) > 1


def test_each_stream_stays_in_its_domain_and_draws_only_what_it_allows():
    for domain, allowed in ((Domain(weights="scalar"), {"none", "scalar"}), (UNWEIGHTED, {"none"}),
                            (Domain(caps="none"), {"none", "scalar", "vector"})):
        for stream in (space.grid(2, 2, domain=domain), space.random_instances(2, 2, seed=4, domain=domain),
                       space.grid(2, 2, discrete=True, domain=domain)):
            shapes = kinds(itertools.islice(stream, 200))
            assert {s.weights for s in shapes} == allowed
            assert {s.caps for s in shapes} == ({"none"} if domain.caps == "none" else {"none", "allowed"})
    for inst in itertools.islice(space.grid(2, 2, discrete=True), 200):  # whole tasks for discrete mechanisms
        assert all(t is None or t.denominator == 1 for t in inst.max_tasks)


def test_the_random_stream_keeps_its_plain_candidates_and_is_seeded():
    stream = list(itertools.islice(space.random_instances(3, 2, seed=7), 200))
    assert stream == list(itertools.islice(space.random_instances(3, 2, seed=7), 200))
    assert stream != list(itertools.islice(space.random_instances(3, 2, seed=8), 200))
    plain = [inst for k, inst in enumerate(stream) if k % 4 in (0, 1)]  # the cycle: plain, plain, weighted, capped
    assert plain == list(itertools.islice(space.random_instances(3, 2, seed=7, domain=UNWEIGHTED), len(plain)))
    weighted, capped = stream[2::4], stream[3::4]
    assert all(i.weights_given != "none" for i in weighted) and all(any(i.max_tasks) for i in capped)
    assert {i.weights_given for i in weighted} == {"scalar", "vector"}


def test_shrinking_reduces_weights_and_caps_and_never_leaves_the_domain():
    start = Instance.build([5, 7], [[3, 4], [2, 6]], weights=[[7, 3], [5, 9]], max_tasks=["3/56", None])
    anything = lambda inst: "v" if (inst.n, inst.m) == (2, 2) else None  # noqa: E731
    small, *_ = shrink(start, "v", anything, trials=400)
    assert small.weights_given == "none" and small.max_tasks == (None, None)  # the plainest instance

    def needs_vector_and_cap(inst):
        ok = (inst.n, inst.m) == (2, 2) and inst.weights_given == "vector" and any(inst.max_tasks)
        return "v" if ok else None

    small, *_ = shrink(start, "v", needs_vector_and_cap, trials=400)
    assert small.weights_given == "vector" and max(w for row in small.weights for w in row) == 2
    assert min(w for row in small.weights for w in row) == 1
    assert [t for t in small.max_tasks if t is not None] == [1]  # a whole task: the simplest cap
    # a shrink never widens: from scalar weights it never tries a vector, on positive demands never a zero
    scalar = Instance.build([5, 7], [[3, 4], [2, 6]], weights=[3, 5], max_tasks=[None, "5/3"])
    positive = Domain(demands="positive", weights="scalar")
    small, *_ = shrink(scalar, "v", lambda i: "v" if i.n == 2 and i.weights_given != "none" else None, trials=400,
                       domain=positive)
    assert positive.contains(small) is None and small.weights_given == "scalar"


def test_impossibility_families_take_weights_and_caps_after_every_plain_base():
    for families in (impossibility.departure_families(), impossibility.misreport_families(),
                     impossibility.capacity_increase_families()):
        shapes = []
        for family in families:
            assert impossibility.family_error(family) is None  # weights and caps travel with each user
            shapes.append(space.drawn_domain(family.base))
        plain = [s.weights == "none" and s.caps == "none" for s in shapes]
        first_decorated = plain.index(False)
        assert all(plain[:first_decorated]) and not any(plain[first_decorated:])
        assert any(s.weights != "none" for s in shapes) and any(s.caps != "none" for s in shapes)
    unweighted = list(impossibility.departure_families(domain=UNWEIGHTED))
    assert all(f.base.weights_given == "none" and not any(f.base.max_tasks) for f in unweighted)


def test_the_machines_search_caps_every_other_random_candidate_where_caps_are_allowed():
    stream = list(itertools.islice(machines.random_instances(2, 2, 0, domain=ALL), 40))
    assert all(not any(i.max_tasks) for i in stream[0::2]) and all(any(i.max_tasks) for i in stream[1::2])
    assert stream[0::2] == list(itertools.islice(machines.random_instances(2, 2, 0, domain=UNWEIGHTED), 20))
    capped = stream[1]
    smaller = list(machines.smaller(capped))
    assert any(not any(i.max_tasks) for i in smaller)  # a shrink tries the instance without its caps
    assert all(i.setting == "machines" for i in smaller)
