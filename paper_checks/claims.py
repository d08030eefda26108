"""The ledger's claims as data, each with a named check: the claim transcribed from its source
(`fairlab.paper_checks.ledger.claim`) and the function ``check_<id>`` that checks it with the lab.

The Bonald & Roberts figure orderings are checked with `fairlab.dynamics` (the fluid model), so
this module imports it: the one edge between the two leaf packages.

Order: DRF paper (translation), notes, lecture, Bonald & Roberts, PDRF. Printed numbers are
copied as printed (strings); every computed value comes from the lab when the entry runs.
"""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import numpy as np
import z3

from fairlab import mechanisms, properties
from fairlab.core.errors import InexactAllocation
from fairlab.core.instance import Instance
from fairlab.core.results import to_dict
from fairlab.core.solving import SolverBudget, new_solver
from fairlab.core.solving import check as solver_check
from fairlab.dynamics import paper_orderings
from fairlab.mechanisms import bmf, get
from fairlab.mechanisms.base import SymbolicInstance
from fairlab.paper_checks import pdrf_tables as stats
from fairlab.paper_checks.ledger import (
    BR,
    DRF,
    LECTURE,
    NOTES,
    PDRF,
    Context,
    Evidence,
    Item,
    claim,
    exact,
    rounded,
    same,
    vector,
)
from fairlab.properties.si import equal_split_utility
from fairlab.search import prove
from fairlab.search.impossibility import Family, Member, check_family
from fairlab.search.rediscover import CLAIMS as REDISCOVER_CLAIMS
from fairlab.search.rediscover import run_claim

EXAMPLE: dict[str, Any] = {"capacities": [9, 18], "demands": [[1, 4], [3, 1]], "users": ["A", "B"],
                           "resources": ["CPU", "GB"]}


def allocate(mech, inst, **options):
    """The mechanism's allocation, exact only: a printed value is never compared with an
    approximation (an approximate one makes the entry an error, never reproduced or erratum)."""
    a = mechanisms.allocate(mech, inst, **options)
    if not a.is_exact():
        raise InexactAllocation(f"{mech}: the allocation is {a.describe_exactness()}; the ledger compares exact values")
    return a


def _tasks(mech, inst, **options):
    return allocate(mech, inst, **options).tasks


#: z3 resource units of a claim's own z3 question (counted: the same answer on any machine)
CLAIM_RLIMIT = 20_000_000


def _verdict(prop, mech, inst, **budget):
    return properties.check(mech, prop, inst, **budget).status.value


# =========================================================================== DRF paper (004)
@claim("drf-4.1-example", DRF, "§4.1 (and Figure 3)",
       "<9 CPU, 18 GB>, A <1 CPU, 4 GB>, B <3 CPU, 1 GB>: A's task takes 1/9 CPU and 2/9 memory, B's 1/3 CPU"
       " and 1/18 memory; DRF runs x = 3 tasks of A <3 CPU, 12 GB> and y = 2 of B <6 CPU, 2 GB>, each with"
       " dominant share 2/3 (the LP max(x, y), x + 3y <= 9, 4x + y <= 18, 2x/9 = y/3)",
       "mechanism drf (progressive filling, exact)", "reproduced")
def check_drf_4_1_example(ctx):
    inst = Instance.from_dict(EXAMPLE)
    a = allocate("drf", inst)
    return Evidence([
        vector("A per-task shares", ["1/9", "2/9"], [inst.demand_share(0, r) for r in range(2)], "exact"),
        vector("B per-task shares", ["1/3", "1/18"], [inst.demand_share(1, r) for r in range(2)], "exact"),
        exact("x (A tasks)", "3", a.tasks[0]), exact("y (B tasks)", "2", a.tasks[1]),
        vector("A bundle", ["3", "12"], a.bundles[0], "exact"), vector("B bundle", ["6", "2"], a.bundles[1], "exact"),
        vector("dominant shares", ["2/3", "2/3"], a.dominant_shares, "exact"),
    ])


@claim("drf-4.2-table1-trace", DRF, "§4.2, Table 1 (described in the text; the table itself is not in the translation)",
       "Algorithm 1 on the §4.1 example: DRF first picks B, whose shares become <3/9, 1/18> (dominant 1/3); then A"
       " (dominant share 0); it continues until no task can start, here because CPU is saturated; A ends with"
       " <3 CPU, 12 GB>, B with <6 CPU, 2 GB>",
       "mechanism drf-tasks (Algorithm 1, tie=paper, trace=True)", "reproduced")
def check_drf_4_2_table1_trace(ctx):
    inst = Instance.from_dict(EXAMPLE)
    a = allocate("drf-tasks", inst, trace=True)
    trace = a.extra["trace"]
    first = trace[0]
    k = inst.users.index(first)
    return Evidence([
        same("first pick", "B", first), same("second pick", "A", trace[1]),
        vector("B's shares after its first task", ["3/9", "1/18"], [inst.demand_share(k, r) for r in range(2)],
               "exact"),
        exact("CPU left when the loop stops", "0", a.extra["unused"][0]),
        vector("A final", ["3", "12"], a.bundles[0], "exact"), vector("B final", ["6", "2"], a.bundles[1], "exact"),
    ], how=f"launch order {', '.join(trace)}")


@claim("drf-4.3-weighted", DRF, "§4.3 weighted DRF",
       "s_i = max_j u_ij / w_ij; with w_ij = w_i for all j the ratio of two users' dominant shares is w_i / w_j;"
       " with all weights 1 weighted DRF is DRF",
       "mechanism drf with weights (1, 2) and (1, 1) on the §4.1 example", "reproduced")
def check_drf_4_3_weighted(ctx):
    weighted = allocate("drf", {**EXAMPLE, "weights": [1, 2]})
    plain = allocate("drf", {**EXAMPLE, "weights": [1, 1]}).tasks
    ds = weighted.dominant_shares
    return Evidence([
        exact("s_A / s_B with w = (1, 2)", "1/2", ds[0] / ds[1]),
        same("unit weights give DRF", "True", plain == _tasks("drf", EXAMPLE)),
    ], how=f"weights (1, 2): tasks {', '.join(map(str, weighted.tasks))}")


@claim("drf-5.1-asset", DRF, "§5.1 asset fairness",
       "1 CPU is worth 2 GB: A's task costs $6, B's $7; 6x = 7y with the capacity constraints gives x = 2.52,"
       " y = 2.16; A gets <2.5 CPU, 10.1 GB>, B gets <6.5 CPU, 2.2 GB>",
       "mechanism asset", "reproduced")
def check_drf_5_1_asset(ctx):
    inst = Instance.from_dict(EXAMPLE)
    price = [F(max(inst.capacities)) / c for c in inst.capacities]  # $ per unit, 1 GB = $1
    a = allocate("asset", inst)
    return Evidence([
        exact("A cost per task ($)", "6", sum(p * d for p, d in zip(price, inst.demands[0]))),
        exact("B cost per task ($)", "7", sum(p * d for p, d in zip(price, inst.demands[1]))),
        rounded("x", "2.52", a.tasks[0]), rounded("y", "2.16", a.tasks[1]),
        vector("A bundle", ["2.5", "10.1"], a.bundles[0]), vector("B bundle", ["6.5", "2.2"], a.bundles[1]),
    ])


@claim("drf-5.2-ceei", DRF, "§5.2 CEEI",
       "max x*y with x + 3y <= 9, 4x + y <= 18: x = 45/11, y = 18/11; A gets <4.1 CPU, 16.4 GB>, B <4.9 CPU, 1.6 GB>",
       "mechanism ceei (exact KKT)", "reproduced")
def check_drf_5_2_ceei(ctx):
    a = allocate("ceei", EXAMPLE)
    return Evidence([
        exact("x", "45/11", a.tasks[0]), exact("y", "18/11", a.tasks[1]),
        vector("A bundle", ["4.1", "16.4"], a.bundles[0]), vector("B bundle", ["4.9", "1.6"], a.bundles[1]),
    ])


@claim("drf-5.3-figure4", DRF, "§5.3 and Figure 4",
       "DRF equalises A's memory share and B's CPU share; asset fairness equalises each user's summed shares (the"
       " areas of its rectangles); CEEI clears the market (allocates every resource)",
       "mechanisms drf, asset, ceei on the §4.1 example; bar charts with --out", "reproduced")
def check_drf_5_3_figure4(ctx):
    d = allocate("drf", EXAMPLE).shares
    s = allocate("asset", EXAMPLE).shares
    c = allocate("ceei", EXAMPLE).utilisation
    return Evidence([
        same("DRF: A memory share = B CPU share", "True", d[0][1] == d[1][0]),
        same("asset: equal summed shares", "True", sum(s[0]) == sum(s[1])),
        vector("CEEI utilisation", ["1", "1"], c, "exact"),
    ])


@claim("drf-thm1-asset-si", DRF, "§6.1.1 Theorem 1 (Figure 5)",
       "<30, 30>, D1 = <1, 3>, D2 = <1, 1>: asset fairness gives 6 and 12 tasks, <6, 18> and <12, 12>, each a total of"
       " 24 of the 60 units; user 2 gets less than 1/2 of every resource: sharing incentive violated",
       "mechanism asset; property si", "reproduced")
def check_drf_thm1_asset_si(ctx):
    inst = {"capacities": [30, 30], "demands": [[1, 3], [1, 1]]}
    a = allocate("asset", inst)
    return Evidence([
        exact("user 1 tasks", "6", a.tasks[0]), exact("user 2 tasks", "12", a.tasks[1]),
        vector("user 1 bundle", ["6", "18"], a.bundles[0], "exact"),
        vector("user 2 bundle", ["12", "12"], a.bundles[1], "exact"),
        vector("totals out of 60", ["24/60", "24/60"], [sum(b) / 60 for b in a.bundles], "exact"),
        same("user 2 below 1/2 of every resource", "True", all(x < F(1, 2) for x in a.shares[1])),
        same("sharing incentive", "violated", _verdict("si", "asset", inst)),
    ])


@claim("drf-thm2-asset-bf", DRF, "§6.1.1 Theorem 2",
       "<21, 21>, D1 = <3, 2>, D2 = <4, 1>, resource 1 the bottleneck: asset fairness gives each user 3 tasks, each a"
       " total of 15 (units); user 1 gets only 3/7 of the bottleneck resource: bottleneck fairness violated",
       "mechanism asset; property bf", "reproduced")
def check_drf_thm2_asset_bf(ctx):
    inst = {"capacities": [21, 21], "demands": [[3, 2], [4, 1]]}
    a = allocate("asset", inst)
    return Evidence([
        exact("user 1 tasks", "3", a.tasks[0]), exact("user 2 tasks", "3", a.tasks[1]),
        vector("totals (units)", ["15", "15"], [sum(b) for b in a.bundles], "exact"),
        exact("user 1 share of resource 1", "3/7", a.shares[0][0]),
        same("bottleneck fairness", "violated", _verdict("bf", "asset", inst)),
    ])


@claim("drf-thm3-asset-rm", DRF, "§6.1.1 Theorem 3",
       "<77, 77>, A <4, 2>, B <1, 1>: A gets <44, 22>, B <33, 33>, total shares 66/77; doubling resource 2: A"
       " <42, 21>, B <35, 35>, 42/77 + 21/154 = 35/77 + 35/154 = 105/154: resource monotonicity violated",
       "mechanism asset; property rm", "reproduced")
def check_drf_thm3_asset_rm(ctx):
    inst = {"capacities": [77, 77], "demands": [[4, 2], [1, 1]]}
    a = allocate("asset", inst)
    b = allocate("asset", {"capacities": [77, 154], "demands": [[4, 2], [1, 1]]})
    return Evidence([
        vector("A", ["44", "22"], a.bundles[0], "exact"), vector("B", ["33", "33"], a.bundles[1], "exact"),
        vector("total shares", ["66/77", "66/77"], [sum(s) for s in a.shares], "exact"),
        vector("A doubled", ["42", "21"], b.bundles[0], "exact"),
        vector("B doubled", ["35", "35"], b.bundles[1], "exact"),
        vector("total shares doubled", ["105/154", "105/154"], [sum(s) for s in b.shares], "exact"),
        same("resource monotonicity", "violated", _verdict("rm", "asset", inst)),
    ])


THM4 = {"capacities": [100, 200], "demands": [[16, 1], [1, 2]]}
THM4_LECTURE: dict[str, Any] = {"capacities": [100, 100], "demands": [[16, 1], [1, 2]]}


@claim("drf-thm4-capacity", DRF, "§6.1.2 Theorem 4 (Figure 6)",
       "total resources <100, 200>, demands <16, 1> and <1, 2>: CEEI gives 100/31 and 1500/31 tasks",
       "mechanism ceei on the printed capacities and on <100, 100> (the lecture's)", "erratum")
def check_drf_thm4_capacity(ctx):
    printed = _tasks("ceei", THM4)
    lecture = _tasks("ceei", THM4_LECTURE)
    return Evidence([exact("user 1 tasks", "100/31", printed[0]), exact("user 2 tasks", "1500/31", printed[1])],
                   how=f"with the printed <100, 200> CEEI gives ({', '.join(map(str, printed))}); with <100, 100> it"
                       f" gives ({', '.join(map(str, lecture))}), the printed pair:"
                       " the capacity should read <100, 100>")


@claim("drf-thm4-decimals", DRF, "§6.1.2 Theorem 4",
       "100/31 and 1500/31 tasks, (about 3.2 and 48.8)", "exact values rounded to one decimal", "erratum")
def check_drf_thm4_decimals(ctx):
    t = _tasks("ceei", THM4_LECTURE)
    return Evidence([rounded("100/31", "3.2", t[0]), rounded("1500/31", "48.8", t[1])],
                   how="1500/31 = 48.387...; the lecture prints it correctly as 48.3 (truncated)")


@claim("drf-thm4-misreport", DRF, "§6.1.2 Theorem 4",
       "if user 1 declares <16, 8>, CEEI gives 25/6 and 100/3 tasks (about 4.3 and 33.2)",
       "mechanism ceei with the misreport, on <100, 100> (see drf-thm4-capacity)", "erratum")
def check_drf_thm4_misreport(ctx):
    t = _tasks("ceei", {"capacities": [100, 100], "demands": [[16, 8], [1, 2]]})
    t_printed_caps = _tasks("ceei", {"capacities": [100, 200], "demands": [[16, 8], [1, 2]]})
    return Evidence([exact("user 1 tasks", "25/6", t[0]), exact("user 2 tasks", "100/3", t[1]),
                    rounded("25/6", "4.3", t[0]), rounded("100/3", "33.2", t[1])],
                   how=f"exact pair reproduced on <100, 100> (on the printed <100, 200>: "
                       f"{', '.join(map(str, t_printed_caps))}); the decimals are 4.2 and 33.3")


@claim("drf-thm4-gain", DRF, "§6.1.2 Theorem 4",
       "by lying user 1 raises her tasks from 3.2 to 4.2: CEEI is not strategyproof",
       "true-utility of the misreport bundle; property sp on ceei", "reproduced")
def check_drf_thm4_gain(ctx):
    truth = _tasks("ceei", THM4_LECTURE)
    lie = allocate("ceei", {"capacities": [100, 100], "demands": [[16, 8], [1, 2]]})
    bundle = lie.bundles[0]
    true_utility = min(bundle[r] / THM4_LECTURE["demands"][0][r] for r in range(2))
    return Evidence([rounded("truthful tasks", "3.2", truth[0]), rounded("tasks after lying", "4.2", true_utility),
                    same("strategyproofness of CEEI", "violated", _verdict("sp", "ceei", THM4_LECTURE))])


@claim("drf-thm4-who-loses", DRF, "§6.1.2 Theorem 4",
       "user 1 suffers a loss: its number of tasks drops (用户1的受到了损失，其任务数下降了)",
       "compare both users' tasks truthful vs misreport (ceei, <100, 100>)", "erratum")
def check_drf_thm4_who_loses(ctx):
    truth = _tasks("ceei", THM4_LECTURE)
    lie = _tasks("ceei", {"capacities": [100, 100], "demands": [[16, 8], [1, 2]]})
    losers = [f"user {i + 1}" for i in range(2) if lie[i] < truth[i]]
    return Evidence([same("who loses", "user 1", ", ".join(losers))],
                   how=f"user 2 drops from {truth[1]} to {lie[1]} tasks; user 1 (the liar) gains")


@claim("drf-thm5-ceei-pm", DRF, "§6.1.2 Theorem 5 (Figure 7)",
       "<100, 100>, D1 = <4, 1>, D2 = <1, 16>, D3 = <16, 1>: CEEI gives A1 = <11.3, 5.4, 3.1>; after user 3 leaves"
       " A2 = <23.8, 4.8>: user 2 is worse off (population monotonicity violated)",
       "mechanism ceei (algebraic optimum); property pm", "reproduced")
def check_drf_thm5_ceei_pm(ctx):
    inst = {"capacities": [100, 100], "demands": [[4, 1], [1, 16], [16, 1]]}
    a1 = _tasks("ceei", inst)
    a2 = _tasks("ceei", {"capacities": [100, 100], "demands": [[4, 1], [1, 16]]})
    return Evidence([vector("A1", ["11.3", "5.4", "3.1"], a1), vector("A2", ["23.8", "4.8"], a2),
                    same("user 2 worse after user 3 leaves", "True", a2[1] < a1[1])])


@claim("drf-thm6-family", DRF, "§6.1.3 Theorem 6",
       "A <2, 1>, B <1, 2>, equal amounts of both resources; sharing incentive gives A half of resource 1 and B"
       " half of resource 2, Pareto efficiency gives one of them more, w.l.o.g. A; multiplying resource 2 by 4"
       " then forces A back to half of resource 1: no allocation rule has sharing incentive, Pareto efficiency and"
       " resource monotonicity",
       "fairlab.search.impossibility.check_family on the printed family, read with its w.l.o.g. (base, resource 1 x 4,"
       " resource 2 x 4): UNSAT over all allocations, one positive control per property; the single pair"
       " (base, resource 2 x 4) alone is satisfiable", "reproduced")
def check_drf_thm6_family(ctx):
    base = Instance.build([1, 1], [[2, 1], [1, 2]], users=["A", "B"])
    r1 = Member("r1x4", base.replace(capacities=[4, 1]), "rm")
    r2 = Member("r2x4", base.replace(capacities=[1, 4]), "rm")
    status, info = check_family(Family([Member("base", base), r1, r2]), ["si", "pe", "rm"], indivisible=False)
    controls = info[2] if info else {}
    single, _ = check_family(Family([Member("base", base), r2]), ["si", "pe", "rm"], indivisible=False)
    return Evidence([same("si + pe + rm on the family", "unsat", status),
                    same("each property needed (controls sat)", "True",
                         bool(controls) and all(v == "sat" for v in controls.values())),
                    same("w.l.o.g. needed: the pair (base, resource 2 x 4) alone", "sat",
                         single, "the pair (base, resource 2 x 4) alone is satisfiable: when B is the user who gets"
                                 " more, resource 1 must be the one multiplied, as the w.l.o.g. says")],
                   how=f"unsat core: {', '.join(info[1]) if info else '-'}; `fairlab rediscover` finds the smaller"
                       " family <1, 2>, <2, 1> with a capacity doubled")


@claim("drf-thm7-bound", DRF, "§6.2 Theorem 7",
       "with strictly positive demands and every machine fitting a max-task, the discrete allocation differs from"
       " the continuous one by at most one max-task (any two users)",
       "drf-tasks vs drf on 200 seeded random instances, in dominant shares (the max-task's dominant share as"
       " the bound); the per-resource reading fails (tests/mechanisms/test_drf_tasks.py)", "reproduced")
def check_drf_thm7_bound(ctx):
    rng = np.random.default_rng(7)
    worst = F(0)
    for _ in range(200):
        n, m = int(rng.integers(2, 6)), int(rng.integers(1, 4))
        dem = rng.integers(1, 13, size=(n, m)).tolist()
        mt = [max(row[r] for row in dem) for r in range(m)]
        caps = [int(rng.integers(c, 401)) for c in mt]
        inst = Instance.build(caps, dem)
        disc = allocate("drf-tasks", inst).dominant_shares
        cont = allocate("drf", inst).dominant_shares
        bound = max(F(mt[r]) / caps[r] for r in range(m))
        gap = max(max(abs(d - c) for d, c in zip(disc, cont)), max(disc) - min(disc))
        worst = max(worst, gap / bound)
    return Evidence([same("gap within one max-task on all 200", "True", worst <= 1)],
                   how=f"largest gap / max-task dominant share = {float(worst):.3f}")


@claim("drf-appendix-pm", DRF, "§6.1 Table 2 / Appendix A (DRF satisfies population monotonicity)",
       "DRF is population monotone: when a user leaves, no remaining user's allocation decreases",
       "fairlab.search.prove drf pm at 3 users x 3 resources on the DRF paper's domain as the lab reads it (every "
       "demand positive, no weights, no caps: the preset drf-paper): UNSAT with the four gates", "reproduced",
       slow=True,
       not_checked="sizes other than 3 users x 3 resources; zero demands lie outside the paper's domain (the lab's "
                   "finding there is drf-appendix-pm-zero-demands)")
def check_drf_appendix_pm(ctx):
    proof = prove(get("drf"), "pm", 3, 3, domain="drf-paper")
    return Evidence([same("pm of DRF, positive demands, 3 users x 3 resources", "proved", proof.status)],
                    how=f"UNSAT with positive control ({proof.seconds:.1f} s), on the DRF paper's domain")


PM_ZERO = {"capacities": [1, 1, 2], "demands": [[0, 0, 1], [1, 0, 0], [1, 0, 1]]}


@claim("drf-appendix-pm-zero-demands", DRF, "§6.1 Table 2 / Appendix A, read beyond the paper's domain",
       "DRF is population monotone: when a user leaves, no remaining user's allocation decreases",
       "property pm of drf (progressive filling with zero demands) on a 3-user instance with zero demands, exact",
       "lab-finding",
       reading="population monotonicity of DRF extended to zero demands, outside the DRF paper's domain as the lab "
               "reads it (the preset drf-paper: positive demands; the lecture lists zero demands 'beyond DRF', Parkes, "
               "Procaccia & Shah's extension, which the lab's drf computes): it fails there",
       not_checked="the paper's statement itself is drf-appendix-pm (proved on positive demands at 3 x 3)")
def check_drf_appendix_pm_zero_demands(ctx):
    before = _tasks("drf", PM_ZERO)
    after = _tasks("drf", {"capacities": [1, 1, 2], "demands": [[0, 0, 1], [1, 0, 1]]})
    return Evidence([same("pm of DRF with zero demands", "violated", _verdict("pm", "drf", PM_ZERO)),
                     same("user 1's tasks before / after user 2 leaves", "3/2 / 4/3", f"{before[0]} / {after[0]}")],
                    how="<1, 1, 2>, <0, 0, 1>, <1, 0, 0>, <1, 0, 1>: user 2 leaving drops user 1 from 3/2 to 4/3 "
                        "tasks (exact)")


TABLE2_TEXT = [  # (mechanism, property, as the text states it, users, resources)
    ("drf", "si", "holds", 2, 2), ("drf", "sp", "holds", 2, 2), ("drf", "ef", "holds", 2, 2),
    ("drf", "pe", "holds", 2, 2), ("drf", "srf", "holds", 2, 1), ("drf", "bf", "holds", 2, 2),
    ("drf", "rm", "fails", 2, 2),
    ("ceei", "ef", "holds", 2, 2), ("ceei", "pe", "holds", 2, 2), ("ceei", "sp", "fails", 2, 2),
    ("ceei", "rm", "fails", 2, 2),
]  # asset fairness's three failures are the exact counterexamples of drf-thm1/2/3 (its rm proof search
#    can take minutes in z3, so it is not repeated here)


@claim("drf-table2-properties", DRF, "§6.1 / §6.1.3 / Appendix A, Table 2 (stated in the text; the table is not in"
       " the translation)",
       "DRF has every property except resource monotonicity; CEEI is envy-free and Pareto efficient but not"
       " strategyproof; asset fairness violates sharing incentive, bottleneck fairness and resource monotonicity;"
       " Theorem 6 explains why DRF and CEEI violate resource monotonicity (population monotonicity: see"
       " drf-appendix-pm, drf-thm5-ceei-pm)",
       "fairlab.search.prove(mechanism, property, 2 users, 2 resources (srf: 1 resource)): UNSAT proof with positive"
       " control = holds, exactly confirmed counterexample = fails; DRF on the DRF paper's domain (every demand"
       " positive, no weights, no caps), CEEI on non-negative demands", "reproduced")
def check_drf_table2_properties(ctx):
    items = []
    for mech, prop, printed, n, m in TABLE2_TEXT:
        positive = mech == "drf"  # the paper's theorems about DRF: its own domain (appendix A)
        p = prove(get(mech), prop, n, m, positive_demands=positive, domain="unweighted")
        verdict = {"proved": "holds", "refuted": "fails"}.get(p.status, str(p.status))
        domain = "positive demands" if positive else "non-negative demands"
        items.append(same(f"{mech} {prop} ({n}x{m}, {domain})", printed, verdict))
    return Evidence(items, how="bounded proofs: 2 users x 2 resources, DRF on positive demands (the DRF paper's "
                               "domain); larger sizes with `fairlab prove --domain drf-paper`; every size: entry "
                               "drf-appendix-all-sizes")


@claim("drf-appendix-all-sizes", DRF, "§6.1 Table 2 / Appendix A (DRF's properties, for any number of users and"
       " resources)",
       "DRF is sharing-incentive, envy-free, Pareto efficient and strategyproof, whatever the number of users and"
       " resources (the appendix's setting: every demand positive, no weights)",
       "fairlab.search.prove(drf, property, all_sizes=True, domain='drf-paper'): a proof for every n >= 1 users and"
       " m >= 1 resources (demands > 0, no weights, no caps; sp's misreports inside the domain); each proof's"
       " certificate is in this entry's certificate (all_size_proofs)", "reproduced", slow=True)
def check_drf_appendix_all_sizes(ctx):
    items, proofs = [], {}
    for prop in ("si", "ef", "pe", "sp"):
        p = prove(get("drf"), prop, all_sizes=True, domain="drf-paper")
        proofs[prop] = to_dict(p, versioned=False)
        if p.status != "proved":  # undecided, or resting on a hand lemma: no verdict (never an erratum)
            raise RuntimeError(f"drf {prop} at every size is {p.status}, not proved: {p.explanation}")
        verdict = "holds"
        items.append(same(f"drf {prop} at every size (n >= 1, m >= 1)", "holds", verdict,
                          f"{p.status}: {len(p.details.get('steps', []))} steps, {len(p.details.get('lemmas', []))} "
                          f"induction lemmas, {p.budget.get('rlimit_spent', 0):,} z3 units"))
    return Evidence(items, how="all-size proofs (fairlab prove drf PROPERTY --all-sizes --domain drf-paper): the "
                               "abstraction of DRF on positive demands proved from its spec at every size, the "
                               "property from the abstraction, lemmas by induction; gates and controls passed",
                    attachments={"all_size_proofs": proofs})


@claim("rediscover-statements", DRF, "Theorems 1-6; with Bonald & Roberts §2.3-2.4, PDRF §6.2 and the lecture's"
       " indivisibility bound",
       "the statements behind the printed examples (asset violates si, bf, rm; CEEI violates sp, pm; no mechanism"
       " has si, pe, rm; BMF need not be unique; PF is not strategyproof; the stopping DRF loop is not Pareto"
       " efficient; with indivisible tasks si, pe, sp are incompatible)",
       "fairlab.search.rediscover.run_claim for each claim about a source's own statement, from scratch (no printed"
       " instance given), fixtures not written",
       "reproduced", slow=True,
       not_checked="the claims about the lab's readings (entry rediscover-lab-readings)")
def check_rediscover_statements(ctx):
    return Evidence(_rediscovered([c for c in REDISCOVER_CLAIMS if not c.reading]))


def _rediscovered(statements) -> list[Item]:
    items = []
    for statement in statements:
        outcome = run_claim(statement, seed=0)
        items.append(same(f"{statement.id}: {statement.statement}", "found", outcome.status,
                          f"{outcome.seconds:.1f} s" + (f", instance {outcome.instance}" if outcome.instance else "")))
    return items


@claim("rediscover-lab-readings", DRF, "§6.2 Theorem 7 and the lecture's mechanisms, as the lab reads them",
       "the lab's findings about its readings of the sources: Theorem 7 per user against continuous DRF; "
       "SequentialMinMax's strategyproofness; DRFH's sharing incentive; random dictatorship's ex-ante Pareto "
       "efficiency; the randomized KS mechanism's envy-freeness in the pooled model",
       "fairlab.search.rediscover.run_claim for each claim about a lab's reading, from scratch, fixtures not written",
       "lab-finding", slow=True,
       reading="each claim's own reading (`fairlab rediscover` prints it): the lab's mechanisms and properties for "
               "what the sources only name or state otherwise",
       not_checked="the sources' own statements behind them (other entries: drf-thm7-machines-pairwise, "
                   "lecture-indivisible, lecture-drfh-properties, lecture-ks-lottery)")
def check_rediscover_lab_readings(ctx):
    return Evidence(_rediscovered([c for c in REDISCOVER_CLAIMS if c.reading]))


@claim("drf-7.1-dynamic", DRF, "§7.1, Figure 8",
       "48 nodes of <4 CPU, 14 GB>; job 1 <1 CPU, 10 GB>, job 2 <1 CPU, 1 GB>: both dominant shares exceed 50%"
       " (job 1 about 70% of memory, job 2 about 75% of CPU); then <2, 4> and <1, 3>: both dominant on CPU;"
       " then <1, 7> and <1, 4>: both dominant on memory",
       "fluid DRF on <192 CPU, 672 GB>; dominant resources", "out-of-scope",
       reason="70% and 75% are measurements of a real Mesos cluster over time (fragmentation, task churn);"
              " the ideal fluid DRF shares and the qualitative statements are checked")
def check_drf_7_1_dynamic(ctx):
    caps = [48 * 4, 48 * 14]
    a = allocate("drf", {"capacities": caps, "demands": [[1, 10], [1, 1]]})

    def dominant(d):
        inst = Instance.build(caps, d)
        return ", ".join("CPU" if inst.demand_share(i, 0) >= inst.demand_share(i, 1) else "memory" for i in range(2))

    return Evidence([same("both dominant shares > 50%", "True", all(s > F(1, 2) for s in a.dominant_shares)),
                    same("phase 2 dominant resources", "CPU, CPU", dominant([[2, 4], [1, 3]])),
                    same("phase 3 dominant resources", "memory, memory", dominant([[1, 7], [1, 4]]))],
                   how=f"fluid DRF dominant shares {', '.join(map(str, a.dominant_shares))} (= 74.1%) against the"
                       " measured 70% / 75%")


@claim("drf-7.2-slots", DRF, "§7.2, Figures 9-12",
       "nodes of <8 CPU, 6 GB>; small jobs <1 CPU, 0.5 GB>, large <2 CPU, 2 GB>; 4 large tasks on a node need more"
       " than its 6 GB (swapping); 3 small tasks leave a node under-used",
       "arithmetic of the task sizes", "out-of-scope",
       reason="job counts and response times (Figures 9-12) are measurements on EC2; only the sizing arithmetic"
              " the text gives as the explanation is checked")
def check_drf_7_2_slots(ctx):
    return Evidence([same("4 large tasks exceed 6 GB", "True", 4 * 2 > 6),
                    same("3 small tasks use under half the CPUs", "True", F(3 * 1, 8) < F(1, 2))])


@claim("drf-7.3-facebook", DRF, "§7.3, Figures 13-14",
       "Facebook trace on 400 nodes: DRF improves utilisation; job completion time -3% for small jobs, up to 66%"
       " for large jobs", "none", "out-of-scope",
       reason="trace-driven simulation of a private Facebook trace; no numbers the lab can regenerate")
def check_drf_7_3_facebook(ctx):
    return Evidence([])


# =========================================================================== notes (001)
@claim("notes-maxmin", NOTES, "max-min fairness example",
       "demands 2, 2.6, 4, 5 on capacity 10: source 1 gets 2, source 2 gets 2.6, sources 3 and 4 get 2.7 each",
       "mechanism maxmin (one resource, demands as task caps)", "reproduced")
def check_notes_maxmin(ctx):
    t = _tasks("maxmin", {"capacities": [10], "demands": [[1]] * 4, "max_tasks": ["2", "2.6", "4", "5"]})
    return Evidence([vector("allocation", ["2", "2.6", "2.7", "2.7"], t, "exact")])


@claim("notes-drf-example", NOTES, "An Example",
       "9 CPUs, 18 GB; A <1 CPU, 4 GB>, B <3 CPUs, 1 GB>: A gets <3 CPU, 12 GB>, B <6 CPU, 2 GB>, each 2/3 of its"
       " dominant resource", "mechanism drf", "reproduced")
def check_notes_drf_example(ctx):
    a = allocate("drf", EXAMPLE)
    return Evidence([vector("A", ["3", "12"], a.bundles[0], "exact"), vector("B", ["6", "2"], a.bundles[1], "exact"),
                    vector("dominant shares", ["2/3", "2/3"], a.dominant_shares, "exact")])


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


# =========================================================================== PDRF (002)
def _subcycles(trace, star):
    """Counts of the other user's launches between consecutive launches of `star` (trace split at star)."""
    out, current = [], None
    for who in trace:
        if who == star:
            if current is not None:
                out.append(current)
            current = 0
        elif current is not None:
            current += 1
    return out


@claim("pdrf-3.3-cycle-example", PDRF, "§3.3",
       "on the DRF example B (ds* = 1/3) takes the first iteration and two iterations of A (ds = 2/9) complete the"
       " cycle; ds* is an integer multiple of the other ds, with the ratio 2/1; one more iteration of the cycle"
       " exhausts the CPU",
       "drf-tasks trace (tie=paper); ds from the instance", "erratum")
def check_pdrf_3_3_cycle_example(ctx):
    inst = Instance.from_dict(EXAMPLE)
    trace = allocate("drf-tasks", inst, trace=True).extra["trace"]
    ds = [inst.dominant_share_per_task(i) for i in range(2)]
    return Evidence([exact("ds B", "1/3", ds[1]), exact("ds A", "2/9", ds[0]),
                    same("first cycle", "B, A, A", ", ".join(trace[:3])),
                    exact("ds* / ds_A", "2", ds[1] / ds[0])],
                   how=f"ds*/ds_A = 3/2, not an integer; the loop launches {', '.join(trace)}: the second 'cycle'"
                       " is cut short (B, A); by the §3.3 lcm formula the cycle is B, A, A, B, A (length 5)")


@claim("pdrf-3.3-subcycles", PDRF, "§3.3",
       "ratio 1.25: basic subcycle 1 + 1 and every 4th subcycle one more for the lower dominant share (the first"
       " always has the extra); ratio 1.4: after the first, extra occurrences every 2nd and then 3rd subcycle",
       "drf-tasks trace on one resource with demands 5, 4 (ratio 5/4) and 7, 5 (ratio 7/5)", "reproduced")
def check_pdrf_3_3_subcycles(ctx):
    def gaps(caps, dem):
        trace = allocate("drf-tasks", {"capacities": caps, "demands": dem}, trace=True).extra["trace"]
        counts = _subcycles(trace, "u1")
        extra = [k for k, c in enumerate(counts) if c == 2]
        return counts, [b - a for a, b in zip(extra, extra[1:])][:6]

    c125, g125 = gaps([500], [[5], [4]])
    c14, g14 = gaps([700], [[7], [5]])
    return Evidence([same("ratio 1.25: first subcycle has the extra", "True", c125[0] == 2),
                    same("ratio 1.25: extra every 4th", "4, 4, 4, 4, 4, 4", ", ".join(map(str, g125))),
                    same("ratio 1.4: first subcycle has the extra", "True", c14[0] == 2),
                    same("ratio 1.4: gaps alternate 2 and 3", "2, 3, 2, 3, 2, 3", ", ".join(map(str, g14)))])


@claim("pdrf-6.1-cycle", PDRF, "§6.1 higher order cycles",
       "one resource of 35, demands A 2, B 4, C 10: one cycle iteration is 1 for C, 2 for B, 4 for A and consumes"
       " 2·4 + 4·2 + 10·1 = 26; 9 units are left; without C a secondary cycle B 1, A 2 consumes 8 and takes one turn",
       "§3.3 basic subcycle floor(ds*/ds_i) and mechanism pdrf; drf-tasks for the loop", "erratum")
def check_pdrf_6_1_cycle(ctx):
    inst = Instance.build([35], [[2], [4], [10]], users=["A", "B", "C"])
    ds = [inst.dominant_share_per_task(i) for i in range(3)]
    star = max(ds)
    per_cycle = [int(star / d) for d in ds]
    used = sum(k * inst.demands[i][0] for i, k in enumerate(per_cycle))
    left = inst.capacities[0] - used
    sec = [int(ds[1] / ds[0]), 1]  # A, B with B's ds the new ds*
    sec_used = sec[0] * 2 + sec[1] * 4
    pdrf = _tasks("pdrf", inst)
    loop = _tasks("drf-tasks", inst)
    return Evidence([vector("per cycle (A, B, C)", ["4", "2", "1"], per_cycle, "exact"),
                    exact("consumed", "26", used), exact("left", "9", left),
                    exact("secondary cycle consumes", "8", sec_used),
                    same("secondary cycle takes a turn", "True", sec_used <= left)],
                   how=f"ds*/ds_A = 10/2 = 5, so A runs 5 times per cycle"
                       f" (PDRF itself gives {', '.join(map(str, pdrf))});"
                       f" the cycle uses 28 leaving 7, too little for the secondary cycle; the DRF loop ends at"
                       f" {', '.join(map(str, loop))}")


PARETO: dict[str, Any] = {"capacities": [59, 19], "demands": [[1, 4], [3, 1]], "users": ["A", "B"]}


@claim("pdrf-6.2-pareto", PDRF, "§6.2 Pareto efficiency",
       "A <1, 4>, B <3, 1>, capacities <59, 19>: after 10 iterations the loop halts with A <2, 8>, B <24, 8> and"
       " <33, 3> still available, enough for 3 more tasks of B",
       "drf-tasks (on_blocked=stop, as printed in Algorithm 1) and on_blocked=skip", "reproduced")
def check_pdrf_6_2_pareto(ctx):
    a = allocate("drf-tasks", PARETO, trace=True)
    more = min(a.extra["unused"][r] // PARETO["demands"][1][r] for r in range(2))
    skip = _tasks("drf-tasks", PARETO, on_blocked="skip")
    return Evidence([exact("iterations", "10", len(a.extra["trace"])),
                    vector("A", ["2", "8"], a.bundles[0], "exact"), vector("B", ["24", "8"], a.bundles[1], "exact"),
                    vector("left", ["33", "3"], a.extra["unused"], "exact"), exact("more tasks for B", "3", more)],
                   how=f"with skip (the fix) B gets {skip[1]} tasks")


def _table_rows(ctx: Context, table: int):
    """{demands: (printed row, our aggregated row, our per-run stats)} for one PDRF table, seeded."""
    def compute():
        pub = next(t for t in stats.published()["tables"] if t["table"] == table)
        rows = {}
        for row in pub["rows"]:
            config = stats.Config(pub["users"], pub["resources"], tuple(row["demands"]), tuple(pub["reserves"]),
                                  ctx.runs)
            per_run = [r for k in range(stats.chunks(config)) for r in stats.chunk_stats(config, k)]
            rows[tuple(row["demands"])] = (row, stats.aggregate(per_run), per_run)
        return rows

    return ctx.once(f"pdrf-table{table}", compute)


def _column(per_run, kind: str, col: str) -> list[int]:
    """Per-run values of one table column (`pdrf_tables.run_stats` layout)."""
    base = 0 if kind == "under" else 4
    if col == "avg":
        return [sum(run[base:base + 3]) for run in per_run]
    return [run[base + {"1": 0, "2": 1, ">2": 2}[col]] for run in per_run]


def _row_items(ctx, printed, ours, per_run, label):
    """Every mean column judged statistically (difference of two means of `runs` runs each; the paper's
    unknown variance taken as max(our variance, its printed mean), the Poisson value for rare counts),
    the maxima shown side by side."""
    items = []
    for kind in ("under", "over"):
        for col in ("1", "2", ">2", "avg"):
            values = _column(per_run, kind, col)
            n = len(values)
            mean = F(sum(values), n)
            var = F(sum(v * v for v in values), n) - mean * mean
            theirs = F(str(printed[kind][col]))
            var_paper = max(var, theirs)
            se = float((var + var_paper) / n) ** 0.5
            diff = abs(float(theirs - mean))
            ok = diff <= 4 * se if se > 0 else diff == 0
            items.append(Item(f"{label} {kind} {col}", f"{printed[kind][col]:g}", f"{float(mean):.3f}", ok,
                              f"|diff| = {diff:.3f}, 4 SE = {4 * se:.3f}"))
        items[-1].note += f"; maximum: ours {ours[kind]['max']} vs paper {printed[kind]['max']} (not judged)"
    return items


@claim("pdrf-table1", PDRF, "§4 Table 1 (1000 users, 10 resources, reserves 50000-100000, 1000 runs)",
       "average numbers of users under-/over-allocated by PDRF vs the DRF loop per demand interval (1-10: 477.623 /"
       " 0.694, 1-20: 474.932 / 0.192, 10-20: 486.521 / 0), transcribed in paper_checks/pdrf_tables_published.json",
       "fairlab.paper_checks.pdrf_tables, seeded, same configuration; every mean column (1, 2, >2 tasks, Avg.) within 4"
       " standard errors of the difference of two independent means", "reproduced", slow=True)
def check_pdrf_table1(ctx):
    items = []
    for demands, (printed, ours, per_run) in _table_rows(ctx, 1).items():
        items += _row_items(ctx, printed, ours, per_run, f"{demands[0]}-{demands[1]}")
    return Evidence(items, how=f"{ctx.runs} seeded runs per row")


@claim("pdrf-table2-1-100", PDRF, "§4 Table 2 row 1-100 (1000 users, 2 resources)",
       "under-allocated 423.517 on average; over-allocated 50.407 on average",
       "fairlab.paper_checks.pdrf_tables, seeded, same configuration", "erratum", slow=True)
def check_pdrf_table2_1_100(ctx):
    printed, ours, per_run = _table_rows(ctx, 2)[(1, 100)]
    return Evidence(_row_items(ctx, printed, ours, per_run, "1-100"),
                   how=f"{ctx.runs} seeded runs: the over-allocation average agrees but not its split into 1, 2, >2"
                       " tasks, and the under-allocation mean is several standard errors above the printed 423.517"
                       " (sampler variants 1-99 and 0-100 and loop variants skip and tie=index did not close the gap"
                       " when tried); recorded as not reproduced")


@claim("pdrf-table2-1-1000", PDRF, "§4 Table 2 row 1-1000 (1000 users, 2 resources)",
       "under-allocated 407.902 on average, over-allocated 83.959",
       "fairlab.paper_checks.pdrf_tables, seeded, same configuration", "erratum", slow=True)
def check_pdrf_table2_1_1000(ctx):
    printed, ours, per_run = _table_rows(ctx, 2)[(1, 1000)]
    return Evidence(_row_items(ctx, printed, ours, per_run, "1-1000"),
                   how="with demands up to 1000 on reserves 50000-100000 the DRF loop launches only tens of tasks per"
                       " run, so about 408 under-allocated users out of 1000 cannot come from the printed"
                       " configuration")


@claim("pdrf-table2-sums", PDRF, "§4 Table 2 (printed columns)",
       "over-allocations, 1-100: 1 task 44.689, 2 tasks 5.588, >2 tasks 0.48, Avg. 50.407; 1-1000: 56.541, 14.519,"
       " 12.989, Avg. 83.959",
       "Avg. must equal the sum of the three columns (they count disjoint sets of users)", "erratum")
def check_pdrf_table2_sums(ctx):
    rows = {tuple(r["demands"]): r for t in stats.published()["tables"] if t["table"] == 2 for r in t["rows"]}

    def total(d):
        o = rows[d]["over"]
        return F(str(o["1"])) + F(str(o["2"])) + F(str(o[">2"]))

    return Evidence([rounded("1-100 over Avg.", "50.407", total((1, 100))),
                    rounded("1-1000 over Avg.", "83.959", total((1, 1000)))],
                   how="sums of the printed columns")


@claim("pdrf-4-text", PDRF, "§4 text",
       "on average 47.7% (μ = 477.623, n = 1000) of the users are under-allocated 1 task, standard deviation"
       " σ = 86,373; 1-20: μ = 474.932, σ = 38.381; 10-20: μ = 486.521, σ = 50.526",
       "the text against Table 1's transcription", "erratum")
def check_pdrf_4_text(ctx):
    t1 = next(t for t in stats.published()["tables"] if t["table"] == 1)
    rows = {tuple(r["demands"]): r for r in t1["rows"]}
    return Evidence([rounded("47.7%", "47.7", F(str(rows[(1, 10)]["under"]["avg"])) / 10),
                    same("σ (1-10)", "86,373", f"{rows[(1, 10)]['under']['sd']}"),
                    same("σ (1-20)", "38.381", f"{rows[(1, 20)]['under']['sd']}")],
                   how="the table prints 86.373: the text's comma is a decimal-separator typo")
