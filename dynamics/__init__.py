"""Dynamic demand (Bonald & Roberts, "Multi-resource fairness: objectives, algorithms and
performance", §3-§4): transactions of K classes arrive and leave, and what users feel is the
mean service rate γ_k, not a static share.

* `fairlab.dynamics.allocators` — fast float class-level DRF / PF / BMF allocators (a state with n_k
  identical class-k transactions reduces to a K-class problem), plus any registered mechanism
  through the exact registry (slow, cached, for small truncations).
* `fairlab.dynamics.markov` — the §4.1 Markov model on a truncated state space: stationary distribution
  by sparse linear algebra, γ_k, stability condition (8), truncation error.
* `fairlab.dynamics.figures` — Figures 1-3 of §4.3-§4.4 and `paper_orderings()`, the orderings the text
  states, checked (for the paper-check ledger).
* `fairlab.dynamics.packets` — SFQ packet schedulers of §3.1-§3.3 (memoryless DRFQ eq. 2, PF eq. 5, BMF
  eq. 7) with per-flow windows and dynamic flow arrivals (§4.4).
* `fairlab.dynamics.cluster` — "serve the most deprived job" task schedulers of §3 for DRF, PF and BMF.

Floats are used throughout: these are performance figures, not verdicts. The stability check (8)
is exact (Fractions).
"""

__all__ = ["paper_orderings"]


def __getattr__(name: str):
    """`paper_orderings` (the entry point for the paper-check ledger), imported on first use: the
    package's modules load numpy/scipy, which a command that needs one light module (e.g.
    `fairlab.dynamics.shares_over_time` for `fairlab allocate`) should not pay for."""
    if name == "paper_orderings":
        from fairlab.dynamics.figures import paper_orderings

        return paper_orderings
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
