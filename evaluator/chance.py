"""Chance levels and the normalised score: the one place a cell's aggregates and the papers' reported rows get
their chance level and their (value - chance) / (100 - chance) rescaling from."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from evaluator.metrics.base import MetricSpec
from evaluator.spec import Item, TaskSpec


def normalized_score(value: float, chance: float | None) -> float | None:
    """A 0-100 value rescaled so chance is 0 and a perfect score 100: (value - chance) / (100 - chance) * 100, not
    clipped (negative = below chance); None without a chance level below 100."""
    if chance is None or chance >= 100:
        return None
    return (value - chance) / (100 - chance) * 100


def metric_chance(spec: MetricSpec, task: TaskSpec, lang: str, items: Sequence[Item] = ()) -> float | None:
    """Chance level (0-100) of a metric on a task and language: 0 for metrics whose chance is zero, None where it
    is not meaningful, else the task's level, from the items' option counts when the task declares none (None
    without items)."""
    if spec.chance == "zero":
        return 0.0
    if spec.chance == "none":
        return None
    level = task.chance_level(lang)
    if level is None:
        ks = [len(i.options) for i in items if i.options]
        level = float(np.mean([1 / k for k in ks])) if ks else None
    return None if level is None else 100.0 * level
