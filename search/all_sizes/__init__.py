"""All-size proofs: a property of a mechanism for EVERY number of users and resources.

`prove_all_sizes(mechanism, property, domain=...)` (also ``fairlab.prove(..., all_sizes=True)`` and
``fairlab prove MECHANISM PROPERTY --all-sizes``) proves the property for every n >= 1 users and
m >= 1 resources, or answers `unknown` naming the step that failed. Modules:

* `logic`: the vocabulary — instances of unknown size as z3 terms over integer indices, folds over
  users and resources (`Aggregate`) with lemmas proved by induction, universal statements (`Axiom`);
* `schema`: instances, runs and mechanism schemas (DRF's spec written once for every size; its
  large-size mutant);
* `families`: which mechanisms have all-size proofs, and the abstraction their proofs go through;
* `negations`: the negated properties (si, ef, pe, sp);
* `ground`: ground queries (statements instantiated at finitely many index terms);
* `steps`: the abstraction and theorem steps, symbolic and at a concrete size;
* `gates`: the z3 comparisons with the lab's spec and rules, and the abstraction's conformance;
* `prover`: the whole proof, its gates, controls and certificate;
* `mutant`: the large-size mutant as a mechanism (a control).
"""

from fairlab.search.all_sizes.prover import AllSizesBudget, prove_all_sizes, register_family

__all__ = ["prove_all_sizes", "AllSizesBudget", "register_family"]
