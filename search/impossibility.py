"""∃∀ impossibility search: an instance family on which a set of properties fails for EVERY mechanism.

A mechanism is just a map from instances to allocations, so on a finite family of instances
(a base instance plus perturbations: capacity increases, misreports, departures) "some mechanism
has properties P" means "the joint system — one allocation per member, each member's
properties, the relations between members — is satisfiable". The search enumerates small families
from scratch (∃) and asks z3 whether the joint system is UNSAT (∀ allocations). A hit is reported
with its unsat core (the named constraints the contradiction needs, which also names the members
that matter) and a positive control per property: dropping that property makes the system
satisfiable, so the contradiction really needs every property and is not an encoding accident.

Encodings (Leontief utilities, allocations as task vectors — any bundle can be trimmed to the
user's demand proportions without changing its utility):

* si (sharing incentive): tasks_i >= utility of the equal split c/n (floor of it with indivisible
  tasks), for the member's declared demands.
* pe (Pareto efficiency): divisible — every user uses a saturated resource; indivisible — no user
  can run one more task in what is left (a Pareto improvement would add tasks, so this is exact).
* rm (resource monotonicity) between the base and a member with larger capacities: no user gets
  fewer tasks.
* sp (strategyproofness) between the base and a member where user j declares d'_j: j's true
  utility for its bundle tasks'_j * d'_j is at most its truthful tasks.
* pm (population monotonicity) between the base and a member without user k: no remaining user
  gets fewer tasks.

Used for Theorem 6 of the DRF paper (no mechanism has si, pe and rm) and for the indivisible-task
impossibility in the lecture (after Parkes, Procaccia & Shah: si, pe and sp are incompatible).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterator, Sequence

import z3

from fairlab.core.exact import format_exact, z3_value
from fairlab.core.instance import Instance
from fairlab.search import space

PROPERTIES = ("si", "pe", "rm", "sp", "pm")


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


@dataclass
class ImpossibilityResult:
    status: str  # "found" | "not-found" | "unknown"
    properties: tuple[str, ...]
    indivisible: bool
    family: Family | None = None
    core: list[str] = field(default_factory=list)
    controls: dict[str, str] = field(default_factory=dict)  # property dropped -> "sat"/"unsat"/"unknown"
    control_models: dict[str, list[list[str]]] = field(default_factory=dict)
    families_tried: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {
            "status": self.status,
            "properties": list(self.properties),
            "indivisible": self.indivisible,
            "family": self.family.to_dict() if self.family else None,
            "core": self.core,
            "controls": self.controls,
            "control_models": self.control_models,
            "families_tried": self.families_tried,
            "seconds": round(self.seconds, 3),
        }


# --------------------------------------------------------------------------- the joint system
def _equal_split_utility(inst: Instance, i: int, indivisible: bool) -> Fraction:
    value = min(inst.capacities[r] / inst.n / inst.demands[i][r] for r in range(inst.m) if inst.demands[i][r] > 0)
    return Fraction(value.numerator // value.denominator) if indivisible else value


def joint_system(family: Family, properties: Sequence[str], indivisible: bool):
    """Named constraints over one task vector per member; returns (constraints, task variables)."""
    make = z3.Int if indivisible else z3.Real
    tasks = [[make(f"x{k}_{i}") for i in range(m.instance.n)] for k, m in enumerate(family.members)]
    out: list[tuple[str, z3.BoolRef]] = []
    for k, member in enumerate(family.members):
        inst, x = member.instance, tasks[k]
        for i in range(inst.n):
            out.append((f"feasible[{member.label}].nonneg[{i}]", x[i] >= 0))
        for r in range(inst.m):
            load = z3.Sum([x[i] * z3_value(inst.demands[i][r]) for i in range(inst.n)])
            out.append((f"feasible[{member.label}].capacity[{r}]", load <= z3_value(inst.capacities[r])))
        if "si" in properties:
            for i in range(inst.n):
                out.append((f"si[{member.label}][{i}]", x[i] >= z3_value(_equal_split_utility(inst, i, indivisible))))
        if "pe" in properties:
            for i in range(inst.n):
                out.append((f"pe[{member.label}][{i}]", _pe_user(inst, x, i, indivisible)))
    base_x = tasks[0]
    base = family.base
    for k, member in enumerate(family.members[1:], start=1):
        x = tasks[k]
        if member.relation == "rm" and "rm" in properties:
            for i in range(base.n):
                out.append((f"rm[{member.label}][{i}]", x[i] >= base_x[i]))
        elif member.relation == "pm" and "pm" in properties:
            remaining = [i for i in range(base.n) if i != member.user]
            for new_i, i in enumerate(remaining):
                out.append((f"pm[{member.label}][{i}]", x[new_i] >= base_x[i]))
        elif member.relation == "sp" and "sp" in properties:
            j = member.user
            true_row, declared = base.demands[j], member.instance.demands[j]
            limits = []
            for r in range(base.m):
                if true_row[r] > 0:
                    got = x[j] * z3_value(declared[r])
                    if indivisible:  # floor(got / d_jr) <= base_x[j]  <=>  got < (base_x[j] + 1) d_jr
                        limits.append(got < (base_x[j] + 1) * z3_value(true_row[r]))
                    else:
                        limits.append(got <= base_x[j] * z3_value(true_row[r]))
            out.append((f"sp[{member.label}][{j}]", z3.Or(limits)))
    return out, tasks


def _pe_user(inst: Instance, x, i: int, indivisible: bool) -> z3.BoolRef:
    loads = [z3.Sum([x[k] * z3_value(inst.demands[k][r]) for k in range(inst.n)]) for r in range(inst.m)]
    cap = inst.max_tasks[i]
    at_cap = [x[i] >= z3_value(cap)] if cap is not None else []
    if indivisible:
        blocked = [
            loads[r] + z3_value(inst.demands[i][r]) > z3_value(inst.capacities[r])
            for r in range(inst.m)
            if inst.demands[i][r] > 0
        ]
    else:
        blocked = [loads[r] == z3_value(inst.capacities[r]) for r in range(inst.m) if inst.demands[i][r] > 0]
    return z3.Or(*blocked, *at_cap)


def solve(family: Family, properties: Sequence[str], indivisible: bool, timeout_ms: int = 10000):
    """("sat"|"unsat"|"unknown", unsat core names or a model as exact task strings per member)."""
    constraints, tasks = joint_system(family, properties, indivisible)
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.set("unsat_core", True)
    solver.set("core.minimize", True)  # a minimal core reads as the proof
    names = {}
    for name, expr in constraints:
        flag = z3.Bool(name)
        names[str(flag)] = name
        solver.assert_and_track(expr, flag)
    result = solver.check()
    if result == z3.unsat:
        return "unsat", sorted(names[str(c)] for c in solver.unsat_core())
    if result == z3.sat:
        model = solver.model()
        values = [[str(model.eval(t, model_completion=True)) for t in row] for row in tasks]
        return "sat", values
    return "unknown", []


def minimise_family(family: Family, properties: Sequence[str], indivisible: bool, core: list[str]) -> Family:
    """Keep only the members the unsat core mentions (the base always stays)."""
    used = {m.label for m in family.members if any(f"[{m.label}]" in c for c in core)}
    members = [family.members[0]] + [m for m in family.members[1:] if m.label in used]
    return Family(members)


def check_family(family: Family, properties: Sequence[str], indivisible: bool, timeout_ms: int = 10000):
    """Solve; on UNSAT shrink the family to its core and run one positive control per property."""
    status, info = solve(family, properties, indivisible, timeout_ms)
    if status != "unsat":
        return status, None
    small = minimise_family(family, properties, indivisible, info)
    status2, core = solve(small, properties, indivisible, timeout_ms)
    if status2 != "unsat":  # the core's members were not enough on their own: keep the full family
        small, core = family, info
    controls, models = {}, {}
    for dropped in properties:
        kept = [p for p in properties if p != dropped]
        c_status, c_info = solve(small, kept, indivisible, timeout_ms)
        controls[dropped] = c_status
        if c_status == "sat":
            models[dropped] = c_info
    return "unsat", (small, core, controls, models)


# --------------------------------------------------------------------------- family generators
def capacity_increase_families(max_entry: int = 3, factors=(2, 3, 4), n: int = 2, m: int = 2) -> Iterator[Family]:
    """Base: n users, m resources of capacity 1, integer demands 0..max_entry, each base once up to
    symmetry (`fairlab.search.space.grid`); members: one resource's capacity multiplied by each factor."""
    for base in space.grid(n, m, max_entry=max_entry):
        members = [Member("base", base)]
        for r in range(m):
            for f in factors:
                caps = [1] * m
                caps[r] = f
                members.append(Member(f"c{r}x{f}", base.replace(capacities=caps), "rm"))
        yield Family(members)


def misreport_families(max_capacity: int = 8, n: int = 2) -> Iterator[Family]:
    """Base: n users, one resource of capacity C, integer demands 1..C; members: each user alone
    declaring every other integer demand 1..C. Smallest capacities first."""
    for cap in range(1, max_capacity + 1):
        for combo in itertools.combinations_with_replacement(range(1, cap + 1), n):
            base = Instance.build([cap], [[d] for d in combo])
            members = [Member("base", base)]
            for j in range(n):
                for lie in range(1, cap + 1):
                    if lie != combo[j]:
                        demands = [[d] for d in combo]
                        demands[j] = [lie]
                        members.append(Member(f"u{j}:{lie}", base.replace(demands=demands), "sp", j))
            yield Family(members)


def departure_families(max_entry: int = 3, n: int = 3, m: int = 2) -> Iterator[Family]:
    """Base: n users on m unit resources, each once up to symmetry; members: each user leaving."""
    for base in space.grid(n, m, max_entry=max_entry):
        members = [Member("base", base)]
        for k in range(n):
            rest = [list(r) for i, r in enumerate(base.demands) if i != k]
            members.append(Member(f"without{k}", base.replace(demands=rest), "pm", k))
        yield Family(members)


GENERATORS = {
    "rm": capacity_increase_families,
    "sp": misreport_families,
    "pm": departure_families,
}


def search(
    properties: Sequence[str],
    indivisible: bool = False,
    time_limit: float = 30.0,
    families: Iterator[Family] | None = None,
    progress=None,
) -> ImpossibilityResult:
    """Enumerate families (the generator for the relational property among `properties` unless
    given) until one makes the joint system UNSAT with every positive control SAT."""
    properties = tuple(properties)
    unknown = [p for p in properties if p not in PROPERTIES]
    if unknown:
        from fairlab.core.errors import InputError

        raise InputError(f"property {unknown[0]!r}: not supported by the impossibility search ({', '.join(PROPERTIES)})")
    if families is None:
        relational = [p for p in properties if p in GENERATORS]
        if not relational:
            from fairlab.core.errors import InputError

            raise InputError("properties: the impossibility search needs one of rm, sp, pm to relate instances")
        families = GENERATORS[relational[0]]()
    start = time.perf_counter()
    tried = 0
    saw_unknown = False
    for family in families:
        if time.perf_counter() - start > time_limit:
            saw_unknown = True
            break
        tried += 1
        if progress:
            progress(tried)
        status, info = check_family(family, properties, indivisible)
        if status == "unknown":
            saw_unknown = True
            continue
        if status == "unsat":
            small, core, controls, models = info
            if all(v == "sat" for v in controls.values()):
                return ImpossibilityResult(
                    "found", properties, indivisible, small, core, controls, models, tried, time.perf_counter() - start
                )
    status = "unknown" if saw_unknown else "not-found"
    return ImpossibilityResult(status, properties, indivisible, families_tried=tried, seconds=time.perf_counter() - start)


def describe(result: ImpossibilityResult) -> str:
    """One paragraph a person can read."""
    if result.status != "found":
        return f"{result.status} after {result.families_tried} families ({result.seconds:.1f} s)"
    base = result.family.base
    parts = [
        f"base: capacities {[format_exact(c) for c in base.capacities]}, demands "
        f"{[[format_exact(d) for d in row] for row in base.demands]}"
    ]
    for m in result.family.members[1:]:
        parts.append(f"{m.label} ({m.relation})")
    return "; ".join(parts) + f"; core of {len(result.core)} constraints"
