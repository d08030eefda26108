"""counterexamples: see README."""
