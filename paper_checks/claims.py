"""The ledger's claims as data, each with a named check: the claim transcribed from its source
(`fairlab.paper_checks.ledger.claim`) and the function ``check_<id>`` that checks it with the lab.

Order: DRF paper (translation), notes; the lecture's claims follow in `claims_lecture_slides`,
the Bonald & Roberts ones in `claims_bonald_roberts`, the PDRF ones in `claims_pdrf` (the shared
helpers `EXAMPLE`, `allocate`, `CLAIM_RLIMIT` stay here). Printed numbers are copied as printed
(strings); every computed value comes from the lab when the entry runs.
"""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import numpy as np

from fairlab import mechanisms, properties
from fairlab.core.errors import InexactAllocation
from fairlab.core.instance import Instance
from fairlab.core.results import to_dict
from fairlab.mechanisms import get
from fairlab.paper_checks.ledger import (
    DRF,
    NOTES,
    Evidence,
    Item,
    claim,
    exact,
    rounded,
    same,
    vector,
)
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
        if p.status not in ("proved", "refuted"):  # undecided within its budget: no verdict, never an erratum
            raise RuntimeError(f"{mech} {prop} at {n}x{m} is {p.status}, neither proved nor refuted: {p.explanation}")
        verdict = {"proved": "holds", "refuted": "fails"}[p.status]
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
