"""Ledger claims about the mechanisms the lecture's "Beyond DRF" slides cite.

Registered on import (`fairlab.paper_checks` imports this module after `claims_machines`). The
lecture ("Beyond DRF") names the mechanisms; their definitions come from reading notes rated medium or
low confidence, so every mechanism checked here is the lab's reading (its module says which). The
instances below were found by the lab (`fairlab rediscover`, `fairlab audit`), not transcribed.
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
       "reproduced")
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
       "DRFH (Wang, Liang & Li, INFOCOM 2014; abstract, cited by the notes beside the lecture's multiple machines) "
       "is envy-free, Pareto optimal and truthful; sharing incentive is not claimed",
       "mechanism drfh (lab's reading: leximin of global dominant shares, tasks divisible within a server) with "
       "machines-ef, machines-pe (exact), machines-sp (a misreport search) on 12 seeded instances (2-3 users, 1-2 "
       "resources, 1-2 servers); machines-si on the instance the audit finds", "out-of-scope",
       reason="the definition is the lab's reading of an abstract (reading notes: medium confidence), and the machines "
              "setting decides ef and sp by exact checks of instances, not proofs over every instance; checked: no "
              "ef or pe violation, no profitable misreport found, and sharing incentive fails (the abstract does "
              "not claim it): servers <2, 1>, <4, 6>, A <3, 3>, B <2, 3>, B runs 35/32 tasks, half of every "
              "server runs 7/6")
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


# --------------------------------------------------------------------------- controlled disruptions
@claim("lecture-controlled-disruptions", LECTURE, "BACK TO THE DRAWING BOARD: DYNAMIC FAIR DIVISION",
       "when an agent arrives we can take resources from a fixed number of agents [Friedman, Psomas, Vardi 2015, "
       "2017]; optimise the fairness ratio min_t min_i u_i^t / ideal_t",
       "mechanism controlled-drf (lab's reading: the newcomer shares with the d present agents of largest share; a "
       "departure refills the d smallest) and search.fairness_ratio.worst_ratio over every arrival/departure "
       "sequence of up to 3 agents, one resource", "out-of-scope",
       reason="the papers' optimal mechanisms and ratios could not be read (abstracts only; notes: low confidence), "
              "so no printed ratio is checked; checked: at most d agents change per event, d = all gives drf-rerun "
              "(ratio 1), and the worst ratio rises with d (d = 0: 0, nothing reserved; d = 1: 1/2; d = all: 1)")
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
#: the instance `fairlab audit ks-lottery -n 3 -m 2` finds for machines-ef: one machine, so each maximal task vector
#: is one placement, and no lottery reaching the leximin (3/7, 6/7, 9/7) is envy-free ex ante (the exact LP; by hand:
#: the constraints force P(C runs >= 2) = 4/7 > 3/7 = E[u_A])
KS_EF = {"machines": [[7]], "demands": [[4], [3], [2]], "users": ["A", "B", "C"]}
#: the instance `fairlab audit random-dictatorship -n 2 -m 1` and `fairlab rediscover --claim
#: random-dictatorship-pe` find: dictatorships (2, 0) or (0, 3), expected (1, 3/2), dominated by (1, 2)
RD_PE = {"machines": [[7]], "demands": [[3], [2]], "users": ["A", "B"]}


@claim("lecture-ks-lottery", LECTURE, "BEYOND DRF / MULTIPLE MACHINES",
       "under-reporting gives zero utility; there exists a randomized mechanism (extension of the Kalai-Smorodinsky "
       "interpretation) that satisfies all the properties (ex-ante) [Friedman, Ghodsi, Psomas 2014]",
       "mechanism ks-lottery (lab's reading: the lottery over integral placements maximising t with E[u_i] >= t u_i*, "
       "then leximin; among those, an ex-ante envy-free one when there is one) on 12 seeded instances (2-3 users, "
       "1-2 resources, 1-2 machines): machines-si, machines-ef, machines-pe ex ante (exact), machines-sp (40 "
       "over-reports each, expected real tasks); and the ex-post side on the hand instance", "out-of-scope",
       reason="the paper could not be read: the mechanism is the lab's reading of low-confidence notes, and which "
              "properties 'all' covers and which misreports the truthfulness result allows could not be recovered; "
              "strategyproofness ranges over a continuum of misreports, so the lab searches, it does not prove. "
              "Checked: no ex-ante violation of si, ef, pe and no profitable misreport found on the seeded "
              "instances, t >= 1/n on each; ex post the properties fail (one machine <4>, A <1>, B <3>: the "
              "outcome (1, 1), drawn with probability 4/7, leaves A below its 1/2-machine share of 2); and if "
              "'all the properties' includes envy-freeness, this reading does not have it: one machine <7>, A <4>, "
              "B <3>, C <2>, no lottery reaching the leximin is envy-free ex ante")
def check_lecture_ks_lottery(ctx):
    instances = list(_seeded_machines_instances(12))
    found: dict[str, list] = {p: [] for p in ("machines-si", "machines-ef", "machines-pe", "machines-sp")}
    for inst in instances:
        for prop, verdicts in found.items():
            budget = {"evaluations": 40} if prop == "machines-sp" else {}
            verdicts.append(properties.check("ks-lottery", prop, inst, **budget).status.value)
    levels = [min(v for v, u in zip(a.extra["normalised_levels"], a.extra["ideal"]) if u) * inst.n
              for inst in instances for a in [allocate("ks-lottery", inst)] if any(a.extra["ideal"])]
    si = properties.check("ks-lottery", "machines-si", KS_HAND)
    post = si.details.get("ex_post")
    envy = allocate("ks-lottery", KS_EF)
    return Evidence([same(f"{prop} ex-ante violations on 12 seeded instances", "0", v.count("violated"))
                     for prop, v in found.items()]
                    + [same("machines-sp decided (none-found) on every instance", "12", found["machines-sp"].count(
                        "none-found")),
                       same("t >= 1/n on every instance", "True", all(x >= 1 for x in levels)),
                       same("hand instance: si ex ante / ex post (outcome, probability)", "holds / (1, 4/7)",
                            f"{si.status.value} / ({None if post is None else post.outcome}, "
                            f"{None if post is None else post.probability})"),
                       same("<7>; A <4>, B <3>, C <2>: ef ex ante", "violated",
                            _verdict("machines-ef", "ks-lottery", KS_EF)),
                       same("... and no lottery reaching the leximin is envy-free ex ante", "True",
                            any(n.startswith("no lottery reaching the leximin is envy-free") for n in envy.notes))],
                    how="exact LPs (Fractions, certified HiGHS bases) over the Pareto-maximal task vectors; sp by a "
                        "deterministic misreport search")


@claim("lecture-random-dictatorship", LECTURE, "BEYOND DRF / MULTIPLE MACHINES (reading notes on Friedman, Ghodsi & "
       "Psomas 2014)",
       "uniform random dictatorship already gives t >= 1/n, hence ex-ante proportionality (reading notes; the "
       "comparator of the randomized KS mechanism)",
       "mechanism random-dictatorship (lab's reading: each dictator in a uniformly random order takes the most tasks "
       "it can, earlier dictators keeping their counts) on the 12 seeded instances: E[u_i] >= u_i*/n exactly; its "
       "profile beside ks-lottery: machines-pe ex ante on the instance the lab finds", "reproduced")
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
