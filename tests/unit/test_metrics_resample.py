"""Vectorised bootstraps equal the corpus metric recomputed on each resample (items with several rows too)."""
import numpy as np

from evaluator.metrics.choice import (order_consistency, order_consistency_resample, phenomenon_macro,
                                      phenomenon_macro_resample)


def test_choice_resampling_equals_the_corpus_metric_on_every_resample():
    rng = np.random.default_rng(1)
    groups = []
    for i in range(120):
        meta = {"phenomenon": ["morphology", "argument_structure", "NPIs_and_negation"][i % 3]}
        ab, ba = (None if rng.random() < 0.05 else "AB"[rng.integers(2)] for _ in range(2))
        groups.append([(ab, "A", {"item_id": str(i), "order": "ab", "run": 1, "prompt_lang": "en", "metadata": meta}),
                       (ba, "B", {"item_id": str(i), "order": "ba", "run": 1, "prompt_lang": "en", "metadata": meta})])
    draws = rng.integers(0, len(groups), size=(150, len(groups)))
    for vectorised, scalar in ((order_consistency_resample, order_consistency),
                               (phenomenon_macro_resample, phenomenon_macro)):
        expected = np.array([scalar([row for j in d for row in groups[j]]) for d in draws])
        assert np.allclose(vectorised(groups, draws), expected, atol=1e-12)


def test_multi_run_cells_bootstrap_the_same_as_the_per_resample_loop(shared_data):
    import dataclasses

    from evaluator.aggregate import _bootstrap, _rows
    from evaluator.datasets import load_items
    from evaluator.metrics.base import get_metric
    from evaluator.registry import get_task
    from evaluator.scoring import score_prediction
    from evaluator.spec import Prediction

    task = get_task("sentiment")
    items = load_items(task, "vi", data_dir=shared_data, limit=40)
    words = ["Positive", "Negative", "Neutral", "nonsense"]
    pairs = [(it, score_prediction(task, it, Prediction("sentiment", "vi", it.item_id, "en", words[(k * run) % 4],
                                                        run=run)))
             for run in (1, 2, 3) for k, it in enumerate(items) if not (run == 3 and k % 5 == 0)]
    rows = _rows(task, pairs)
    for name in ("macro_f1", "balanced_accuracy"):
        spec = get_metric(name)
        fast = _bootstrap(spec, rows, 300, 4156)
        slow = _bootstrap(dataclasses.replace(spec, resample=None), rows, 300, 4156)
        assert np.allclose(fast, slow, atol=1e-12), name
