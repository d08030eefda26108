"""Envy-freeness on several machines (DRF paper §3 property 3, §6.2), in the mechanism's valuation model.

User i envies user j when j's per-machine bundles run more of i's tasks than i runs. What j's
bundles run for i depends on the valuation model (`fairlab.mechanisms.base.VALUATIONS`; the rule is
`fairlab.mechanisms._placements.envy_value`, written once):

* ``pooled`` (the DRF paper's machines, DRFH): with j's placement x_jk, machine k holds x_jk d_j for
  j, which runs ``floor(min over r with d_ir > 0 of x_jk d_jr / d_ir)`` whole tasks of i there (no
  floor for a divisible mechanism), summed over machines;
* ``containers`` (Friedman, Ghodsi & Psomas, EC 2014): j's x_jk tasks on machine k are x_jk
  containers sized d_j; i can use a container only if its own task fits in it (d_i <= d_j on every
  resource), and then runs one task in it: j's bundles run j's task count for i, or nothing.
  Whole tasks only: a divisible mechanism has no containers (n/a).

Either way capped by i's task cap. The model is the one the mechanism declares
(`Mechanism.valuation`, its paper's), unless ``model`` is asked (``--option model=...``); the result
records which (``details["model"]``, and a sentence of the explanation). Source of the property: the
DRF paper's envy-freeness (Ghodsi et al., NSDI 2011, §3 property 3); bundles stay on their machines.

A lottery is judged ex ante: E[i's utility for j's bundles] against E[i's tasks], both
over the same lottery (lab's reading of ex-ante envy-freeness); a placement of its support with envy
is reported apart, as an ex-post finding (`fairlab.properties._machines`).
"""

from __future__ import annotations

from fairlab.core.exact import format_exact
from fairlab.mechanisms._placements import envy_value as bundle_value
from fairlab.properties._machines import PlacementProperty, expected, expected_totals, model_context, pairs
from fairlab.properties.property import EnvyWitness, register


def envy_value(inst, placement, integral, i, j, model="pooled"):
    """Tasks of user i that user j's per-machine bundles run (capped by i's cap), in `model`."""
    return bundle_value(inst, placement, i, j, integral, model)


def expected_envy(inst, outcomes, integral, i, j, model="pooled"):
    return expected(outcomes, lambda placement: envy_value(inst, placement, integral, i, j, model))


def envies(inst, outcomes, integral, model, i, j):
    return expected_envy(inst, outcomes, integral, i, j, model) > expected_totals(outcomes)[i]


def explain(inst, outcomes, integral, model, witness):
    i, j = witness.user, witness.envied
    ante = "" if len(outcomes) == 1 else " in expectation"
    how = "(container by container)" if model == "containers" else "(machine by machine)"
    return (f"user {inst.users[i]} runs {format_exact(expected_totals(outcomes)[i])} tasks{ante} but {inst.users[j]}'s "
            f"bundles {how} would run {format_exact(expected_envy(inst, outcomes, integral, i, j, model))} of "
            f"its tasks{ante}")


PROPERTY = register(PlacementProperty(
    name="machines-ef",
    title="envy-freeness (machines)",
    definition=("No user i prefers user j's per-machine bundles, valued in the mechanism's model: pooled, sum over "
                "machines k of floor(min_r x_jk d_jr / d_ir) (no floor for a divisible mechanism); containers "
                "(Friedman, Ghodsi & Psomas), j's task count if i's task fits in j's (d_i <= d_j), else 0; capped by "
                "i's task cap, never more than i's tasks; a lottery ex ante (expectations). Option model=pooled|"
                "containers asks the other model. Source: DRF paper §3 property 3 (envy-freeness), bundles kept on "
                "their machines (§6.2)."),
    source="Ghodsi et al., Dominant Resource Fairness (NSDI 2011), §3 property 3, §6.2; containers: Friedman, Ghodsi "
           "& Psomas (EC 2014)",
    witness=EnvyWitness,
    witness_help='{"user": i, "envied": j}  (0-based: user i prefers j\'s per-machine bundles)',
    rule=envies,
    choices=pairs,
    explain=explain,
    context=model_context,
    ex_ante=True,
    model_matters=True,
))
