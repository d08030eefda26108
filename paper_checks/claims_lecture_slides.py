"""The ledger's claims from the lecture by Procaccia & Psomas (its slides on the model, asset
fairness, CEEI, DRF, Kalai-Smorodinsky, indivisible tasks, "Beyond DRF" and dynamic fair division),
each with a named check: moved out of `fairlab.paper_checks.claims` (same entries, same order:
`fairlab.paper_checks` imports this module right after `claims`). The mechanisms the lecture's
"Beyond DRF" cites have their own entries in `claims_lecture`.

Printed numbers are copied as printed (strings); every computed value comes from the lab when the
entry runs.
"""

from __future__ import annotations

from fractions import Fraction as F

from fairlab.core.instance import Instance
from fairlab.paper_checks.claims import EXAMPLE, THM4_LECTURE, _tasks, _verdict, allocate
from fairlab.paper_checks.ledger import LECTURE, Evidence, claim, exact, rounded, same, vector
from fairlab.properties.si import equal_split_utility
from fairlab.search.impossibility import Family, Member, check_family


# =========================================================================== lecture (003)
@claim("lecture-utility-example", LECTURE, "THE MODEL / EXAMPLE slides",
       "d1 = (1, 4): u1 = 2; d2 = (3, 1): u2 = 5/3 (for bundles drawn in the picture)", "none", "out-of-scope",
       reason="the bundles are only drawn, not given as numbers")
def check_lecture_utility_example(ctx):
    return Evidence([])


@claim("lecture-poll", LECTURE, "POLL (proportional guarantee)",
       "60 CPUs, 30 GB, d1 = (2, 5), d2 = d3 = (2, 1): a proportional allocation guarantees answer 2,"
       " u1 = 2, u2 = u3 = 10", "fairlab.properties.si equal-split utility (1/n of every resource)", "reproduced")
def check_lecture_poll(ctx):
    inst = Instance.build([60, 30], [[2, 5], [2, 1], [2, 1]])
    u = [equal_split_utility(inst, i) for i in range(3)]
    return Evidence([vector("guarantee (u1, u2, u3)", ["2", "10", "10"], u, "exact")])


@claim("lecture-asset", LECTURE, "CANDIDATE #1: ASSET FAIRNESS",
       "30 CPUs, 30 GB, d1 = (1, 3), d2 = (1, 1): 4x = 2y gives x = 6, y = 12; agent 1 (6, 18), agent 2 (12, 12);"
       " agent 2 does better with half of everything", "mechanism asset; property si", "reproduced")
def check_lecture_asset(ctx):
    inst = Instance.build([30, 30], [[1, 3], [1, 1]])
    a = allocate("asset", inst)
    return Evidence([exact("x", "6", a.tasks[0]), exact("y", "12", a.tasks[1]),
                    vector("agent 1", ["6", "18"], a.bundles[0], "exact"),
                    vector("agent 2", ["12", "12"], a.bundles[1], "exact"),
                    same("agent 2 better with half-half", "True", equal_split_utility(inst, 1) > a.tasks[1])])


@claim("lecture-ceei", LECTURE, "CANDIDATE #2: CEEI",
       "100 CPUs, 100 GB, d1 = (16, 1), d2 = (1, 2): everything to agent 1 gives u1 = 100/16, product 0; half-half"
       " u1 = 50/16, u2 = 50/2, product ≈ 78; optimum ≈ (51, 3) to agent 1 and ≈ (49, 97) to agent 2,"
       " 100/31 ≈ 3.2 and 1500/31 ≈ 48.3 tasks, u1·u2 ≈ 156",
       "mechanism ceei (exact); products computed exactly", "erratum")
def check_lecture_ceei(ctx):
    a = allocate("ceei", THM4_LECTURE)
    t = a.tasks
    return Evidence([
        exact("u1 alone", "100/16", min(F(100, 16), F(100, 1))),
        rounded("half-half product", "78", F(50, 16) * F(50, 2)),
        exact("agent 1 tasks", "100/31", t[0]), exact("agent 2 tasks", "1500/31", t[1]),
        rounded("3.2", "3.2", t[0]), rounded("48.3", "48.3", t[1]),
        vector("agent 1 bundle ≈", ["51", "3"], a.bundles[0]), vector("agent 2 bundle ≈", ["49", "97"], a.bundles[1]),
        rounded("product", "156", t[0] * t[1]),
    ], how="agent 2's CPU is 1500/31 = 48.39: neither rounding nor truncation gives the slide's 49 (the slide"
           " seems to have made the CPUs add up to 100)")


@claim("lecture-ceei-misreport", LECTURE, "CANDIDATE #2: CEEI (misreport)",
       "agent 1 reports d'1 = (16, 8): agent 1 gets 2/3 of the CPUs, agent 2 2/3 of the RAM; agent 1 executes"
       " (100·2/3)/16 ≈ 4.2 tasks: not strategyproof", "mechanism ceei with the misreport", "reproduced")
def check_lecture_ceei_misreport(ctx):
    a = allocate("ceei", {"capacities": [100, 100], "demands": [[16, 8], [1, 2]]})
    true_tasks = min(a.bundles[0][r] / THM4_LECTURE["demands"][0][r] for r in range(2))
    return Evidence([exact("agent 1 CPU share", "2/3", a.shares[0][0]),
                     exact("agent 2 RAM share", "2/3", a.shares[1][1]),
                     rounded("agent 1 true tasks", "4.2", true_tasks)])


@claim("lecture-drf-lp", LECTURE, "DRF and DRF: EASIER THAN IT LOOKS",
       "machine (9, 18), d1 = (1, 4), d2 = (3, 1): u1 = 3, u2 = 2, dominant share 4/18·3 = 3/9·2 = 2/3; normalised"
       " demands d1 = (1/2, 1), d2 = (1, 1/6), x = 1/max{3/2, 7/6} = 2/3",
       "mechanism drf; normalised demands from the instance", "reproduced")
def check_lecture_drf_lp(ctx):
    inst = Instance.from_dict(EXAMPLE)
    a = allocate("drf", inst)
    norm = [[inst.demand_share(i, r) / inst.dominant_share_per_task(i) for r in range(2)] for i in range(2)]
    x = 1 / max(sum(norm[i][r] for i in range(2)) for r in range(2))
    return Evidence([exact("u1", "3", a.tasks[0]), exact("u2", "2", a.tasks[1]),
                    vector("normalised d1", ["1/2", "1"], norm[0], "exact"),
                    vector("normalised d2", ["1", "1/6"], norm[1], "exact"),
                    exact("x", "2/3", x), vector("dominant shares", ["2/3", "2/3"], a.dominant_shares, "exact"),
                    same("proportional: x >= 1/n", "True", x >= F(1, inst.n))])


@claim("lecture-ks", LECTURE, "KALAI-SMORODINSKY BARGAINING SOLUTION",
       "the KS solution on d1 = (1, 4), d2 = (3, 1), machine (9, 18) (a picture; the DRF paper §8 calls leximin"
       " the lexicographic KS solution)", "mechanism ks vs drf", "out-of-scope",
       reason="the slide is a picture with no numbers; checked that KS gives the DRF allocation here")
def check_lecture_ks(ctx):
    return Evidence([same("KS = DRF on the example", "True", _tasks("ks", EXAMPLE) == _tasks("drf", EXAMPLE))])


@claim("lecture-indivisible", LECTURE, "INDIVISIBLE TASKS: A LOWER BOUND",
       "2 agents, 1 resource, d1 = d2 = 1/2 + ε, a lie d'2 = 1/2: proportionality, efficiency and truthfulness are"
       " incompatible with indivisible tasks",
       "fairlab.search.impossibility.check_family with ε = 1/10 (both agents may lie), indivisible tasks", "reproduced",
       paper_claims="Parkes, Procaccia & Shah (EC 2012): with indivisible tasks no deterministic mechanism is Pareto "
                    "efficient, strategyproof and sharing-incentive (proportional) at once [reading notes: M]",
       not_checked="other values of ε (ε = 1/10 is checked: the slide's family, over every allocation of each member); "
                   "the paper's relaxed properties of SequentialMinMax")
def check_lecture_indivisible(ctx):
    base = Instance.build([1], [["3/5"], ["3/5"]])
    members = [Member("base", base)]
    for j in range(2):
        lie = [["3/5"], ["3/5"]]
        lie[j] = ["1/2"]
        members.append(Member(f"u{j}:1/2", base.replace(demands=lie), "sp", j))
    status, info = check_family(Family(members), ["si", "pe", "sp"], indivisible=True)
    controls = info[2] if info else {}
    return Evidence([same("si + pe + sp (indivisible)", "unsat", status),
                    same("each property needed (controls sat)", "True",
                         bool(controls) and all(v == "sat" for v in controls.values()))])


DYNAMIC_EXAMPLE = {"capacities": [9, 18], "demands": [[1, 4], [3, 1], [1, 1]], "users": ["A", "B", "C"],
                   "resources": ["CPU", "GB"], "arrivals": ["A", "B", "C"]}


@claim("lecture-beyond-drf-zero-weights", LECTURE, "BEYOND DRF",
       "zero demands, weights: easy-ish to fix", "drf with a zero demand and weights: si, ef, pe exact checks",
       "out-of-scope", reason="a remark without an instance; checked: DRF (§4.3 weights) keeps si, ef and pe on an"
                               " instance with a zero demand and unequal weights",
       paper_claims="Parkes, Procaccia & Shah (EC 2012): DRF extended to zero demands and weights keeps sharing "
                    "incentive, envy-freeness, Pareto efficiency and group strategyproofness [reading notes: M]",
       not_checked="group strategyproofness; the extension's properties beyond the one instance checked here "
                   "(`fairlab prove drf si|ef|pe` decides them at small sizes)")
def check_lecture_beyond_drf_zero_weights(ctx):
    inst = {"capacities": [9, 18], "demands": [[1, 0], [3, 1]], "weights": [1, 2]}
    return Evidence([same(f"{prop} of weighted drf with a zero demand", "holds", _verdict(prop, "drf", inst))
                     for prop in ("si", "ef", "pe")])


@claim("lecture-multiple-machines-randomized", LECTURE, "BEYOND DRF (multiple machines)",
       "under-reporting gives zero utility; a randomized mechanism (extension of the Kalai-Smorodinsky"
       " interpretation) satisfies all the properties ex ante [Friedman, Ghodsi, Psomas 2014]",
       "-", "out-of-scope",
       reason="the mechanism's definition is not in the sources and was not obtainable from public pages; the"
              " lab's reading of it is the mechanism ks-lottery, checked in the entry lecture-ks-lottery",
       paper_claims="Friedman, Ghodsi & Psomas (EC 2014), abstract [read]: jobs isolated in containers; a weighted "
                    "max-min over the convex hull of the feasible region gives an ex-ante fair, efficient and "
                    "strategyproof randomized allocation",
       not_checked="the paper's mechanism and theorems (not readable); the lab's reading is a lab finding "
                   "(lecture-ks-lottery)")
def check_lecture_multiple_machines_randomized(ctx):
    return Evidence([])


@claim("lecture-dynamic-no-reallocation", LECTURE, "BACK TO THE DRAWING BOARD: DYNAMIC FAIR DIVISION",
       "agents arrive over time; when an agent arrives we give her resources; no reallocation allowed"
       " [Kash, Procaccia, Shah 2013]",
       "mechanism dynamic-drf on A <1, 4>, B <3, 1>, C <1, 1> arriving in turn on <9, 18>: every property at every"
       " step", "out-of-scope",
       reason="the slide states a model and cites a paper (no numbers); checked: dynamic DRF gives each arriving"
              " agent resources at its arrival, never takes any back, and keeps dynamic si, ef and DPO at every"
              " step of the example",
       paper_claims="Kash, Procaccia & Shah (JAIR 2014): DYNAMIC DRF is dynamic sharing-incentive, dynamic envy-free, "
                    "dynamic Pareto optimal and strategyproof [reading notes: M]",
       not_checked="strategyproofness (dynamic-sp is a search, not run here); the properties on other arrival "
                   "sequences (`fairlab prove dynamic-drf dynamic-si` decides some at small sizes)")
def check_lecture_dynamic_no_reallocation(ctx):
    steps = allocate("dynamic-drf", DYNAMIC_EXAMPLE).steps
    newcomer_served = all(step.tasks[step.event[1]] > 0 for step in steps if step.event[0] == "arrive")
    return Evidence([same("each arriving agent gets tasks at its arrival", "True", newcomer_served)]
                    + [same(prop, "holds", _verdict(prop, "dynamic-drf", DYNAMIC_EXAMPLE))
                       for prop in ("no-takeback", "dynamic-si", "dynamic-ef", "dynamic-dpo")])


@claim("lecture-dynamic-disruptions", LECTURE, "BACK TO THE DRAWING BOARD: DYNAMIC FAIR DIVISION",
       "when an agent arrives we can take resources from a fixed number of agents [Friedman, Psomas, Vardi"
       " 2015, 2017]", "mechanism drf-rerun (static DRF after every arrival, taking back freely)",
       "out-of-scope",
       reason="the bounded-disruption mechanism's definition was not obtainable from public pages (abstracts"
              " only); checked: without a bound, re-running static DRF at each arrival takes resources back from"
              " agents already present (what the bound limits), and its fairness ratio is 1",
       paper_claims="Friedman, Psomas & Vardi (EC 2015, EC 2017), abstracts [read]: optimal fairness ratios for every "
                    "number d >= 1 of disruptions per arrival (EC 2015), and with fewer than one per arrival (EC 2017)",
       not_checked="the papers' optimal mechanisms and their ratios (the lab's own controlled-drf is a lab finding: "
                   "lecture-controlled-disruptions)")
def check_lecture_dynamic_disruptions(ctx):
    rerun = allocate("drf-rerun", DYNAMIC_EXAMPLE)
    takeback = _verdict("no-takeback", "drf-rerun", DYNAMIC_EXAMPLE)
    return Evidence([same("no-takeback of drf-rerun", "violated", takeback),
                     exact("fairness ratio of drf-rerun", "1", rerun.extra["fairness_ratio"])])


@claim("lecture-fairness-ratio", LECTURE, "BACK TO THE DRAWING BOARD: DYNAMIC FAIR DIVISION",
       "optimize the fairness ratio min_t min_i u_i^t / (ideal allocation at t)",
       "mechanisms/_dynamic.py fairness_ratio (ideal: the static DRF of the agents present) on the example",
       "out-of-scope",
       reason="a formula without numbers; checked exactly on the example: dynamic DRF's first agent gets 1/n of"
              " the cluster against an ideal of all of it (ratio 1/3 with n = 3), then 2/3 and 5/6",
       paper_claims="Friedman, Psomas & Vardi: the fairness ratio is what their online mechanisms optimise",
       not_checked="the best ratio any online mechanism can guarantee (an optimum over mechanisms, not computed here)")
def check_lecture_fairness_ratio(ctx):
    dyn = allocate("dynamic-drf", DYNAMIC_EXAMPLE).extra
    return Evidence([exact("fairness ratio of dynamic-drf", "1/3", dyn["fairness_ratio"]),
                     vector("ratio per step", ["1/3", "2/3", "5/6"], dyn["fairness_ratio_steps"], "exact")])
