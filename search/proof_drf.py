"""A faster, DRF-specific proof encoding of strategyproofness: bundle coordinates.

The generic encoding (`fairlab.search.proof.encoding`) multiplies unknown tasks by unknown demands in
both the truthful and the misreported instance. For DRF without caps or weights (the setting of
the DRF paper's Theorem, capacities normalised to 1) the demands can be eliminated:

* DRF gives every user a positive number of tasks (progressive filling starts all users growing
  together), and DRF is invariant under scaling a user's demand row (its tasks scale inversely,
  its bundle does not change). So a user's demand row is, up to scale, its bundle y_i = t_i d_i:
  the unknowns become the bundles, and the bottleneck characterisation of DRF is LINEAR in them
  (loads are sums of bundles, the dominant share is max_r y_ir).
* In the misreported instance the liar's bundle y'_0 is a free non-negative vector (any bundle is
  the DRF outcome of some declared direction, if the characterisation holds), and every other
  user keeps its demand, so its bundle is a positive multiple y'_k = λ_k y_k: the only nonlinear
  terms left are the (n-1)·m products λ_k y_kr.
* The liar gains iff y'_0r > y_0r on every resource it truly uses (y_0r > 0).

Symmetries broken (complete, since the unknown instance is symmetric): the liar is user 0; its
dominant resource is resource 0; the other users are ordered by truthful dominant share.
The named constraints mirror the generic ones, so unsat cores read the same way.

Now `fairlab.search.proof` proves DRF's sp with the tasks-normalised, relaxed encoding
(`_drf_sp_relaxed`: linear, 4 x 4 in about a second); this one stays as the benchmark's baseline
(`baseline_strategies_for`, `benchmarks/bench_prove.py`).
"""

from __future__ import annotations

import z3

from fairlab.core.exact import Algebraic, format_exact
from fairlab.mechanisms.base import Constraint


def _max(terms):
    best = terms[0]
    for t in terms[1:]:
        best = z3.If(t > best, t, best)
    return best


def _drf_bundles(y, prefix: str) -> list[Constraint]:
    n, m = len(y), len(y[0])
    share = [_max(row) for row in y]
    out = [Constraint(f"{prefix}.capacity[{r}]", z3.Sum([y[i][r] for i in range(n)]) <= 1) for r in range(m)]
    for i in range(n):
        options = [
            z3.And(y[i][r] > 0, z3.Sum([y[k][r] for k in range(n)]) == 1,
                   *[z3.Implies(y[k][r] > 0, share[k] <= share[i]) for k in range(n) if k != i])
            for r in range(m)
        ]
        out.append(Constraint(f"{prefix}.bottleneck[{i}]", z3.Or(options)))
    return out


def sp_constraints(n: int, m: int, symmetry: bool = True) -> tuple[list[Constraint], dict]:
    """Named constraints satisfiable iff some DRF instance of n users × m resources (no caps, no
    weights) lets user 0 gain by misreporting."""
    y = [[z3.Real(f"y{i}_{r}") for r in range(m)] for i in range(n)]
    lam = [z3.Real(f"lambda{k}") for k in range(n)]
    lie = [z3.Real(f"lie0_{r}") for r in range(m)]
    y_lie = [lie] + [[lam[k] * y[k][r] for r in range(m)] for k in range(1, n)]
    out: list[Constraint] = []
    for i in range(n):
        out += [Constraint(f"domain.bundle[{i}][{r}]>=0", y[i][r] >= 0) for r in range(m)]
        out.append(Constraint(f"domain.bundle[{i}]!=0", z3.Or([v > 0 for v in y[i]])))
    out += [Constraint(f"sp.lie0[{r}]>=0", v >= 0) for r, v in enumerate(lie)]
    out.append(Constraint("sp.lie0!=0", z3.Or([v > 0 for v in lie])))
    out += [Constraint(f"sp.same-demand[{k}]", lam[k] > 0) for k in range(1, n)]
    out += _drf_bundles(y, "drf")
    out += [Constraint(f"sp.lie0:{c.name}", c.expr) for c in _drf_bundles(y_lie, "drf")]
    out.append(Constraint("sp.violated", z3.And([z3.Implies(y[0][r] > 0, lie[r] > y[0][r]) for r in range(m)])))
    if symmetry:
        out += [Constraint(f"symmetry.dominant-resource[{r}]", y[0][0] >= y[0][r]) for r in range(1, m)]
        shares = [_max(row) for row in y]
        out += [Constraint(f"symmetry.order[{k}]", shares[k] <= shares[k + 1]) for k in range(1, n - 1)]
    return out, {"bundles": y, "lie": lie, "lambda": lam}


def witness_instance(model: z3.ModelRef, variables: dict) -> dict:
    """A concrete instance (demands = truthful bundles, capacities 1) and the misreport."""
    def value(term):
        v = Algebraic.of(model.eval(term, model_completion=True))
        return format_exact(v)

    return {
        "instance": {"capacities": [1] * len(variables["lie"]),
                     "demands": [[value(v) for v in row] for row in variables["bundles"]]},
        "witness": {"user": 0, "misreport": [value(v) for v in variables["lie"]]},
    }
