"""Which sizes a finding's lifting covers, by which lemma, and how each step is known.

A lifted finding at one size is verified exactly (`fairlab.search.lift`). "Every larger size" needs
more: a lemma saying that one more user or resource of a rule keeps ANY finding of that mechanism and
property. Each lemma below is stated with its argument and the mechanisms and properties it is argued
for; its status is ``proved-by-lemma`` — argued by hand, not machine-checked (the word the all-size
proofs use for a step argued by hand) — and it never turns into "machine-checked". What IS checked
by machine is every lifted instance: exactly, by the property's own check, at each size the test
suite lifts a rediscover claim's shipped fixture to (`sample_sizes` up to `VERIFIED_UP_TO`, at most
`USERS_UP_TO` users where no rule reaches more; ``tests/search/test_lift.py``).

`coverage(record, n, m, setting)` states, for a finding of n users × m resources, the sizes covered
and how, per direction:

* resources — the ``mean-column`` lemma where it is argued for the mechanism and the property
  (weights none or scalar): every M ≥ m, at each number of users covered;
* users — the ``inert-user`` lemma where it is argued (whole tasks, properties about the users
  themselves, never an entitlement 1/N): every N ≥ n; otherwise the users are covered only at the
  sizes verified (clones of a user, whose effect on a mechanism no lemma here bounds).
"""

from __future__ import annotations

from dataclasses import dataclass

#: the largest size the test suite lifts every rediscover claim's shipped fixture to (a sample of sizes)
VERIFIED_UP_TO = (8, 8)

PROVED_BY_LEMMA = "proved-by-lemma"  # argued by hand (never reported as machine-checked)
VERIFIED = "verified"  # every size listed checked exactly
NOT_COVERED = "not-covered"


@dataclass(frozen=True)
class Lemma:
    id: str
    statement: str
    argument: str
    mechanisms: frozenset[str]
    properties: frozenset[str]
    #: mechanisms the argument covers for some of the properties only: (mechanism, those properties)
    only: tuple[tuple[str, frozenset[str]], ...] = ()
    status: str = PROVED_BY_LEMMA

    def applies(self, mechanism: str, prop: str) -> bool:
        limited = dict(self.only).get(mechanism)
        return mechanism in self.mechanisms and prop in (self.properties if limited is None else limited)

    def to_dict(self) -> dict:
        return {"id": self.id, "statement": self.statement, "argument": self.argument, "status": self.status,
                "mechanisms": sorted(self.mechanisms), "properties": sorted(self.properties),
                "only": {k: sorted(v) for k, v in self.only}}


MEAN_COLUMN = Lemma(
    "mean-column",
    "Adding any number of copies of the mean-share column (user i demands (1/m) Σ_r d_ir/c_r of a resource of "
    "capacity 1; machine k holds (1/m) Σ_r c_kr/c_r of it) keeps a finding of these mechanisms and properties.",
    "The column's load is the mean of the base's load ratios, so every allocation (placement) feasible without it is "
    "feasible with it, and it is saturated only when every base resource is. A user's share of it is the mean of its "
    "shares, never above its dominant share, so dominant shares and the max-task's share are unchanged; asset shares "
    "are all multiplied by 1 + k/m, which keeps their order and their max-min. The Leontief utility of any bundle "
    "(a misreport's, an envied bundle, an equal split, a machine slice) gains the term Σ_r b_r/c_r / Σ_r d_ir/c_r, a "
    "weighted mean of the ratios b_r/d_ir, never below their least: utilities are unchanged. So the allocation of "
    "every instance a property compares (the misreported, grown or reduced instance is the lift of the base's, a "
    "misreport and grown capacities extended by the same column) is the base's, and so is the rule's value. "
    "Copies of one column repeat one constraint. BMF only for non-uniqueness (a BMF allocation stays BMF: the "
    "column adds a bottleneck option, so the BMF set may grow and the allocation BMF selects may change). Weight "
    "vectors are not covered.",
    frozenset({"drf", "asset", "ceei", "pf", "ks", "bmf", "drf-tasks", "sequential-minmax", "drf-machines", "drfh",
               "ks-lottery", "random-dictatorship", "any"}),
    frozenset({"si", "ef", "pe", "sp", "bf", "pm", "rm", "unique", "machines-si", "machines-ef", "machines-pe",
               "machines-sp", "thm7-continuous", "thm7-pairwise", "si+pe+rm", "si+pe+sp", "si+pe+sp-indivisible"}),
    only=(("bmf", frozenset({"unique"})),),
)

INERT_USER = Lemma(
    "inert-user",
    "Adding any number of users whose one task fits on no machine (twice the largest capacity of every resource) "
    "keeps a finding of these mechanisms and properties.",
    "Such a user runs nothing in any feasible allocation. These mechanisms leave it out (drf-tasks and "
    "sequential-minmax never run it, ks-lottery skips users with u_i* = 0, a random dictator that cannot run "
    "anything takes nothing, so the other users' order is still uniform), so the other users' outcomes are the "
    "base's. It envies nobody (no bundle of another user, at most a machine's capacity, runs its task), nobody "
    "envies its empty bundle, it cannot gain by a misreport nor be given a whole task, and a Pareto improvement "
    "of the base gives it nothing. Not for properties with an entitlement 1/N (si), nor Theorem 7 (its "
    "assumptions exclude such a user), nor rm (grown capacities may fit it).",
    frozenset({"drf-tasks", "sequential-minmax", "ks-lottery", "random-dictatorship"}),
    frozenset({"ef", "pe", "sp", "machines-ef", "machines-pe", "machines-sp"}),
)

LEMMAS = (MEAN_COLUMN, INERT_USER)


def lemma(lemma_id: str) -> Lemma:
    return next(x for x in LEMMAS if x.id == lemma_id)


#: rediscover claims whose shipped fixture no rule lifts to more users than this (checked by the suite:
#: one user more is not-found), with why; every other claim lifts in users up to `VERIFIED_UP_TO`
USERS_UP_TO: dict[str, tuple[int, str]] = {
    "bmf-nonunique": (3, "a clone or an inert user makes the carried-over allocations not BMF"),
    "indivisible-si-pe-sp": (2, "with a third user the lifted family is satisfiable (the entitlement 1/N of one "
                                "whole task is then nothing)"),
    "drf-machines-thm7": (2, "from three users on no rule keeps the gap (an inert user breaks Theorem 7's "
                             "assumption; more clones close the gap)"),
    "random-dictatorship-pe": (6, "the mechanism itself enumerates every order of the users and refuses more "
                                  "than 6"),
}


def sample_sizes(n: int, m: int, top_n: int, top_m: int) -> list[tuple[int, int]]:
    """The sizes the suite lifts a finding of n × m to (each verified exactly): one more resource,
    one more user, both, two mid sizes and the largest, `top_n` × `top_m`."""
    wanted = {(n, m + 1), (n + 1, m), (n + 1, m + 1), (max(n, 5), max(m, 3)), (max(n, 3), max(m, 5)), (top_n, top_m)}
    return sorted((a, b) for a, b in wanted if n <= a <= top_n and m <= b <= top_m and (a, b) != (n, m))


def claim_coverage(claim: str, record: dict, setting: str = "pool") -> dict:
    """The sizes a rediscover claim's shipped fixture (`record`) lifts to: `coverage` with the sizes the
    suite verifies exactly (`sample_sizes` up to `VERIFIED_UP_TO`, users capped by `USERS_UP_TO`)."""
    from fairlab.core.instance import Instance

    inst = Instance.from_dict(record["instance"])
    top_n, why = USERS_UP_TO.get(claim, (VERIFIED_UP_TO[0], None))
    sizes = sample_sizes(inst.n, inst.m, top_n, VERIFIED_UP_TO[1])
    return coverage(record, inst.n, inst.m, setting, verified=sizes, users_limit=(top_n, why))


def coverage(record: dict, n: int, m: int, setting: str = "pool", verified: list[tuple[int, int]] | None = None,
             users_limit: tuple[int, str | None] | None = None) -> dict:
    """The sizes a finding (its fixture record, of n users × m resources in `setting`) lifts to, and
    how: per direction the lemma (if one is argued for its mechanism and property) and its status;
    `verified`: the sizes at which its lift is checked exactly by the test suite (None: none claimed);
    `users_limit`: (the most users any rule reaches, why not more)."""
    mechanism, prop = record.get("mechanism", ""), record.get("property", "")
    weights = record.get("instance", {}).get("weights")
    vector = isinstance(weights, list) and any(isinstance(w, list) and len(set(map(str, w))) > 1 for w in weights)
    whole = setting == "machines" or bool(record.get("indivisible")) or mechanism in INERT_USER.mechanisms
    checked = sorted(verified or [])
    top_m = max([b for _, b in checked], default=m)
    top_n = max([a for a, _ in checked], default=n)
    res: dict[str, str | None]
    users: dict[str, str | None]
    if MEAN_COLUMN.applies(mechanism, prop) and not vector and setting != "dynamic":
        res = {"covers": f"every M ≥ {m}", "rule": "mean-column", "lemma": MEAN_COLUMN.id, "status": PROVED_BY_LEMMA}
    elif checked:
        res = {"covers": f"the sampled M ≤ {top_m}", "rule": None, "lemma": None, "status": VERIFIED}
    else:
        res = {"covers": f"M = {m}", "rule": None, "lemma": None, "status": NOT_COVERED}
    limit, why = users_limit if users_limit is not None else (None, None)
    if whole and INERT_USER.applies(mechanism, prop) and setting != "dynamic":
        users = {"covers": f"every N ≥ {n}", "rule": "inert", "lemma": INERT_USER.id, "status": PROVED_BY_LEMMA}
        if why:  # the lemma's sizes, but the mechanism itself stops earlier
            users.update(covers=f"{n} ≤ N ≤ {limit}", why=why)
    elif limit == n:
        users = {"covers": f"N = {n}", "rule": None, "lemma": None, "status": NOT_COVERED, "why": why}
    elif checked:
        users = {"covers": f"the sampled N ≤ {top_n}", "rule": None, "lemma": None, "status": VERIFIED,
                 **({"why": why} if why else {})}
    else:
        users = {"covers": f"N = {n}", "rule": None, "lemma": None, "status": NOT_COVERED}
    used = [x.to_dict() for x in LEMMAS if x.id in (res["lemma"], users["lemma"])]
    everything = res["status"] == users["status"] == PROVED_BY_LEMMA
    status = PROVED_BY_LEMMA if everything else VERIFIED if checked else NOT_COVERED
    return {"sizes": _sizes(n, m, users, res, checked), "status": status, "users": users, "resources": res,
            "verified_sizes": [list(x) for x in checked], "lemmas": used}


def _sizes(n: int, m: int, users: dict, res: dict, checked: list) -> str:
    """The sizes covered, in words, e.g. "all N ≥ 2 (lemma inert-user, argued by hand), all M ≥ 2 (lemma
    mean-column, argued by hand); verified exactly at 2×3, 3×2, 8×8"."""
    def part(letter: str, low: int, step: dict[str, str | None], seen: list[int]) -> str:
        why = f"; {step['why']}" if step.get("why") else ""
        if step["status"] == PROVED_BY_LEMMA:
            span = f"all {letter} ≥ {low}" if str(step["covers"]).startswith("every") else step["covers"]
            return f"{span} (lemma {step['lemma']}: argued by hand, not machine-checked{why})"
        if step["status"] == VERIFIED:
            return (f"{letter} ∈ {{{', '.join(map(str, seen))}}} (verified only; no lemma covers the other {letter}"
                    f"{why})")
        return f"{letter} = {low} only" + (f" ({step['why']})" if step.get("why") else "")

    ns = sorted({a for a, _ in checked} | {n})
    ms = sorted({b for _, b in checked} | {m})

    text = f"{part('N', n, users, ns)}, {part('M', m, res, ms)}"
    if checked:
        text += "; lifted and verified exactly at " + ", ".join(f"{a}×{b}" for a, b in checked)
    return text


def for_claim(claim: str) -> dict | None:
    """`claim_coverage` of a rediscover claim's shipped fixture (None: the claim ships none)."""
    from fairlab.core.instance import Instance
    from fairlab.counterexamples import store

    for _, record in store.shipped():
        if record.get("claim") == claim:
            setting = Instance.from_dict(record["instance"]).setting
            return {"fixture_hash": record.get("canonical_hash"), **claim_coverage(claim, record, setting)}
    return None
