"""∃∀ impossibility search: an instance family on which a set of properties fails for EVERY mechanism.

A mechanism is just a map from instances to allocations, so on a finite family of instances
(a base instance plus perturbations: capacity increases, misreports, departures) "some mechanism
has properties P" means "the joint system — one allocation per member, each member's
properties, the relations between members — is satisfiable". The search enumerates small families
from scratch (∃) and asks z3 whether the joint system is UNSAT (∀ allocations). A hit is reported
with its unsat core (the named constraints the contradiction needs, which also names the members
that matter) and a positive control per property: dropping that property makes the system
satisfiable, so the contradiction really needs every property and is not an encoding accident.

The constraints are the properties' own rules (`fairlab.properties.property`), negated and
stated over z3 terms (`Z3View`; whole tasks with ``indivisible``), so the joint system says
exactly what the exact checks say, weights included (the weighted equal split of si):

* an allocation property (si, pe, ef, njc, bf, srf) holds on every member's allocation, e.g. si:
  no user prefers its weighted equal split; pe: no user is wasted (below its cap with every
  resource it uses unsaturated; indivisible: no room for one more whole task);
* rm (resource monotonicity) between the base and a member with larger capacities: no user gets
  fewer tasks;
* sp (strategyproofness) between the base and a member where user j declares d'_j: j's true
  utility for its bundle tasks'_j * d'_j is at most its truthful tasks;
* pm (population monotonicity) between the base and a member without user k: no remaining user
  gets fewer tasks.

Allocations are task vectors (any bundle can be trimmed to the user's demand proportions without
changing its Leontief utility). Every UNSAT claim comes with its positive controls.

A domain (`fairlab.core.domain`, ``search(..., domain=)``) keeps every member of every family
inside it (positive demands: the bases and the misreports draw from 1 up); an impossibility found on
a domain holds on every larger one, and the result records the domain asked.

Used for Theorem 6 of the DRF paper (no mechanism has si, pe and rm) and for the indivisible-task
impossibility in the lecture (after Parkes, Procaccia & Shah: si, pe and sp are incompatible).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import z3

from fairlab import properties as fairlab_properties
from fairlab.core.domain import ALL, Domain, record
from fairlab.core.domain import parse as parse_domain
from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact, z3_value
from fairlab.core.instance import Instance
from fairlab.core.results import Result, Status
from fairlab.core.solving import SolverBudget, new_solver
from fairlab.core.solving import check as solver_check
from fairlab.mechanisms.base import SymbolicInstance
from fairlab.properties.property import ALLOCATION, AllocationProperty, DeviationProperty, Z3View
from fairlab.search import space

#: the properties the joint systems may hold: every allocation property whose rule z3 can state
#: over a fixed instance, and the relational ones a family generator relates members by
#: (gsp, a coalition's deviation, relates no two members: asking for it is one line naming it)
PROPERTIES = tuple(p for p in fairlab_properties.names()
                   if fairlab_properties.get(p).compares == ALLOCATION or p in ("rm", "sp", "pm"))

#: z3 resource units per query: the budget that decides (same family, same answer on any machine);
#: the families of the sources need well under 5 % of it (measured: `fairlab rediscover`)
RLIMIT = 10_000_000
#: seconds per query: only a wall-clock safety net, far above what RLIMIT units cost (up to ~40 s on
#: a 2-core machine shared by eight busy processes); a query it cuts is `unknown`, which makes the
#: search ``unknown (wall-clock safety net)``
QUERY_SECONDS = 300.0


@dataclass(frozen=True)
class Member:
    """One instance of a family and how it relates to the base (member 0)."""

    label: str
    instance: Instance
    relation: str = "base"  # "base" | "rm" | "sp" | "pm"
    user: int | None = None  # sp: the misreporting user; pm: the user who left (index in base)


@dataclass
class Family:
    members: list[Member]

    @property
    def base(self) -> Instance:
        return self.members[0].instance

    def to_dict(self) -> list[dict]:
        return [
            {"label": m.label, "relation": m.relation, "user": m.user, "instance": m.instance.to_dict()}
            for m in self.members
        ]


# --------------------------------------------------------------------------- well-formed families
#: the relations a member other than the first may stand in to the base
RELATIONS = ("rm", "sp", "pm")


def _rows(inst: Instance, skip: int | None = None) -> tuple:
    """Everything of an instance but its capacities, per user (demands, weights, task cap), without user `skip`."""
    return tuple((inst.demands[i], inst.weights[i], inst.max_tasks[i]) for i in range(inst.n) if i != skip)


def _user_index(member: Member, n: int) -> str | None:
    user = member.user
    if isinstance(user, bool) or not isinstance(user, int) or not 0 <= user < n:
        return f"user must be a user index of the base (0..{n - 1}), got {user!r}"
    return None


def relation_error(base: Instance, member: Member, first: bool = False) -> str | None:
    """Why `member` does not stand in its stated relation to `base` (None if it does).

    * ``base``: only the first member, equal to the base;
    * ``rm``: the same users (demands, weights, task caps) and resources, capacities >= the base's
      componentwise and not all equal;
    * ``sp``: the same instance except user ``member.user``'s demand row, which differs;
    * ``pm``: the base with exactly user ``member.user`` removed."""
    inst, relation = member.instance, member.relation
    if first or relation == "base":
        if not first:
            return "relation 'base' is only for the first member"
        if relation != "base":
            return f"the first member must have relation 'base', not {relation!r}"
        if member.user is not None:
            return "a base member has no user"
        return None if inst == base else "the first member must equal the family's base"
    if relation not in RELATIONS:
        return f"unknown relation {relation!r} (base, {', '.join(RELATIONS)})"
    if relation == "rm":
        if member.user is not None:
            return "an rm member has no user"
        if inst.m != base.m or _rows(inst) != _rows(base):
            return "an rm member must have the base's users (demands, weights, task caps) and resources"
        if any(c < b for c, b in zip(inst.capacities, base.capacities, strict=True)):
            return "an rm member's capacities must be at least the base's"
        if inst.capacities == base.capacities:
            return "an rm member must increase some capacity"
        return None
    why = _user_index(member, base.n)
    if why:
        return why
    j = member.user
    assert j is not None  # _user_index checked it
    if relation == "sp":
        if inst.n != base.n or inst.m != base.m or inst.capacities != base.capacities:
            return "an sp member must have the base's users, resources and capacities"
        if _rows(inst, skip=j) != _rows(base, skip=j) or inst.weights[j] != base.weights[j] \
                or inst.max_tasks[j] != base.max_tasks[j]:
            return f"an sp member may change only user {j}'s demands"
        if inst.demands[j] == base.demands[j]:
            return f"an sp member must change user {j}'s demands"
        return None
    # pm
    if inst.n != base.n - 1 or inst.m != base.m or inst.capacities != base.capacities \
            or _rows(inst) != _rows(base, skip=j):
        return f"a pm member must be the base without exactly user {j}"
    return None


def family_error(family: Family) -> str | None:
    """Why `family` is malformed (None if every member stands in its stated relation to the base)."""
    if not family.members:
        return "a family needs a base member"
    for k, member in enumerate(family.members):
        why = relation_error(family.base, member, first=(k == 0))
        if why:
            return f"family member {k} ({member.label!r}): {why}"
    labels = [m.label for m in family.members]
    if len(set(labels)) != len(labels):
        return "family members need distinct labels"
    return None


# --------------------------------------------------------------------------- the joint system
def _member_view(inst: Instance, indivisible: bool) -> Z3View:
    return Z3View(SymbolicInstance.from_instance(inst), integral=indivisible, concrete=inst)


def _deviation(member: Member, base: Instance):
    """The deviation a member is of the base, as the relational property's rule takes it."""
    if member.relation == "rm":
        return tuple(z3_value(c) for c in member.instance.capacities)
    if member.relation == "sp":
        user = member.user
        assert user is not None  # relation_error checked it
        return user, [z3_value(d) for d in member.instance.demands[user]]
    if member.relation == "pm":
        return member.user
    raise ValueError(f"member {member.label!r}: unknown relation {member.relation!r}")


def joint_system(family: Family, properties: Sequence[str], indivisible: bool):
    """Named constraints over one task vector per member; returns (constraints, task variables).

    Each property's constraints are its own rule negated (`fairlab.properties.property`): an
    allocation property on every member, a relational one between the base and each member
    related to it by that property's deviation. Names: ``si[member][i]``, ``rm[member][i]``, ...

    `InputError` if a member does not stand in its stated relation to the base (`family_error`):
    no malformed family is ever solved."""
    why = family_error(family)
    if why:
        raise InputError(f"impossibility family: {why}")
    make = z3.Int if indivisible else z3.Real
    tasks = [[make(f"x{k}_{i}") for i in range(m.instance.n)] for k, m in enumerate(family.members)]
    props = [fairlab_properties.get(p) for p in properties]
    out: list[tuple[str, z3.BoolRef]] = []
    for k, member in enumerate(family.members):
        inst, x = member.instance, tasks[k]
        for i in range(inst.n):
            out.append((f"feasible[{member.label}].nonneg[{i}]", x[i] >= 0))
        for r in range(inst.m):
            load = z3.Sum([x[i] * z3_value(inst.demands[i][r]) for i in range(inst.n)])
            out.append((f"feasible[{member.label}].capacity[{r}]", load <= z3_value(inst.capacities[r])))
        view = _member_view(inst, indivisible)
        for prop in props:
            if prop.compares == ALLOCATION:
                assert isinstance(prop, AllocationProperty)  # a pool property of one allocation
                out += prop.holds(view, x, member.label)
    base_view = _member_view(family.base, indivisible)
    for k, member in enumerate(family.members[1:], start=1):
        for prop in props:
            if prop.compares != ALLOCATION and member.relation == prop.name:
                assert isinstance(prop, DeviationProperty)  # rm, sp, pm
                out += prop.holds(base_view, tasks[0], tasks[k], _deviation(member, family.base), member.label)
    return out, tasks


def solve(family: Family, properties: Sequence[str], indivisible: bool, budget: SolverBudget | None = None):
    """("sat"|"unsat"|"unknown", unsat core names or a model as exact task strings per member).

    The query runs under `budget` (default: `RLIMIT` units, `QUERY_SECONDS` as the outer stop)."""
    constraints, tasks = joint_system(family, properties, indivisible)
    budget = budget or SolverBudget(rlimit=RLIMIT, seconds=QUERY_SECONDS)
    solver = new_solver(budget, unsat_core=True, minimize_core=True)  # a minimal core reads as the proof
    names = {}
    for name, expr in constraints:
        flag = z3.Bool(name)
        names[str(flag)] = name
        solver.assert_and_track(expr, flag)
    result, reason = solver_check(solver)
    if result == "unsat":
        return "unsat", sorted(names[str(c)] for c in solver.unsat_core())
    if result == "sat":
        model = solver.model()
        values = [[str(model.eval(t, model_completion=True)) for t in row] for row in tasks]
        return "sat", values
    return "unknown", reason  # "rlimit" (deterministic), "time" (the outer stop) or z3's words


def minimise_family(family: Family, properties: Sequence[str], indivisible: bool, core: list[str]) -> Family:
    """Keep only the members the unsat core mentions (the base always stays)."""
    used = {m.label for m in family.members if any(f"[{m.label}]" in c for c in core)}
    members = [family.members[0]] + [m for m in family.members[1:] if m.label in used]
    return Family(members)


def check_family(family: Family, properties: Sequence[str], indivisible: bool, budget: SolverBudget | None = None):
    """Solve; on UNSAT shrink the family to its core and run one positive control per property."""
    status, info = solve(family, properties, indivisible, budget)
    if status != "unsat":
        return status, info if status == "unknown" else None  # unknown: why
    small = minimise_family(family, properties, indivisible, info)
    status2, core = solve(small, properties, indivisible, budget)
    if status2 != "unsat":  # the core's members were not enough on their own: keep the full family
        small, core = family, info
    controls, models = {}, {}
    for dropped in properties:
        kept = [p for p in properties if p != dropped]
        c_status, c_info = solve(small, kept, indivisible, budget)
        controls[dropped] = c_status
        if c_status == "sat":
            models[dropped] = c_info
    return "unsat", (small, core, controls, models)


# --------------------------------------------------------------------------- family generators
def capacity_increase_families(max_entry: int = 3, factors=(2, 3, 4), n: int = 2, m: int = 2,
                               domain: Domain = ALL) -> Iterator[Family]:
    """Base: n users, m resources of capacity 1, integer demands 0..max_entry, each base once up to
    symmetry, the unweighted uncapped bases first, then those with weights and task caps where
    `domain` allows them (`fairlab.search.space.plain_first`); members: one resource's capacity
    multiplied by each factor (the users' weights and caps kept)."""
    for base in space.plain_first(n, m, max_entry=max_entry, domain=domain):
        members = [Member("base", base)]
        for r in range(m):
            for f in factors:
                caps = [1] * m
                caps[r] = f
                members.append(Member(f"c{r}x{f}", base.replace(capacities=caps), "rm"))
        yield Family(members)


def _misreport_family(base: Instance, cap: int) -> Family:
    members = [Member("base", base)]
    combo = [int(row[0]) for row in base.demands]
    for j in range(base.n):
        for lie in range(1, cap + 1):
            if lie != combo[j]:
                demands = [[d] for d in combo]
                demands[j] = [lie]
                members.append(Member(f"u{j}:{lie}", base.replace(demands=demands), "sp", j))
    return Family(members)


def misreport_families(max_capacity: int = 8, n: int = 2, domain: Domain = ALL) -> Iterator[Family]:
    """Base: n users, one resource of capacity C, integer demands 1..C; members: each user alone
    declaring every other integer demand 1..C (its weight and cap kept). Smallest capacities first;
    every unweighted uncapped base first, then, where `domain` allows them, the same bases with one
    weight per user (`fairlab.search.space.GRID_WEIGHTS`, one resource: a weight vector is a scalar)
    and with whole-task caps below a user's solo tasks."""
    for cap in range(1, max_capacity + 1):
        for combo in itertools.combinations_with_replacement(range(1, cap + 1), n):
            yield _misreport_family(Instance.build([cap], [[d] for d in combo]), cap)
    weights = list(space.weight_assignments(n, 1, domain))
    caps = list(space.cap_assignments(n)) if domain.caps != "none" else []
    for cap in range(1, max_capacity + 1):
        for combo in itertools.combinations_with_replacement(range(1, cap + 1), n):
            plain = Instance.build([cap], [[d] for d in combo])
            seen = set()
            for k in range(max(len(weights), len(caps))):
                decorated = ([plain.replace(weights=weights[k])] if k < len(weights) else []) + \
                    ([space.with_caps(plain, caps[k], discrete=True)] if k < len(caps) else [])
                for base in decorated:
                    if base is not None and base not in seen:
                        seen.add(base)
                        yield _misreport_family(base, cap)


def departure_families(max_entry: int = 3, n: int = 3, m: int = 2, domain: Domain = ALL) -> Iterator[Family]:
    """Base: n users on m unit resources, each once up to symmetry (the unweighted uncapped ones
    first, `fairlab.search.space.plain_first`); members: each user leaving (with its weight and cap)."""
    for base in space.plain_first(n, m, max_entry=max_entry, domain=domain):
        members = [Member("base", base)]
        for k in range(n):
            keep = [i for i in range(n) if i != k]
            data = base.to_dict()
            rest = Instance.build(base.capacities, [base.demands[i] for i in keep],
                                  weights=[data["weights"][i] for i in keep] if "weights" in data else None,
                                  max_tasks=[base.max_tasks[i] for i in keep] if "max_tasks" in data else None,
                                  resources=base.resources)
            members.append(Member(f"without{k}", rest, "pm", k))
        yield Family(members)


GENERATORS: dict[str, Callable[..., Iterator[Family]]] = {
    "rm": capacity_increase_families,
    "sp": misreport_families,
    "pm": departure_families,
}


def search(
    properties: Sequence[str],
    indivisible: bool = False,
    time_limit: float = 600.0,
    families: Iterator[Family] | None = None,
    progress=None,
    domain: Domain | str | None = None,
) -> Result:
    """Enumerate families (the generator for the relational property among `properties` unless
    given) until one makes the joint system UNSAT with every positive control SAT.

    A `Result` of kind "impossibility": status ``found`` (the `certificate` holds the family, its
    unsat core, the positive controls — property dropped -> "sat" — and their models), ``not-found``
    or ``unknown`` (a query or the time limit gave no answer); ``details`` the properties,
    divisibility and the number of families tried. `domain`: only families whose every member lies
    in it are asked (the result records it)."""
    properties = tuple(properties)
    asked = parse_domain(domain)
    unknown = [p for p in properties if p not in PROPERTIES]
    if unknown:
        raise InputError(f"property {unknown[0]!r}: not supported by the impossibility search"
                         f" ({', '.join(PROPERTIES)})")
    if families is None:
        relational = [p for p in properties if p in GENERATORS]
        if not relational:
            raise InputError("properties: the impossibility search needs one of rm, sp, pm to relate instances")
        families = GENERATORS[relational[0]](domain=asked)
    start = time.perf_counter()
    tried = 0
    saw_unknown = False
    stopped = False
    for family in families:
        if time.perf_counter() - start > time_limit:
            saw_unknown = stopped = True
            break
        if any(asked.contains(member.instance) is not None for member in family.members):
            continue  # a member outside the domain: not a family of this domain
        tried += 1
        if progress:
            progress(tried)
        status, info = check_family(family, properties, indivisible)
        if status == "unknown":
            saw_unknown = True
            if info == "time":  # the outer stop, not the budget: what comes next would depend on the clock
                stopped = True
                break
            continue
        if status == "unsat":
            small, core, controls, models = info
            if all(v == "sat" for v in controls.values()):
                return _result(Status.FOUND, properties, indivisible, tried, time_limit, start, stopped,
                               {"family": small, "core": core, "controls": controls, "control_models": models}
                               ).replace(domain=record(asked, ALL))
    return _result(Status.UNKNOWN if saw_unknown else Status.NOT_FOUND, properties, indivisible, tried, time_limit,
                   start, stopped, None).replace(domain=record(asked, ALL))


def _result(status, properties, indivisible, tried, time_limit, start, stopped, certificate) -> Result:
    budget = {"time_limit": time_limit, "rlimit": RLIMIT, "query_seconds": QUERY_SECONDS,
              **({"stopped": "time"} if stopped else {})}
    result = Result(
        "impossibility", status, mechanism="any", property="+".join(properties),
        instance=certificate["family"].base if certificate else None, certificate=certificate,
        exactness="rational" if certificate else None, budget=budget, seconds=time.perf_counter() - start,
        details={"properties": list(properties), "indivisible": indivisible, "families_tried": tried},
    )
    return result.replace(explanation=describe(result))


def describe(result: Result) -> str:
    """One paragraph a person can read."""
    if result.status != Status.FOUND:
        return f"{result.status.value} after {result.details['families_tried']} families ({result.seconds:.1f} s)"
    assert result.certificate is not None  # a found impossibility has its certificate
    family, core = result.certificate["family"], result.certificate["core"]
    base = family.base
    parts = [
        f"base: capacities {[format_exact(c) for c in base.capacities]}, demands "
        f"{[[format_exact(d) for d in row] for row in base.demands]}"
    ]
    for m in family.members[1:]:
        parts.append(f"{m.label} ({m.relation})")
    return "; ".join(parts) + f"; core of {len(core)} constraints"
