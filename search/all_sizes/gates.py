"""The gates of an all-size proof that tie its vocabulary to the lab's own terms, each by z3:

* **schema-is-spec** (`schema_is_spec`): at every size of `SPEC_SIZES` (every size up to 3 × 3,
  then sizes with 4 to 8 users up to 8 × 8 — beyond the large-size mutant's 5 users), the schema
  unrolled (its quantifiers as finite conjunctions and disjunctions, its folds explicit) is
  EQUIVALENT to the mechanism's own z3 spec (`Mechanism.spec`) on unknown demands, capacities and
  tasks — two UNSAT queries per size ("schema ∧ ¬spec", "spec ∧ ¬schema");
* **property-is-rule** (`property_is_rule`): at every size of `RULE_SIZES` and every choice of
  violating users, the negated property of `fairlab.search.all_sizes.negations` is equivalent to
  the lab's rule (`fairlab.properties`), likewise;
* **abstraction-conformance** (`abstraction_conformance`): on seeded instances of the domain at
  sizes up to `CONFORMANCE_SIZES` (beyond the small ones: 5, 6, 7 users), the allocator's exact
  allocation satisfies the schema and the abstraction, unrolled at that size — the mechanism's
  own code against the statements the proof assumes (a concrete check, so it also shows them
  satisfiable: the proof is not vacuous).

Beyond the compared sizes the schema is the same formula by construction (the spec is generated
by the same loops over users and resources the quantifiers range over): an argument, not a z3
check, which the result states (``details["rules"]``).
"""

from __future__ import annotations

import random

import z3

from fairlab.core.exact import Algebraic, format_exact, z3_value
from fairlab.core.instance import Instance
from fairlab.mechanisms.base import Constraint, Mechanism
from fairlab.search.all_sizes.families import Family
from fairlab.search.all_sizes.logic import RESOURCE, USER, Frame
from fairlab.search.all_sizes.negations import WITNESSES, lab_instance, violation
from fairlab.search.all_sizes.schema import Inst, Schema, domain_axioms
from fairlab.search.all_sizes.steps import choices

#: the sizes at which the schema and the negated properties are compared with the lab's own
SMALL: tuple[tuple[int, int], ...] = ((1, 1), (1, 2), (2, 1), (2, 2), (2, 3), (3, 2), (3, 3))
#: the sizes at which the schema is compared with the mechanism's spec (cheap: the same loops)
SPEC_SIZES: tuple[tuple[int, int], ...] = SMALL + ((4, 3), (5, 2), (5, 3), (6, 2), (7, 4), (8, 8))
#: the sizes at which the negated properties are compared with the lab's rules (every choice of users)
RULE_SIZES: tuple[tuple[int, int], ...] = SMALL + ((4, 3), (5, 2))
#: the sizes of the abstraction's conformance with the allocator (seeded instances each)
CONFORMANCE_SIZES: tuple[tuple[int, int], ...] = ((1, 1), (2, 2), (3, 2), (4, 3), (5, 2), (5, 3), (6, 2), (7, 4))


def _equivalent(name: str, a: z3.BoolRef, b: z3.BoolRef, assume: list[z3.BoolRef], solve, rlimit: int) -> dict:
    """Two queries: a ∧ ¬b and b ∧ ¬a, each under `assume`; "equivalent" when both are UNSAT."""
    out: dict = {"what": name, "queries": []}
    verdict = "equivalent"
    for label, x, y in (("->", a, b), ("<-", b, a)):
        q = solve([Constraint("assume", z3.And(assume)), Constraint("x", x), Constraint("not-y", z3.Not(y))], rlimit)
        out["queries"].append({"direction": label, "result": q.status + (f" ({q.reason})" if q.reason else ""),
                               "rlimit": rlimit, "spent": q.spent})
        if q.status == "sat":
            verdict = "differ"
        elif q.status != "unsat" and verdict == "equivalent":
            verdict = "unknown"
    out["result"] = verdict
    return out


def _domain(frame: Frame, inst: Inst, positive: bool) -> list[z3.BoolRef]:
    return [ax.unrolled(frame) for ax in domain_axioms(inst, positive)]


def schema_is_spec(mechanism: Mechanism, schema: Schema, positive: bool, solve, rlimit: int,
                   sizes=SPEC_SIZES, options: dict | None = None) -> list[dict]:
    """The schema against the lab's spec at each size (see the module docstring)."""
    assert mechanism.spec is not None
    out = []
    for n, m in sizes:
        frame = Frame(n, m)
        inst = Inst(frame)
        run = schema(inst, "mech")
        tasks = [run.tasks(u) for u in frame.indices(USER)]
        spec = z3.And([c.expr for c in mechanism.spec(lab_instance(inst), tasks, **(options or {}))])
        unrolled = z3.And([ax.unrolled(frame) for ax in run.axioms])
        out.append({"size": [n, m], **_equivalent(f"schema of {mechanism.name} vs its spec at {n}x{m}", unrolled, spec,
                                                   _domain(frame, inst, positive), solve, rlimit)})
    return out


def property_is_rule(prop: str, schema: Schema, positive: bool, solve, rlimit: int, sizes=RULE_SIZES) -> list[dict]:
    """The negated property against the lab's rule, at each size and each choice of users."""
    out = []
    for n, m in sizes:
        for choice in choices((USER,) * WITNESSES[prop], n, m):
            frame = Frame(n, m)
            inst = Inst(frame)
            run = schema(inst, "mech")
            neg = violation(prop, inst, run, schema, positive, [z3.IntVal(v) for v in choice])
            ours = neg.axioms[0].unrolled(frame)
            assert neg.lab is not None
            out.append({"size": [n, m], "users": list(choice),
                        **_equivalent(f"negated {prop} vs the lab's rule at {n}x{m}, users {list(choice)}", ours,
                                      neg.lab(), _domain(frame, inst, positive), solve, rlimit)})
    return out


def sample(n: int, m: int, count: int, seed: int, positive: bool) -> list[Instance]:
    """`count` seeded instances of n × m: integer demands 1..9 (0..9 with zeros unless `positive`,
    every row non-zero), capacities 1..9; the second repeats the first user's row (ties)."""
    rng = random.Random(f"fairlab all-sizes conformance {seed} {n} {m}")
    out = []
    for k in range(count):
        rows = []
        for _ in range(n):
            row = [rng.randint(1, 9) if positive or rng.random() < 0.75 else 0 for _ in range(m)]
            if not any(row):
                row[rng.randrange(m)] = rng.randint(1, 9)
            rows.append(row)
        if k == 1 and n >= 2:
            rows[-1] = list(rows[0])
        out.append(Instance.build([rng.randint(1, 9) for _ in range(m)], rows))
    return out


def abstraction_conformance(mechanism: Mechanism, family: Family, schema: Schema, positive: bool, solve,
                            rlimit: int, samples: int, seed: int, sizes=CONFORMANCE_SIZES,
                            options: dict | None = None) -> list[dict]:
    """The allocator's allocation of seeded instances against the unrolled schema and abstraction
    (every number fixed: z3 only picks the witnesses). One record per instance; "holds" or the
    statements that fail ("fails": z3 UNSAT with the numbers fixed), "unknown" otherwise."""
    out = []
    for n, m in sizes:
        for inst_ in sample(n, m, samples, seed, positive):
            alloc = mechanism(inst_, **(options or {}))
            frame = Frame(n, m)
            inst = Inst(frame)
            run = schema(inst, "mech")
            fixed = [inst.c(z3.IntVal(r)) == z3_value(c) for r, c in enumerate(inst_.capacities)]
            fixed += [inst.d(z3.IntVal(i), z3.IntVal(r)) == z3_value(v)
                      for i, row in enumerate(inst_.demands) for r, v in enumerate(row)]
            fixed += [run.tasks(z3.IntVal(i)) == z3_value(t) for i, t in enumerate(alloc.tasks)]
            statements = [*run.axioms, *family.statements(run, positive)]
            named = [Constraint("numbers", z3.And(fixed))]
            named += [Constraint(ax.name, ax.unrolled(frame)) for ax in statements]
            q = solve(named, rlimit, track=True)
            record = {"size": [n, m], "instance": inst_.to_dict(),
                      "allocation": [format_exact(t) for t in alloc.tasks], "rlimit": rlimit, "spent": q.spent}
            if q.status == "sat":
                record["result"] = "holds"
            elif q.status == "unsat":
                failing = []
                for ax in statements:  # which statements the allocation violates, one by one
                    one = solve([named[0], Constraint(ax.name, ax.unrolled(frame))], rlimit)
                    if one.status == "unsat":
                        failing.append(ax.name)
                record.update(result="fails", failing=failing or [c for c in q.core if c != "numbers"])
            else:
                record["result"] = f"unknown ({q.reason})"
            out.append(record)
    return out


def read_instance(model, parts, frame: Frame) -> dict:
    """A concrete instance and its allocation from a model of an unrolled step (a control): the
    demands, capacities and the judged run's tasks; for a deviation also the declared demands
    and the tasks declaring them."""
    def value(term) -> str:
        return format_exact(Algebraic.of(model.eval(term, model_completion=True)))

    inst = parts.insts[0]
    users, resources = frame.indices(USER), frame.indices(RESOURCE)
    out: dict = {"capacities": [value(inst.c(r)) for r in resources],
                 "demands": [[value(inst.d(i, r)) for r in resources] for i in users],
                 "allocation": [value(parts.runs[0].tasks(i)) for i in users]}
    if len(parts.insts) > 1 and len(parts.runs) > 1:
        other = parts.insts[1]
        out["declared"] = [[value(other.d(i, r)) for r in resources] for i in users]
        out["allocation_declared"] = [value(parts.runs[1].tasks(i)) for i in users]
    return out


__all__ = ["SMALL", "SPEC_SIZES", "RULE_SIZES", "CONFORMANCE_SIZES", "schema_is_spec", "property_is_rule",
           "abstraction_conformance",
           "sample", "read_instance"]
