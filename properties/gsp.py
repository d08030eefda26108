"""Group strategyproofness: no coalition gains by lying together (the DRF paper's §3 strategy-proofness,
property 2, extended to coalitions; Parkes, Procaccia & Shah, "Beyond DRF", EC 2012).

No set of users can declare other demand vectors so that every member runs at least as many of its
REAL tasks as when all are truthful (measured with its true demand, as `sp` measures) and some
member runs strictly more. A member may declare its true demand (it joins to help the others); a
coalition of one is sp, so gsp implies sp. Weights and task caps stay as declared. Parkes, Procaccia
& Shah prove DRF group strategyproof with weights and zero demands (lab's reading of the paper:
reading notes [M]); the journal version of DRFH claims it for heterogeneous servers ("no user has an
incentive to form a coalition with others to lie"), judged in that setting by `machines-gsp`.

The rule, written once over the exact and the z3 view: a deviation is (member flags f, declared rows
d', a non-member's row its true one); with t the truthful tasks and t' those of the derived
instance, it violates gsp when u_i(t'_i d'_i) >= t_i for every member and u_i(t'_i d'_i) > t_i for
some member (u_i: Leontief utility for the TRUE demand, whole tasks for a discrete mechanism).

The check searches like sp's (`fairlab.properties._search`), exactly:

1. structured candidates (`structured`): single liars with sp's structured misreports and pairs of
   liars with the first few of each, in stages so that a small budget reaches both kinds;
2. z3 on the mechanism's spec with the coalition UNKNOWN: one Bool per user (member or not), a
   member's declared row unknown (>= 0, not all zero), a non-member's its true row; the rule at
   the misreported run. UNSAT covers every coalition and every misreport at once: ``holds``. It is
   asked coalition by coalition (`GroupStrategyproofness.questions`): where every member's part of
   the encoding only sees the direction of its declared row (`fairlab.core.scaling`; a task cap
   breaks it), with each member's tasks under the lie fixed to 1, 0 or -1 (drf 3 x 3: 7 of 8 random
   instances decided, where the single question decided 4);
3. seeded random coalitions (random liars, random rows).

A candidate fixes who lies; its one exact run decides every coalition that contains the liars
(`widen`: the liars, joined by one truthful user who strictly gains when no liar does). The
witness names the coalition, each member's declared row and each member's gain in real tasks; its
re-verification recomputes all three from scratch (a stated gain must be the recomputed one).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import z3

from fairlab.core import scaling
from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact, to_fraction, z3_value
from fairlab.mechanisms.base import Constraint, SymbolicInstance
from fairlab.mechanisms.spec_names import check_independent
from fairlab.properties import _search, leontief
from fairlab.properties.base import (
    Encoding,
    fresh_tasks,
    model_value,
    number,
    outside_domain,
    read_index,
    read_vector,
    rebuild,
    resolve_instance,
    resolve_mechanism,
    run,
)
from fairlab.properties.property import MISREPORT, DeviationProperty, ExactView, Witness, Z3View, register
from fairlab.properties.sp import random_misreports, structured_misreports

NAME = "gsp"
#: misreports per liar in the structured candidates' first stages (the first of sp's structured ones)
FIRST_OPTIONS = 3
#: misreports per liar combined in the structured pairs' last stage
PAIR_OPTIONS = 6


@dataclass(frozen=True, eq=False)
class CoalitionWitness(Witness):
    """gsp: the users of `coalition` (0-based, increasing) declare `misreports` (one demand vector per
    member, in the coalition's order; a member may declare its true demand), and member k then runs
    `gains[k]` more of its real tasks (each >= 0, one > 0)."""

    coalition: list
    misreports: list
    gains: list


# --------------------------------------------------------------------------- the rule
def gains(view, before: Sequence, after: Sequence, deviation) -> Any:
    """The rule: every member weakly gains and some member strictly gains, each measured with its TRUE
    demand on t'_i tasks of its declared row (`deviation` = (member flags, declared rows))."""
    flags, rows = deviation
    bundles = [[after[i] * x for x in rows[i]] for i in range(view.n)]
    weak = view.all(view.implies(flags[i], lambda i=i: view.at_least(i, bundles[i], before[i])) for i in range(view.n))
    strict = view.any(view.all([flags[i], lambda i=i: view.prefers(i, bundles[i], before[i])]) for i in range(view.n))
    return view.all([weak, strict])


def derive(instance, deviation):
    _, rows = deviation
    return rebuild(instance, demands=[list(row) for row in rows])


def widen(view: ExactView, before, after, deviation):
    """The deviation itself if it violates; else, if every liar weakly gains, the liars joined by the
    first truthful user who strictly gains (it needs no lie); else None."""
    if gains(view, before, after, deviation):
        return deviation
    flags, rows = deviation
    for j in range(view.n):
        if not flags[j]:
            joined = (tuple(f or k == j for k, f in enumerate(flags)), rows)
            if gains(view, before, after, joined):
                return joined
    return None


def member_gains(inst, deviation, before, after, integral: bool) -> list:
    """Each member's gain in real tasks (exact): u_i(t'_i d'_i) - t_i."""
    flags, rows = deviation
    return [leontief.utility(inst, i, [after[i] * x for x in rows[i]], integral) - before[i]
            for i in range(inst.n) if flags[i]]


def witness_of(inst, deviation, before, after, integral: bool) -> CoalitionWitness:
    flags, rows = deviation
    members = [i for i in range(inst.n) if flags[i]]
    return CoalitionWitness(members, [[number(x) for x in rows[i]] for i in members],
                            [number(g) for g in member_gains(inst, deviation, before, after, integral)])


def read(witness: CoalitionWitness, instance):
    """(deviation, a member that strictly gains by the witness's account) from a witness; InputError
    if it is malformed."""
    raw = witness.coalition
    if not isinstance(raw, (list, tuple)) or not raw:
        raise InputError(f"witness coalition: expected a non-empty list of user indices, got {raw!r}")
    members = [read_index(i, instance.n, "coalition") for i in raw]
    if any(a >= b for a, b in zip(members, members[1:])):
        raise InputError(f"witness coalition: expected users in increasing order, each once, got {raw!r}")
    lies = witness.misreports
    if not isinstance(lies, (list, tuple)) or len(lies) != len(members):
        raise InputError(f"witness misreports: expected {len(members)} demand vectors (one per member)")
    rows = list(instance.demands)
    for k, i in enumerate(members):
        rows[i] = read_vector(lies[k], instance.m, f"misreports[{k}]")
    stated = witness.gains
    if stated is not None and (not isinstance(stated, (list, tuple)) or len(stated) != len(members)):
        raise InputError(f"witness gains: expected {len(members)} numbers (one per member) or null")
    gainer = members[0]
    if stated is not None:
        positive = [i for k, i in enumerate(members) if to_fraction(stated[k], f"gains[{k}]") > 0]
        gainer = positive[0] if positive else members[0]
    flags = tuple(i in members for i in range(instance.n))
    return (flags, tuple(tuple(row) for row in rows)), gainer


def same_number(stated, value) -> bool:
    """A witness's stated number is `value` exactly (a rational), or reads as it does (an irrational)."""
    if isinstance(value, Fraction):
        try:
            return to_fraction(stated, "gain") == value
        except InputError:
            return False
    return str(stated) == str(number(value))


def explain(inst, deviation, before, after, integral: bool) -> str:
    flags, rows = deviation
    parts = []
    for i in range(inst.n):
        if flags[i]:
            real = leontief.utility(inst, i, [after[i] * x for x in rows[i]], integral)
            said = "its true demand" if tuple(rows[i]) == tuple(inst.demands[i]) else \
                f"<{', '.join(format_exact(x) for x in rows[i])}>"
            parts.append(f"{inst.users[i]} declares {said} and runs {format_exact(real)} of its real tasks "
                         f"(truthful: {format_exact(before[i])})")
    names = ", ".join(inst.users[i] for i in range(inst.n) if flags[i])
    return f"the coalition {{{names}}} gains: " + "; ".join(parts)


# --------------------------------------------------------------------------- candidates
def _by_user(instance) -> dict[int, list[tuple]]:
    out: dict[int, list[tuple]] = {i: [] for i in range(instance.n)}
    for i, row in structured_misreports(instance):
        out[i].append(row)
    return out


def structured(instance):
    """Deviations worth trying first, each once, in stages so that a small budget reaches every kind:
    one liar with each of the first `FIRST_OPTIONS` of sp's structured misreports (every user in
    turn), every pair of liars with the first `FIRST_OPTIONS` of each, one liar with the rest of sp's,
    then every pair with the first `PAIR_OPTIONS` of each."""
    n = instance.n
    truth = tuple(tuple(row) for row in instance.demands)
    options = _by_user(instance)
    seen: set = set()

    def lying(lie: dict):
        deviation = tuple(k in lie for k in range(n)), tuple(lie.get(k, truth[k]) for k in range(n))
        if deviation not in seen:
            seen.add(deviation)
            yield deviation

    def singles(first: int, last: int | None):
        for i in range(n):
            for row in options[i][first:last]:
                yield from lying({i: row})

    def pairs(count: int):
        for i, j in itertools.combinations(range(n), 2):
            for a, b in itertools.product(options[i][:count], options[j][:count]):
                yield from lying({i: a, j: b})

    yield from singles(0, FIRST_OPTIONS)
    yield from pairs(FIRST_OPTIONS)
    yield from singles(FIRST_OPTIONS, None)
    yield from pairs(PAIR_OPTIONS)


def randomised(instance, seed: int):
    """Seeded random deviations: a random non-empty set of liars, each with a random row (sp's)."""
    rng = random.Random(f"gsp {seed}")
    truth = tuple(tuple(row) for row in instance.demands)
    rows = random_misreports(instance, seed)
    while True:
        liars = [k for k in range(instance.n) if rng.random() < 0.5] or [rng.randrange(instance.n)]
        lie: dict[int, tuple] = {}
        while len(lie) < len(liars):
            i, row = next(rows)
            if i in liars and i not in lie:
                lie[i] = tuple(row)
        yield tuple(k in lie for k in range(instance.n)), tuple(lie.get(k, truth[k]) for k in range(instance.n))


# --------------------------------------------------------------------------- the property
@dataclass(eq=False)
class GroupStrategyproofness(DeviationProperty):
    """gsp: a deviation property whose rule reads every member's tasks at once (not one user's)."""

    def evaluate(self, mech, inst, tasks, deviation, options, derived=None):
        derived = derive(inst, deviation) if derived is None else derived
        if outside_domain(derived) is not None:
            return None
        after = run(mech, derived, options)
        found = widen(ExactView(inst, mech.discrete), tasks, after, deviation)
        return None if found is None else witness_of(inst, found, tasks, after, mech.discrete)

    def confirm(self, mechanism, instance, witness, options):
        inst = resolve_instance(instance)
        w = CoalitionWitness.from_dict(witness)
        deviation, _ = read(w, inst)
        derived = derive(inst, deviation)  # validates the declared rows like any instance
        if outside_domain(derived) is not None:
            return None
        mech = resolve_mechanism(mechanism)
        before = run(mech, inst, options)
        after = run(mech, derived, options)
        if not gains(ExactView(inst, mech.discrete), before, after, deviation):
            return None
        if w.gains is not None:
            recomputed = member_gains(inst, deviation, before, after, mech.discrete)
            if not all(same_number(s, g) for s, g in zip(w.gains, recomputed)):
                return None
        return explain(inst, deviation, before, after, mech.discrete)

    def encode(self, sym: SymbolicInstance, spec, prefix: str | None = None, anonymous: bool = False) -> Encoding:
        """spec(sym, t); one Bool per user (member of the coalition or not), a member's declared row
        unknown (>= 0, not all zero), a non-member's its true row; spec(derived, t'); the rule
        (``<prefix>.violated``). `anonymous` (the prover, for an anonymous mechanism on an instance
        symmetric in the users): user 0 is a member who strictly gains and the members come first
        (``symmetry.*``; complete: rename the users)."""
        prefix = self.name if prefix is None else prefix
        n, m = sym.n, sym.m
        tasks = fresh_tasks(prefix, n)
        constraints = list(spec(sym, tasks))
        first = (sym, tasks, list(constraints))
        member = [z3.Bool(f"{prefix}.member{i}") for i in range(n)]
        lies = [[z3.Real(f"{prefix}.lie{i}_{r}") for r in range(m)] for i in range(n)]
        for i in range(n):
            constraints.append(Constraint(f"{prefix}.lie{i}", z3.If(
                member[i], z3.And(*[x >= 0 for x in lies[i]], z3.Or([x > 0 for x in lies[i]])),
                z3.And([lies[i][r] == sym.demands[i][r] for r in range(m)]))))
        derived = SymbolicInstance(capacities=list(sym.capacities), demands=lies, weights=list(sym.weights),
                                   max_tasks=list(sym.max_tasks))
        after = fresh_tasks(f"{prefix}.coalition", n)
        deviating = list(spec(derived, after))
        check_independent(f"property {self.name}", first, (derived, after, deviating))
        constraints += [Constraint(f"{prefix}.coalition:{c.name}", c.expr) for c in deviating]
        view = Z3View(sym)
        deviation = (member, lies)
        constraints.append(Constraint(f"{prefix}.violated", gains(view, tasks, after, deviation)))
        if anonymous:
            strict = view.prefers(0, [after[0] * x for x in lies[0]], tasks[0])
            constraints.append(Constraint("symmetry.gainer", z3.And(member[0], strict)))
            constraints += [Constraint(f"symmetry.members-first[{i}]", z3.Implies(member[i + 1], member[i]))
                            for i in range(n - 1)]

        def witness(model) -> dict | None:
            flags = [z3.is_true(model.eval(f, model_completion=True)) for f in member]
            if not any(flags):
                return None
            members = [i for i in range(n) if flags[i]]
            true_rows = [[model_value(model, d) for d in row] for row in sym.demands]
            said = [[model_value(model, x) for x in lies[i]] for i in members]
            before = [model_value(model, t) for t in tasks]
            got = [model_value(model, t) for t in after]
            out = []
            for k, i in enumerate(members):
                row = true_rows[i]
                real = min(got[i] * said[k][r] / row[r] for r in range(m) if row[r] > 0)
                cap = sym.max_tasks[i]
                if cap is not None:
                    real = min(real, model_value(model, cap))
                out.append(number(real - before[i]))
            return CoalitionWitness(members, [[number(x) for x in row] for row in said], out).to_dict()

        return Encoding(constraints, witness, {"tasks": tasks, "after": after, "member": member, "lies": lies})

    def questions(self, sym: SymbolicInstance, spec) -> list:
        """The per-instance z3 step, coalition by coalition: with the coalition S fixed (the flags and
        the non-members' rows substituted), where `fairlab.core.scaling` finds each member's scaling
        symmetry, one question per choice of 1, 0 or -1 for every member's tasks under the lie
        (3^|S|); the coalitions without it in one question; and, only if those did not decide, the
        whole question as before (`fairlab.properties._search.Fallback`). The empty coalition cannot
        violate (no member gains), so it is not asked."""
        encoding = self.encode(sym, spec)
        member, lies, after = (encoding.variables[k] for k in ("member", "lies", "after"))
        whole = z3.And([c.expr for c in list(sym.domain) + list(encoding.constraints)])
        questions: list[_search.Question] = []
        rest: list[tuple[int, ...]] = []
        for size in range(1, sym.n + 1):
            for coalition in itertools.combinations(range(sym.n), size):
                pairs = [(member[i], z3.BoolVal(i in coalition)) for i in range(sym.n)]
                pairs += [(lies[i][r], sym.demands[i][r]) for i in range(sym.n) if i not in coalition
                          for r in range(sym.m)]
                fixed = z3.substitute(whole, *pairs)
                if any(scaling.obstruction([fixed], lies[j], after[j]) is not None for j in coalition):
                    rest.append(coalition)
                    continue
                for values, case in scaling.cases([fixed], [after[j] for j in coalition]):
                    label = f"coalition {list(coalition)}, tasks {list(values)}"
                    pinned = pairs + [(after[j], z3.RealVal(v)) for j, v in zip(coalition, values)]
                    reader = _search.pinned_reader(encoding.witness, pinned)
                    questions.append(_search.Question(label, [Constraint(label, case)], reader, scaled=coalition))
        if not questions:  # no coalition has the symmetry: the one question, as before
            return _search.whole(sym, encoding)
        if rest:
            chosen = z3.Or([z3.And([member[i] == (i in coalition) for i in range(sym.n)]) for coalition in rest])
            questions.append(_search.Question("", list(sym.domain) + list(encoding.constraints)
                                              + [Constraint(f"{self.name}.coalitions", chosen)], encoding.witness))
        return questions + [_search.fallback(sym, lambda: encoding)]

    def holds(self, view, before, after, deviation, label):
        """"gsp holds between `before` and `after`" (the rule negated), for `fairlab.search.impossibility`;
        a deviation's exact numbers become z3 numerals on the z3 view."""
        if view.symbolic:
            flags, rows = deviation
            deviation = (flags, [[x if isinstance(x, z3.ExprRef) else z3_value(x) for x in row] for row in rows])
        return [(f"{self.name}[{label}]", view.not_(gains(view, before, after, deviation)))]

    def deviation_label(self, instance, deviation) -> str:
        """The audit's caption of the coalition's run."""
        flags, rows = deviation
        said = [f"{instance.users[i]} declares <{', '.join(format_exact(x) for x in rows[i])}>"
                for i in range(instance.n) if flags[i]]
        return "; ".join(said)


PROPERTY = register(GroupStrategyproofness(
    name=NAME,
    title="group strategyproofness",
    definition=(
        "No coalition of users can declare other demand vectors so that every member runs at least as many of "
        "its real tasks (measured with its true demand) and some member strictly more. A member may declare "
        "the truth; a coalition of one is strategyproofness. Source: §3 of the DRF paper (property 2, "
        "'strategy-proofness') extended to coalitions; Parkes, Procaccia & Shah (EC 2012) prove DRF group "
        "strategyproof with weights and zero demands (lab's reading of the paper)."
    ),
    source="Parkes, Procaccia & Shah, Beyond Dominant Resource Fairness (EC 2012; lab's reading); "
           "Ghodsi et al., NSDI 2011, §3 property 2",
    weighted=(
        "the members declare only demand vectors: every weight (or weight vector) and task cap stays as given, "
        "and each member's gain is measured with its true demand, capped by its cap. Lab's reading of Parkes, "
        "Procaccia & Shah's group strategyproofness (and of the DRF paper's §3) with weights and caps held fixed"
    ),
    witness=CoalitionWitness,
    witness_help=('{"coalition": [i, ...], "misreports": [[demand vector], ...], "gains": [g, ...]}  '
                  "(0-based users, increasing; one declared vector per member, in that order, the truth "
                  "allowed; each member's gain in real tasks, recomputed on re-verification, null to skip)"),
    compares=MISREPORT,
    rule=gains,
    derive=derive,
    compared=lambda n, deviation: [(i, i) for i in range(n) if deviation[0][i]],
    read=lambda witness, instance: read(CoalitionWitness.from_dict(witness), instance),
    explain=explain,
    candidates=lambda inst, seed: (structured(inst), randomised(inst, seed)),
    what="coalition misreport",
))
