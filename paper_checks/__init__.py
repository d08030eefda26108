"""paper_checks: the ledger of the sources' numeric claims, checked by the lab (see README.md).

`ledger` holds the machinery (judges, `Claim`, `check_claim`, `run`), `claims` the transcribed
claims with their named checks (imported here, so the registry is full whenever the package is
used), `report` the markdown report and its figures, `pdrf_tables` the PDRF Tables statistics.
"""

from fairlab.paper_checks import (
    claims,  # noqa: F401  (registers the claims)
    claims_beyond,  # noqa: F401  (coalitions and disruptions: gsp, the optimal fairness ratio)
    claims_lecture,  # noqa: F401  (the mechanisms the lecture's "Beyond DRF" cites)
    claims_machines,  # noqa: F401  (the machines setting)
)
