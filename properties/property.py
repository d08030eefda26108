"""A fairness property as ONE object whose rule is written once.

A property is a registered `Property`: its name, title, definition, source, typed witness and what
its rule compares (`compares`):

* ``"allocation"`` — one allocation of one instance (si, ef, pe, srf, bf, njc): the rule says
  whether the allocation `t` is violated at one *choice* (a user, a pair of users, a resource
  and a user), e.g. si's "user i prefers its weighted equal split to t_i";
* ``"misreport"`` (sp), ``"capacity-change"`` (rm), ``"departure"`` (pm) — the allocation of the
  instance and that of a *derived* instance (a user declares another demand, capacities grow, a
  user leaves): the rule says whether user i is better off (sp) or worse off (rm, pm) there.

The rule is written against a small arithmetic interface, a *view* of the instance's numbers with
two implementations: `ExactView` (Fractions or algebraic numbers, Python bools; Leontief utilities
by `leontief.utility`) and `Z3View` (z3 terms; `leontief.z3_prefers` ...). Python's ``<``, ``+``
and ``*`` work on both kinds of numbers; the view supplies the rest (``all``, ``any``, ``not_``,
``implies``, ``prefers``, ``entitlement``, ``load``, ...). One rule then serves

(a) the exact check of one instance (`Property.check`, exact allocations only: `base.run`),
(b) the candidate search of sp and rm (every deviation evaluated exactly),
(c) `Property.confirm`, the from-scratch re-verification of a witness,
(d) `Property.encode`, the z3 encoding "spec and the property violated" used by `fairlab.search`,
(e) the joint systems of `fairlab.search.impossibility` (the rule negated: the property holds).

Adding a property is adding one module to this package that builds a `Property` and `register`s it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence, TypeVar, cast

import z3

from fairlab.core import scaling
from fairlab.core.errors import InputError
from fairlab.core.exact import Algebraic, Exact, format_exact
from fairlab.core.instance import Instance, InstanceLike
from fairlab.core.names import unknown
from fairlab.core.results import Result, Status
from fairlab.mechanisms.base import Constraint, Mechanism, MechanismLike, SymbolicInstance, setting_mismatch
from fairlab.mechanisms.spec_names import check_independent
from fairlab.properties import _parametric, _search
from fairlab.properties.base import (
    REGISTRY,
    Budget,
    Encoding,
    Undecided,
    Violation,
    exact_verdicts,
    fresh_tasks,
    model_index,
    model_value,
    outside_domain,
    parse_budget,
    resolve_instance,
    resolve_mechanism,
    run,
    send_ahead,
    verdict,
    violated,
)
from fairlab.properties.views import ExactView, Z3View
from fairlab.properties.witnesses import (
    BottleneckWitness,
    CapacityWitness,
    DepartureWitness,
    EnvyWitness,
    ImprovementWitness,
    MisreportWitness,
    UserWitness,
    Witness,
)

#: the witnesses and views live in modules of their own; they are re-exported here, where the
#: property modules and callers have always imported them from
__all__ = ["BottleneckWitness", "CapacityWitness", "DepartureWitness", "EnvyWitness", "ExactView",
           "ImprovementWitness", "MisreportWitness", "UserWitness", "Witness", "Z3View"]

if TYPE_CHECKING:
    from fairlab.properties.plugin_properties import PluginInfo

ALLOCATION = "allocation"
MISREPORT = "misreport"
CAPACITY_CHANGE = "capacity-change"
DEPARTURE = "departure"
COMPARES = (ALLOCATION, MISREPORT, CAPACITY_CHANGE, DEPARTURE)


#: a mechanism's symbolic specification: ``spec(sym, tasks, **options)`` -> its named constraints
Spec = Callable[..., list[Constraint]]

# --------------------------------------------------------------------------- properties
@dataclass(eq=False)
class Property:
    """A registered fairness property (see the module docstring).

    ``check(mechanism, instance, **budget) -> Result``, ``confirm(mechanism, instance, witness,
    options) -> str | None``, ``encode(sym, spec, prefix, ...) -> Encoding`` and ``holds(view, ...)``
    (the negated rule, for `fairlab.search.impossibility`) are all built from the one rule."""

    name: str
    title: str
    definition: str
    source: str
    witness: type[Witness]
    compares: str
    witness_help: str = ""  # the witness's JSON shape in words, e.g. '{"user": i}  (0-based index ...)'
    #: the setting its rule is defined for (`fairlab.core.instance.SETTINGS`): "pool", "machines", "dynamic"
    setting: str = "pool"
    #: which weighted (and capped) form the rule checks, with its source or "lab's reading": the
    #: one rule serves the exact check and the z3 view alike, so both check this form ("" where the
    #: setting has no weights)
    weighted: str = ""
    #: a plug-in property's origin (`fairlab.properties.plugin_properties.PluginInfo`: name, source, content
    #: identity, declared domain); None for the lab's own (a class attribute, not a field)
    plugin = cast("PluginInfo | None", None)

    def witness_shape(self) -> str:
        """The witness as JSON, e.g. ``{"user": i}`` plus what it means."""
        if self.witness_help:
            return self.witness_help
        keys = ", ".join(f'"{f.name}": ...' for f in dataclasses.fields(self.witness))
        return f"{{{keys}}}  ({(self.witness.__doc__ or '').strip()})"

    def describe(self) -> dict:
        return {"name": self.name, "title": self.title, "definition": self.definition, "source": self.source,
                "compares": self.compares, "witness": self.witness_shape(),
                **({"weighted": self.weighted} if self.weighted else {})}

    # ---- the exact check: the one choke point where exact-only verdicts are enforced
    def check(self, mechanism: MechanismLike, instance: InstanceLike, **budget: Any) -> Result:
        """Check this property of `mechanism` on `instance`: a `Result` of kind "check". Exact
        allocations only (`base.run`): an approximate allocation or exact arithmetic that ran out of
        time is ``unknown`` with the reason, never violated / holds / none-found."""
        def decide(mechanism: MechanismLike, instance: InstanceLike, **budget: Any) -> Result:
            inst = resolve_instance(instance)
            mech = resolve_mechanism(mechanism)
            self.check_setting(mech, inst)
            result = self._check(mech, inst, parse_budget(budget))
            return result if result.instance is not None else result.replace(instance=inst)

        return exact_verdicts(self.name, decide)(mechanism, instance, **budget)

    def _check(self, mech: Mechanism, inst: Instance, b: Budget) -> Result:
        raise NotImplementedError

    def check_setting(self, mech: Mechanism, inst: Instance) -> None:
        """Raise `InputError` unless the mechanism, the instance and this property share one setting."""
        if mech.setting != self.setting:
            raise InputError(f"property {self.name} is defined for the {self.setting} setting but mechanism "
                             f"{mech.name} allocates in the {mech.setting} setting (`fairlab properties --setting "
                             f"{mech.setting}` lists its properties)")
        if inst.setting != self.setting:
            raise InputError(setting_mismatch(f"property {self.name}", self.setting, inst.setting))

    def confirm(self, mechanism: MechanismLike, instance: InstanceLike, witness: Any,
                options: Mapping[str, Any]) -> str | None:
        """Recompute the violation `witness` claims from scratch (a fresh exact mechanism run) and
        explain it, or None if it shows no violation. `witness`: the typed witness or its dict."""
        raise NotImplementedError

    def encode(self, sym: SymbolicInstance, spec: Spec, prefix: str | None = None) -> Encoding:
        raise NotImplementedError

    def verify(self, mechanism: MechanismLike, instance: InstanceLike, witness: Any,
               options: Mapping[str, Any] | None = None) -> bool:
        """`witness` shows a violation, recomputed from scratch on exact allocations only (a
        `Violation`: one that would need an approximate allocation, or a malformed witness, fails)."""
        mech, inst = resolve_mechanism(mechanism), resolve_instance(instance)
        self.check_setting(mech, inst)
        return Violation(self.name, mech, inst, witness, dict(options or {})).verify()


def exactness(tasks: Sequence) -> str:
    return "algebraic" if any(isinstance(t, Algebraic) for t in tasks) else "rational"


def not_defined(*args: Any, **kwargs: Any) -> Any:
    """The default of a property's rule functions that a subclass replaces by methods of its own."""
    raise NotImplementedError("this property does not define this function")


@dataclass(eq=False)
class AllocationProperty(Property):
    """A property of one allocation: violated iff ``rule(view, tasks, *choice)`` for some choice.

    * ``choices(view)``: the witness tuples to try, in order (e.g. ``[(i,) for i in users]``);
    * ``rule(view, tasks, *choice)``: the allocation violates the property at this choice;
    * ``explain(instance, tasks, witness, integral)``: the words of a confirmed violation;
    * ``complete(instance, tasks, choice, integral)``: the witness of a choice (default: its fields),
      and ``completed_fields``, the witness fields it adds to the choice's (pe: the improvement);
    * ``valid(instance, tasks, witness, integral)``: what `confirm` checks besides the rule (pe: the
      improvement really dominates);
    * ``vacuous(instance)``: why the property holds without looking (srf with m > 1), or None."""

    rule: Callable = not_defined
    choices: Callable = not_defined
    explain: Callable = not_defined
    complete: Callable | None = None
    completed_fields: tuple = ()
    valid: Callable | None = None
    vacuous: Callable | None = None

    def find(self, instance: Instance, tasks: Sequence[Exact], integral: bool = False) -> Witness | None:
        """The first choice at which the exact allocation `tasks` violates the rule, as a witness."""
        view = ExactView(instance, integral)
        for choice in self.choices(view):
            if self.rule(view, tasks, *choice):
                if self.complete is not None:
                    return self.complete(instance, tasks, choice, integral)
                return self.witness(*choice)
        return None

    def violated_at(self, instance: Instance, tasks: Sequence, choice: tuple, integral: bool = False) -> bool:
        """The rule, exactly, at one choice."""
        return self.rule(ExactView(instance, integral), tasks, *choice)

    def _check(self, mech: Mechanism, inst: Instance, b: Budget) -> Result:
        tasks = run(mech, inst, b.options)
        b.used_evaluations = 1
        # Discrete mechanisms hand out whole tasks: utilities count whole tasks (see leontief.utility).
        witness = self.find(inst, tasks, integral=mech.discrete)
        certificate = {"allocation": list(tasks)}
        if witness is not None:
            return violated(self.name, mech, inst, witness, b).replace(
                certificate=certificate, exactness=exactness(tasks))
        why = self.vacuous(inst) if self.vacuous is not None else None
        text = why or f"exact check of the allocation <{', '.join(format_exact(t) for t in tasks)}>"
        return verdict(self.name, mech, "holds", b, text).replace(certificate=certificate, exactness=exactness(tasks))

    def confirm(self, mechanism: MechanismLike, instance: InstanceLike, witness: Any,
                options: Mapping[str, Any]) -> str | None:
        inst = resolve_instance(instance)
        w = self.witness.from_dict(witness)
        view = ExactView(inst)
        choice = tuple(getattr(w, name) for name in self.choice_fields())
        if any(isinstance(c, bool) for c in choice) or choice not in [tuple(c) for c in self.choices(view)]:
            return None
        mech = resolve_mechanism(mechanism)
        tasks = run(mech, inst, options)
        view = ExactView(inst, mech.discrete)
        if self.valid is not None and not self.valid(inst, tasks, w, mech.discrete):
            return None
        if not self.rule(view, tasks, *choice):
            return None
        return self.explain(inst, tasks, w, mech.discrete)

    def choice_fields(self) -> list[str]:
        """The witness fields a choice fills (all but the `completed_fields`)."""
        return [f.name for f in dataclasses.fields(self.witness) if f.name not in self.completed_fields]

    def encode(self, sym: SymbolicInstance, spec: Spec, prefix: str | None = None, **kwargs: Any) -> Encoding:
        """spec(sym, t) and the rule at some choice (``<prefix>.violated``)."""
        prefix = self.name if prefix is None else prefix
        tasks = fresh_tasks(prefix, sym.n)
        view = Z3View(sym)
        guarded = [(choice, self.rule(view, tasks, *choice)) for choice in self.choices(view)]
        violated_ = z3.Or([g for _, g in guarded]) if guarded else z3.BoolVal(False)
        constraints = list(spec(sym, tasks)) + [Constraint(f"{prefix}.violated", violated_)]

        def witness(model: Any) -> dict | None:
            choice = model_index(model, guarded)
            if choice is None:
                return None
            if self.complete is not None:
                return self.complete_from_model(model, sym, tasks, choice).to_dict()
            return self.witness(*choice).to_dict()

        return Encoding(constraints, witness, {"tasks": tasks})

    def complete_from_model(self, model: Any, sym: SymbolicInstance, tasks: Sequence[Any], choice: tuple) -> Witness:
        """The full witness of a choice read from a z3 model (pe: the improvement, exactly)."""
        values = tuple(model_value(model, t) for t in tasks)
        assert self.complete is not None  # called for a property that completes its witnesses only
        try:
            return self.complete(_model_instance(model, sym), values, choice, False)
        except (InputError, ValueError, TypeError, ZeroDivisionError):
            # the numbers could not be completed exactly: a witness `confirm` rejects (the caller re-checks)
            return self.witness(**{f.name: (choice[0] if f.name == "user" else None)
                                   for f in dataclasses.fields(self.witness)})

    def holds(self, view: Z3View, tasks: Sequence[Any], label: str) -> list[tuple[str, Any]]:
        """Named constraints "the property holds for `tasks`" (the rule negated at every choice),
        for the joint systems of `fairlab.search.impossibility`: ``name[label][choice...]``."""
        return [(f"{self.name}[{label}]" + "".join(f"[{c}]" for c in choice),
                 view.not_(self.rule(view, tasks, *choice)))
                for choice in self.choices(view)]


def _model_instance(model: Any, sym: SymbolicInstance) -> Instance:
    """The concrete instance a model gives the symbolic one (capacities, demands, caps)."""
    def val(term: Any) -> Exact:
        return model_value(model, term)

    return Instance.build(
        capacities=[val(c) for c in sym.capacities],
        demands=[[val(d) for d in row] for row in sym.demands],
        weights=[[val(w) for w in row] for row in sym.weights],
        max_tasks=[None if t is None else val(t) for t in sym.max_tasks],
    )


@dataclass(eq=False)
class DeviationProperty(Property):
    """A property comparing the allocation of an instance with that of a derived one.

    * ``rule(view, i, before_i, after_i, deviation)``: user i's tasks before (instance of `view`)
      and after (the derived instance) violate the property (sp: i gains with its true demand;
      rm, pm: i loses);
    * ``derive(instance, deviation)`` / ``derive_symbolic(sym, prefix, user)``: the derived
      instance, exactly / as z3 terms (the latter yields ``(tag, deviation terms, derived sym,
      constraints)`` per deviation);
    * ``compared(n, deviation)``: pairs (i, position of i in the derived instance);
    * ``make_witness(deviation, i)`` and ``read(witness, instance)`` -> (deviation, i) or None;
    * ``candidates(instance, seed)`` -> (structured, random) deviations for the search, or
      ``exhaustive(instance)`` -> every deviation (pm: a clean pass proves the property);
    * ``explain(instance, deviation, i, before_i, after_i, integral)``: the words."""

    rule: Callable = not_defined
    derive: Callable = not_defined
    derive_symbolic: Callable = not_defined
    compared: Callable = not_defined
    make_witness: Callable = not_defined
    read: Callable = not_defined
    explain: Callable = not_defined
    candidates: Callable | None = None
    exhaustive: Callable | None = None
    vacuous: Callable | None = None
    model_witness: Callable | None = None
    what: str = "deviation"

    def evaluate(self, mech: Mechanism, inst: Instance, tasks: Sequence[Exact], deviation: Any,
                 options: Mapping[str, Any], derived: Instance | None = None) -> Witness | None:
        """The witness of a violation at `deviation` (a fresh exact run of the derived instance), or
        None; None too for a derived instance outside the check's domain (`within`): not a deviation there.
        `derived`: ``self.derive(inst, deviation)`` if the caller has it already."""
        derived = self.derive(inst, deviation) if derived is None else derived
        if outside_domain(derived) is not None:
            return None
        after = run(mech, derived, options)
        view = ExactView(inst, mech.discrete)
        for i, pos in self.compared(inst.n, deviation):
            if self.rule(view, i, tasks[i], after[pos], deviation):
                return self.make_witness(deviation, i)
        return None

    def _ahead(self, mech: Mechanism, inst: Instance, options: Mapping[str, Any],
               kept: dict) -> Callable[[list], None]:
        """What a search tells of its next deviations (`fairlab.properties._search.search`'s `ahead`):
        their derived instances, sent ahead to a plug-in's worker (`send_ahead`) and kept in `kept`
        (id -> (deviation, derived)) for `evaluate`, which then derives each once."""

        def ahead(deviations: list) -> None:
            kept.clear()
            wanted = []
            for deviation in deviations:
                try:
                    derived = self.derive(inst, deviation)
                except Exception:  # evaluate meets it and says what it is; a hint is skipped
                    continue
                kept[id(deviation)] = (deviation, derived)
                if outside_domain(derived) is None:
                    wanted.append(derived)
            send_ahead(mech, wanted, options)

        return ahead

    def _check(self, mech: Mechanism, inst: Instance, b: Budget) -> Result:
        if self.exhaustive is not None:
            return self._exhaustive(mech, inst, b)
        tasks = run(mech, inst, b.options)
        b.used_evaluations = 1
        undecided = Undecided()
        symbolic = self.symbolic_step(mech, inst, b)
        assert self.candidates is not None  # a property without `exhaustive` has `candidates`
        structured, randomised = self.candidates(inst, b.seed)
        kept: dict[int, tuple] = {}  # deviations told ahead -> their derived instances (`_ahead`)

        def one(d: Any) -> Witness | None:
            told = kept.get(id(d))
            return self.evaluate(mech, inst, tasks, d, b.options, told[1] if told and told[0] is d else None)

        evaluate = undecided.guard(one)
        result = undecided.amend(
            _search.search(self.name, mech, inst, b, structured, randomised, evaluate, symbolic, self.what,
                           ahead=self._ahead(mech, inst, b.options, kept), z3_first=self.z3_first(mech, inst, b)))
        return result if result.status == Status.UNKNOWN else result.replace(exactness=exactness(tasks))

    def _exhaustive(self, mech: Mechanism, inst: Instance, b: Budget) -> Result:
        assert self.exhaustive is not None  # called by _check only when it is set
        deviations = list(self.exhaustive(inst))
        if not deviations:
            why = self.vacuous(inst) if self.vacuous is not None else None
            return verdict(self.name, mech, "holds", b, why or f"vacuous: no {self.what} at this instance")
        tasks = run(mech, inst, b.options)
        b.used_evaluations = 1
        undecided = Undecided()
        for k, deviation in enumerate(deviations):
            if b.time_up():  # the outer stop: the deviations are few and all needed, so no verdict
                return verdict(self.name, mech, "unknown", b, f"stopped by the time limit ({b.time_limit:g} s) after "
                               f"{k} of {len(deviations)} {self.what}s; no verdict", departures=k, stopped="time")
            b.used_evaluations += 1
            witness = undecided.guard(lambda d: self.evaluate(mech, inst, tasks, d, b.options))(deviation)
            if witness is not None:
                result = violated(self.name, mech, inst, witness, b, departures=k + 1)
                return result if result.status == Status.UNKNOWN else result.replace(exactness=exactness(tasks))
        count = len(deviations)
        if undecided.count:  # a deviation not decided exactly: no proof for this instance
            return verdict(self.name, mech, "unknown", b, f"not decided: {undecided.count} of {count} {self.what}s "
                           f"could not be checked exactly, e.g.: {undecided.reason}", departures=count,
                           undecided=undecided.count)
        return verdict(self.name, mech, "holds", b, f"all {count} single {self.what}s checked exactly",
                       departures=count).replace(exactness=exactness(tasks))

    def confirm(self, mechanism: MechanismLike, instance: InstanceLike, witness: Any,
                options: Mapping[str, Any]) -> str | None:
        inst = resolve_instance(instance)
        parsed = self.read(self.witness.from_dict(witness), inst)
        if parsed is None:
            return None
        deviation, i = parsed
        derived = self.derive(inst, deviation)  # validates the derived instance like any instance
        if outside_domain(derived) is not None:  # not a deviation of the check's domain
            return None
        pos = dict(self.compared(inst.n, deviation)).get(i)
        if pos is None:
            return None
        mech = resolve_mechanism(mechanism)
        before = run(mech, inst, options)
        after = run(mech, derived, options)
        if not self.rule(ExactView(inst, mech.discrete), i, before[i], after[pos], deviation):
            return None
        return self.explain(inst, deviation, i, before[i], after[pos], mech.discrete)

    def symbolic_step(self, mech: Mechanism, inst: Instance, b: Budget) -> Callable[[], list] | None:
        """The per-instance z3 step's questions, built when asked (`fairlab.properties._search`)."""
        return _search.symbolic_at(mech, inst, b, self.questions)

    def z3_first(self, mech: Mechanism, inst: Instance, b: Budget) -> bool:
        """Ask z3 before the structured candidates (`fairlab.properties._search.search`)."""
        return False

    def questions(self, sym: SymbolicInstance, spec: Spec) -> list:
        """The per-instance z3 step's questions (`fairlab.properties._search`): the whole encoding."""
        return _search.whole(sym, self.encode(sym, spec))

    def encode(self, sym: SymbolicInstance, spec: Spec, prefix: str | None = None) -> Encoding:
        """spec(sym, t); for each derived instance (its deviation unknown where it is a continuum),
        spec(derived, t') under renamed constraint names, and the rule at some compared user
        (``<prefix>.violated``)."""
        return self.encode_deviations(sym, spec, prefix, None)

    @staticmethod
    def _truthful(sym: SymbolicInstance, spec: Spec, prefix: str) -> tuple[list, list]:
        """The truthful run's tasks and its spec's constraints (``<prefix>.t<i>``)."""
        tasks = fresh_tasks(prefix, sym.n)
        return tasks, list(spec(sym, tasks))

    def encode_deviations(self, sym: SymbolicInstance, spec: Spec, prefix: str | None,
                          user: int | tuple[int, ...] | None, truthful: tuple[list, list] | None = None
                          ) -> Encoding:
        """`encode`, with `user`: only this user (or these users) deviates (`derive_symbolic` decides
        what that means); `truthful`: `_truthful`'s answer for this `sym`, `spec` and prefix, when the
        caller encodes several deviations of one instance."""
        prefix = self.name if prefix is None else prefix
        tasks, base = self._truthful(sym, spec, prefix) if truthful is None else truthful
        constraints = list(base)
        first = (sym, tasks, list(constraints))
        view = Z3View(sym)
        choices, variables = [], {"tasks": tasks, "deviations": []}
        for tag, deviation, derived, extra in self.derive_symbolic(sym, prefix, user):
            constraints += extra
            after = fresh_tasks(f"{prefix}.{tag}", derived.n)
            deviating = list(spec(derived, after))
            # the truthful and the deviating runs share no helper unknown (`spec_names`)
            check_independent(f"property {self.name}, {tag}", first, (derived, after, deviating))
            constraints += [Constraint(f"{prefix}.{tag}:{c.name}", c.expr) for c in deviating]
            variables["deviations"].append((deviation, after))
            choices += [((deviation, i), self.rule(view, i, tasks[i], after[pos], deviation))
                        for i, pos in self.compared(sym.n, deviation)]
        violated_ = z3.Or([g for _, g in choices]) if choices else z3.BoolVal(False)
        constraints.append(Constraint(f"{prefix}.violated", violated_))

        def witness(model: Any) -> dict | None:
            chosen = model_index(model, choices)
            if chosen is None:
                return None
            deviation, i = chosen
            found = self.model_witness(model, deviation, i) if self.model_witness else self.make_witness(deviation, i)
            return found.to_dict()

        return Encoding(constraints, witness, variables)

    def holds(self, view: Z3View, before: Sequence[Any], after: Sequence[Any], deviation: Any, label: str
              ) -> list[tuple[str, Any]]:
        """Named constraints "the property holds between `before` and `after`" (the rule negated
        for every compared user), for `fairlab.search.impossibility`: ``name[label][i]``."""
        return [(f"{self.name}[{label}][{i}]", view.not_(self.rule(view, i, before[i], after[pos], deviation)))
                for i, pos in self.compared(view.n, deviation)]


@dataclass(eq=False)
class PerUserDeviationProperty(DeviationProperty):
    """A deviation property whose encoding can focus on one deviating user (sp: user 0 of an
    anonymous mechanism, `fairlab.search.prove`).

    `scaling(deviation, after)`, if given, names the unknowns of one user's deviation that scale up
    and the one that scales down (sp: the misreported row and that user's tasks under it): the
    per-instance z3 step then asks, for each user whose encoding `fairlab.core.scaling` finds the
    symmetry in, three questions with those tasks fixed to 1, 0 and -1 (no tasks x demand product
    left); for a capped user whose cap is all that breaks it, seven: the tasks at the cap, and below
    and above it fixed to 1, 0 and -1 (`fairlab.core.scaling.threshold_cases`); the users without
    it together, and, only if those did not decide, the whole question as before
    (`fairlab.properties._search.Fallback`)."""

    scaling: Callable | None = None

    def encode(self, sym: SymbolicInstance, spec: Spec, prefix: str | None = None, user: int | None = None
               ) -> Encoding:
        return self.encode_deviations(sym, spec, prefix, user)

    def symbolic_step(self, mech: Mechanism, inst: Instance, b: Budget) -> Callable[[], list] | None:
        """`questions` built once per instance shape over parameters where the mechanism allows it
        (`fairlab.properties._parametric`), else at the instance."""
        concrete = super().symbolic_step(mech, inst, b)
        if not self._templated():
            return concrete
        return _parametric.symbolic_at(self, mech, inst, b, concrete)

    def z3_first(self, mech: Mechanism, inst: Instance, b: Budget) -> bool:
        """Where the questions come from a template (cheap: measured about 25 ms at drf 3 x 3, where
        the 60 structured misreports cost about 40 ms), z3 is asked first."""
        return self._templated() and _parametric.applies(mech, inst, b)

    def _templated(self) -> bool:
        """Only the lab's own registered property takes the template route: a plug-in property's
        encoding is foreign code (it may test a number in Python), and two properties of one name
        must never share a template."""
        return self.scaling is not None and REGISTRY.get(self.name) is self and self.name not in PLUGINS

    def questions(self, sym: SymbolicInstance, spec: Spec, positive: Sequence[Any] = ()) -> list:
        """`positive`: unknowns of `sym` the caller guarantees > 0 (`fairlab.core.scaling.obstruction`)."""
        if self.scaling is None:
            return super().questions(sym, spec)
        questions: list[_search.Question] = []
        rest: list[int] = []
        truthful = self._truthful(sym, spec, self.name)
        for i in range(sym.n):
            encoding = self.encode_deviations(sym, spec, None, i, truthful)
            named = list(sym.domain) + list(encoding.constraints)
            (deviation, after), = encoding.variables["deviations"]
            up, down = self.scaling(deviation, after)
            exprs = [c.expr for c in named]
            split: list[tuple[str, Any, list]] | str
            if scaling.obstruction(exprs, up, down, positive) is None:
                split = [(f"={value}", case, [(down, z3.RealVal(value))])
                         for (value,), case in scaling.cases(exprs, [down])]
            else:  # a task cap (T <= cap, T == cap) is the usual obstruction: split at the cap
                cap = sym.max_tasks[i]
                split = scaling.threshold_cases(exprs, up, down, cap, positive) if cap is not None else "no cap"
                if isinstance(split, str):
                    rest.append(i)
                    continue
            for tag, case, pins in split:
                label = f"user {i}, {down}{tag}"
                questions.append(_search.Question(label, [Constraint(label, case)],
                                                  _search.pinned_reader(encoding.witness, pins), scaled=i))
        if not questions:  # no user has the symmetry: the one question, as before
            return _search.whole(sym, self.encode_deviations(sym, spec, None, None, truthful))
        if rest:
            questions += _search.whole(sym, self.encode_deviations(sym, spec, None, tuple(rest), truthful))
        return questions + [_search.fallback(sym, lambda: self.encode_deviations(sym, spec, None, None, truthful))]


# --------------------------------------------------------------------------- the registry
#: The order of the DRF paper §3 (the four required, then the four nice-to-have), then njc.
ORDER = ("si", "sp", "ef", "pe", "srf", "bf", "pm", "rm", "njc")


P = TypeVar("P", bound=Property)


def register(prop: P) -> P:
    """Add `prop` to the registry (`fairlab.properties.get`, `names`); returns it."""
    if prop.compares not in COMPARES:
        raise ValueError(f"property {prop.name!r}: compares {prop.compares!r} not one of {COMPARES}")
    REGISTRY[prop.name] = prop
    return prop


#: names of the plug-in properties loaded so far (registered, but not in `names`)
PLUGINS: set[str] = set()


def names(setting: str | None = "pool") -> list[str]:
    """The lab's property names of `setting` (None: every setting), in the DRF paper's order (§3),
    then any others alphabetically; plug-in properties are not listed."""
    own = [n for n in REGISTRY if n not in PLUGINS]
    every = [n for n in ORDER if n in own] + sorted(n for n in own if n not in ORDER)
    return every if setting is None else [n for n in every if REGISTRY[n].setting == setting]


def get(name: str | Property, every: bool = False) -> Property:
    """The property registered as `name` (e.g. "si"), a plug-in ``path/to/file.py:NAME`` or an
    installed entry point of ``fairlab.properties`` (loaded on first use:
    `fairlab.properties.plugin_properties`), or a `Property` object itself (registered under its name if the
    name is free). An unknown name is a one-line `InputError` with the closest known names ("did you
    mean"); `every`: the caller also takes ``all`` (every property), so it may be suggested too."""
    if isinstance(name, Property):
        from fairlab.properties import plugin_properties as plugin

        if REGISTRY.get(name.name) is name:
            return name
        return plugin.adopt(name, name.name, f"Python object {type(name).__name__}",
                            {"name": name.name, "object": True})
    if isinstance(name, str) and name not in REGISTRY:
        from fairlab.properties import plugin_properties as plugin

        if plugin.is_plugin_name(name):
            return plugin.load(name)
        found = plugin.entry_point(name) if name else None
        if found is not None:
            return found
    if not isinstance(name, str) or name not in REGISTRY:
        from fairlab.properties import plugin_properties as plugin

        known = names(None) + [row["name"] for row in plugin.installed()] + (["all"] if every else [])
        titles = {p.title: p.name for p in REGISTRY.values() if p.name not in PLUGINS}
        if isinstance(name, str) and "," in name:  # "si,ef": one property per argument
            bad = [part.strip() for part in name.split(",") if part.strip() not in REGISTRY]
            first = bad[0] if bad else name
            raise InputError(f"property {name!r}: one name per argument, not a comma-separated list"
                             + (f"; {unknown('property', first, known, also=titles)}" if bad else ""))
        raise InputError(unknown("property", name, known, also=titles, tail="; or a plug-in path/to/file.py:NAME"))
    return REGISTRY[name]


__all__ = [
    "Property", "AllocationProperty", "DeviationProperty", "ExactView", "Z3View", "Witness", "UserWitness",
    "EnvyWitness", "BottleneckWitness", "ImprovementWitness", "MisreportWitness", "CapacityWitness",
    "DepartureWitness", "register", "get", "names", "REGISTRY", "ORDER", "PLUGINS",
]
