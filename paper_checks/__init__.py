"""paper_checks: the ledger of the sources' numeric claims, checked by the lab (see README.md).

`ledger` holds the machinery (judges, `Claim`, `check_claim`, `run`), `claims` (with
`claims_lecture_slides`, `claims_bonald_roberts` and `claims_pdrf`, imported right after it so the
ledger keeps its source order) the transcribed claims with their named checks (imported here, so
the registry is full whenever the package is used), `report` the markdown report and its figures,
`pdrf_tables` the PDRF Tables statistics.
"""

# The import order is the ledger's order: DRF paper and notes (claims), lecture, Bonald & Roberts, PDRF.
from fairlab.paper_checks import claims  # noqa: F401  (registers the claims)

# isort: split
from fairlab.paper_checks import claims_lecture_slides  # noqa: F401  (the lecture's slides, after claims)

# isort: split
from fairlab.paper_checks import claims_bonald_roberts  # noqa: F401  (Bonald & Roberts, after the lecture)

# isort: split
from fairlab.paper_checks import claims_pdrf  # noqa: F401  (PDRF, after Bonald & Roberts)

# isort: split
from fairlab.paper_checks import (
    claims_beyond,  # noqa: F401  (coalitions and disruptions: gsp, the optimal fairness ratio)
    claims_lecture,  # noqa: F401  (the mechanisms the lecture's "Beyond DRF" cites)
    claims_machines,  # noqa: F401  (the machines setting)
)
