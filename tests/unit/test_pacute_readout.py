"""The PACUTE read-out: L2 against the model's own L0-L1 and against chance, in words (evaluator.pacute_readout).

Intervals are 95% Wilson (scipy's binomtest gives the same, tests/unit/test_stats.py); the cases are worked by hand."""
from __future__ import annotations

import pytest
from scipy.stats import binomtest

from evaluator.pacute_readout import readout, readouts

FALLS = {0: (100, 80.0), 1: (100, 80.0), 2: (100, 32.0), 3: (100, 20.0), 4: (100, 25.0), 5: (100, 10.0)}


def _wilson(k: int, n: int) -> tuple[float, float]:
    ci = binomtest(k, n).proportion_ci(method="wilson")
    return 100 * ci.low, 100 * ci.high


def test_gen_drop_is_named_even_though_any_score_clears_chance_zero():
    r = readout("m", FALLS, chance=0.0)
    assert r.verdict == "breaks"
    assert r.base == pytest.approx(80.0) and r.base_n == 200 and r.l2 == pytest.approx(32.0)
    assert (r.l2_low, r.l2_high) == pytest.approx(_wilson(32, 100))
    assert (r.base_low, r.base_high) == pytest.approx(_wilson(160, 200))
    assert r.sentence == ("m drops from 80% at L0-L1 to 32% at L2 (95% CI 24-42%): morpheme decomposition is where "
                          "it breaks. L3-L5 follow it down (best 25%).")
    assert "present" not in r.sentence


def test_mcq_drop_to_chance():
    r = readout("m", {**FALLS, 2: (100, 26.0)}, chance=25.0)
    assert r.verdict == "breaks_to_chance"
    assert (r.l2_low, r.l2_high) == pytest.approx(_wilson(26, 100))  # 18.4-35.5
    # L3-L5 at 20, 25, 10 of 100: Wilson lows 13.3, 17.5, 5.5, all reach the 25% chance line
    assert r.upper_at_chance is True and r.upper_max == pytest.approx(25.0)
    assert r.sentence.startswith("m drops from 80% at L0-L1 to 26% at L2 (95% CI 18-35%), no better than guessing "
                                 "(chance is 25%): morpheme decomposition is where it breaks.")


def test_mcq_drop_above_chance_says_so():
    r = readout("m", {**FALLS, 2: (100, 50.0)}, chance=25.0)
    assert r.verdict == "breaks"
    assert ", still above chance (25%): morpheme decomposition is where it breaks." in r.sentence


def test_present_only_when_l2_reaches_the_base_level():
    r = readout("m", {0: (100, 80.0), 1: (100, 80.0), 2: (100, 75.0)}, chance=25.0)
    # L2 75/100: Wilson 65.7-82.5 reaches 80
    assert r.verdict == "holds" and r.l2_high > 80.0
    assert "morpheme decomposition is present" in r.sentence
    assert r.upper_max is None and r.upper_at_chance is None


def test_later_levels_that_do_not_fall_are_named():
    r = readout("m", {**FALLS, 4: (100, 85.0)}, chance=0.0)
    assert r.verdict == "breaks" and r.sentence.endswith(" L3-L5 do not all fall with it (best 85%).")


def test_later_levels_far_above_l2_do_not_follow_it_down():
    # L0-L1 192/200 = 96% (Wilson 92.3-97.9); L2 37/100 (28.2-46.7); L4 90/100 is far above L2, if under L0-L1
    r = readout("m", {0: (100, 96.0), 1: (100, 96.0), 2: (100, 37.0), 3: (100, 40.0), 4: (100, 90.0)}, chance=0.0)
    assert r.verdict == "breaks" and r.base_low > 90.0
    assert r.sentence.endswith(" L3-L5 do not all fall with it (best 90%).")


def test_overlapping_but_lower_is_unclear_not_present():
    # L0-L1 11/20 = 55% (34.2-74.2); L2 2/10 = 20% (5.7-51.0): under 55, overlapping the base interval
    r = readout("m", {0: (10, 6.0), 1: (10, 5.0), 2: (10, 2.0)}, chance=25.0)
    assert r.verdict == "unclear"
    assert "present" not in r.sentence and "more items are needed" in r.sentence


def test_no_base_when_characters_are_at_chance():
    r = readout("m", {0: (100, 27.0), 1: (100, 24.0), 2: (100, 25.0)}, chance=25.0)
    assert r.verdict == "no_base"
    assert "cannot show where morpheme skills break" in r.sentence


def test_fractional_correct_and_missing_levels():
    # an item's score is its mean over runs, so correct may be fractional
    r = readout("m", {0: (4, 3.5), 1: (4, 3.5), 2: (4, 0.5)}, chance=0.0)
    assert r.base == pytest.approx(87.5) and r.l2 == pytest.approx(12.5)
    assert readout("m", {0: (10, 5.0), 2: (10, 5.0)}, chance=25.0) is None
    rows = [{"model_id": "b", "level": k, "n": n, "correct": c} for k, (n, c) in FALLS.items()]
    rows += [{"model_id": "a", "level": 0, "n": 10, "correct": 9}]
    assert [r.model_id for r in readouts(rows, 0.0)] == ["b"]
