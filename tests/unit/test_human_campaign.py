"""Campaign planning (evaluator.human.campaign) and agreement/correlation (evaluator.human.agreement)."""
from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from scipy import stats

from evaluator.human import agreement, campaign, protocols

OUTPUTS = {"m1|en": {f"i{n}": f"a{n}" for n in range(8)},
           "m2|native": {**{f"i{n}": f"b{n}" for n in range(7)}, "i7": "  "}}
REFS = {f"i{n}": f"ref{n}" for n in range(8)}


def _plan(seed=7, **kw):
    args = dict(n_items=4, annotators=["ann", "bo", "cy"], k=2, seed=seed, n_repeats=1)
    return campaign.plan(OUTPUTS, REFS, **{**args, **kw})


def test_items_are_sampled_from_those_every_system_answered_and_seed_is_reproducible():
    assert campaign.eligible_items(OUTPUTS, REFS) == [f"i{n}" for n in range(7)]  # i7: blank output of m2
    p = _plan()
    assert len(p.items) == 4 and "i7" not in p.items
    assert _plan() == p and _plan(seed=8) != p


def test_every_item_is_rated_by_k_distinct_annotators_and_qc_is_added():
    p = _plan()
    first = [a for a in p.assignments if not a.is_repeat]
    for item in p.items:
        raters = [a.annotator for a in first if a.item_id == item]
        assert len(raters) == 2 and len(set(raters)) == 2
    loads = sorted(sum(1 for a in first if a.annotator == n) for n in ["ann", "bo", "cy"])
    assert loads[-1] - loads[0] <= 1 and sum(loads) == 8
    repeats = [a for a in p.assignments if a.is_repeat]
    assert len(repeats) == 3 and all(r.item_id in {a.item_id for a in first if a.annotator == r.annotator}
                                     for r in repeats)
    systems = {c.system for c in p.candidates}
    assert systems == {"m1|en", "m2|native", "reference", "corrupted"}
    corrupted = [c for c in p.candidates if c.system == "corrupted"]
    assert len(corrupted) == 1 and corrupted[0].text == REFS[p.items[1]] and corrupted[0].item_id == p.items[0]


def test_candidates_are_blinded_and_shuffled_per_annotator():
    p = _plan(n_items=6, k=3)
    for c in p.candidates:
        assert c.system.split("|")[0] not in c.cand_id and len(c.cand_id) == 10
    orders = {}
    for a in p.assignments:
        orders.setdefault(a.item_id, set()).add(a.cand_order)
    assert any(len(o) > 1 for o in orders.values())  # annotators see different orders


@pytest.mark.parametrize("kw,field", [(dict(k=4), "k"), (dict(n_items=9), "n_items"), (dict(annotators=["a", "a"]),
                                                                                          "annotators")])
def test_impossible_campaigns_are_refused_naming_the_field(kw, field):
    with pytest.raises(campaign.CampaignError, match=f"^{field}:"):
        _plan(**kw)


def test_protocol_values_are_checked():
    assert protocols.protocol_for("translation-en-xx") is protocols.MT
    assert protocols.protocol_for("abssum") is protocols.SUMMARISATION
    assert protocols.check_value(protocols.MT, "correct", 1) is None
    assert "outside" in protocols.check_value(protocols.SUMMARISATION, "fluency", 6)
    assert "whole" in protocols.check_value(protocols.SUMMARISATION, "fluency", 2.5)
    assert "unknown" in protocols.check_value(protocols.MT, "fluency", 1)


def _matrix(j):
    units = sorted(j)
    raters = sorted({a for u in units for a in j[u]})
    return np.array([[j[u].get(r, np.nan) for u in units] for r in raters], dtype=float)


JUDGED = {"u1": {"a": 1, "b": 1, "c": 0}, "u2": {"a": 0, "b": 0, "c": 0}, "u3": {"a": 1, "b": 1},
          "u4": {"a": 0, "b": 1, "c": 1}, "u5": {"a": 1, "c": 1}}


def test_alpha_equals_krippendorff_package_nominal_and_ordinal():
    assert agreement.alpha(JUDGED) == pytest.approx(krippendorff.alpha(_matrix(JUDGED), level_of_measurement="nominal"))
    ordinal = {"u1": {"a": 5, "b": 4}, "u2": {"a": 1, "b": 2, "c": 1}, "u3": {"a": 3, "b": 3, "c": 4}}
    assert agreement.alpha(ordinal, "ordinal") == pytest.approx(
        krippendorff.alpha(_matrix(ordinal), level_of_measurement="ordinal"))


def test_alpha_complete_disagreement_is_negative_as_the_package_says():
    opposite = {f"u{n}": {"a": n % 2, "b": 1 - n % 2} for n in range(6)}
    got = agreement.alpha(opposite)
    assert got == pytest.approx(krippendorff.alpha(_matrix(opposite), level_of_measurement="nominal"))
    assert got < 0
    # by hand: 12 values (six 0s, six 1s), 12 disagreeing ordered pairs; alpha = 1 - (12 - 1) * 12 / (2 * 6 * 6)
    assert got == pytest.approx(1 - 1 / (2 * 6 * 6 / (12 * 11)))


def test_alpha_is_nan_when_undefined():
    assert math.isnan(agreement.alpha({"u1": {"a": 1, "b": 1}, "u2": {"a": 1, "b": 1}}))
    assert math.isnan(agreement.alpha({"u1": {"a": 1}}))


PAIRS = {("i1", "s1"): (1, 0.9), ("i1", "s2"): (0, 0.2), ("i2", "s1"): (1, 0.7), ("i2", "s2"): (1, 0.4),
         ("i3", "s1"): (0, 0.5), ("i3", "s2"): (0, 0.1), ("i4", "s1"): (1, 0.8), ("i4", "s2"): (0, 0.3)}


def test_item_and_system_tau_equal_scipy():
    keys = sorted(PAIRS)
    want = stats.kendalltau([PAIRS[k][0] for k in keys], [PAIRS[k][1] for k in keys]).statistic
    got = agreement.item_tau(PAIRS, seed=1, n_boot=200)
    assert got.value == pytest.approx(want) and got.n == 8 and got.low <= got.value <= got.high
    s1 = (np.mean([1, 1, 0, 1]), np.mean([0.9, 0.7, 0.5, 0.8]))
    s2 = (np.mean([0, 1, 0, 0]), np.mean([0.2, 0.4, 0.1, 0.3]))
    sys = agreement.system_tau(PAIRS, seed=1, n_boot=200)
    assert sys.value == pytest.approx(stats.kendalltau([s1[0], s2[0]], [s1[1], s2[1]]).statistic) == 1.0
    assert sys.n == 2


def test_tau_of_complete_disagreement_is_minus_one():
    rev = {(f"i{n}", "s"): (n, -n) for n in range(5)}
    assert agreement.item_tau(rev, n_boot=50).value == pytest.approx(-1.0)


def test_mean_intervals():
    e = agreement.mean_interval([1, 1, 1, 0], binary=True)
    ci = stats.binomtest(3, 4).proportion_ci(0.95, method="wilson")
    assert (e.value, e.low, e.high, e.n) == (0.75, pytest.approx(ci.low), pytest.approx(ci.high), 4)
    t = agreement.mean_interval([60, 70, 80])
    assert t.value == 70 and t.low == pytest.approx(70 - stats.t.ppf(0.975, 2) * 10 / math.sqrt(3))
