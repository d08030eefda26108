"""Machine-checked proofs: the catalogue's fast subset, positive controls, and a broken encoding
that the controls must catch."""

import pytest
import z3

import mechanisms
import properties
from fairlab.commands.prove import run_catalogue
from search.catalogue import CATALOGUE
from search.prove import prove

FAST = [e for e in CATALOGUE if e.fast]


@pytest.mark.parametrize("entry", FAST, ids=[e.id for e in FAST])
def test_catalogue_fast_subset(entry):
    [row] = run_catalogue(time_limit=60, fast_only=True, entries=[entry])
    assert [c["verdict"] for c in row["checked"]] == [entry.expected] * len(entry.fast), row


def test_every_proof_has_a_satisfiable_positive_control():
    proof = prove(mechanisms.get("drf"), "ef", 2, 2, time_limit=30)
    assert proof.verdict == "proved"
    assert proof.control["result"] == "sat"
    assert proof.control["dropped"].startswith("drf.")  # a mechanism hypothesis, not the goal
    assert proof.core and "ef.violated" in proof.core


def test_refutation_is_confirmed_exactly():
    proof = prove(mechanisms.get("asset"), "si", 2, 2, time_limit=30)
    assert proof.verdict == "refuted"
    from properties.base import Violation
    from fairlab.instance import Instance

    v = Violation("si", mechanisms.get("asset"), Instance.from_dict(proof.instance), proof.witness)
    assert v.verify()


def test_a_wrongly_negated_property_cannot_pass_as_a_proof(monkeypatch):
    """Encode '¬si' as False: spec ∧ False is UNSAT, but no mechanism hypothesis is in the core,
    so there is no positive control and the verdict must be unknown, not proved."""
    real = properties.get("si").encode

    def broken(sym, spec, prefix="si", **kw):
        enc = real(sym, spec, prefix, **kw)
        enc.constraints = [c if c.name != f"{prefix}.violated" else c._replace(expr=z3.BoolVal(False))
                           for c in enc.constraints]
        return enc

    monkeypatch.setattr(properties.get("si"), "encode", broken)
    proof = prove(mechanisms.get("drf"), "si", 2, 2, time_limit=20)
    assert proof.verdict == "unknown"
    assert "positive control" in proof.reason


def test_a_spec_that_contradicts_itself_cannot_pass_as_a_proof():
    """A contradictory spec proves everything vacuously. Dropping its contradiction leaves DRF,
    which has sharing incentive, so no control is satisfiable and the verdict is unknown."""
    from mechanisms.base import Constraint, Mechanism

    drf = mechanisms.get("drf")

    def contradictory(sym, tasks):
        return [*drf.spec(sym, tasks), Constraint("bad.false", z3.BoolVal(False))]

    bad = Mechanism(name="contradictory", summary="", source="", allocate=drf.allocate, spec=contradictory)
    proof = prove(bad, "si", 2, 2, time_limit=20)
    assert "bad.false" in proof.core
    assert proof.verdict == "unknown"


@pytest.mark.slow
@pytest.mark.parametrize("prop", ["si", "ef", "pe", "sp"])
def test_drf_three_by_three(prop):
    proof = prove(mechanisms.get("drf"), prop, 3, 3, time_limit=300)
    assert proof.verdict == "proved"


def test_prove_cli_json(tmp_path):
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "fairlab.cli", "prove", "drf", "si", "-n", "2", "-m", "2",
                          "--format", "json"], capture_output=True, text=True, timeout=120)
    data = json.loads(out.stdout)
    assert data["verdict"] == "proved" and data["control"]["result"] == "sat" and data["core"]
    bad = subprocess.run([sys.executable, "-m", "fairlab.cli", "prove", "drf", "nope"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.startswith("error: property 'nope'")
