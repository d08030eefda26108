"""The ledger's claims from Metin's Precomputed DRF paper (§3.3 cycles, §4 Tables 1-2 and text, §6),
each with a named check: moved out of `fairlab.paper_checks.claims` (same entries, same order:
`fairlab.paper_checks` imports this module right after `claims_bonald_roberts`).

Printed numbers are copied as printed (strings); every computed value comes from the lab when the
entry runs (the Tables' statistics from `fairlab.paper_checks.pdrf_tables`, seeded).
"""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

from fairlab.core.instance import Instance
from fairlab.paper_checks import pdrf_tables as stats
from fairlab.paper_checks.claims import EXAMPLE, _tasks, allocate
from fairlab.paper_checks.ledger import PDRF, Context, Evidence, Item, claim, exact, rounded, same, vector


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
