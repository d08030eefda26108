"""The bottom layer: exact numbers (`exact`), the instance model (`instance`), LP with exact
certificates (`lp`), errors, z3 solving budgets (`solving`), isolated calls (`isolated`), stdout
guards (`stdio`), the one result model (`results`) and the shipped JSON Schemas (`schemas`).
Imports nothing of the layers above it."""
