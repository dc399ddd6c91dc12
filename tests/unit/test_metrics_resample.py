"""Vectorised bootstraps equal the corpus metric recomputed on each resample (items with several rows too)."""
import numpy as np

from evaluator.metrics.choice import phenomenon_macro, phenomenon_macro_resample


def test_phenomenon_resampling_equals_the_corpus_metric_on_every_resample():
    rng = np.random.default_rng(1)
    groups = []
    for i in range(120):
        meta = {"phenomenon": ["morphology", "argument_structure", "NPIs_and_negation"][i % 3]}
        ab, ba = (None if rng.random() < 0.05 else "AB"[rng.integers(2)] for _ in range(2))
        groups.append([(ab, "A", {"item_id": str(i), "order": "ab", "run": 1, "prompt_lang": "en", "metadata": meta}),
                       (ba, "B", {"item_id": str(i), "order": "ba", "run": 1, "prompt_lang": "en", "metadata": meta})])
    draws = rng.integers(0, len(groups), size=(150, len(groups)))
    expected = np.array([phenomenon_macro([row for j in d for row in groups[j]]) for d in draws])
    assert np.allclose(phenomenon_macro_resample(groups, draws), expected, atol=1e-12)
