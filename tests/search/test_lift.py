"""`fairlab.search.lift` and ``fairlab lift``: every rediscover claim's shipped fixture lifted to a
sample of sizes up to 8×8 and verified exactly; the sizes each claim's coverage states; a lift
that does not keep the violation says so and writes nothing."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest

from fairlab.core.instance import Instance
from fairlab.core.results import Status
from fairlab.counterexamples import store
from fairlab.search import lift, lift_coverage
from fairlab.search import lift_rules as rules
from fairlab.search.rediscover import CLAIMS, claim_ids, get_claim, not_found
from fairlab.search.verify import reverify

FOUND = (Status.VIOLATED, Status.FOUND)


def _covered(claim: str) -> tuple[Instance, list[tuple[int, int]], int]:
    f = lift.load(claim)
    top_n = lift_coverage.USERS_UP_TO.get(claim, (lift_coverage.VERIFIED_UP_TO[0], None))[0]
    return f.instance, lift_coverage.sample_sizes(f.n, f.m, top_n, lift_coverage.VERIFIED_UP_TO[1]), top_n


# --------------------------------------------------------------------------- every claim, up to 8×8
@pytest.mark.parametrize("claim", claim_ids())
def test_claim_lifts_at_its_sampled_sizes_and_reverifies(claim):
    base, sizes, _ = _covered(claim)
    assert sizes and max(m for _, m in sizes) == lift_coverage.VERIFIED_UP_TO[1]
    for n, m in sizes:
        result = lift.lift(claim, n, m)
        assert result.status in FOUND, (claim, n, m, result.explanation, result.details["tried"])
        record = result.details["record"]
        lifted = Instance.from_dict(record["instance"])
        assert (lifted.n, lifted.m) == (n, m)
        # the base's users and resources keep their rows: the lift appends
        assert [tuple(row[: base.m]) for row in lifted.demands[: base.n]] == [tuple(r) for r in base.demands]
        # inside the finding's narrowest domain (positive demands stay positive, no weights appear)
        assert rules.tightest(lifted).contains(lifted) is None
        assert lift._domain_of(lift.load(claim), None if record["kind"] == "impossibility" else
                               lift.resolve(record)).contains(lifted) is None
        # an independent from-scratch re-verification, the one `fairlab store verify` makes
        verified = reverify(record)
        assert verified.ok, (claim, n, m, verified.message)


@pytest.mark.parametrize("claim", sorted(c for c, (top, _) in lift_coverage.USERS_UP_TO.items()
                                         if top < 8 and c != "random-dictatorship-pe"))
def test_claim_stated_not_to_lift_in_users_does_not(claim):
    """Negative twin: where the coverage says no rule reaches more users, one more is not found (the
    lift says so, with every rule tried), so the stated limit is itself checked."""
    base, _, top_n = _covered(claim)
    result = lift.lift(claim, top_n + 1, base.m)
    assert result.status == Status.NOT_FOUND
    assert result.details["record"] is None and result.details["tried"]
    assert all(t["outcome"] != "verified" for t in result.details["tried"])


def test_random_dictatorship_refuses_more_users_than_its_coverage_states():
    with pytest.raises(lift.InputError, match="at most 6"):
        lift.lift("random-dictatorship-pe", 7, 1)


def test_coverage_of_every_claim_names_its_lemma_and_sizes():
    for claim in claim_ids():
        cov = lift_coverage.for_claim(claim)
        assert cov is not None, claim
        text = cov["sizes"]
        for n, m in cov["verified_sizes"]:
            assert f"{n}×{m}" in text
        for step in (cov["users"], cov["resources"]):
            if step["lemma"]:
                assert step["status"] == lift_coverage.PROVED_BY_LEMMA
                assert f"lemma {step['lemma']}: argued by hand, not machine-checked" in text
        assert "machine-checked" not in text.replace("not machine-checked", "")
        assert all(lemma["status"] == lift_coverage.PROVED_BY_LEMMA for lemma in cov["lemmas"])
    # the lemma applies only where it is argued: weight vectors and BMF's sp are not covered
    assert lift_coverage.MEAN_COLUMN.applies("asset", "si") and not lift_coverage.MEAN_COLUMN.applies("bmf", "sp")
    assert not lift_coverage.INERT_USER.applies("drfh", "machines-si")


def test_coverage_is_stated_by_the_rediscover_result():
    claim = get_claim("drf-tasks-pe")
    lifting = not_found(claim, 0.0, []).details["lifting"]
    assert lifting["sizes"].startswith("all N ≥ 2 (lemma inert-user")
    capped = not_found(get_claim("random-dictatorship-pe"), 0.0, []).details["lifting"]
    assert capped["users"]["covers"] == "2 ≤ N ≤ 6"  # the mechanism refuses more users: said, not hidden
    assert {c.id for c in CLAIMS} == set(claim_ids())


# --------------------------------------------------------------------------- a lift that fails says so
def _tampered(which: str, **changes) -> dict:
    record = dict(next(r for _, r in store.shipped() if r.get("claim") == which))
    record.update(changes)
    inst = Instance.from_dict(record["instance"])
    record["canonical_hash"] = store.canonical_hash(record["mechanism"], record["property"], inst)
    return record


def test_a_finding_that_does_not_violate_is_not_lifted():
    """asset's si violation read as DRF's (which has si): nothing verifies, so nothing is lifted."""
    result = lift.lift(_tampered("thm1-asset-si", mechanism="drf", claim=None), 3, 3)
    assert result.status == Status.NOT_FOUND and result.instance is None
    assert "no lifting rule kept the finding" in result.explanation
    twin = lift.lift(_tampered("thm1-asset-si", claim=None), 3, 3)  # the untampered record lifts
    assert twin.status == Status.VIOLATED


def test_write_refuses_a_result_that_is_no_finding(tmp_path):
    failed = lift.lift(_tampered("thm1-asset-si", mechanism="drf", claim=None), 3, 3)
    target = tmp_path / "out.json"
    with pytest.raises(lift.InputError, match="nothing to write"):
        lift.write(failed, target)
    assert not target.exists()
    lifted = lift.lift("thm1-asset-si", 3, 3)
    broken = lift.lift("thm1-asset-si", 3, 3)
    broken.details["record"] = {**broken.details["record"], "witness": {"user": 1}}  # u2 is not the victim
    with pytest.raises(lift.InputError, match="does not re-verify exactly"):
        lift.write(broken, target)
    assert not target.exists()
    assert lift.write(lifted, target) == target and reverify(store.read(target)).ok


def test_sizes_below_the_finding_or_absurd_are_input_errors():
    for n, m in ((1, 2), (2, 1), (lift.MAX_SIZE + 1, 2), (2, "3")):
        with pytest.raises(lift.InputError):
            lift.lift("thm1-asset-si", n, m)  # type: ignore[arg-type]
    assert lift.lift("thm1-asset-si", 2, 2).status == Status.VIOLATED  # the finding's own size: itself


# --------------------------------------------------------------------------- the rules
def test_mean_column_is_capacity_one_and_never_above_the_dominant_share():
    base = Instance.from_dict({"capacities": [4, 10], "demands": [[1, 5], [2, 1]]})
    lifted = rules.lift_instance(base, base, 0, 3, None, rules.ColumnRule(rules.MEAN))
    assert lifted.capacities[2:] == (Fraction(1),) * 3
    for i in range(base.n):
        shares = [base.demands[i][r] / base.capacities[r] for r in range(base.m)]
        assert lifted.demands[i][2] == sum(shares) / 2 <= max(shares)
    copied = rules.lift_instance(base, base, 0, 1, None, rules.ColumnRule(rules.COPY, 1))
    assert [row[2] for row in copied.demands] == [5, 1] and copied.capacities[2] == 10
    # negative twin: a copy of resource 0 is another column
    assert [row[2] for row in rules.lift_instance(base, base, 0, 1, None, rules.ColumnRule(rules.COPY, 0)).demands] \
        != [5, 1]


def test_clone_and_inert_users():
    base = Instance.from_dict({"capacities": [4, 10], "demands": [[1, 5], [2, 1]]})
    clone = rules.lift_instance(base, base, 2, 0, rules.UserRule(rules.CLONE, 1), None)
    assert clone.demands[2:] == (base.demands[1],) * 2
    inert = rules.lift_instance(base, base, 1, 0, rules.UserRule(rules.INERT), None)
    assert all(d > c for d, c in zip(inert.demands[2], base.capacities, strict=True))  # fits nowhere
    assert rules.user_rules(base, whole_tasks=False)[0].kind == rules.CLONE  # divisible: never inert


# --------------------------------------------------------------------------- canonical form of copied columns
def _brute_form(instance: Instance) -> tuple:
    """The canonical form over every resource permutation (the definition, without the shortcut)."""
    saved = store._distinct_orders
    try:
        store._distinct_orders = lambda signature: itertools.permutations(range(len(signature)))
        return store.canonical_form(instance)
    finally:
        store._distinct_orders = saved


@pytest.mark.parametrize("data", [
    {"capacities": [3, 3, 3, 5], "demands": [[1, 1, 1, 2], [2, 2, 2, 1], [1, 1, 1, 1]]},
    {"capacities": [1, 1, 1], "demands": [[1, 2, 1], [3, 1, 3]], "weights": [[1, 2, 1], [1, 1, 2]]},
    {"machines": [[2, 2, 4], [1, 1, 2]], "demands": [[1, 1, 2], [1, 1, 1]]},
])
def test_canonical_form_with_copied_columns_is_the_full_minimum(data):
    inst = Instance.from_dict(data)
    assert store.canonical_form(inst) == _brute_form(inst)


def test_copied_columns_with_other_weights_are_not_identical():
    """Negative twin: two columns with equal demands but other weights are different resources."""
    a = Instance.from_dict({"capacities": [1, 1], "demands": [[1, 1], [1, 2]], "weights": [[1, 2], [1, 1]]})
    b = Instance.from_dict({"capacities": [1, 1], "demands": [[1, 1], [1, 2]], "weights": [[2, 1], [1, 1]]})
    assert store.canonical_form(a) != store.canonical_form(b)


# --------------------------------------------------------------------------- the command
def test_cli_lift_writes_a_fixture_that_store_verify_reproduces(run_cli, tmp_path):
    target = tmp_path / "lifted.json"
    out = run_cli("lift", "thm1-asset-si", "-n", "4", "-m", "3", "-o", target, "--format", "json",
                  env={"FAIRLAB_STORE": str(tmp_path / "store")})
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["kind"] == "lift" and doc["status"] == "violated" and doc["details"]["users"] == 4
    assert "lemma mean-column" in doc["details"]["coverage"]["sizes"]
    assert json.loads(target.read_text())["instance"] == doc["instance"]
    check = run_cli("store", "verify", target)
    assert check.returncode == 0 and check.stdout.startswith("ok "), check.stdout


def test_cli_lift_that_keeps_nothing_exits_1_and_writes_nothing(run_cli, tmp_path):
    target = tmp_path / "lifted.json"
    out = run_cli("lift", "bmf-nonunique", "-n", "4", "-m", "3", "-o", target,
                  env={"FAIRLAB_STORE": str(tmp_path / "store")})
    assert out.returncode == 1 and "not-found" in out.stdout and "nothing written" in out.stdout
    assert not target.exists()


@pytest.mark.parametrize("args, words", [
    (("nosuch", "-n", "3", "-m", "3"), ("nosuch", "not a fixture file")),
    (("thm1-asset-si", "-n", "1", "-m", "3"), ("-n/--users", "at least")),
    (("thm1-asset-si", "-n", "3", "-m", "3", "--format", "yaml"), ("--format",)),
    (("thm1-asset-si", "-n", "3", "-m", "3", "--evaluations", "0"), ("--evaluations",)),
])
def test_cli_lift_bad_input_is_one_line(run_cli, assert_one_line_error, tmp_path, args, words):
    out = run_cli("lift", *args, env={"FAIRLAB_STORE": str(tmp_path / "store")})
    assert_one_line_error(out, *words)
    assert not any(tmp_path.iterdir())


def test_cli_lift_refuses_an_out_file_in_a_folder(run_cli, assert_one_line_error, tmp_path):
    out = run_cli("lift", "thm1-asset-si", "-n", "3", "-m", "3", "-o", tmp_path,
                  env={"FAIRLAB_STORE": str(tmp_path / "store")})
    assert_one_line_error(out, "--out", "folder")


def test_the_docs_page_states_each_claims_coverage_as_computed():
    """The page's table is the coverage the lab computes (a claim whose lifting changed fails here)."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "howto" / "lift-counterexamples.md").read_text("utf-8")
    for claim in claim_ids():
        cov = lift_coverage.for_claim(claim)
        assert cov is not None and f"| `{claim}` | {cov['sizes']} |" in page, claim
    assert "| `no-such-claim` |" not in page
