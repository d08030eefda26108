"""counterexamples: the fixture store and the shipped fixtures (docs/concepts.md, "The store of findings")."""
