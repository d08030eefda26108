"""Randomized Kalai–Smorodinsky on several machines, whole tasks: a lottery over integral placements.

Source: the lecture (Procaccia & Psomas, "Beyond DRF", multiple machines): "there exists a randomized
mechanism (extension of the Kalai–Smorodinsky interpretation) that satisfies all the properties
(ex-ante)", after Friedman, Ghodsi & Psomas, "Strategyproof allocation of discrete jobs on multiple
machines" (EC 2014). The paper could not be read; the definition below is the reading notes' (low
confidence) and the **lab's reading** of "Kalai–Smorodinsky interpretation":

* u_i = the number of whole tasks of user i placed (`fairlab.mechanisms._placements`), u_i* = the
  most it runs with every machine to itself (its KS ideal point);
* the lottery maximises t subject to E[u_i] >= t u_i* for every user, then — leximin of the
  normalised expected utilities E[u_i] / u_i* — keeps raising, lexicographically, those that can
  still grow (t is the leximin's first level). A user with u_i* = 0 (no task fits any machine) gets 0.

Computed EXACTLY: the lottery only matters through the task-total vectors it mixes, and only the
Pareto-maximal ones are needed (`_placements.frontier`, enumerated exactly); the leximin is a
sequence of linear programs over the lottery's probabilities (`fairlab.core.lp.solve_lp`: a HiGHS
basis re-solved in Fractions with an exact optimality certificate, z3 otherwise), the same level /
freeze loop as `fairlab.mechanisms.drfh`. The expected utilities are unique (a leximin over a convex
set); the lottery reaching them need not be, so the lab breaks the tie (`canonical`): among the
lotteries reaching them, the lexicographically greatest probability vector over the frontier's
vectors sorted largest first, one exact LP per probability — a function of the instance, never of
which optimal vertex an LP solver's version returns. Properties that read more than the expected
utilities (ex-ante envy-freeness, ex-post findings) are about this lottery. Option ``lottery``:
``envy-free`` (default) first restricts the lotteries to those also envy-free ex ante — E[tasks of
i that j's bundles run] <= E[u_i] for every pair, valued in the option ``model`` — when there is one,
said in the notes; ``any``: no such restriction. Either way the expected tasks are the leximin's
(both refinements are the lab's, not the notes').

Valuation model (`fairlab.mechanisms.base.VALUATIONS`): FGP's **containers** [abstract, read: "the
use of containers to isolate jobs"], declared (`Mechanism.valuation`), so the machines properties
judge it there unless ``model=pooled`` is asked. The lab's reading of the model (confidence: the
containers are read; the rest is the lab's): a user's tasks on a machine are containers, one per
task, each sized for it; another user can use a container only if its own task fits in it, and
then runs one task in it (`_placements.envy_value`); a misreport d' earns containers of size d',
each running one real task if the real task fits (d <= d'), none otherwise — so "under-reporting
gives zero utility" (the lecture) follows, and over-reporting wastes the slack (`machines-sp`).
The option ``model`` (default ``containers``) also sets the model of the envy-free refinement.

In the containers model every lottery reaching the leximin is envy-free ex ante (the lab's
argument, checked by `fairlab search ks-lottery machines-ef` finding none): i can use j's
containers only if d_i <= d_j, and then u_i* >= u_j* and each of j's tasks could be i's instead;
if E[x_j] > E[x_i], then E[x_j]/u_j* > E[x_i]/u_i*, and moving a little probability from j's
tasks to i's raises the lower normalised level — the leximin would not be reached. (Without task
caps, the ``fgp-2014`` domain.) So the refinement is idle there; it matters in the pooled reading,
where on one machine <7> with A <4>, B <3>, C <2> no lottery reaching the leximin is envy-free
(A values C's two pooled tasks, 4 units, at one task of its own).

Uniform random dictatorship (`fairlab.mechanisms.random_dictatorship`) gives every user at least
u_i* / n in expectation, so t >= 1/n here: the lottery is ex-ante proportional, hence ex-ante
sharing-incentive (1/n of every machine, floored per machine, runs at most u_i* / n tasks).

Domain: the machines setting, no weights (the instance format has none with machines), the preset
``fgp-2014`` (lab's reading of Friedman, Ghodsi & Psomas 2014). Task caps are taken (the vectors
clipped to them) though the preset has none.

No z3 spec: the mechanism is a leximin over the convex hull of exponentially many integral
placements; a characterisation without enumerating them (or the LPs' dual certificates) is not
known to the lab. Its exactness is the certified LPs'.
"""

from __future__ import annotations

from fractions import Fraction
from types import MappingProxyType

from fairlab.core.domain import PRESETS
from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact
from fairlab.core.instance import Instance
from fairlab.core.lp import INFEASIBLE, OPTIMAL, floor_rows, lexicographic_max, solve_lp
from fairlab.mechanisms._placements import as_fractions, envy_value, frontier, solo
from fairlab.mechanisms.base import MODEL_OPTION, VALUATIONS, Allocation, Mechanism, choice, register

LOTTERIES = ("envy-free", "any")


def _solve(objective, a, b, eq, who: str, required: bool = True):
    result = solve_lp(objective, A_ub=a or None, b_ub=b or None, A_eq=[eq], b_eq=[Fraction(1)], maximize=True)
    if result.status != OPTIMAL and required:
        raise InputError(f"ks-lottery: the exact LP ({who}) ended {result.status}; no lottery")
    return result


def leximin(instance: Instance, lottery: str = "envy-free", model: str = "containers"):
    """(levels, vectors, probabilities): the leximin normalised expected utilities E[u_i] / u_i*, the
    frontier's vectors with their placements, and one exact lottery (a probability per vector)."""
    # the frontier's vectors, largest first: the order of the lottery's tie-break (`canonical`)
    points = sorted(frontier(instance).items(), key=lambda item: item[0], reverse=True)
    n, size = instance.n, len(points)
    ideal = [solo(instance, i) for i in range(n)]
    levels: list[Fraction | None] = [Fraction(0) if ideal[i] == 0 else None for i in range(n)]

    def share_row(i: int, extra: int) -> list[Fraction]:
        return [Fraction(v[i], ideal[i]) for v, _ in points] + [Fraction(0)] * extra

    def floors(floor_of, extra: int):
        """Rows y_i >= floor_of(i) (y_i >= t when None, t the last column), users with u_i* > 0."""
        users = [i for i in range(n) if ideal[i] != 0]
        return floor_rows([share_row(i, extra) for i in users], [floor_of(i) for i in users])

    eq1 = [Fraction(1)] * size + [Fraction(0)]
    eq0 = [Fraction(1)] * size
    while any(level is None for level in levels):
        active = [i for i in range(n) if levels[i] is None]
        a, b = floors(lambda i: levels[i], 1)
        t = _solve([Fraction(0)] * size + [Fraction(1)], a, b, eq1, "common level").value
        a, b = floors(lambda i, t=t: t if levels[i] is None else levels[i], 0)
        frozen = [i for i in active if _solve(share_row(i, 0), a, b, eq0, f"{instance.users[i]}'s most").value == t]
        if not frozen:
            raise RuntimeError("ks-lottery: a leximin step froze no user (an LP answer is inconsistent)")
        for i in frozen:
            levels[i] = t
    a, b = floors(lambda i: levels[i], 0)
    envy_free = None
    if lottery == "envy-free":
        ea, eb = list(a), list(b)
        for i in range(n):
            for j in range(n):
                if i != j:  # E[envy_value(i, j)] - E[u_i] <= 0
                    ea.append([envy_value(instance, pl, i, j, True, model) - v[i] for v, pl in points])
                    eb.append(Fraction(0))
        found = _solve([Fraction(0)] * size, ea, eb, eq0, "envy-free lottery", required=False)
        if found.status not in (OPTIMAL, INFEASIBLE):  # undecided (z3's time limit): no other lottery instead
            raise InputError(f"ks-lottery: the exact LP (envy-free lottery) ended {found.status}; no lottery")
        envy_free = found.status == OPTIMAL
        if envy_free:
            a, b = ea, eb
    weights = canonical(a, b, size)
    return [level or Fraction(0) for level in levels], points, weights, ideal, envy_free


def canonical(a, b, size: int) -> list[Fraction]:
    """The lexicographically greatest probability vector (in the frontier's order) among the lotteries
    satisfying rows `a`·p <= `b`, p >= 0, sum p = 1 (`core.lp.lexicographic_max`, stopping when the mass is
    spent): the lottery is a function of the instance alone, not of which optimal vertex the LP solver's
    version returns (the lab's tie-break)."""
    status, weights = lexicographic_max(size, a, b, [[Fraction(1)] * size], [Fraction(1)],
                                        done=lambda fixed: sum(fixed) == 1)
    if weights is None:
        raise InputError(f"ks-lottery: an exact LP of the lottery's tie-break ended {status}; no lottery")
    return weights


def allocate(instance: Instance, **options) -> Allocation:
    kind = choice(options, "lottery", LOTTERIES, "envy-free")
    model = choice(options, MODEL_OPTION, VALUATIONS, "containers")
    levels, points, weights, ideal, envy_free = leximin(instance, kind, model)
    lottery = tuple((p, as_fractions(placement)) for p, (_, placement) in zip(weights, points) if p > 0)
    expected = tuple(sum((p * v[i] for p, (v, _) in zip(weights, points)), Fraction(0)) for i in range(instance.n))
    if any(e != level * u for e, level, u in zip(expected, levels, ideal)):
        raise RuntimeError("ks-lottery: the lottery does not reach the leximin levels (an LP answer is inconsistent)")
    notes = [f"KS level t = {format_exact(min((lv for lv, u in zip(levels, ideal) if u), default=Fraction(0)))} "
             f"(E[u_i] / u_i*: {', '.join(f'{u} {format_exact(lv)}' for u, lv in zip(instance.users, levels))})",
             f"ideal points u_i* {', '.join(f'{u} {x}' for u, x in zip(instance.users, ideal))}",
             f"the lottery reaching them over {len(lottery)} placements: the expected tasks are unique, the lottery "
             "is the lab's tie-break (lexicographically greatest probabilities, frontier vectors largest first)"]
    if envy_free is not None:
        over = ("(containers model: envy depends on the task vectors only, so this covers every lottery)"
                if model == "containers" else "over the enumerated placements (pooled model; one per task vector)")
        notes.append(f"envy-free ex ante {over}" if envy_free else
                     f"no lottery reaching the leximin is envy-free ex ante {over}")
    for i, u in enumerate(ideal):
        if u == 0:
            notes.append(f"{instance.users[i]}: no task fits any machine (u* = 0); it gets no tasks")
    return Allocation("ks-lottery", instance, expected,
                      options=MappingProxyType({"lottery": kind, MODEL_OPTION: model}), notes=tuple(notes),
                      extra=MappingProxyType({"normalised_levels": list(levels), "ideal": list(ideal),
                                              "frontier_size": len(points)}),
                      lottery=lottery)


MECHANISM = register(
    Mechanism(
        name="ks-lottery",
        summary="randomized Kalai–Smorodinsky on several machines (whole tasks): the lottery over integral placements "
                "maximising t with E[u_i] >= t u_i*, then leximin; exact LPs (lab's reading)",
        source="lecture 'Beyond DRF' after Friedman, Ghodsi & Psomas (EC 2014); lab's reading (notes: low confidence)",
        allocate=allocate,
        spec=None,
        options={"lottery": "envy-free (default: among the lotteries reaching the leximin, one envy-free ex ante "
                            "when there is one) | any (no envy-free restriction); either way the lab's tie-break: the "
                            "lexicographically greatest probabilities",
                 MODEL_OPTION: "containers (default: Friedman, Ghodsi & Psomas's valuation model, in which the "
                               "envy-free refinement and the machines properties judge) | pooled (the lab's pooled "
                               "reading: bundles pooled per machine)"},
        discrete=True,
        scale_invariant=False, anonymous=False,
        module=__name__,
        setting="machines",
        domain=PRESETS["fgp-2014"],
        valuation="containers",
    )
)
