"""Which mechanisms have all-size proofs: their schema and the abstraction their proofs go through.

An **abstraction** of a run is a short list of universal statements (`Axiom`s of kind
"abstraction") that every concrete allocation of the mechanism satisfies, at every size, and from
which the properties are proved. For DRF on positive demands (progressive filling: every user
needs every resource, so all dominant shares rise together and stop together when a resource
saturates):

* ``nonneg``: t(i) >= 0;  ``capacity``: load(r) <= c(r);
* ``saturated``: every user i has a resource sat(i) it uses that is saturated (load = c);
* ``equal-shares``: every two users have the same dominant share, t(i) s(i) = t(k) s(k).

The other users enter a property's proof only through these: their common dominant share and the
load they put on the named resources (`fairlab.search.all_sizes.logic.Aggregate`). Each statement is
proved from the schema (the quantified form of the lab's spec) by its own z3 query — the
abstraction's soundness for every n and m — before any property is proved from it
(`fairlab.search.all_sizes.prover`). On demands >= 0 the statements are the schema's own axioms
(equal shares fail there: a user may stop growing when a resource it does not use saturates).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import z3

from fairlab.search.all_sizes.logic import RESOURCE, USER, Axiom
from fairlab.search.all_sizes.schema import Run, Schema, drf


def drf_abstraction(run: Run) -> list[Axiom]:
    """DRF's abstraction on positive demands (see the module docstring), for `run`'s tasks."""
    inst, t, load, n = run.inst, run.tasks, run.load(), run.inst.frame.n
    tag = f"{run.tag}.abstraction"
    return [
        Axiom(f"{tag}.nonneg", "abstraction", (USER,), head=lambda i: t(i) >= 0, text="t(i) >= 0"),
        Axiom(f"{tag}.capacity", "abstraction", (RESOURCE,), head=lambda r: load.sum(n, r) <= inst.c(r),
              text="load(r) <= c(r)"),
        Axiom(f"{tag}.saturated", "abstraction", (USER,), (RESOURCE,),
              head=lambda i, r: z3.And(inst.d(i, r) > 0, load.sum(n, r) == inst.c(r)),
              text="some resource sat(i) with d(i, sat(i)) > 0 is saturated: load(sat(i)) = c(sat(i))"),
        Axiom(f"{tag}.equal-shares", "abstraction", (USER, USER),
              head=lambda i, k: t(i) * inst.s(i) == t(k) * inst.s(k),
              text="t(i) s(i) = t(k) s(k): every user has the same dominant share"),
    ]


@dataclass(frozen=True)
class Family:
    """A mechanism with all-size proofs: its schema, its abstraction on positive demands (None: the
    proofs use the schema's axioms directly), and the large-size mutant its proofs are run against."""

    name: str
    schema: Schema
    abstraction: Callable[[Run], list[Axiom]] | None
    mutant: Schema | None
    text: str
    #: properties proved on positive demands only (through the abstraction)
    positive_only: tuple[str, ...] = ("sp",)
    #: abstraction statements argued by hand, not by a z3 step (short name -> where the argument is):
    #: a proof that uses one is `proved-by-lemma`, never `proved`. DRF has none.
    assumed: tuple[tuple[str, str], ...] = ()

    def statements(self, run: Run, positive: bool) -> list[Axiom]:
        """What a property's proof assumes of `run`: the abstraction (positive demands) or the
        schema's own axioms."""
        if positive and self.abstraction is not None:
            return self.abstraction(run)
        return list(run.axioms)


def mutant_family(first: int = 5) -> Family:
    """DRF's large-size mutant (`fairlab.search.all_sizes.schema.drf_from`) with DRF's abstraction:
    what an all-size proof of DRF must NOT prove."""
    from fairlab.search.all_sizes.schema import drf_from

    return Family(f"drf-from-{first}", drf_from(first), drf_abstraction, None,
                  f"DRF except from {first} users on (the last user's tasks halved unless resource 0 is dominant)")


FAMILIES: dict[str, Family] = {
    "drf": Family("drf", drf, drf_abstraction, None,
                  "DRF without weights or caps: fairlab.mechanisms.drf.spec for every size"),
}

__all__ = ["Family", "FAMILIES", "drf_abstraction", "mutant_family"]
