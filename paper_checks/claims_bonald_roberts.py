"""The ledger's claims from Bonald & Roberts (PF and BMF, §2.3-§4.4), each with a named check: moved
out of `fairlab.paper_checks.claims` (same entries, same order: `fairlab.paper_checks` imports this
module right after `claims_lecture_slides`).

The figure orderings (Figures 1-2) are checked with `fairlab.dynamics` (the fluid model), so this
module imports it: the one edge between the two leaf packages. Printed numbers are copied as printed
(strings); every computed value comes from the lab when the entry runs.
"""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import z3

from fairlab.core.instance import Instance
from fairlab.core.solving import SolverBudget, new_solver
from fairlab.core.solving import check as solver_check
from fairlab.dynamics import paper_orderings
from fairlab.mechanisms import bmf, get
from fairlab.mechanisms.base import SymbolicInstance
from fairlab.paper_checks.claims import CLAIM_RLIMIT, _tasks
from fairlab.paper_checks.ledger import BR, Context, Evidence, Item, claim, exact, same, vector
from fairlab.search import prove


# =========================================================================== Bonald & Roberts (000)
def _pf(demands):
    return _tasks("pf", {"capacities": [1, 1], "demands": demands})


@claim("br-2.3-pf-manipulation", BR, "§2.3",
       "a1 = (1/2, 1), a2 = (1, 1/2): PF φ = (2/3, 2/3); if transaction 1 claims 2/3 of resource 1, φ' = (3/4, 1/2)",
       "mechanism pf (= ceei) on normalised capacities", "reproduced")
def check_br_2_3_pf_manipulation(ctx):
    return Evidence([vector("φ", ["2/3", "2/3"], _pf([["1/2", 1], [1, "1/2"]]), "exact"),
                    vector("φ'", ["3/4", "1/2"], _pf([["2/3", 1], [1, "1/2"]]), "exact")])


@claim("br-2.3-pf-bad-claim", BR, "§2.3",
       "if transaction 1 claims a1 = (1, 1), φ' = (1/2, 1/2): both lose", "mechanism pf", "reproduced")
def check_br_2_3_pf_bad_claim(ctx):
    t = _pf([[1, 1], [1, "1/2"]])
    return Evidence([vector("φ'", ["1/2", "1/2"], t, "exact"),
                    same("both lose vs (2/3, 2/3)", "True", all(x < F(2, 3) for x in t))])


@claim("br-4.2-two-opponents", BR, "§4.2",
       "with 2 transactions like the second, the claim (2/3, 1) gives transaction 1 φ1 = 1/2, less than the 2/3"
       " of a true declaration", "mechanism pf", "reproduced")
def check_br_4_2_two_opponents(ctx):
    lie = _pf([["2/3", 1], [1, "1/2"], [1, "1/2"]])
    truth = _pf([["1/2", 1], [1, "1/2"], [1, "1/2"]])
    return Evidence([exact("φ1 with the claim", "1/2", lie[0]), exact("φ1 truthful", "2/3", truth[0])])


BMF_EXAMPLE: dict[str, Any] = {"capacities": [1, 1, 1], "demands": [[1, 1, 1], [1, "1/2", "3/4"], ["1/2", 1, "3/4"]]}


def bmf_phi(x):
    return [F(2, 5) - x / 15, F(2, 5) + 2 * x / 45, F(2, 5) + 2 * x / 45]


@claim("br-2.4-bmf-endpoints", BR, "§2.4",
       "requirements (1, 1, 1), (1, 1/2, 3/4), (1/2, 1, 3/4): φ(0) = (2/5, 2/5, 2/5) and φ(1) = (1/3, 4/9, 4/9)"
       " both satisfy the BMF definition; BMF is not unique with 3 resources",
       "fairlab.mechanisms.bmf.is_bmf (exact) and bmf.uniqueness", "reproduced")
def check_br_2_4_bmf_endpoints(ctx):
    inst = Instance.from_dict(BMF_EXAMPLE)
    return Evidence([vector("φ(0) formula", ["2/5", "2/5", "2/5"], bmf_phi(F(0)), "exact"),
                    vector("φ(1) formula", ["1/3", "4/9", "4/9"], bmf_phi(F(1)), "exact"),
                    same("φ(0) is BMF", "True", bool(bmf.is_bmf(inst, bmf_phi(F(0))))),
                    same("φ(1) is BMF", "True", bool(bmf.is_bmf(inst, bmf_phi(F(1))))),
                    same("BMF unique here", "False", bool(bmf.uniqueness(inst).unique))])


@claim("br-2.4-bmf-family", BR, "§2.4",
       "φ(x) = (2/5 - x/15, 2/5 + 2x/45, 2/5 + 2x/45) is BMF for every 0 <= x <= 1",
       "z3: x a Real in [0, 1], tasks = φ(x), assert the negation of the BMF spec: UNSAT; control: x in (1, 2]"
       " gives SAT (the family leaves BMF)", "reproduced")
def check_br_2_4_bmf_family(ctx):
    def solve(lo, hi, strict_lo):
        x = z3.Real("x")
        sym = SymbolicInstance.from_instance(Instance.from_dict(BMF_EXAMPLE))
        tasks = [z3.RealVal(2) / 5 - x / 15, z3.RealVal(2) / 5 + 2 * x / 45, z3.RealVal(2) / 5 + 2 * x / 45]
        spec = z3.And([c.expr for c in bmf.spec(sym, tasks)])
        s = new_solver(SolverBudget(rlimit=CLAIM_RLIMIT))  # counted; no wall clock decides
        s.add(x > lo if strict_lo else x >= lo, x <= hi, z3.Not(spec))
        return solver_check(s)[0]

    return Evidence([same("not BMF for some x in [0, 1]", "unsat", solve(0, 1, False)),
                    same("control: not BMF for some x in (1, 2]", "sat", solve(1, 2, True))])


@claim("br-2.4-bmf-pf", BR, "§2.4 and §3.3",
       "BMF coincides with PF for n = 2 and J = 2 (so is not strategyproof); with 2 resources BMF is unique",
       "fairlab.search.prove(bmf, 'same-as:ceei', 2, 2) and prove(bmf, 'unique', 2, 2): UNSAT with positive controls",
       "reproduced")
def check_br_2_4_bmf_pf(ctx):
    same_as = prove(get("bmf"), "same-as:ceei", 2, 2, domain="unweighted")
    unique = prove(get("bmf"), "unique", 2, 2, domain="unweighted")
    return Evidence([same("BMF = PF, 2 x 2", "proved", same_as.status),
                    same("BMF unique, 2 x 2", "proved", unique.status)],
                   how="proved for 2 users x 2 resources (the unique-BMF claim for more users is not checked)")


def _orderings(ctx: Context):
    return ctx.once("br-orderings", paper_orderings)


def _ordering_claim(figure: int, text: str):
    @claim(f"br-fig{figure}-orderings", BR, f"§4.3-4.4, Figure {figure}", text,
           "fairlab.dynamics.paper_orderings(): fluid Markov model, γ_k at loads 0.2, 0.5, 0.8 for DRF, PF, BMF",
           "reproduced", slow=True)
    def check_orderings(ctx):
        found = [c for c in _orderings(ctx) if c["figure"] == figure]
        return Evidence([Item(c["claim"], "holds", "holds" if c["holds"] else "fails", c["holds"], c["detail"])
                        for c in found])


_ordering_claim(1, "balanced load ρ1 = ρ2 = ρ3: γ1 = γ2 > γ3 for each allocation; BMF very close to PF; both"
                   " better than DRF especially at high load")
_ordering_claim(2, "unbalanced load ρ1 = 4ρ2 = 4ρ3: γ2 > γ1 > γ3 for each allocation; PF and BMF give class 2 a"
                   " significant gain for negligible reductions of γ1 and γ3")


@claim("br-fig3-packets", BR, "§4.4, Figure 3",
       "packet-based SFQ schedulers (10^5 flows, geometric sizes of mean 20000 packets, W = 30) closely approximate"
       " the fluid service rates; γ2 > γ1 > γ3", "fairlab.dynamics.packets (fairlab dynamics packets)", "out-of-scope",
       reason="10^5-flow packet simulations take too long for the ledger; `fairlab dynamics packets` runs them"
              " (tests/dynamics/test_dynamics.py checks packets against fluid on shorter runs)")
def check_br_fig3_packets(ctx):
    return Evidence([])
