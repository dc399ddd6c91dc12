"""Choice-task metrics: PACUTE log-probability MCQ, order consistency and LINDSEA phenomenon macro-average.

Corpus rows are `(answer, gold, extras)` triples; `extras` carries `item_id`, `order`, `run`, `prompt_lang`
and `metadata` (added by `evaluator.aggregate`).
"""
from __future__ import annotations

import hashlib
import unicodedata
from collections import defaultdict
from typing import Any, Sequence

import numpy as np

from evaluator.metrics.base import MetricSpec, register, resample_sums
from evaluator.metrics.classification import same

FLIP = {"A": "B", "B": "A"}


def _tie_key(option: str) -> str:
    return hashlib.sha256(unicodedata.normalize("NFC", str(option)).encode("utf-8")).hexdigest()


def tied(values: Sequence[float]) -> list[int]:
    """Indices of the options sharing the highest value exactly (one index when there is no tie)."""
    best = max(values)
    return [i for i, v in enumerate(values) if v == best]


def argmax_option(values: Sequence[float], options: Sequence[str]) -> int:
    """Index of the option shown as the answer: the highest value; among exactly tied options the one whose NFC
    text has the smallest SHA-256 digest (never their position). A tie is scored by `tied_credit`, not by this
    pick."""
    top = tied(values)
    if len(top) == 1 or len(options) != len(values):
        return top[0]
    return min(top, key=lambda i: _tie_key(options[i]))


def tied_credit(tied_options: Sequence[str], gold: Any) -> float:
    """Credit of an MCQ whose highest log-probability is shared by `tied_options` (k texts): the share of them
    that are the gold, i.e. 1/k when the gold is one of a k-way exact tie. This is the expected accuracy of a
    random tie-break, the same in any option order (pacute-bench's `torch.max` credits index 0, its gold)."""
    if not tied_options:
        return 0.0
    return sum(o == gold for o in tied_options) / len(tied_options)


def mcq_acc_item(answer: str | None, gold: Any, *, lang: str = "", item: Any = None,
                 extras: dict | None = None) -> float:
    """1.0 when the chosen option string equals the gold option; for an exact tie of log-probabilities
    (`extras["tied"]`, the tied option texts) the `tied_credit`."""
    tie = (extras or {}).get("tied")
    if answer is not None and tie:
        return tied_credit(tie, gold)
    return float(answer is not None and answer == gold)


def mcq_norm_acc_item(answer: str | None, gold: Any, *, lang: str = "", item: Any = None,
                      extras: dict | None = None) -> float:
    """Chance-corrected accuracy with this item's k options: (acc·k − 1)/(k − 1); the cell mean equals
    (acc·k − 1)/(k − 1) when every item has k options, and is negative below chance."""
    k = len(item.options) if item is not None and item.options else 0
    acc = mcq_acc_item(answer, gold, extras=extras)
    if k < 2:
        return acc
    return (acc * k - 1) / (k - 1)


def mcq_f1(rows: Sequence[tuple]) -> float:
    """PACUTE MCQ F1 as pacute-bench computes it: gold = positive class, so precision is 1 and recall is the
    accuracy: F1 = 2·acc/(1 + acc)."""
    if not rows:
        return float("nan")
    acc = sum(mcq_acc_item(a, g, extras=e) for a, g, e in rows) / len(rows)
    return 2 * acc / (1 + acc)


def mcq_f1_resample(groups: Sequence[Sequence[tuple]], draws: np.ndarray) -> np.ndarray:
    """`mcq_f1` on every resample at once: per item (hits, rows), summed over draws."""
    per_item = [(sum(mcq_acc_item(a, g, extras=e) for a, g, e in rows), len(rows)) for rows in groups]
    hits, n = resample_sums(per_item, draws).T
    acc = hits / np.maximum(n, 1)
    return np.where(n > 0, 2 * acc / (1 + acc), np.nan)


def order_consistency(rows: Sequence[tuple]) -> float:
    """Share of (item, run, prompt) pairs asked in both orders whose chosen option is the same both times.

    The letter given in order "ba" is flipped back before comparing; an unparseable answer is inconsistent.
    An item present several times (bootstrap resamples) pairs its k-th "ab" row with its k-th "ba" row.
    NaN when no item was asked in both orders.
    """
    seen: dict[tuple, dict[str, list]] = defaultdict(lambda: {"ab": [], "ba": []})
    for answer, _gold, extras in rows:
        key = (extras.get("item_id"), extras.get("run"), extras.get("prompt_lang"))
        seen[key]["ba" if extras.get("order") == "ba" else "ab"].append(answer)
    pairs = [p for v in seen.values() for p in zip(v["ab"], v["ba"])]
    if not pairs:
        return float("nan")
    ok = sum(1 for ab, ba in pairs if ab is not None and ba is not None
             and ab.upper() == FLIP.get(ba.upper(), ba.upper()))
    return ok / len(pairs)


def phenomenon_macro(rows: Sequence[tuple]) -> float:
    """Accuracy per `metadata["phenomenon"]`, then the unweighted mean over phenomena (LINDSEA minimal pairs)."""
    hits: dict[str, list[bool]] = defaultdict(list)
    for answer, gold, extras in rows:
        phen = (extras.get("metadata") or {}).get("phenomenon", "?")
        hits[str(phen)].append(same(answer, gold))
    if not hits:
        return float("nan")
    return sum(sum(v) / len(v) for v in hits.values()) / len(hits)


def phenomenon_macro_resample(groups: Sequence[Sequence[tuple]], draws: np.ndarray) -> np.ndarray:
    """`phenomenon_macro` on every resample at once: per item and phenomenon (hits, rows), summed over draws."""
    phens = sorted({str((e.get("metadata") or {}).get("phenomenon", "?")) for rows in groups for *_, e in rows})
    code = {p: i for i, p in enumerate(phens)}
    hits, count = np.zeros((len(groups), len(phens))), np.zeros((len(groups), len(phens)))
    for i, rows in enumerate(groups):
        for answer, gold, extras in rows:
            j = code[str((extras.get("metadata") or {}).get("phenomenon", "?"))]
            hits[i, j] += same(answer, gold)
            count[i, j] += 1
    h, c = resample_sums(hits, draws), resample_sums(count, draws)
    acc = np.where(c > 0, h / np.maximum(c, 1), 0.0)
    value = acc.sum(axis=1) / np.maximum((c > 0).sum(axis=1), 1)
    return np.where(c.sum(axis=1) > 0, value, np.nan)


MCQ_ACC = register(MetricSpec(
    name="mcq_acc", display="MCQ accuracy", item=mcq_acc_item, binary=True, reads_extras=True,
    description="Option with the highest summed log-probability given the prompt (no length normalisation) "
                "equals the gold option. A k-way exact tie that includes the gold scores 1/k (the expected "
                "accuracy of a random tie-break), in any option order; pacute-bench credits index 0, its gold.",
    reference="PACUTE paper §5 (scoring); pacute-bench _calc_metrics"))
MCQ_NORM_ACC = register(MetricSpec(
    name="mcq_norm_acc", display="MCQ normalized accuracy", item=mcq_norm_acc_item, chance="zero", reads_extras=True,
    description="(acc·k − 1)/(k − 1) with each item's own number of options k: 0 = chance, 1 = perfect, "
                "negative below chance (not clipped). pacute-bench uses one k per benchmark (the largest option "
                "count, 4), so items with 2 or 3 options are normalised differently there.",
    reference="PACUTE paper §5 normalized accuracy; pacute-bench _calc_metrics"))
MCQ_F1 = register(MetricSpec(
    name="mcq_f1", display="MCQ F1", item=None, corpus=mcq_f1, resample=mcq_f1_resample, chance="none",
    description="F1 as the PACUTE paper reports it (pacute-bench _calc_metrics): the gold is the positive class, "
                "so precision is always 1, recall is the accuracy, and F1 = 2·acc/(1 + acc).",
    reference="PACUTE paper §5; pacute-bench src/pacute_bench/evaluators/base.py _calc_metrics @ dcab16b"))
ORDER_CONSISTENCY = register(MetricSpec(
    name="order_consistency", display="Order consistency", item=None, corpus=order_consistency, chance="none",
    empty_reason="no item asked in both orders", counted="order",
    description="Binary choices asked in both option orders: share of items where the model picks the same "
                "option both times (position-bias control). Needs runs with both orders.",
    reference="Tanaw (position-bias control; position bias: BHASA paper §3.5.3)"))
PHENOMENON_MACRO = register(MetricSpec(
    name="phenomenon_macro", display="Macro over phenomena", item=None, corpus=phenomenon_macro,
    resample=phenomenon_macro_resample,
    description="Accuracy per linguistic phenomenon, averaged without weighting by phenomenon size.",
    reference="BHASA paper §4 (LINDSEA)"))
