"""Every SHIPPED counterexample re-verifies from scratch; every claim of `fairlab rediscover` has one.

Only the fixtures shipped with the lab (read-only package data) are re-verified here, never a
user's store (`fairlab store verify` does that)."""

import pytest

from fairlab.core.instance import Instance
from fairlab.counterexamples import store
from fairlab.search.rediscover import CLAIMS
from fairlab.search.verify import reverify

FIXTURES = store.shipped()


def verify_record(record):
    verified = reverify(record)
    assert verified.canonical_hash == record["canonical_hash"]
    return verified.ok, verified.message


def test_the_shipped_fixtures_are_the_twelve_of_the_sources():
    kinds = sorted(record["kind"] for _, record in FIXTURES)
    assert len(FIXTURES) == 12  # the eleven of the sources' counterexamples, and drf-machines-thm7 (issue 19)
    assert kinds.count("impossibility") == 2 and kinds.count("nonunique") == 1 and kinds.count("violation") == 9
    assert all(record.get("schema_version") == 1 and "plugin" not in record for _, record in FIXTURES)


@pytest.mark.parametrize("name,record", FIXTURES, ids=[name for name, _ in FIXTURES])
def test_fixture_reverifies(name, record):
    ok, message = verify_record(record)
    assert ok, f"{name}: {message}"


def test_every_claim_has_a_shipped_fixture():
    claimed = {record.get("claim") for _, record in FIXTURES}
    missing = [c.id for c in CLAIMS if c.id not in claimed]
    assert not missing, f"no fixture for {missing}: run `fairlab rediscover`"


def test_a_tampered_fixture_fails(tmp_path):
    """Control: change the witness of a violation and re-verification must refuse it."""
    name, record = next((p, r) for p, r in FIXTURES if r["kind"] == "violation" and r["property"] == "si")
    bad = dict(record, witness={"user": 1 - record["witness"]["user"]} if record["instance"]["demands"] else {})
    ok, _ = verify_record(bad)
    assert not ok


def test_canonical_hash_ignores_symmetries():
    a = Instance.build([1, 2], [[1, 4], [3, 2]])
    # swap resources, scale the (new) first resource by 2, halve user 2's row, swap users
    b = Instance.build([4, 1], [[2, "3/2"], [8, 1]])
    assert store.canonical_hash("drf", "si", a) == store.canonical_hash("drf", "si", b)
    # discrete mechanisms count whole tasks: rows are not rescaled, so b differs from a there
    assert (store.canonical_hash("x", "si", a, rescale_rows=False)
            != store.canonical_hash("x", "si", b, rescale_rows=False))
    different = Instance.build([1, 2], [[1, 4], [3, 1]])
    assert store.canonical_hash("drf", "si", a) != store.canonical_hash("drf", "si", different)
    assert store.canonical_hash("drf", "si", a) != store.canonical_hash("drf", "ef", a)


def test_atomic_write_leaves_no_partial_file(tmp_path):
    target = tmp_path / "x.json"
    store.write_atomic(target, {"a": 1})

    class Boom(Exception):
        pass

    class Bad:
        def __repr__(self):
            raise Boom()

    with pytest.raises(Boom):
        store.write_atomic(target, {"a": object.__new__(Bad)})
    assert target.read_text().strip().startswith("{") and '"a": 1' in target.read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


def test_reverification_uses_exact_allocations_only(monkeypatch):
    """Control: were CEEI's exact optimum unavailable (only its certified float approximation),
    its fixtures would FAIL re-verification instead of being checked on the approximation."""
    from fairlab.mechanisms import ceei

    records = [r for _, r in FIXTURES if r["kind"] == "violation" and r["mechanism"] in ("ceei", "pf")]
    assert records and all(verify_record(r)[0] for r in records)
    monkeypatch.setattr(ceei, "_exact", lambda *args, **kwargs: None)
    for record in records:
        ok, message = verify_record(record)
        assert not ok and "approximate" in message, message
