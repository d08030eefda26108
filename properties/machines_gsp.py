"""Group strategyproofness on several machines (`gsp`'s rule, valued as `machines-sp` values a misreport).

No coalition of users runs, each, at least as many of its real tasks by declaring other demand
vectors together, with some member strictly more. A member's real tasks are `machines-sp`'s
(`fairlab.properties.machines_sp.true_tasks`): on each machine, what its placement of declared tasks
holds runs ``floor(min over r with d_ir > 0 of held_r / d_ir)`` real tasks (no floor for a divisible
mechanism such as DRFH), summed and capped; under-reporting any resource gives 0 (the lecture); a
lottery ex ante (expected real tasks). A truthful member runs its placed tasks. Source: the DRF
paper's §3 strategy-proofness (property 2) extended to coalitions, on the machines of §6.2; the
journal version of DRFH (Wang, Li & Liang) claims "no user has an incentive to form a coalition with
others to lie" for heterogeneous servers (lab's reading of an abstract: reading notes).

The misreports form a continuum and this setting has no symbolic encoding, so the check searches:
structured over-reports first (`machines-sp`'s, one liar at a time, then every pair of liars with
the first few of each), then seeded random ones, each evaluated by a fresh exact run within the
check's ``evaluations`` budget; a candidate fixes the liars and decides every coalition containing
them (`fairlab.properties.gsp.widen`'s rule: the liars, joined by a truthful user who strictly gains).
``violated`` (re-verified) or ``none-found`` with the count — never ``holds``.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact
from fairlab.core.instance import Instance
from fairlab.properties._machines import (
    PlacementProperty,
    UnreadablePlacement,
    expected,
    expected_totals,
    fmt_vec,
    misreport_tally,
    outcomes_run,
)
from fairlab.properties.base import number, resolve_instance, resolve_mechanism, verdict, violated
from fairlab.properties.gsp import CoalitionWitness, read, same_number
from fairlab.properties.machines_sp import structured as over_reports
from fairlab.properties.machines_sp import true_tasks
from fairlab.properties.property import MISREPORT, register

NAME = "machines-gsp"
#: over-reports per liar in the first stages of the structured candidates, and in the pairs' last stage
FIRST_OPTIONS = 3
PAIR_OPTIONS = 6


def derive(inst: Instance, rows) -> Instance:
    """`inst` with every user's declared row (the truth for a non-member)."""
    data = inst.to_dict()
    data["demands"] = [[str(x) for x in row] for row in rows]
    return Instance.from_dict(data)


def values(mech, inst: Instance, deviation, options) -> list[Fraction]:
    """Every user's expected real tasks when the users declare `deviation`'s rows (fresh exact run)."""
    _, rows = deviation
    after = outcomes_run(mech, derive(inst, rows), options)

    def real(i: int) -> Fraction:
        return expected(after, lambda pl: true_tasks(inst, i, rows[i], pl[i], mech.discrete))

    return [real(i) for i in range(inst.n)]


def gains(flags, before, got) -> bool:
    """The rule: every member weakly gains, some member strictly (`fairlab.properties.gsp.gains`)."""
    members = [i for i, f in enumerate(flags) if f]
    return all(got[i] >= before[i] for i in members) and any(got[i] > before[i] for i in members)


def widen(flags, before, got):
    """The flags if they violate; else the liars joined by the first truthful user who strictly gains,
    if every liar weakly gains; else None."""
    if gains(flags, before, got):
        return tuple(flags)
    for j in range(len(flags)):
        if not flags[j]:
            joined = tuple(f or k == j for k, f in enumerate(flags))
            if gains(joined, before, got):
                return joined
    return None


def structured(inst: Instance):
    """(flags, rows): `machines-sp`'s over-reports, one liar at a time and pairs of liars, in stages
    (`fairlab.properties.gsp.structured`'s order), each once."""
    n = inst.n
    truth = tuple(tuple(row) for row in inst.demands)
    options: dict[int, list] = {i: [] for i in range(n)}
    for i, row in over_reports(inst):
        options[i].append(tuple(row))
    seen: set = set()

    def lying(lie: dict):
        deviation = tuple(k in lie for k in range(n)), tuple(lie.get(k, truth[k]) for k in range(n))
        if deviation not in seen:
            seen.add(deviation)
            yield deviation

    def singles(first, last):
        for i in range(n):
            for row in options[i][first:last]:
                yield from lying({i: row})

    def pairs(count):
        for i, j in itertools.combinations(range(n), 2):
            for a, b in itertools.product(options[i][:count], options[j][:count]):
                yield from lying({i: a, j: b})

    yield from singles(0, FIRST_OPTIONS)
    yield from pairs(FIRST_OPTIONS)
    yield from singles(FIRST_OPTIONS, None)
    yield from pairs(PAIR_OPTIONS)


def randomised(inst: Instance, seed: int):
    """Seeded random over-reports of a random non-empty set of liars (`machines-sp`'s kind of step)."""
    rng = random.Random(f"machines-gsp {seed}")
    truth = tuple(tuple(row) for row in inst.demands)
    while True:
        liars = [k for k in range(inst.n) if rng.random() < 0.5] or [rng.randrange(inst.n)]
        lie = {}
        for i in liars:
            top = max(truth[i])
            row = tuple(x + (top * Fraction(rng.randint(0, 8), 4) if rng.random() < 0.6 else 0) for x in truth[i])
            lie[i] = row if row != truth[i] else tuple(x + top for x in truth[i])
        yield tuple(k in lie for k in range(inst.n)), tuple(lie.get(k, truth[k]) for k in range(inst.n))


def witness_of(inst: Instance, flags, rows, before, got) -> CoalitionWitness:
    members = [i for i in range(inst.n) if flags[i]]
    return CoalitionWitness(members, [[number(x) for x in rows[i]] for i in members],
                            [number(got[i] - before[i]) for i in members])


class MachinesGSP(PlacementProperty):
    def _check(self, mech, inst, b):
        before = expected_totals(outcomes_run(mech, inst, b.options))
        b.used_evaluations = 1
        tried = evaluated = declined = 0
        unreadable: list[str] = []
        for source in (structured(inst), randomised(inst, b.seed)):
            for flags, rows in source:
                if b.exhausted():
                    break
                if b.time_up():
                    return verdict(self.name, mech, "unknown", b, f"stopped by the time limit after {tried} "
                                   "coalition misreports; no verdict", stopped="time", misreports=tried)
                b.used_evaluations += 1
                tried += 1
                try:
                    got = values(mech, inst, (flags, rows), b.options)
                except UnreadablePlacement as exc:
                    unreadable.append(str(exc))
                    continue
                except InputError:
                    declined += 1  # the mechanism declines the derived instance
                    continue
                evaluated += 1
                found = widen(flags, before, got)
                if found is not None:
                    return violated(self.name, mech, inst, witness_of(inst, found, rows, before, got), b,
                                    misreports=tried).replace(exactness="rational")
            if b.exhausted():
                break
        note, counts = misreport_tally(tried, evaluated, declined, unreadable)
        if not evaluated:
            return verdict(self.name, mech, "unknown", b, f"none of the {tried} coalition over-reports tried could be "
                           f"evaluated{note}; no verdict", **counts)
        return verdict(self.name, mech, "none-found", b,
                       f"no coalition gains among {evaluated} coalition over-reports evaluated exactly, of {tried} "
                       f"tried{note} (under-reports give utility 0; the misreports are a continuum, so this is not a "
                       "proof)", **counts)

    def confirm(self, mechanism, instance, witness, options):
        inst = resolve_instance(instance)
        mech = resolve_mechanism(mechanism)
        w = CoalitionWitness.from_dict(witness)
        deviation, _ = read(w, inst)
        flags, rows = deviation
        before = expected_totals(outcomes_run(mech, inst, options))
        got = values(mech, inst, deviation, options)
        if not gains(flags, before, got):
            return None
        members = [i for i in range(inst.n) if flags[i]]
        if w.gains is not None and not all(same_number(s, got[i] - before[i]) for s, i in zip(w.gains, members)):
            return None
        parts = []
        for i in members:
            said = "its true demand" if tuple(rows[i]) == tuple(inst.demands[i]) else fmt_vec(rows[i])
            parts.append(f"{inst.users[i]} declares {said} and runs {format_exact(got[i])} of its real tasks "
                         f"(truthful: {format_exact(before[i])})")
        lottery = len(outcomes_run(mech, inst, options)) > 1
        ante = " (expected tasks, ex ante)" if lottery else ""
        names = ", ".join(inst.users[i] for i in members)
        return f"the coalition {{{names}}} gains{ante}: " + "; ".join(parts)


PROPERTY = register(MachinesGSP(
    name=NAME,
    title="group strategyproofness (machines)",
    definition=("No coalition of users can declare other demand vectors so that every member runs at least as many "
                "of its real tasks and some member strictly more; real tasks as for machines-sp (under-reporting gives "
                "0, over-reporting runs floor(min_r held_r / d_r) real tasks per machine, summed and capped; a lottery "
                "ex ante). Source: DRF paper §3 property 2 extended to coalitions, machines of §6.2; DRFH's journal "
                "version claims it (lab's reading)."),
    source="Ghodsi et al., NSDI 2011, §3 property 2, §6.2; Wang, Li & Liang (DRFH, journal version; lab's reading)",
    witness=CoalitionWitness,
    compares=MISREPORT,
    witness_help=('{"coalition": [i, ...], "misreports": [[demand vector], ...], "gains": [g, ...]}  '
                  "(0-based users, increasing; one declared vector per member, in that order, the truth allowed; "
                  "each member's gain in real tasks, recomputed on re-verification, null to skip)"),
))
