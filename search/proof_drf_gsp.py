"""Group strategyproofness of the lab's DRF and asset fairness, tasks-normalised and relaxed: the
"drf-normalised" strategy of `fairlab.search.proof` for gsp (as `_drf_sp_relaxed` is for sp).

Both are progressive filling with a per-user share of one task (`_filling.bottleneck_spec`: DRF's
dominant share max_r d_ir, asset fairness's aggregate share sum_r d_ir, capacities 1), so every
argument below holds for both word for word: each gives every user positive tasks (with t_i = 0 the
bottleneck condition asks a saturated resource whose users all have share 0), and each reads a row
only through the bundle t_i·d_i, the share t_i·sigma_i (sigma_i scales with the row) and the support.

Parkes, Procaccia & Shah prove DRF group strategyproof (lab's reading of "Beyond DRF", EC 2012).
The generic encoding (`properties.gsp.GroupStrategyproofness.encode`: the coalition unknown, every
row of the misreported run a product of unknowns) is proved at 2 x 2 and runs out beyond; this one
is linear. Reductions, each complete (capacities 1, unit weights, no caps, as the encodings range):

* tasks normalised to 1 (`proof._drf_normalised`'s argument): the mechanism gives every user
  positive tasks and its spec reads a row only through the bundle t_i·d_i, the dominant share and the support;
  gsp's rule (`properties.gsp.gains`) compares u_i(t'_i·d'_i) with t_i on the support of the true
  row, so rescaling a true row by a > 0 with its truthful tasks by 1/a, and a declared row with its
  misreported tasks, keeps it: every truthful and every declared row is its bundle (tasks 1);
* user symmetry (`drf` and `asset` are anonymous, the unknown instance symmetric): user 0 is a member who
  strictly gains and the members come first (`symmetry.gainer`, `symmetry.members-first`); the
  other members, and the non-members, are each ordered by dominant share; resources by user 0's
  true demand (capacities all 1);
* the misreported run RELAXED to linear arithmetic, as for sp: a non-member k keeps its row and gets
  t'_k > 0 tasks, so its bundle is e_k = t'_k·d_k (the only products); the relaxation keeps what
  the product implies: e_k has d_k's support and lies below d_k, equals it or lies above it
  ("relax.same-demand[k]"). The run is the mechanism's own spec on the rows (a member's declared row, a
  non-member's e_k) with tasks 1, and the violation gsp's own rule. Every violating model of the
  exact encoding is one of the relaxed encoding (e_k := t'_k·d_k), so UNSAT proves gsp.

A SAT answer is no refutation by itself (the relaxation may admit non-instances): like every
refutation it is confirmed exactly on the concrete instance or reported `unknown`. The positive
control (`Encoded.control_fix`) is restricted to e_k = d_k (with every demand positive, e_k = d_k/2),
a model of the exact encoding too.
"""

from __future__ import annotations

import z3

from fairlab import properties
from fairlab.mechanisms.base import Constraint, Mechanism, SymbolicInstance, z3_max
from fairlab.properties.base import model_value, number
from fairlab.properties.property import Z3View
from fairlab.search import proof_encoding as proof
from fairlab.search.symbolic import model_instance


def drf_gsp_relaxed(mechanism: Mechanism, n: int, m: int, positive_demands: bool) -> proof.Encoded:
    """The encoding (see the module docstring)."""
    from fairlab.properties.gsp import gains

    assert properties.get("gsp") is not None
    spec = mechanism.spec
    assert spec is not None, "the caller (`_drf_normalised`) encodes DRF or asset fairness, which have specs"
    sym, ones, base_constraints, own = proof.normalised_run(mechanism, n, m, positive_demands)
    d = sym.demands
    member = [z3.Bool(f"gsp.member{i}") for i in range(n)]
    lie = [[z3.Real(f"gsp.lie{i}_{r}") for r in range(m)] for i in range(n)]
    e = [[z3.Real(f"gsp.e{k}_{r}") for r in range(m)] for k in range(n)]
    rows = [[z3.If(member[k], lie[k][r], e[k][r]) for r in range(m)] for k in range(n)]
    goal = []
    for k in range(n):
        declared = z3.And(*[x >= 0 for x in lie[k]], z3.Or([x > 0 for x in lie[k]]))
        goal.append(Constraint(f"gsp.lie{k}", z3.Implies(member[k], declared)))
        less = z3.And([z3.If(d[k][r] > 0, z3.And(e[k][r] > 0, e[k][r] < d[k][r]), e[k][r] == 0) for r in range(m)])
        same = z3.And([e[k][r] == d[k][r] for r in range(m)])
        more = z3.And([z3.If(d[k][r] > 0, e[k][r] > d[k][r], e[k][r] == 0) for r in range(m)])
        goal.append(Constraint(f"relax.same-demand[{k}]", z3.Implies(z3.Not(member[k]), z3.Or(less, same, more))))
    relaxed = SymbolicInstance(list(sym.capacities), rows, list(sym.weights), list(sym.max_tasks))
    goal += [Constraint(f"gsp.coalition:{c.name}", c.expr) for c in spec(relaxed, ones)]
    view = Z3View(sym)
    goal.append(Constraint("gsp.violated", gains(view, ones, ones, (member, rows))))
    goal.append(Constraint("symmetry.gainer", z3.And(member[0], view.prefers(0, lie[0], ones[0]))))
    goal += [Constraint(f"symmetry.members-first[{i}]", z3.Implies(member[i + 1], member[i])) for i in range(n - 1)]
    share = [z3_max(row) for row in d]
    symmetry = [Constraint(f"symmetry.user-order[{k}]",
                           z3.Implies(member[k] == member[k + 1], share[k] <= share[k + 1])) for k in range(1, n - 1)]
    symmetry += [Constraint(f"symmetry.resource-order[{r}]", d[0][r] >= d[0][r + 1]) for r in range(m - 1)]
    constraints = [*base_constraints, *own, *symmetry, *goal]
    base = {c.name for c in [*base_constraints, *own]}
    reductions = ["capacities normalised to 1 (scale-invariant mechanism)",
                  *(["assumption: every demand strictly positive"] if positive_demands else []),
                  "tasks normalised to 1: each true and each declared row rescaled to its bundle (progressive filling "
                  "gives every user positive tasks; spec and gsp are invariant under rescaling a row)",
                  "user symmetry: user 0 is a member who strictly gains and the members come first; the other members, "
                  "and the non-members, ordered by dominant share; resources by user 0's demand (anonymous mechanism, "
                  "user and resource permutations)",
                  "relaxation: in the misreported run each non-member's bundle keeps its support and moves in one "
                  "direction (below, equal to or above its truthful bundle) instead of scaling exactly: linear; "
                  "UNSAT proves the unrelaxed claim"]

    def read_model(model):
        inst = model_instance(model, sym)
        members = [i for i in range(n) if z3.is_true(model.eval(member[i], model_completion=True))]
        said = {i: [model_value(model, x) for x in lie[i]] for i in members}
        true = {i: [model_value(model, x) for x in d[i]] for i in members}
        # tasks 1 on both runs: member i's gain is min over its support of lie_ir / d_ir, minus 1 (the
        # exact re-check recomputes it on the concrete instance)
        gained = [number(min(said[i][r] / true[i][r] for r in range(m) if true[i][r] > 0) - 1) for i in members]
        witness = {"coalition": members, "misreports": [[number(x) for x in said[i]] for i in members],
                   "gains": gained}
        return (inst.to_dict() if inst else None), witness

    scale = z3.RealVal("1/2") if positive_demands else z3.RealVal(1)
    fix = tuple((e[k][r], scale * d[k][r]) for k in range(1, n) for r in range(m))
    return proof.Encoded(constraints, base, proof._is_hypothesis({c.name for c in own}), read_model, reductions,
                         control_fix=fix)
