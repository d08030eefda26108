"""The machines properties on lotteries (issue 30): ex ante on expected utilities, exactly; ex-post
violations as a separate finding (`ExPostWitness` in ``details["ex_post"]``)."""

from fractions import Fraction as F

import pytest

from fairlab import allocate, properties
from fairlab.core.instance import Instance
from fairlab.mechanisms import get
from fairlab.properties._machines import ExPostWitness, LotteryWitness
from fairlab.properties.base import Violation

#: one machine <4>, A <1>, B <3>: ks-lottery is 3/7 (4, 0) + 4/7 (1, 1) (tests/mechanisms/test_ks_lottery.py)
HAND = {"machines": [[4]], "demands": [[1], [3]], "users": ["A", "B"]}
#: random dictatorship: (2, 0) or (0, 3), expected (1, 3/2); the placement A 1, B 2 gives (1, 2)
RD_PE = {"machines": [[7]], "demands": [[3], [2]], "users": ["A", "B"]}
#: ks-lottery on one machine <5>, demands 1, 3, 1 (found by the lab's search)
KS_EF = {"machines": [[5]], "demands": [[1], [3], [1]], "users": ["A", "B", "C"]}


def test_si_holds_ex_ante_but_one_placement_violates_ex_post():
    r = properties.check("ks-lottery", "machines-si", HAND)
    # 1/2 of the machine runs 2 of A's tasks; E[u_A] = 16/7 >= 2, but the outcome (1, 1) gives A only 1
    assert r.status.value == "holds", r.explanation
    post = r.details["ex_post"]
    assert isinstance(post, ExPostWitness)
    assert post.witness == {"user": 0} and post.probability == "4/7" and post.placement == [[1], [1]]
    assert "ex post (a separate finding" in r.explanation and "lottery" in r.certificate


def test_ef_holds_ex_ante_but_b_envies_ex_post_in_the_pooled_model():
    r = properties.check("ks-lottery", "machines-ef", HAND, options={"model": "pooled"})
    # B values A's 4 tasks (4 units pooled) at floor(4/3) = 1 with probability 3/7, nothing otherwise: 3/7 <= 4/7
    assert r.status.value == "holds", r.explanation
    assert r.details["ex_post"].witness == {"user": 1, "envied": 0}
    assert r.details["ex_post"].probability == "3/7"
    assert r.details["model"]["name"] == "pooled" and r.details["model"]["asked"]


def test_ef_in_the_containers_model_no_ex_post_envy_where_pooling_had_one():
    # ks-lottery's own model: A's containers are sized <1>; B's task <3> fits in none of them, so B never envies A
    r = properties.check("ks-lottery", "machines-ef", HAND)
    assert r.status.value == "holds", r.explanation
    assert "ex_post" not in r.details
    assert r.details["model"] == {**r.details["model"], "name": "containers", "declared": "containers", "asked": False}
    assert "containers model" in r.explanation and "the model ks-lottery declares" in r.explanation


def test_a_deterministic_mechanism_has_no_ex_post_finding():
    r = properties.check("drf-machines", "machines-si", HAND)
    assert "ex_post" not in r.details and "placement" in r.certificate


def test_random_dictatorship_is_not_pareto_efficient_ex_ante_though_every_outcome_is():
    r = properties.check("random-dictatorship", "machines-pe", RD_PE)
    assert r.status.value == "violated", r.explanation
    assert isinstance(r.witness, LotteryWitness) and r.witness.user == 1
    assert "ex_post" not in r.details  # each dictatorship outcome is Pareto efficient on its own
    mech, inst = get("random-dictatorship"), Instance.from_dict(RD_PE)
    assert Violation("machines-pe", mech, inst, r.witness, {}).verify()
    # a forged witness is rejected: probabilities not summing to 1, or a placement over capacity
    assert not Violation("machines-pe", mech, inst, LotteryWitness([["1/2", [[1], [2]]]], 1), {}).verify()
    assert not Violation("machines-pe", mech, inst, LotteryWitness([[1, [[1], [3]]]], 1), {}).verify()


def test_ks_lottery_pareto_efficient_ex_ante_on_the_hand_instance():
    assert properties.check("ks-lottery", "machines-pe", HAND).status.value == "holds"


#: a lottery with ks-lottery's expected tasks on KS_EF, (25/13, 5/13, 25/13), under which B envies C in expectation
ENVIOUS = '''
from fractions import Fraction as F
def envious(inst):
    return {"lottery": [[F(9, 26), [[2], [1], [0]]], [F(8, 13), [[2], [0], [3]]], [F(1, 26), [[0], [1], [2]]]]}
envious.setting = "machines"; envious.discrete = True
'''


def test_envy_ex_ante_depends_on_the_lottery_not_only_on_the_expected_tasks(tmp_path):
    """The leximin fixes the expected tasks, not the lottery: a lottery with the same expectation can leave B
    envying C in expectation, so ks-lottery's lottery is fixed by the lab's tie-break (lexicographically greatest
    probabilities), never by which vertex an LP solver's version returns (CI's lowest HiGHS returned another)."""
    path = tmp_path / "envious.py"
    path.write_text(ENVIOUS)
    envious = properties.check(f"{path}:envious", "machines-ef", KS_EF)
    assert envious.status.value == "violated", envious.explanation
    assert envious.witness == {"user": 1, "envied": 2} and "in expectation" in envious.explanation
    for options in ({"model": "pooled"}, {"lottery": "any", "model": "pooled"}):
        a = allocate("ks-lottery", KS_EF, **options)
        assert a.tasks == (F(25, 13), F(5, 13), F(25, 13))
        assert allocate("ks-lottery", KS_EF, **options).lottery == a.lottery  # the same lottery, every time
        r = properties.check("ks-lottery", "machines-ef", KS_EF, options=options)
        assert r.status.value == "holds", r.explanation
        assert r.details["ex_post"].witness["user"] == 1  # ex post, someone still envies


def test_envy_in_the_containers_model_depends_on_the_task_totals_only():
    """In FGP's containers model j's bundles are worth j's task count to i when d_i <= d_j and nothing otherwise,
    whatever the machines: the envious plug-in lottery's B <3> fits in no container of C <1>, so no envy there;
    and C envies A (same size <1>) exactly when E[x_A] > E[x_C]."""
    from fairlab.mechanisms._placements import envy_value

    inst = Instance.from_dict({"machines": [[3], [4]], "demands": [[1], [3], [1]]})
    placement = ((2, 1), (0, 1), (1, 0))
    assert envy_value(inst, placement, 2, 0, True, "containers") == 3  # C uses A's 3 containers, one task each
    assert envy_value(inst, placement, 1, 0, True, "containers") == 0  # B's <3> fits in no <1> container
    assert envy_value(inst, placement, 0, 1, True, "containers") == 1  # A's <1> fits in B's one <3> container
    assert envy_value(inst, placement, 0, 1, True, "pooled") == 3  # pooled: B's <3> on machine 2 runs 3 of A's
    r = properties.check("ks-lottery", "machines-ef", KS_EF)
    assert r.status.value == "holds" and r.details["model"]["name"] == "containers", r.explanation


def test_a_plug_in_declares_its_valuation_model(tmp_path):
    """The envious lottery under which B envies C pooled: declared containers (its paper's model, say), B's <3>
    fits in none of C's <1> containers and the check holds; an unknown model is one line."""
    from fairlab.core.errors import InputError

    path = tmp_path / "declared.py"
    path.write_text(ENVIOUS + 'envious.valuation = "containers"\n'
                    + ENVIOUS.replace("envious", "odd") + 'odd.valuation = "boxes"\n')
    r = properties.check(f"{path}:envious", "machines-ef", KS_EF)
    assert r.status.value == "holds" and r.details["model"]["declared"] == "containers", r.explanation
    asked = properties.check(f"{path}:envious", "machines-ef", KS_EF, options={"model": "pooled"})
    assert asked.status.value == "violated" and asked.details["model"]["asked"]
    with pytest.raises(InputError, match="valuation attribute 'boxes'"):
        get(f"{path}:odd")


def test_the_containers_model_needs_whole_tasks():
    r = properties.check("drfh", "machines-ef", HAND, options={"model": "containers"})
    assert r.status.value == "n/a" and "containers model needs whole tasks" in r.explanation
    assert properties.check("drfh", "machines-ef", HAND).status.value == "holds"  # its own model: pooled


def test_the_tie_break_is_the_lexicographically_greatest_lottery():
    a = allocate("ks-lottery", KS_EF, lottery="any")
    # frontier vectors largest first: (5, 0, 0) takes all it can (5/13), then (0, 1, 2) ... (0, 0, 5) the rest
    assert [(p, [row[0] for row in placement]) for p, placement in a.lottery] == \
        [(F(5, 13), [5, 0, 0]), (F(5, 13), [0, 1, 2]), (F(3, 13), [0, 0, 5])]


FAVOUR = '''
from fractions import Fraction as F
def favour(inst):
    """Toy lottery: the whole machine to A or to B; B's probability is 3/4 when it declares more than <1>."""
    b = F(3, 4) if inst.demands[1][0] > 1 else F(1, 2)
    whole = lambda i: int(inst.machines[0][0] // inst.demands[i][0])
    return {"lottery": [[1 - b, [[whole(0)], [0]]], [b, [[0], [whole(1)]]]]}
favour.setting = "machines"; favour.discrete = True
'''


def test_sp_ex_ante_a_misreport_that_raises_the_expected_utility(tmp_path):
    path = tmp_path / "favour.py"
    path.write_text(FAVOUR)
    inst = {"machines": [[4]], "demands": [[1], [1]], "users": ["A", "B"]}
    r = properties.check(f"{path}:favour", "machines-sp", inst)
    # truthful: E[u_B] = 1/2 * 4 = 2; declaring <2>: with probability 3/4 B holds 2 declared tasks = 4 units,
    # which run 4 real tasks: E = 3 > 2
    assert r.status.value == "violated", r.explanation
    assert r.witness == {"user": 1, "misreport": [2]}
    assert "runs 2 tasks when truthful but 3 of its real tasks by declaring <2> (expected tasks, ex ante)" in \
        r.explanation


def test_sp_the_same_misreport_gains_nothing_in_the_containers_model(tmp_path):
    # declaring <2>, B gets 2 containers of size 2 with probability 3/4, each running ONE real task: E = 3/2 < 2;
    # pooled, the same 4 units run 4 real tasks: E = 3 > 2. Declaring <5/4> still gains with containers: 3 of them
    path = tmp_path / "favour.py"
    path.write_text(FAVOUR)
    mech, inst = get(f"{path}:favour"), Instance.from_dict({"machines": [[4]], "demands": [[1], [1]],
                                                            "users": ["A", "B"]})
    lie = {"user": 1, "misreport": [2]}
    assert Violation("machines-sp", mech, inst, lie, {"model": "pooled"}).verify()
    assert not Violation("machines-sp", mech, inst, lie, {"model": "containers"}).verify()
    r = properties.check(mech, "machines-sp", inst, options={"model": "containers"})
    assert r.status.value == "violated" and r.witness == {"user": 1, "misreport": ["5/4"]}, r.explanation
    assert "but 9/4 of its real tasks" in r.explanation and "NOT the model" in r.explanation


def test_sp_under_reporting_gives_zero_in_expectation():
    from fairlab.properties.machines_sp import true_tasks

    inst = Instance.from_dict({"machines": [[4]], "demands": [[2], [1]]})
    assert true_tasks(inst, 0, (F(1),), (F(4),), True) == 0  # declared below the truth: nothing runs
    assert true_tasks(inst, 0, (F(4),), (F(1),), True) == 2  # declared above: 4 units run 2 real tasks
    # containers: one real task per container of the declared size, none if the real task does not fit
    assert true_tasks(inst, 0, (F(4),), (F(1),), True, "containers") == 1
    assert true_tasks(inst, 0, (F(3),), (F(1), F(1)), True, "containers") == 2
    assert true_tasks(inst, 0, (F(1),), (F(4),), True, "containers") == 0
    two = Instance.from_dict({"machines": [[4, 4]], "demands": [[2, 2], [1, 1]]})
    # raised on one resource, lowered on the other: still an under-report, nothing runs
    assert true_tasks(two, 0, (F(3), F(1)), (F(1),), True, "containers") == 0
