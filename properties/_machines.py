"""What the properties of the machines setting share ("many machines, whole tasks").

An instance lists machines (`Instance.machines`), each with its own capacity vector; a task runs
whole on ONE machine. A mechanism of this setting returns a placement (`Allocation.placement`:
placement[i][k] tasks of user i on machine k). Utilities are Leontief per machine: a bundle b on
machine k runs ``min over r with d_ir > 0 of b_r / d_ir`` tasks of user i, whole tasks (the floor)
for a discrete mechanism (`Mechanism.discrete`), and a user's utility is the sum over machines,
capped by its task cap (rounded down for whole tasks). A task never spans machines, so bundles on
different machines do not add up before the floor.

`outcomes_run` is the one place these properties obtain what a mechanism allocates: a fresh run,
exact rationals only, each placement checked feasible machine by machine (whole tasks for a
discrete mechanism, caps, capacities), as outcomes (probability, placement): one outcome of
probability 1 for a placement, the lottery's for a randomized mechanism (`Allocation.lottery`:
positive probabilities summing to 1, tasks = the expected row sums). `placement_run` is the same for
the properties that read ONE placement (Theorem 7's), refusing a lottery.

Lotteries are judged EX ANTE, on expected utilities, exactly (a property built with
``ex_ante=True`` reads the outcomes; a placement is the lottery of one outcome, so nothing changes
for deterministic mechanisms). Each placement of a lottery's support is also checked on its own:
an ex-post violation is a separate finding (`ExPostWitness` under the result's ``details["ex_post"]``,
and a sentence of its explanation) — it never changes the ex-ante verdict.

Valuation models (`fairlab.mechanisms.base.VALUATIONS`). How a user values ANOTHER user's bundle, or
the allocation a misreport earns it, depends on the model of the mechanism's paper, which the
mechanism declares (`Mechanism.valuation`): ``pooled`` — a bundle on a machine is its pooled
resources, valued Leontief per machine (the DRF paper's §6.2 machines, DRFH); ``containers`` — a
bundle on a machine is a set of containers, one per task and each sized for that task; a container
runs one task of whoever uses it, and only if that task fits in it (Friedman, Ghodsi & Psomas,
EC 2014: "the use of containers to isolate jobs" [abstract, read]; one task per container is the
lab's reading). The properties judge in the declared model unless ``model`` is asked (``--option
model=pooled|containers``), and every result records which (``details["model"]``). The model
changes machines-ef (another user's bundles) and machines-sp (the containers of a misreported
demand); it does not change machines-si or machines-pe: those compare a user's OWN task count —
each of its containers runs one of its own tasks, as each of its pooled task-bundles does — with
what 1/n of every machine runs (a slice of resources it would fill with containers of its own size,
the same count) or with other feasible placements (the same packing constraints in both models).
Their results record the model all the same, with that note.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Sequence

from fairlab.core.errors import InexactAllocation, InputError
from fairlab.core.exact import format_exact, to_fraction
from fairlab.core.instance import Instance
from fairlab.core.results import Result
from fairlab.mechanisms.base import MODEL_OPTION, VALUATIONS
from fairlab.properties.base import resolve_instance, resolve_mechanism, verdict, violated
from fairlab.properties.property import ALLOCATION, Property, Witness, not_defined

Placement = tuple[tuple[Fraction, ...], ...]
#: what a mechanism allocates, as (probability, placement) pairs (one pair of probability 1: a placement)
Outcomes = tuple[tuple[Fraction, Placement], ...]


class UnreadablePlacement(InputError):
    """The mechanism ran but returned nothing these properties can read (a lottery, no placement, an
    infeasible or malformed placement) — unlike the mechanism itself declining the instance."""


_Bad = UnreadablePlacement


# --------------------------------------------------------------------------- running a mechanism
def misreport_tally(tried: int, evaluated: int, declined: int, unreadable: list) -> tuple[str, dict]:
    """What a misreport search over placements (machines-sp, machines-gsp) counted: the note on the
    misreports it could not evaluate ("" for none) and the counts its verdict records."""
    notes = []
    if declined:
        notes.append(f"{declined} declined by the mechanism (InputError)")
    if unreadable:
        notes.append(f"{len(unreadable)} returned no readable placement (first: {unreadable[0]})")
    note = f"; {'; '.join(notes)}" if notes else ""
    return note, dict(misreports=tried, evaluated=evaluated, declined=declined, unreadable=len(unreadable))


def outcomes_run(mech, inst: Instance, options) -> Outcomes:
    """The mechanism's outcomes on `inst` (fresh run): its placement with probability 1, or its
    lottery; exact, each placement checked feasible per machine, the tasks the expected row sums."""
    allocation = mech(inst, **dict(options or {}))
    if not allocation.is_exact_rational():
        raise InexactAllocation(f"{mech.name}'s allocation is {allocation.describe_exactness()}; the machines "
                                "properties decide on exact rational placements only")
    who = f"mechanism {mech.name!r}"
    if allocation.placement is not None:
        outcomes: Outcomes = ((Fraction(1), _checked(mech, inst, allocation.placement, who)),)
    elif allocation.lottery:
        pairs = []
        for t, (p, rows) in enumerate(allocation.lottery):
            if not isinstance(p, Fraction) or p <= 0:
                raise _Bad(f"{who}: lottery[{t}] has probability {p!r}, not a positive exact number")
            pairs.append((p, _checked(mech, inst, rows, f"{who}: lottery[{t}]")))
        if sum((p for p, _ in pairs), Fraction(0)) != 1:
            raise _Bad(f"{who}: the lottery's probabilities do not sum to 1")
        outcomes = tuple(pairs)
    else:
        raise _Bad(f"{mech.name} returns no placement (tasks per machine) and no lottery")
    expected = expected_totals(outcomes)
    for i in range(inst.n):
        if expected[i] != allocation.tasks[i]:
            raise _Bad(f"{who}: user {i}'s tasks {format_exact(allocation.tasks[i])} are not its placement's "
                       f"(expected) sum {format_exact(expected[i])}")
    return outcomes


def placement_run(mech, inst: Instance, options) -> Placement:
    """The mechanism's ONE placement on `inst` (fresh run), exact and checked feasible per machine."""
    outcomes = outcomes_run(mech, inst, options)
    if len(outcomes) != 1:
        raise _Bad(f"{mech.name} returns a lottery; this property reads one placement")
    return outcomes[0][1]


def _checked(mech, inst: Instance, rows, who: str) -> Placement:
    if len(rows) != inst.n or any(len(row) != inst.k for row in rows):
        raise _Bad(f"{who}: placement is not {inst.n} users × {inst.k} machines")
    for i, row in enumerate(rows):
        for k, x in enumerate(row):
            if not isinstance(x, Fraction) or x < 0 or (mech.discrete and x.denominator != 1):
                raise _Bad(f"{who}: placement[{i}][{k}] = {x!r} is not a non-negative "
                           f"{'whole number' if mech.discrete else 'number'}")
        cap = inst.max_tasks[i]
        if cap is not None and sum(row, Fraction(0)) > cap:
            raise _Bad(f"{who}: user {i} runs {format_exact(sum(row, Fraction(0)))} tasks, above its cap")
    machines, names = inst.machines or (), inst.machine_names or ()
    for k in range(inst.k):
        for r in range(inst.m):
            load = sum((rows[i][k] * inst.demands[i][r] for i in range(inst.n)), Fraction(0))
            if load > machines[k][r]:
                raise _Bad(f"{who}: machine {names[k]} over capacity on {inst.resources[r]} "
                           f"({format_exact(load)} > {format_exact(machines[k][r])})")
    return tuple(tuple(row) for row in rows)


def expected(outcomes: Outcomes, value: Callable[[Placement], Fraction]) -> Fraction:
    """E[value(placement)] over the outcomes, exactly."""
    return sum((p * value(placement) for p, placement in outcomes), Fraction(0))


def expected_totals(outcomes: Outcomes) -> tuple[Fraction, ...]:
    n = len(outcomes[0][1])
    return tuple(sum((p * sum(pl[i], Fraction(0)) for p, pl in outcomes), Fraction(0)) for i in range(n))


def certificate_of(outcomes: Outcomes) -> dict:
    """The certificate of a check: the placement, or the lottery (probability, placement) pairs."""
    if len(outcomes) == 1:
        return {"placement": [[number(x) for x in row] for row in outcomes[0][1]]}
    return {"lottery": [{"probability": number(p), "placement": [[number(x) for x in row] for row in pl]}
                        for p, pl in outcomes]}


def fmt_outcomes(outcomes: Outcomes) -> str:
    if len(outcomes) == 1:
        return f"the placement {fmt_placement(outcomes[0][1])}"
    return "the lottery " + " + ".join(f"{format_exact(p)}·{fmt_placement(pl)}" for p, pl in outcomes)


def totals(placement: Placement) -> tuple[Fraction, ...]:
    return tuple(sum(row, Fraction(0)) for row in placement)


# --------------------------------------------------------------------------- valuation models
#: what each model means, as a result's explanation says it
MODEL_WORDS = {
    "pooled": "pooled model: another user's bundle on a machine is pooled and valued Leontief there (the DRF "
              "paper's §6.2 machines)",
    "containers": "containers model (Friedman, Ghodsi & Psomas, EC 2014; one task per container is the lab's "
                  "reading): a bundle on a machine is its containers, each running one task, whole or not at all",
}
#: the note of a property the model does not change
MODEL_FREE = ("the model does not change this property: it reads each user's own tasks only (one task per container "
              "or per pooled task-bundle alike), never another user's bundle nor what a misreport earns")


def model_of(mech, options) -> str:
    """The valuation model a machines property judges `mech` in: ``options["model"]`` when asked, else
    the model it declares (`Mechanism.valuation`)."""
    model = dict(options or {}).get(MODEL_OPTION, mech.valuation)
    if model not in VALUATIONS:
        raise InputError(f"option {MODEL_OPTION}: expected one of {', '.join(VALUATIONS)}, got {model!r}")
    return model


def model_context(mech, inst: Instance, options) -> str:
    """A `PlacementProperty` context: the model (`model_of`); the containers model needs whole tasks
    (a divisible mechanism has no containers: InputError, the property's n/a)."""
    model = model_of(mech, options)
    if model == "containers" and not mech.discrete:
        raise InputError(f"the containers model needs whole tasks; {mech.name} splits tasks (divisible), so it has "
                         "no containers: ask model=pooled")
    return model


def model_record(mech, options, matters: bool = True) -> dict:
    """``details["model"]`` of a machines result: the model used, the one the mechanism declares,
    whether it was asked, its words (and, for a property the model does not change, why)."""
    model = model_of(mech, options)
    record = {"name": model, "declared": mech.valuation, "asked": model != mech.valuation,
              "words": MODEL_WORDS[model]}
    if not matters:
        record["note"] = MODEL_FREE
    return record


def model_sentence(mech, options) -> str:
    """The explanation's sentence naming the model a verdict is about."""
    model = model_of(mech, options)
    if model == mech.valuation:
        return f"judged in the {MODEL_WORDS[model]}, the model {mech.name} declares"
    whose = "the lab's pooled reading" if model == "pooled" else "Friedman, Ghodsi & Psomas's containers"
    return (f"judged in the {MODEL_WORDS[model]}, asked with model={model} ({whose}): NOT the model {mech.name} "
            f"declares ({mech.valuation})")


def with_model(result: Result, mech, options, matters: bool = True, sentence: bool = True) -> Result:
    """`result` recording its valuation model (``details["model"]``; a sentence of the explanation
    of a holds / none-found verdict when the model matters to the property and `sentence` — a
    violation's explanation, its `confirm`'s words, already has it)."""
    details = {**dict(result.details), "model": model_record(mech, options, matters)}
    if not (matters and sentence) or result.status.value not in ("holds", "none-found"):
        return result.replace(details=details)
    said = model_sentence(mech, options)
    explanation = f"{result.explanation}; {said}" if result.explanation else said
    return result.replace(details=details, explanation=explanation)


# --------------------------------------------------------------------------- utilities
def runs(inst: Instance, i: int, bundle: Sequence[Fraction], integral: bool, demand_row=None) -> Fraction:
    """Tasks of user i (true demand `demand_row`, default its row) that `bundle` runs on ONE machine."""
    row = inst.demands[i] if demand_row is None else demand_row
    value = min(bundle[r] / row[r] for r in range(inst.m) if row[r] > 0)
    return Fraction(math.floor(value)) if integral else value


def capped(inst: Instance, i: int, value: Fraction, integral: bool) -> Fraction:
    cap = inst.max_tasks[i]
    if cap is None:
        return value
    cap = Fraction(math.floor(cap)) if integral else cap
    return min(value, cap)


def machine_share(inst: Instance, i: int, integral: bool) -> Fraction:
    """What user i runs with 1/n of every machine: sum_k floor(min_r c_kr / (n d_ir)), capped."""
    machines = inst.machines or ()
    total = sum((runs(inst, i, [c / inst.n for c in machine], integral) for machine in machines), Fraction(0))
    return capped(inst, i, total, integral)


def pooled_sigma(inst: Instance, i: int) -> Fraction:
    """Dominant share of one task of user i against the pooled capacities (max over resources with C_r > 0)."""
    return max((inst.demands[i][r] / inst.capacities[r] for r in range(inst.m) if inst.capacities[r] > 0),
               default=Fraction(0))


def fmt_vec(values) -> str:
    return "<" + ", ".join(format_exact(v) for v in values) + ">"


def fmt_placement(placement) -> str:
    return "[" + "; ".join(" ".join(format_exact(x) for x in row) for row in placement) + "]"


def read_index(raw, bound: int, field: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw < bound:
        raise InputError(f"witness {field}: expected an index in 0..{bound - 1}, got {raw!r}")
    return raw


def read_placement(raw, inst: Instance, field: str = "improvement") -> Placement:
    if not isinstance(raw, (list, tuple)) or len(raw) != inst.n:
        raise InputError(f"witness {field}: expected {inst.n} rows (users) of {inst.k} numbers (machines)")
    rows = []
    for i, row in enumerate(raw):
        if not isinstance(row, (list, tuple)) or len(row) != inst.k:
            raise InputError(f"witness {field}[{i}]: expected {inst.k} numbers")
        rows.append(tuple(to_fraction(x, f"witness {field}[{i}][{k}]") for k, x in enumerate(row)))
    return tuple(rows)


def number(value: Fraction):
    return int(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


# --------------------------------------------------------------------------- witnesses
@dataclass(frozen=True, eq=False)
class PlacementWitness(Witness):
    """machines-pe: a feasible placement (tasks per user per machine) in which every user runs at least as
    many tasks and `user` strictly more."""

    improvement: list
    user: int


@dataclass(frozen=True, eq=False)
class LotteryWitness(Witness):
    """machines-pe of a lottery (ex ante): a lottery over feasible placements, [[probability, placement], ...],
    whose expected tasks are at least every user's and strictly more for `user`."""

    lottery: list
    user: int


@dataclass(frozen=True, eq=False)
class ExPostWitness(Witness):
    """An ex-post finding of a lottery (never its ex-ante verdict): the placement `outcome` (0-based
    index in the lottery, drawn with `probability`) violates the property on its own, as `witness`
    (the property's deterministic witness, e.g. ``{"user": 1}``) says."""

    outcome: int
    probability: Any
    placement: list
    witness: dict


@dataclass(frozen=True, eq=False)
class PairWitness(Witness):
    """thm7-pairwise: `other`'s dominant share exceeds `user`'s by more than one max-task's dominant share."""

    user: int
    other: int


# --------------------------------------------------------------------------- the property shape
@dataclass(eq=False)
class PlacementProperty(Property):
    """A property of one placement, violated iff ``rule(inst, subject, integral, context, *choice)``
    at some choice. ``subject`` is the placement, or — for a property built with ``ex_ante=True`` —
    the outcomes (`Outcomes`; a placement is one outcome of probability 1), judged on expectations.
    ``context(mech, inst, options)`` computes what the rule needs besides the subject (e.g. the
    continuous DRF allocation) or raises InputError when the property does not apply (n/a, with the
    reason); ``explain(inst, subject, integral, context, witness)`` words it."""

    rule: Callable = not_defined
    choices: Callable = not_defined
    explain: Callable = not_defined
    context: Callable | None = None
    compares: str = ALLOCATION
    setting: str = "machines"
    ex_ante: bool = False
    #: the valuation model changes the rule (machines-ef); every result records the model either way
    model_matters: bool = False

    def _context(self, mech, inst, options):
        return None if self.context is None else self.context(mech, inst, options)

    def _subject(self, mech, inst, options):
        return outcomes_run(mech, inst, options) if self.ex_ante else placement_run(mech, inst, options)

    def _check(self, mech, inst, b) -> Result:
        return with_model(self._judge(mech, inst, b), mech, b.options, self.model_matters, sentence=False)

    def _judge(self, mech, inst, b) -> Result:
        try:
            context = self._context(mech, inst, b.options)
        except InputError as exc:  # the property does not apply to this instance (e.g. Theorem 7's assumptions)
            return verdict(self.name, mech, "n/a", b, str(exc))
        subject = self._subject(mech, inst, b.options)
        b.used_evaluations = 1
        outcomes = subject if self.ex_ante else ((Fraction(1), subject),)
        certificate = certificate_of(outcomes)
        post = self.ex_post(inst, outcomes, mech.discrete, context)
        for choice in self.choices(inst):
            if self.rule(inst, subject, mech.discrete, context, *choice):
                found = violated(self.name, mech, inst, self.witness(*choice), b).replace(
                    certificate=certificate, exactness="rational")
                return with_ex_post(found, post)
        ante = " (ex ante: expected tasks)" if len(outcomes) > 1 else ""
        holds = verdict(self.name, mech, "holds", b, f"exact check of {fmt_outcomes(outcomes)}{ante}")
        return with_ex_post(with_model(holds, mech, b.options, self.model_matters)
                            .replace(certificate=certificate, exactness="rational"), post)

    def ex_post(self, inst, outcomes, integral, context):
        """A lottery's first placement that violates on its own (`ExPostWitness`, its words), else None."""
        if not self.ex_ante or len(outcomes) == 1:
            return None
        for t, (p, placement) in enumerate(outcomes):
            alone = ((Fraction(1), placement),)
            for choice in self.choices(inst):
                if self.rule(inst, alone, integral, context, *choice):
                    inner = self.witness(*choice)
                    words = self.explain(inst, alone, integral, context, inner)
                    return ExPostWitness(t, number(p), [[number(x) for x in row] for row in placement],
                                         inner.to_dict()), words
        return None

    def confirm(self, mechanism, instance, witness, options):
        inst = resolve_instance(instance)
        mech = resolve_mechanism(mechanism)
        w = self.witness.from_dict(witness)
        choice = tuple(getattr(w, f.name) for f in dataclasses.fields(self.witness))
        if any(isinstance(c, bool) for c in choice) or choice not in [tuple(c) for c in self.choices(inst)]:
            return None
        context = self._context(mech, inst, options)
        subject = self._subject(mech, inst, options)
        if not self.rule(inst, subject, mech.discrete, context, *choice):
            return None
        words = self.explain(inst, subject, mech.discrete, context, w)
        return f"{words}; {model_sentence(mech, options)}" if self.model_matters else words

    def encode(self, sym, spec, prefix=None, **kwargs):
        raise InputError(f"property {self.name}: no symbolic encoding (machines setting: exact checks and "
                         "`fairlab.search.machines`)")


def with_ex_post(result: Result, post) -> Result:
    """`result` with a lottery's ex-post finding (``details["ex_post"]``, a sentence of the explanation)."""
    if post is None:
        return result
    witness, words = post
    sentence = (f"ex post (a separate finding; the verdict above is ex ante): the placement drawn with probability "
                f"{format_exact(Fraction(witness.probability))} (outcome {witness.outcome}) violates it on its own: "
                f"{words}")
    return result.replace(details={**dict(result.details), "ex_post": witness},
                          explanation=f"{result.explanation}; {sentence}" if result.explanation else sentence)


def users(inst):
    return [(i,) for i in range(inst.n)]


def pairs(inst):
    return [(i, j) for i in range(inst.n) for j in range(inst.n) if i != j]


__all__ = ["MODEL_WORDS", "model_of", "model_context", "model_record", "model_sentence", "with_model",
           "placement_run", "outcomes_run", "Outcomes", "expected", "expected_totals", "certificate_of",
           "fmt_outcomes", "LotteryWitness", "ExPostWitness", "with_ex_post", "UnreadablePlacement", "totals",
           "runs", "capped", "machine_share", "pooled_sigma", "PlacementWitness",
           "PairWitness", "PlacementProperty", "users", "pairs", "fmt_vec", "fmt_placement", "read_index",
           "read_placement", "number"]
