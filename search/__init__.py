"""search: see README."""
