"""Population monotonicity of the lab's DRF, tasks-normalised and relaxed: the "drf-normalised"
strategy of `fairlab.search.proof` for pm (as `_drf_sp_relaxed` is for sp).

The DRF paper (§6.1, Table 2) lists DRF as population monotone; on its domain (every demand
positive) the lab proves it with this encoding. Reductions, each complete:

* tasks normalised to 1 (`proof._drf_normalised`'s argument): DRF gives every user positive tasks
  and its spec reads a row only through the bundle t_i·d_i, the dominant share and the support;
  pm's rule (`properties.pm.loses`: t'_i < t_i) compares two task counts of the same row, so
  rescaling row i by a > 0 and both counts by 1/a keeps it;
* user symmetry (`drf` is anonymous, the unknown instance symmetric): a violation "user i loses
  when k leaves" becomes, after renaming, "user 1 loses when user 0 leaves"; users 2..n-1 are
  ordered by dominant share and resources by user 0's demand (capacities all 1);
* the departure run RELAXED to linear arithmetic: each remaining user k keeps its row d_k and gets
  t'_k > 0 tasks, so its bundle is e_k = t'_k·d_k (the only products). The relaxation keeps t'_k
  and e_k as unknowns linked by what the product implies: 0 < t'_k < 1 with 0 < e_kr < d_kr on
  d_k's support, t'_k = 1 with e_k = d_k, or t'_k > 1 with e_kr > d_kr on the support (and
  e_kr = 0 off it). The departure run is DRF's own spec on the rows e_k with tasks 1, and the
  violation is pm's own rule on (1, t'_1). Every violating model of the exact encoding is one of
  the relaxed encoding (e_k := t'_k·d_k), so UNSAT proves pm.

The positive control (`Encoded.control_fix`) is restricted to t'_1 = 1/2 (the loser halves its
bundle) and t'_k = 2 for the other remaining users, with e_k = t'_k·d_k exactly: its model is a
model of the exact encoding without the dropped hypothesis, inside the proof's domain.
"""

from __future__ import annotations

import z3

from fairlab import properties
from fairlab.mechanisms.base import Constraint, Mechanism, SymbolicInstance
from fairlab.properties.property import DepartureWitness, DeviationProperty, Z3View
from fairlab.search import proof_encoding as proof
from fairlab.search.symbolic import model_instance

LEAVES, LOSES = 0, 1  # after the user symmetry: user 0 leaves, user 1 loses


def drf_pm_relaxed(mechanism: Mechanism, n: int, m: int, positive_demands: bool,
                   weights: str = "none") -> proof.Encoded:
    """The encoding (see the module docstring); n >= 2 (with one user nobody can leave). `weights`:
    the unknown instance's (`SymbolicInstance.unknown`; no task caps here: with caps `strategies_for`
    chooses the generic encoding for pm)."""
    module = properties.get("pm")
    assert isinstance(module, DeviationProperty), "pm is a deviation property (a user leaves)"
    spec = mechanism.spec
    assert spec is not None, "the caller (`_drf_normalised`) encodes DRF, which has a spec"
    sym, ones, base_constraints, own = proof.normalised_run(mechanism, n, m, positive_demands, weights=weights)
    d = sym.demands
    [(tag, deviation, derived, dev_constraints)] = [found for found in module.derive_symbolic(sym, "pm", None)
                                                    if found[1] == LEAVES]
    stay = [k for k in range(n) if k != LEAVES]  # original index of each remaining user, in order
    tasks = [z3.Real(f"pm.{tag}.t{k}") for k in stay]
    e = [[z3.Real(f"pm.{tag}.e{k}_{r}") for r in range(m)] for k in stay]
    relaxed = SymbolicInstance(list(derived.capacities), e, list(derived.weights), list(derived.max_tasks))
    run_spec = [Constraint(f"pm.{tag}:{c.name}", c.expr) for c in spec(relaxed, ones[:len(stay)])]
    relax = []
    for pos, k in enumerate(stay):
        t, row, bundle = tasks[pos], d[k], e[pos]
        less = z3.And(t > 0, t < 1, *[z3.If(row[r] > 0, z3.And(bundle[r] > 0, bundle[r] < row[r]), bundle[r] == 0)
                                      for r in range(m)])
        same = z3.And(t == 1, *[bundle[r] == row[r] for r in range(m)])
        more = z3.And(t > 1, *[z3.If(row[r] > 0, bundle[r] > row[r], bundle[r] == 0) for r in range(m)])
        relax.append(Constraint(f"relax.same-demand[{k}]", z3.Or(less, same, more)))
    loser = stay.index(LOSES)
    violated = module.rule(Z3View(sym), LOSES, ones[LOSES], tasks[loser], deviation)
    symmetry = proof._symmetry(d, 2)
    constraints = [*base_constraints, *own, *symmetry, *dev_constraints, *run_spec, *relax,
                   Constraint("pm.violated", violated)]
    base = {c.name for c in [*base_constraints, *own, *symmetry]}
    reductions = ["capacities normalised to 1 (scale-invariant mechanism)",
                  *(["assumption: every demand strictly positive"] if positive_demands else []),
                  *proof.space_words(weights, sym.max_tasks),
                  "tasks normalised to 1: each demand row rescaled to its DRF bundle (DRF gives every user "
                  "positive tasks; spec and pm are invariant under rescaling a row)",
                  "user symmetry: user 0 leaves and user 1 loses (anonymous mechanism); users 2..n-1 ordered by "
                  "dominant share, resources by user 0's demand (user and resource permutations)",
                  "relaxation: in the departure run each remaining user's bundle keeps its support and moves with "
                  "its tasks (below, equal to or above its bundle) instead of scaling exactly: linear; UNSAT proves "
                  "the unrelaxed claim"]

    def read_model(model):
        inst = model_instance(model, sym)
        return (inst.to_dict() if inst else None), DepartureWitness(LEAVES, LOSES).to_dict()

    scale = [z3.RealVal("1/2") if k == LOSES else z3.RealVal(2) for k in stay]
    fix = tuple([(tasks[pos], scale[pos]) for pos in range(len(stay))]
                + [(e[pos][r], scale[pos] * d[k][r]) for pos, k in enumerate(stay) for r in range(m)])
    return proof.Encoded(constraints, base, proof._is_hypothesis({c.name for c in own}), read_model, reductions,
                         control_fix=fix)
