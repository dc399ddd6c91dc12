"""The statistics of evaluator.stats against SciPy and hand-computed cases."""
from __future__ import annotations

import statistics

import numpy as np
import pytest
from scipy import stats

from evaluator.stats import bootstrap_draws, mcnemar_exact, percentile_interval, wilson


def test_wilson_is_scipys_wilson_interval_for_every_count_up_to_60():
    for n in range(1, 61):
        for k in range(n + 1):
            ci = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
            assert wilson(k / n, n) == (pytest.approx(ci.low, abs=1e-14), pytest.approx(ci.high, abs=1e-14)), (k, n)


def test_wilson_by_hand_and_for_a_share_between_counts():
    # p = 1/2, n = 4, z^2 = 3.8415: centre 1/2, half = z * sqrt(1/16 + z^2/64) / (1 + z^2/4) = 0.3498
    z2 = 1.959963984540054 ** 2
    half = 1.959963984540054 * np.sqrt(1 / 16 + z2 / 64) / (1 + z2 / 4)
    assert wilson(0.5, 4) == (pytest.approx(0.5 - half), pytest.approx(0.5 + half))
    low, high = wilson(0.55, 10)  # a mean over runs: between the intervals of 5 and 6 out of 10
    assert wilson(0.5, 10)[0] < low < wilson(0.6, 10)[0] and wilson(0.5, 10)[1] < high < wilson(0.6, 10)[1]
    assert all(np.isnan(wilson(0.5, 0)))


def test_mcnemar_exact_by_hand():
    assert mcnemar_exact(9, 1) == pytest.approx(2 * (1 + 10) / 1024, rel=1e-12)  # binomial(10, 1/2): P(X <= 1) x 2
    assert mcnemar_exact(1, 9) == mcnemar_exact(9, 1)
    assert mcnemar_exact(0, 5) == pytest.approx(2 / 32, rel=1e-12)
    assert mcnemar_exact(0, 0) == 1.0 and mcnemar_exact(3, 3) == 1.0


def test_bootstrap_draws_are_numpys_seeded_integers_and_read_only():
    draws = bootstrap_draws(4156, 5, 7)
    assert (draws == np.random.default_rng(4156).integers(0, 7, size=(5, 7))).all()
    assert bootstrap_draws(4156, 5, 7) is draws and not draws.flags.writeable


def test_percentile_interval_interpolates_linearly():
    assert percentile_interval(np.arange(41.0)) == (1.0, 39.0)  # 2.5% and 97.5% of 0..40
    assert percentile_interval([0.0, 1.0]) == (0.025, 0.975)
    assert all(np.isnan(percentile_interval([])))


def test_draw_counts_count_each_item_per_resample():
    from evaluator.stats import draw_counts

    got = draw_counts(np.array([[0, 0, 2], [1, 2, 2]]))
    assert got.dtype == np.float64 and got.tolist() == [[2.0, 0.0, 1.0], [0.0, 1.0, 2.0]]


def test_stratified_draws_keep_every_class_count_and_are_seeded_numpy_blocks():
    from evaluator.stats import stratified_draws

    strata = (1, 0, 1, 2, 0, 1, 1)
    draws = stratified_draws(7, 50, strata)
    assert draws.shape == (50, 7) and not draws.flags.writeable
    codes = np.asarray(strata)[draws]
    assert all(sorted(row) == sorted(strata) for row in codes.tolist())  # each resample: 2 × 0, 4 × 1, 1 × 2
    rng = np.random.default_rng(7)
    want = np.hstack([np.array(m)[rng.integers(0, len(m), size=(50, len(m)))] for m in ([1, 4], [0, 2, 5, 6], [3])])
    assert (draws == want).all()


def test_run_sd_is_the_sample_standard_deviation():
    from evaluator.stats import run_sd

    assert run_sd([50.0]) is None and run_sd([]) is None
    assert run_sd([40.0, 50.0, 60.0]) == 10.0
    assert run_sd([40.0, float("nan"), 60.0]) == pytest.approx(statistics.stdev([40.0, 60.0]))
