"""paper_checks: the ledger of the sources' numeric claims, checked by the lab (see README.md)."""
