"""Score one prediction: extract the answer, then apply every item-level metric of the task.

Unparseable outputs get `parsed=False` and are scored as wrong answers (0 on every item metric). Corpus-only metrics (macro-F1, chrF++
corpus, order consistency, ...) get no item score; `evaluator.aggregate` computes them over the cell.
"""
from __future__ import annotations

from typing import Any

from evaluator.extract import extract
from evaluator.metrics import METRICS
from evaluator.metrics.base import item_score
from evaluator.spec import Item, ItemResult, Prediction, TaskSpec

_FLIP = {"A": "B", "B": "A"}


def gold_for(task: TaskSpec, item: Item, pred: Prediction) -> Any:
    """The gold as the model saw it: for binary choices asked in order "ba" the letter is flipped (A↔B)."""
    gold = item.gold
    if pred.order == "ba" and isinstance(gold, str) and gold.upper() in _FLIP:
        return _FLIP[gold.upper()]
    return gold


def score_prediction(task: TaskSpec, item: Item, pred: Prediction) -> ItemResult:
    """Extract and score one prediction against its item (pure: no I/O)."""
    if pred.item_id != item.item_id:
        raise ValueError(f"prediction for item {pred.item_id!r} scored against item {item.item_id!r} ({task.name})")
    ex = extract(task, item, pred)
    gold = gold_for(task, item, pred)
    scores: dict[str, float] = {}
    for name in task.metrics:
        spec = METRICS.get(name)
        if spec is None or spec.item is None or (spec.langs and item.lang not in spec.langs):
            continue
        answer = ex.answer if ex.parsed else None  # unparseable = wrong (0, or below chance for mcq_norm_acc)
        scores[name] = item_score(spec, answer, gold, task=task, item=item, output=pred.output,
                                  extras=ex.extras)
    reasoning = "\n\n".join(r for r in (pred.reasoning, ex.reasoning) if r) or None
    return ItemResult(prediction=pred, answer=ex.answer, parsed=ex.parsed, reasoning=reasoning,
                      scores=scores, extras=dict(ex.extras))
