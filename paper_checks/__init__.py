"""paper_checks: see README."""
