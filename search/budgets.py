"""The counted budgets of the counterexample search, in one import-light place (the CLI reads its
defaults from here without loading the engines).

A verdict of `fairlab search` / `fairlab matrix` depends only on these counts, the seed and z3's
resource limit (`fairlab.core.solving.DEFAULT_RLIMIT` per symbolic question), never on how fast the
machine is; the time limit is a wall-clock safety net, far above what the counted budget costs,
that can only turn a run into ``unknown (wall-clock safety net)``.
"""

#: candidates a search decides by default (all engines together)
DEFAULT_CANDIDATES = 500
#: default wall-clock safety nets (seconds) of `fairlab search` and of one `fairlab matrix` cell: far
#: above what the counted budget costs, so that it, not the machine's speed, ends a run (an expensive
#: property check, e.g. strategyproofness of a mechanism solved by LP, costs ~0.1 s per candidate
#: on 2 cores; on a 2-core machine shared by eight busy processes z3 spends 0.25-0.7 million units
#: a second, so a symbolic question of DEFAULT_RLIMIT units takes up to about 200 s)
SEARCH_TIME_LIMIT = 1800.0
MATRIX_TIME_LIMIT = 900.0
#: the wall-clock safety net of a proof (`fairlab.search.proof`, seconds): each attempt may run at
#: least as long as its counted budget takes at the slowest rate seen
PROVE_SAFETY_NET = 600.0
#: candidates per cell of `fairlab matrix` (a cell without a fixture is one search)
MATRIX_CANDIDATES = 300
#: the largest --candidates accepted (each candidate is decided exactly)
MAX_CANDIDATES = 10_000_000
#: pulls per round of the fixed round-robin schedule
WEIGHTS = {"symbolic": 1, "grid": 3, "random": 2}
#: deviation budget of one candidate's exact check (sp and rm): mechanism runs, z3 units
CHECK_EVALUATIONS = 60
CHECK_RLIMIT = 2_000_000
#: checks of smaller candidates a shrink may spend
SHRINK_TRIALS = 400
#: seeded instances of the size on which the spec must match the allocator before `holds`
CONFORMANCE_INSTANCES = 3
#: spec hypotheses tried, at most, for the positive control of a `holds`
CONTROL_TRIES = 12
