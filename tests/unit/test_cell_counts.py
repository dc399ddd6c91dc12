"""The label-count metrics of a cell (`evaluator.cell_counts`) against their corpus definitions and numpy."""
from __future__ import annotations

import numpy as np
import pytest


def test_run_mean_equals_numpys_nan_mean_over_the_expanded_runs_bit_for_bit():
    from evaluator.cell_counts import run_mean

    rng = np.random.default_rng(3)
    distinct = rng.random((5, 300))
    distinct[rng.random((5, 300)) < 0.2] = np.nan
    distinct[:, :4] = [[-0.0, np.nan, 0.0, np.nan]] * 5  # signed zeros and columns without any value
    inverse = rng.integers(0, 5, 41)
    full = distinct[inverse]
    counted = (~np.isnan(full)).sum(axis=0)
    want = np.where(counted > 0, np.nansum(full, axis=0) / np.maximum(counted, 1), np.nan)
    got = run_mean(distinct, inverse)
    assert np.array_equal(got, want, equal_nan=True) and np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("task_name, lang, orders", [("causal", "id", ("ab", "ba")), ("sentiment", "th", ("ab",))])
def test_label_count_metrics_equal_their_corpus_definition_on_every_resample(task_name, lang, orders):
    """Every label-count metric's value is its corpus function per run, averaged over runs, and its bootstrap
    statistics are that function on each resample's drawn items (runs that repeat another run's answers are
    resampled once by `distinct_runs`)."""
    from evaluator.aggregate import _bootstrap, _rows, _value
    from evaluator.cell_columns import CellColumns, Layout
    from evaluator.cell_counts import counted_metric
    from evaluator.metrics import METRICS
    from evaluator.registry import get_task
    from evaluator.scoring import score_prediction
    from evaluator.spec import Item, Prediction
    from evaluator.stats import bootstrap_draws

    task = get_task(task_name)
    golds = ["A", "B"] if task_name == "causal" else ["positive", "negative", "neutral"]
    outputs = ["A", "B", "???"] if task_name == "causal" else ["positive", "negative", "neutral", "???", "ok"]
    items = [Item(task=task.name, lang=lang, item_id=f"i{k:02d}", inputs={}, gold=golds[k % len(golds)],
                  options=("x", "y") if task_name == "causal" else None) for k in range(23)]
    pairs = []
    for run in range(1, 12):
        pick = np.random.default_rng(run % 3 if run != 7 else 99)  # runs 1, 4, 7... repeat; run 7 is its own
        for item in items:
            for order in orders:
                p = Prediction(task=task.name, lang=lang, item_id=item.item_id, prompt_lang="en", run=run,
                               order=order, output=outputs[int(pick.integers(0, len(outputs)))])
                pairs.append((item, score_prediction(task, item, p)))
    cols = CellColumns.from_pairs(pairs)
    lay, rows = Layout.of(cols), _rows(task, pairs)
    draws = bootstrap_draws(4156, 200, len(items))
    counted = [m for m in task.metrics if METRICS[m].counted]
    assert len(counted) >= 2
    for name in counted:
        value, stats = counted_metric(METRICS[name], task, lang, cols, lay, draws)
        assert value == _value(METRICS[name], rows), name
        want = _bootstrap(METRICS[name], rows, draws)
        assert len(stats) == len(want) == 200 and np.allclose(stats, want, rtol=0, atol=1e-12), name


@pytest.mark.parametrize("collide", (False, True))
def test_distinct_runs_groups_exactly_equal_runs(monkeypatch, collide):
    """Runs are grouped by a fingerprint and checked whole: the groups are those of the runs' bytes, also when every
    fingerprint collides (weights forced to zero)."""
    from evaluator import cell_counts

    rng = np.random.default_rng(5)
    base = rng.integers(0, 4, (4, 6, 3))
    parts = [base[rng.integers(0, 4, 30)], base[rng.integers(0, 4, 30)] * 2]
    if collide:
        class Zeros:
            def integers(self, low, high, size):
                return np.zeros(size, dtype=np.int64)

        monkeypatch.setattr(cell_counts.np.random, "default_rng", lambda seed: Zeros())
    first, inverse = cell_counts.distinct_runs(parts)
    rows = [b"".join(p[k].tobytes() for p in parts) for k in range(30)]
    assert [rows[k] for k in first[inverse]] == rows  # each run maps to an equal run
    assert len(set(rows)) == len(first) and all(inverse[f] == i for i, f in enumerate(first))
