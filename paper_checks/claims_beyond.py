"""Ledger claims about coalitions and disruptions: group strategyproofness (Parkes, Procaccia & Shah for
DRF; the journal version of DRFH) and the optimal fairness ratio with d disruptions (Friedman, Psomas &
Vardi), all from the reading notes beside the lecture's "Beyond DRF" and "dynamic fair division" slides.

Registered on import (`fairlab.paper_checks` imports this module; it imports `claims_lecture`, whose
claims come first). None of the papers' own statements could be read (abstracts only, or summaries
rated medium/low), so no entry is "reproduced": each is a lab finding about the lab's reading, which
its reason names. The instances
below were found by the lab (`fairlab prove`), not transcribed.
"""

from __future__ import annotations

from fractions import Fraction

from fairlab import mechanisms, properties
from fairlab.core.instance import Instance
from fairlab.mechanisms import _disruptions
from fairlab.paper_checks.claims_lecture import _seeded_machines_instances
from fairlab.paper_checks.ledger import LECTURE, Evidence, claim, same

#: the coalition `fairlab prove drf gsp -n 4 -m 3` finds with zero demands (scaled to integers): u3 over-reports
#: r2, which u4 needs most; u4 stops earlier and u1 (truthful) gets more of r1, u3 keeps its tasks
DRF_GSP_ZEROS = {"capacities": [20, 20, 20], "demands": [[11, 0, 0], [0, 7, 10], [7, 1, 10], [2, 11, 0]]}
#: the coalition `fairlab prove asset gsp -n 3 -m 4` finds with zero demands (scaled to integers)
ASSET_GSP_ZEROS = {"capacities": [72, 72, 72, 72], "demands": [[53, 53, 0, 0], [0, 0, 72, 0], [17, 19, 0, 70]]}

GSP_READING = ("gsp = no coalition can declare other demands so that every member runs at least as many real tasks, "
               "measured with its true demand, and one strictly more")


@claim("lecture-drf-gsp", LECTURE, "BEYOND DRF ('zero demands, weights: easy-ish to fix' [Parkes, Procaccia, Shah "
       "2012]); group strategyproofness from the reading notes",
       "Parkes, Procaccia & Shah prove DRF (with weights and zero demands) group strategyproof (reading notes, "
       "medium confidence)",
       "fairlab prove drf gsp on positive demands (drf-paper) at 2 users x 2 resources; the exact gsp check of DRF "
       "and of asset fairness on the coalitions the lab's proofs find with zero demands", "out-of-scope",
       reason=f"lab finding (reading: {GSP_READING}; PPS's own definition and theorem were not read, and a weaker "
              "reading — no coalition in which every member strictly gains — may be theirs). With every demand "
              "positive the lab proves DRF gsp for every demand profile at 2x2 .. 4x4 (unit weights, no caps: the "
              "catalogue). With a zero demand it refutes it at 4 users x 3 resources: <20, 20, 20>, u1 <11, 0, 0>, "
              "u2 <0, 7, 10>, u3 <7, 1, 10>, u4 <2, 11, 0>; u3 over-reports r2, u1 gains (sp holds for each user "
              "alone there). Weights are not in the encodings.")
def check_lecture_drf_gsp(ctx):
    proof = ctx.once("prove drf gsp 2x2 drf-paper", lambda: _prove("drf", 2, 2, "drf-paper"))
    drf = properties.check("drf", "gsp", DRF_GSP_ZEROS, evaluations=60)
    asset = properties.check("asset", "gsp", ASSET_GSP_ZEROS, evaluations=60)
    return Evidence([same("DRF gsp on positive demands at 2x2", "proved", proof),
                     same("DRF gsp with zero demands (4 users x 3 resources)", "violated", drf.status.value),
                     same("... a coalition of two, one of them truthful", "True", _one_truthful(drf.witness)),
                     same("asset fairness gsp with zero demands (3 users x 4 resources)", "violated",
                          asset.status.value)],
                    how="z3 proof with its four gates (tasks-normalised relaxed encoding); exact checks (Fractions) "
                        "re-verified from scratch")


def _one_truthful(witness) -> bool:
    """A coalition of two in which exactly one member declares its true row, or a positive multiple
    of it (the same declaration for DRF, which sees only a row's direction): with that row put back
    to the true one, the coalition must still violate gsp, re-verified exactly."""
    if witness is None or len(witness.coalition) != 2:
        return False
    rows = Instance.from_dict(DRF_GSP_ZEROS).demands
    said = [[Fraction(str(x)) for x in row] for row in witness.misreports]
    truthful = [k for k, i in enumerate(witness.coalition) if _proportional(said[k], rows[i])]
    if len(truthful) != 1:
        return False
    said[truthful[0]] = list(rows[witness.coalition[truthful[0]]])
    fixed = {"coalition": list(witness.coalition), "misreports": [[str(x) for x in row] for row in said],
             "gains": None}
    return bool(properties.get("gsp").verify("drf", DRF_GSP_ZEROS, fixed))


def _proportional(said, true) -> bool:
    """`said` is c * `true` for some c > 0."""
    ratios = {a / b for a, b in zip(said, true) if b}
    return all((a == 0) == (b == 0) for a, b in zip(said, true)) and len(ratios) == 1 and ratios.pop() > 0


def _prove(mechanism: str, n: int, m: int, domain: str) -> str:
    from fairlab.search.proof import prove

    return prove(mechanisms.get(mechanism), "gsp", n, m, domain=domain).status.value


#: the DRFH check's search budget: seeded instances and coalition over-reports on each
DRFH_INSTANCES, DRFH_EVALUATIONS = 4, 20


@claim("lecture-drfh-gsp", LECTURE, "BEYOND DRF (multiple machines); DRFH's journal version from the reading notes",
       "DRFH (journal version, 'Multi-resource fair allocation in heterogeneous cloud computing systems', abstract): "
       "no user has an incentive to form a coalition with others to lie (group strategyproofness)",
       f"mechanism drfh (lab's reading) with machines-gsp on {DRFH_INSTANCES} seeded instances (2-3 users, 1-2 "
       f"resources, 1-2 servers), {DRFH_EVALUATIONS} coalition over-reports each", "out-of-scope",
       reason="lab finding (reading: DRFH as the lab reads the INFOCOM abstract; gsp valued as machines-sp values a "
              "misreport: under-reporting gives 0, over-reports run min_r held_r / d_r real tasks per server): the "
              "machines setting has no symbolic encoding, so coalitions are searched, not proved; checked: no "
              "coalition gains on the seeded instances (none-found with its count). DRFH's service isolation, "
              "also claimed by the journal version, is not checked.")
def check_lecture_drfh_gsp(ctx):
    found = [properties.check("drfh", "machines-gsp", inst, evaluations=DRFH_EVALUATIONS)
             for inst in list(_seeded_machines_instances(12))[:DRFH_INSTANCES]]
    return Evidence([same("machines-gsp violations", "0", sum(r.status.value == "violated" for r in found)),
                     same("instances decided none-found", str(DRFH_INSTANCES),
                          sum(r.status.value == "none-found" for r in found))],
                    how="exact LPs (Fractions) for every misreported run; a deterministic coalition search")


@claim("lecture-optimal-fairness-ratio", LECTURE, "BACK TO THE DRAWING BOARD: DYNAMIC FAIR DIVISION",
       "when an agent arrives we can take resources from a fixed number of agents [Friedman, Psomas, Vardi 2015]; "
       "optimise the fairness ratio min_t min_i u_i^t / ideal_t (the papers: optimal mechanisms for every d via "
       "'harmonic allocations', abstracts)",
       "fairlab dynamics optimal-ratio: the exact best ratio any online mechanism with at most d disruptions per "
       "event guarantees (one resource, at most k <= 4 agents present, known), arrivals only and with departures; "
       "fpv-optimal (the game's strategy) and controlled-drf on every sequence of up to 3 agents", "out-of-scope",
       reason="lab finding (reading: the optimum over online mechanisms that change at most d present agents per "
              "event, up or down, with at most k agents present and k known; the papers' model, values and mechanisms "
              "could not be read). Checked: with d = 0 the optimum is 1/(1 + 1/2 + ... + 1/k) with arrivals only (the "
              "harmonic allocation) and 1/k with departures; with d = 1 and departures 3/4 at k = 3 and 12/19 at "
              "k = 4; fpv-optimal reaches it on every sequence of the family, controlled-drf (d = 1) stays at 1/2")
def check_lecture_optimal_fairness_ratio(ctx):
    from fairlab.search.fairness_ratio import worst_ratio

    def best(k, d, departures):
        return _disruptions.optimum(k, d, departures).ratio

    harmonic = all(best(k, 0, False) == 1 / sum(Fraction(1, t) for t in range(1, k + 1)) for k in range(1, 5))
    fpv = worst_ratio("fpv-optimal", 3, options={"d": 1, "k": 3})["ratio"]
    controlled = worst_ratio("controlled-drf", 3, options={"d": 1})["ratio"]
    return Evidence([same("arrivals only, d = 0: 1/H_k for k = 1..4", "True", harmonic),
                     same("departures, d = 0, k = 4", "1/4", best(4, 0, True)),
                     same("departures, d = 1, k = 3 / k = 4", "3/4 / 12/19",
                          f"{best(3, 1, True)} / {best(4, 1, True)}"),
                     same("fpv-optimal's worst ratio (d = 1, every sequence of up to 3 agents)", "3/4", fpv),
                     same("controlled-drf's (d = 1) there", "1/2", controlled)],
                    how="a finite safety game on classes of shares r/c, solved exactly (Fractions; "
                        "mechanisms/_disruptions.py argues the reduction); the mechanisms' runs exact")
