"""Issue 14: the column-wise finish of the label-count metrics is bit-identical to the reference functions.

`evaluator.cell_counts.finish` takes the summed counts label by label (so the bootstrap of every run is finished in
cache-sized blocks without one row per resample); its arithmetic and its order of addition must give exactly the
floats `metrics.classification.macro_f1_from_counts`, `balanced_accuracy_from_counts` and `nba_from_bacc` give on
the (rows × labels) matrices, for every label count (numpy adds up to 7 columns in order, more pairwise).
"""
from __future__ import annotations

import numpy as np
import pytest

from evaluator.cell_counts import finish, row_sum
from evaluator.metrics.classification import balanced_accuracy_from_counts, macro_f1_from_counts, nba_from_bacc


@pytest.mark.parametrize("width", range(1, 11))
@pytest.mark.parametrize("rows", (1, 7, 3000))
def test_finish_equals_the_reference_functions_bit_for_bit(width, rows):
    rng = np.random.default_rng(width * 100 + rows)
    tp = rng.integers(0, 30, (rows, width)).astype(float)
    pred, gold = tp + rng.integers(0, 30, (rows, width)), tp + rng.integers(0, 30, (rows, width))
    absent = rng.random((rows, width)) < 0.3
    tp[absent], pred[absent], gold[absent] = 0, 0, 0
    gold[rng.random((rows, width)) < 0.1] = 0
    by_label = [[m[:, j].copy() for j in range(width)] for m in (tp, pred, gold)]
    bacc = balanced_accuracy_from_counts(tp, gold)
    for kind, want in (("f1", macro_f1_from_counts(tp, pred, gold)), ("recall", bacc),
                       ("recall_over_chance", nba_from_bacc(bacc, 1 / 3))):
        assert np.array_equal(finish(kind, by_label, 1 / 3), want, equal_nan=True), kind
    shares = rng.random((rows, width))
    assert np.array_equal(row_sum([shares[:, j] for j in range(width)]), shares.sum(axis=1))


def test_every_runs_value_at_once_equals_the_run_by_run_value():
    from types import SimpleNamespace

    from evaluator.cell_counts import run_value, run_values

    rng = np.random.default_rng(1)
    for _ in range(100):
        runs, width = int(rng.integers(1, 6)), int(rng.integers(1, 8))
        tp = rng.integers(0, 20, (runs, width))
        pred, gold = tp + rng.integers(0, 20, (runs, width)), tp + rng.integers(0, 20, (runs, width))
        firsts = []
        for k in range(runs):
            labels = [int(j) for j in rng.permutation(width)][:2 if rng.random() < 0.7 else width]
            gold[k, [j for j in range(width) if j not in labels]] = 0
            firsts.append([j for j in labels if gold[k, j] > 0])
        counts = SimpleNamespace(totals=[tp, pred, gold], gold_first=firsts)
        for kind in ("f1", "recall", "recall_over_chance"):
            want = [run_value(kind, counts, k, 0.4) for k in range(runs)]
            assert np.array_equal(run_values(kind, counts, runs, 0.4), want, equal_nan=True), kind
        pairs = rng.integers(0, 3, (runs, 7, 2)).astype(float)
        want = [run_value("order", pairs, k, None) for k in range(runs)]
        assert np.array_equal(run_values("order", pairs, runs, None), want, equal_nan=True)
