"""Ledger claims about the mechanisms the lecture's "Beyond DRF" slides cite.

Registered on import (`fairlab.paper_checks` imports this module after `claims_machines`). The
lecture ("Beyond DRF") names the mechanisms; their definitions come from reading notes rated medium or
low confidence, so every mechanism checked here is the lab's reading (its module says which), and each
entry is a lab finding about that reading (`fairlab.paper_checks.ledger.WORDING`), naming the reading,
what the paper claims and what the lab does not check. Each mechanism is judged in its own paper's
valuation model (ks-lottery and random dictatorship: Friedman, Ghodsi & Psomas's containers; DRFH:
pooled), or the item says whose. The instances below were found by the lab (`fairlab rediscover`,
`fairlab audit`), not transcribed — except the Best-Fit DRFH example, which the reading notes recall
from Wang, Li & Liang's paper.
"""

from __future__ import annotations

import random

from fairlab import properties
from fairlab.core.instance import Instance
from fairlab.mechanisms import allocate
from fairlab.paper_checks.ledger import LECTURE, Evidence, claim, same

#: the instance `fairlab rediscover --claim sequential-minmax-sp` finds (shipped fixture fa549ecd814e76d3)
SMM_SP = {"capacities": [1], "demands": [[1], [1]], "users": ["A", "B"]}


def _verdict(prop, mech, inst):
    return properties.check(mech, prop, inst).status.value


def _seeded_pool_instances(count: int, seed: int = 30):
    rng = random.Random(seed)
    for _ in range(count):
        n, m = rng.randint(2, 3), rng.randint(1, 2)
        yield Instance.build([rng.randint(1, 9) for _ in range(m)],
                             [[rng.randint(1, 4) for _ in range(m)] for _ in range(n)])


@claim("lecture-sequential-minmax", LECTURE, "BEYOND DRF / INDIVISIBLE TASKS: A LOWER BOUND",
       "under indivisibilities you can't have efficiency, truthfulness and proportionality at the same time "
       "[Parkes, Procaccia, Shah 2012] — applied to their SequentialMinMax (lab's reading: one task at a time to "
       "the user whose dominant share after it is smallest, among users whose next task fits)",
       "mechanism sequential-minmax on the instance the lab finds (<1>, A <1>, B <1>; B declares <1/2>): sp "
       "violated, pe and si hold there; pe on 40 seeded random whole-task instances (2-3 users, 1-2 resources)",
       "lab-finding",
       reading="SequentialMinMax as the reading notes give it [M/L] (one task at a time to the user whose dominant "
               "share after it is smallest, among users whose next task fits), strategyproofness by the lab's "
               "misreport rule with whole tasks in one pool: this mechanism gives up sp; that does not reproduce "
               "the impossibility, a statement about every mechanism (checked in lecture-indivisible)",
       paper_claims="Parkes, Procaccia & Shah (EC 2012): with indivisible tasks no mechanism is Pareto efficient, "
                    "strategyproof and proportional at once; SequentialMinMax keeps relaxed properties, among them a "
                    "new relaxed notion of fairness [reading notes: M/L]",
       not_checked="the paper's relaxed fairness notion and which relaxed properties SequentialMinMax keeps; the "
                   "impossibility over all mechanisms is lecture-indivisible's, not this entry's")
def check_lecture_sequential_minmax(ctx):
    truthful = allocate("sequential-minmax", SMM_SP).tasks
    lie = allocate("sequential-minmax", {**SMM_SP, "demands": [[1], ["1/2"]]}).tasks
    pe = [_verdict("pe", "sequential-minmax", inst) for inst in _seeded_pool_instances(40)]
    return Evidence([same("sp of sequential-minmax (the property it gives up)", "violated",
                          _verdict("sp", "sequential-minmax", SMM_SP)),
                     same("pe there", "holds", _verdict("pe", "sequential-minmax", SMM_SP)),
                     same("si there", "holds", _verdict("si", "sequential-minmax", SMM_SP)),
                     same("tasks truthful / B declaring <1/2>", "(1, 0) / (0, 2)",
                          f"({truthful[0]}, {truthful[1]}) / ({lie[0]}, {lie[1]})"),
                     same("pe violations on 40 seeded instances", "0", pe.count("violated"))],
                    how="exact checks (Fractions); B's two declared half-tasks are the whole resource, one real task")


# --------------------------------------------------------------------------- DRFH (reading notes)
#: the instance `fairlab audit drfh -n 2 -m 2` and `fairlab rediscover --claim drfh-si` find (fixture 3731787cb9d97766)
DRFH_SI = {"machines": [[2, 1], [4, 6]], "demands": [[3, 3], [2, 3]], "users": ["A", "B"]}


def _seeded_machines_instances(count: int, seed: int = 30):
    rng = random.Random(seed)
    for _ in range(count):
        n, m, k = rng.randint(2, 3), rng.randint(1, 2), rng.randint(1, 2)
        yield Instance.build(demands=[[rng.randint(1, 4) for _ in range(m)] for _ in range(n)],
                             machines=[[rng.randint(1, 8) for _ in range(m)] for _ in range(k)])


@claim("lecture-drfh-properties", LECTURE, "BEYOND DRF (multiple machines); DRFH from the reading notes",
       "DRFH (Wang, Li & Liang, INFOCOM 2014; abstract, cited by the notes beside the lecture's multiple machines) "
       "is envy-free, Pareto optimal and truthful; sharing incentive is not claimed",
       "mechanism drfh (lab's reading: leximin of global dominant shares, tasks divisible within a server) with "
       "machines-ef, machines-pe (exact), machines-sp (a misreport search) on 12 seeded instances (2-3 users, 1-2 "
       "resources, 1-2 servers), in DRFH's pooled valuation model; machines-si on the instance the audit finds",
       "lab-finding",
       reading="DRFH as the reading notes give it [M]: the leximin of global dominant shares, tasks divisible within "
               "a server, valued pooled per server; no ef or pe violation and no profitable misreport found on the "
               "seeded instances, and sharing incentive (1/n of every server; not claimed by the abstract) fails: "
               "servers <2, 1>, <4, 6>, A <3, 3>, B <2, 3>, B runs 35/32 tasks, half of every server runs 7/6",
       paper_claims="Wang, Li & Liang (INFOCOM 2014), abstract [read]: DRFH is envy-free, Pareto optimal and truthful, "
                    "and Best-Fit DRFH implements it in practice; the journal version (TPDS) [read, abstract] adds "
                    "group strategyproofness (no coalition gains by lying) and some level of service isolation",
       not_checked="service isolation (the lab has no such property); group strategyproofness; proofs over every "
                   "instance (ef and pe are exact checks of 12 instances, sp a misreport search); the paper's own "
                   "definitions (abstract only)")
def check_lecture_drfh_properties(ctx):
    verdicts: dict[str, list] = {p: [] for p in ("machines-ef", "machines-pe", "machines-sp")}
    for inst in _seeded_machines_instances(12):
        for prop, found in verdicts.items():
            found.append(_verdict(prop, "drfh", inst))
    tasks = allocate("drfh", DRFH_SI).tasks
    si = _verdict("machines-si", "drfh", DRFH_SI)
    return Evidence([same(f"{prop} violations on 12 seeded instances", "0", found.count("violated"))
                     for prop, found in verdicts.items()]
                    + [same("machines-si on the audit's instance", "violated", si),
                       same("B's tasks there", "35/32", str(tasks[1]))],
                    how="exact checks (Fractions; machines-pe by z3 linear real arithmetic on each instance)")


#: Wang, Li & Liang's motivating example as the reading notes recall it [M]: servers <2 CPU, 12 GB>, <12 CPU, 2 GB>
BESTFIT = {"machines": [[2, 12], [12, 2]], "demands": [["0.2", 1], [1, "0.2"]], "users": ["A", "B"],
           "resources": ["CPU", "GB"]}


@claim("lecture-drfh-bestfit-example", LECTURE, "BEYOND DRF (multiple machines); Best-Fit DRFH from the reading notes",
       "Best-Fit DRFH (Wang, Li & Liang, INFOCOM 2014) places each task on the server whose free resources best "
       "match the task's shape; on servers <2 CPU, 12 GB> and <12 CPU, 2 GB> with users <0.2, 1> and <1, 0.2> each "
       "user runs on the server of its shape, 10 tasks each, as DRFH",
       "mechanisms drfh-bestfit (the shape rule H = ||D_i/D_i1 - c_l/c_l1||_1), drfh, and beside them "
       "drfh-bestfit-amounts (the lab's variant: closest normalised amounts) and drfh-firstfit, exact",
       "lab-finding",
       reading="Best-Fit DRFH by the fitness rule as the corrected reading notes give it [M] (lowest global dominant "
               "share first, one task on the feasible server minimising H, ties by index), on the example as the "
               "notes recall it (the paper itself was not read): 10 and 10 tasks, each user on one server, as "
               "DRFH; the amounts rule and First-Fit give 6 and 6",
       paper_claims="Wang, Li & Liang (INFOCOM 2014), abstract [read]: Best-Fit DRFH implements DRFH in practice "
                    "(DRFH envy-free, Pareto optimal and truthful)",
       not_checked="the paper's own figures and its trace-driven simulation; Best-Fit's properties beyond this "
                   "example (`fairlab audit drfh-bestfit` decides them at small sizes)")
def check_lecture_drfh_bestfit_example(ctx):
    best, drfh = allocate("drfh-bestfit", BESTFIT), allocate("drfh", BESTFIT)
    amounts, first = allocate("drfh-bestfit-amounts", BESTFIT), allocate("drfh-firstfit", BESTFIT)

    def rows(a):
        return "; ".join(", ".join(str(x) for x in row) for row in a.placement)

    return Evidence([same("Best-Fit tasks (A, B)", "(10, 10)", "({}, {})".format(*best.tasks)),
                     same("Best-Fit placement (A; B over the two servers)", "10, 0; 0, 10", rows(best)),
                     same("DRFH tasks (A, B)", "(10, 10)", "({}, {})".format(*drfh.tasks)),
                     same("the lab's amounts variant: tasks, placement", "(6, 6) 5, 1; 1, 5",
                          "({}, {}) {}".format(*amounts.tasks, rows(amounts))),
                     same("First-Fit tasks (A, B)", "(6, 6)", "({}, {})".format(*first.tasks))],
                    how="exact (Fractions: 0.2 is 1/5); H compares shapes: A's (1, 5) against the first server's "
                        "free (1, 6), H = 1, and the second's (1, 1/6), H = 29/6")


# --------------------------------------------------------------------------- controlled disruptions
@claim("lecture-controlled-disruptions", LECTURE, "BACK TO THE DRAWING BOARD: DYNAMIC FAIR DIVISION",
       "when an agent arrives we can take resources from a fixed number of agents [Friedman, Psomas, Vardi 2015, "
       "2017]; optimise the fairness ratio min_t min_i u_i^t / ideal_t",
       "mechanism controlled-drf (lab's reading: the newcomer shares with the d present agents of largest share; a "
       "departure refills the d smallest) and search.fairness_ratio.worst_ratio over every arrival/departure "
       "sequence of up to 3 agents, one resource", "lab-finding",
       reading="controlled-drf, the lab's own bounded-disruption rule (not the papers' optimal mechanisms, which "
               "could not be read): at most d agents change per event, d = all gives drf-rerun (ratio 1), and its "
               "worst ratio rises with d (d = 0: 0, nothing reserved; d = 1: 1/2; d = all: 1)",
       paper_claims="Friedman, Psomas & Vardi (EC 2015, EC 2017), abstracts [read]: the optimal fairness ratio an "
                    "online mechanism can guarantee with d disruptions per arrival, via harmonic allocations, some "
                    "also Pareto efficient; fewer than one disruption per arrival in EC 2017",
       not_checked="the papers' optimal ratios and mechanisms (controlled-drf's ratios are not the papers' optimum)")
def check_lecture_controlled_disruptions(ctx):
    from fairlab.search.fairness_ratio import family, worst_ratio

    ratios = {d: worst_ratio("controlled-drf", 3, options={"d": d})["ratio"] for d in (0, 1, "all")}
    bounded = all(len(changed) <= 1 for inst in family(3)
                  for changed in allocate("controlled-drf", inst, d=1).extra["disrupted"])
    rerun = all([s.tasks for s in allocate("controlled-drf", inst, d="all").steps or ()]
                == [s.tasks for s in allocate("drf-rerun", inst).steps or ()] for inst in family(3))
    return Evidence([same("d = 1 changes at most one agent per event (every sequence)", "True", bounded),
                     same("d = all equals drf-rerun (every sequence, one resource)", "True", rerun),
                     same("worst ratio rises with d (0 < 1 < all)", "True", ratios[0] < ratios[1] < ratios["all"])],
                    how="worst ratios " + ", ".join(f"d={d}: {r}" for d, r in ratios.items()))


# --------------------------------------------------------------------------- randomized KS on machines
#: one machine <4>, A <1>, B <3>: ks-lottery 3/7 (4, 0) + 4/7 (1, 1) (tests/mechanisms/test_ks_lottery.py, by hand)
KS_HAND = {"machines": [[4]], "demands": [[1], [3]], "users": ["A", "B"]}
#: the instance `fairlab rediscover --claim ks-lottery-ef` finds in the lab's pooled reading: one machine, so each
#: maximal task vector is one placement, and no lottery reaching the leximin (3/7, 3/7, 3/7 of 1, 2, 3 tasks) is
#: envy-free ex ante when C's containers are pooled (A values C's two tasks, 4 units, at one task of its own);
#: container by container A's <4> and B's <3> fit in none of C's <2>: envy-free ex ante in FGP's model
KS_EF = {"machines": [[7]], "demands": [[4], [3], [2]], "users": ["A", "B", "C"]}
#: the instance `fairlab audit random-dictatorship -n 2 -m 1` and `fairlab rediscover --claim
#: random-dictatorship-pe` find: dictatorships (2, 0) or (0, 3), expected (1, 3/2), dominated by (1, 2)
RD_PE = {"machines": [[7]], "demands": [[3], [2]], "users": ["A", "B"]}


@claim("lecture-ks-lottery", LECTURE, "BEYOND DRF / MULTIPLE MACHINES",
       "under-reporting gives zero utility; there exists a randomized mechanism (extension of the Kalai-Smorodinsky "
       "interpretation) that satisfies all the properties (ex-ante) [Friedman, Ghodsi, Psomas 2014]",
       "mechanism ks-lottery (lab's reading: the lottery over integral placements maximising t with E[u_i] >= t u_i*, "
       "then leximin) in FGP's containers model, on 12 seeded instances (2-3 users, 1-2 resources, 1-2 machines): "
       "machines-si, machines-ef (also with lottery=any), machines-pe ex ante (exact), machines-sp (40 over-reports "
       "each, expected real tasks); the ex-post side on the hand instance; and the pooled reading's envy on the "
       "instance the lab finds", "lab-finding",
       reading="ks-lottery, the lab's reading [L] of the randomized Kalai-Smorodinsky mechanism, judged in Friedman, "
               "Ghodsi & Psomas's containers model as the lab reads it [read: containers; one task per container, "
               "a misreport's containers running one real task each when it fits: the lab's]: no ex-ante violation "
               "of si, ef or pe and no profitable over-report found, t >= 1/n; ex post the properties fail; in the "
               "lab's pooled reading (another user's bundle pooled per machine, not the paper's model) it is not "
               "envy-free ex ante: one machine <7>, A <4>, B <3>, C <2>",
       paper_claims="Friedman, Ghodsi & Psomas (EC 2014), abstract [read]: containers isolate jobs; a weighted max-min "
                    "over the convex hull of the feasible region gives an ex-ante fair, efficient and strategyproof "
                    "randomized allocation; the lecture: under-reporting gives zero utility",
       not_checked="the paper's own mechanism and theorems (not readable: ks-lottery is the lab's reading of "
                   "low-confidence notes); which properties 'fair' and 'all' cover; which misreports the paper's "
                   "truthfulness ranges over; strategyproofness for every misreport (a search of over-reports, not a "
                   "proof); instances beyond the seeded ones")
def check_lecture_ks_lottery(ctx):
    instances = list(_seeded_machines_instances(12))
    found: dict[str, list] = {p: [] for p in ("machines-si", "machines-ef", "machines-pe", "machines-sp")}
    any_ef = []
    for inst in instances:
        for prop, verdicts in found.items():
            budget = {"evaluations": 40} if prop == "machines-sp" else {}
            verdicts.append(properties.check("ks-lottery", prop, inst, **budget).status.value)
        any_ef.append(properties.check("ks-lottery", "machines-ef", inst, options={"lottery": "any"}).status.value)
    levels = [min(v for v, u in zip(a.extra["normalised_levels"], a.extra["ideal"]) if u) * inst.n
              for inst in instances for a in [allocate("ks-lottery", inst)] if any(a.extra["ideal"])]
    si = properties.check("ks-lottery", "machines-si", KS_HAND)
    post = si.details.get("ex_post")
    own = properties.check("ks-lottery", "machines-ef", KS_EF)
    pooled = properties.check("ks-lottery", "machines-ef", KS_EF, options={"model": "pooled"})
    envy = allocate("ks-lottery", KS_EF, model="pooled")
    return Evidence([same(f"{prop} ex-ante violations on 12 seeded instances (containers model)", "0",
                          v.count("violated")) for prop, v in found.items()]
                    + [same("machines-sp decided (none-found) on every instance", "12", found["machines-sp"].count(
                        "none-found")),
                       same("machines-ef with lottery=any (no envy-free refinement): violations", "0",
                            any_ef.count("violated")),
                       same("t >= 1/n on every instance", "True", all(x >= 1 for x in levels)),
                       same("hand instance: si ex ante / ex post (outcome, probability)", "holds / (1, 4/7)",
                            f"{si.status.value} / ({None if post is None else post.outcome}, "
                            f"{None if post is None else post.probability})"),
                       same("<7>; A <4>, B <3>, C <2>: ef ex ante, containers model (the paper's)",
                            "holds / containers",
                            f"{own.status.value} / {own.details['model']['name']}"),
                       same("... in the lab's pooled reading (model=pooled)", "violated / pooled",
                            f"{pooled.status.value} / {pooled.details['model']['name']}"),
                       same("... and pooled, no lottery reaching the leximin is envy-free ex ante", "True",
                            any(n.startswith("no lottery reaching the leximin is envy-free") for n in envy.notes))],
                    how="exact LPs (Fractions, certified HiGHS bases) over the Pareto-maximal task vectors; sp by a "
                        "deterministic misreport search; each verdict records its valuation model")


@claim("lecture-random-dictatorship", LECTURE, "BEYOND DRF / MULTIPLE MACHINES (reading notes on Friedman, Ghodsi & "
       "Psomas 2014)",
       "uniform random dictatorship already gives t >= 1/n, hence ex-ante proportionality (reading notes; the "
       "comparator of the randomized KS mechanism)",
       "mechanism random-dictatorship (lab's reading: each dictator in a uniformly random order takes the most tasks "
       "it can, earlier dictators keeping their counts) on the 12 seeded instances: E[u_i] >= u_i*/n exactly; its "
       "profile beside ks-lottery: machines-pe ex ante on the instance the lab finds", "lab-finding",
       reading="random dictatorship on machines as the lab reads it (each dictator in a uniformly random order takes "
               "the most tasks it can, earlier dictators keeping their counts): the reading notes' remark t >= 1/n "
               "holds on the seeded instances — the notes' own arithmetic, not a statement of the lecture or of "
               "Friedman, Ghodsi & Psomas — and it is not Pareto efficient ex ante, though every outcome is ex post",
       paper_claims="none printed: the reading notes [L] say uniform random dictatorship gives t >= 1/n, hence ex-ante "
                    "proportionality, as a baseline for the randomized KS mechanism of Friedman, Ghodsi & Psomas",
       not_checked="anything Friedman, Ghodsi & Psomas state about random dictatorship (not readable); instances "
                   "beyond the seeded ones")
def check_lecture_random_dictatorship(ctx):
    from fairlab.mechanisms._placements import solo

    short = 0
    for inst in _seeded_machines_instances(12):
        tasks = allocate("random-dictatorship", inst).tasks
        short += sum(1 for i in range(inst.n) if tasks[i] * inst.n < solo(inst, i))
    rd = properties.check("random-dictatorship", "machines-pe", RD_PE)
    ks = properties.check("ks-lottery", "machines-pe", RD_PE)
    return Evidence([same("users below u_i*/n in expectation (12 seeded instances)", "0", short),
                     same("random dictatorship pe ex ante (<7>; A <3>, B <2>)", "violated", rd.status.value),
                     same("every outcome pe ex post there", "True", "ex_post" not in rd.details),
                     same("ks-lottery pe ex ante there", "holds", ks.status.value),
                     same("random dictatorship expected tasks there", "(1, 3/2)",
                          "({}, {})".format(*allocate("random-dictatorship", RD_PE).tasks))],
                    how="exact (Fractions): n! orders, probability 1/n! each; machines-pe ex ante by an exact LP "
                        "over the lotteries of integral placements")
