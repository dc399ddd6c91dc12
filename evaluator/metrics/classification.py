"""Classification metrics: accuracy, macro-F1 and balanced accuracy over (answer, gold) pairs.

An unparseable answer (None) counts as a wrong prediction: it lowers the recall of its gold class but is not
added as a class of its own, so macro-F1 averages over the labels seen in the gold or in parsed answers
(scikit-learn's `f1_score(average="macro")` over that label set).

The "SEA-HELM view" metrics reproduce SEA-HELM's `F1AccMetric.calculate_metrics` (src/metrics/f1_acc_metric.py;
`seahelm_tasks/seahelm_metric.py` @ 360c7cc): an unparsed answer becomes the label "null", so it is an extra class
in macro-F1 (F1 0, since no gold is null), and the headline is balanced accuracy normalised by the chance of the
language's label set, `max((bacc − 1/K)/(1 − 1/K), 0)` (`SeaHelmMetric.normalize_score`), clipped at 0.
"""
from __future__ import annotations

import functools
import unicodedata
from collections import Counter
from typing import Any, Sequence

import numpy as np

from evaluator.metrics.base import MetricSpec, register
from evaluator.registry import get_task


def _norm(x: Any) -> str:
    text = str(x)
    return _norm_label(text) if len(text) <= 64 else unicodedata.normalize("NFC", text).strip().casefold()


@functools.lru_cache(maxsize=4096)
def _norm_label(text: str) -> str:
    """NFC, stripped, case-folded; labels repeat across rows, so each short one is normalised once."""
    return unicodedata.normalize("NFC", text).strip().casefold()


def same(answer: str | None, gold: Any) -> bool:
    """Answer equals the gold (or one of several golds), case-insensitively."""
    if answer is None:
        return False
    golds = gold if isinstance(gold, (list, tuple)) else (gold,)
    return any(_norm(answer) == _norm(g) for g in golds)


def accuracy_item(answer: str | None, gold: Any, *, lang: str = "", item: Any = None) -> float:
    """1.0 when the extracted answer equals the gold, else 0.0."""
    return float(same(answer, gold))


def _pairs(rows: Sequence[tuple]) -> list[tuple[str | None, str]]:
    return [(None if a is None else _norm(a), _norm(g)) for a, g, *_ in rows]


def macro_f1(rows: Sequence[tuple]) -> float:
    """Unweighted mean of per-label F1 over labels in gold ∪ parsed answers (0-1)."""
    pairs = _pairs(rows)
    if not pairs:
        return float("nan")
    labels = sorted({g for _, g in pairs} | {a for a, _ in pairs if a is not None})
    tp, pred_n, gold_n = Counter(), Counter(), Counter()
    for a, g in pairs:
        gold_n[g] += 1
        if a is not None:
            pred_n[a] += 1
            tp[a] += a == g
    f1s = []
    for lab in labels:
        denom = pred_n[lab] + gold_n[lab]
        f1s.append(2 * tp[lab] / denom if denom else 0.0)
    return sum(f1s) / len(f1s)


def balanced_accuracy(rows: Sequence[tuple]) -> float:
    """Mean recall over the gold classes (scikit-learn `balanced_accuracy_score`), 0-1."""
    pairs = _pairs(rows)
    if not pairs:
        return float("nan")
    hit, total = Counter(), Counter()
    for a, g in pairs:
        total[g] += 1
        hit[g] += a == g
    return sum(hit[g] / total[g] for g in total) / len(total)


NULL = "\x00null"
"""The class an unparsed answer gets in the SEA-HELM view (SEA-HELM's `null_label`)."""


def _with_null(rows: Sequence[tuple]) -> list[tuple[str, str]]:
    return [(NULL if a is None else a, g) for a, g in _pairs(rows)]


def seahelm_macro_f1(rows: Sequence[tuple]) -> float:
    """Macro-F1 over gold ∪ predicted labels with unparsed answers as the extra class "null" (0-1)."""
    pairs = _with_null(rows)
    if not pairs:
        return float("nan")
    return macro_f1([(a, g) for a, g in pairs])


def _label_chance(rows: Sequence[tuple]) -> float:
    """1/K for the cell's language label set (the task's chance level), else 1/(distinct gold labels)."""
    extras = rows[0][2] if rows and len(rows[0]) > 2 else {}
    task, lang = extras.get("task"), extras.get("lang")
    if task and lang:
        level = get_task(task).chance_level(lang)
        if level:
            return float(level)
    return 1 / max(len({g for _, g in _pairs(rows)}), 1)


def seahelm_nba(rows: Sequence[tuple]) -> float:
    """SEA-HELM's headline: balanced accuracy normalised by 1/K and clipped at 0 (0-1)."""
    bacc = balanced_accuracy(rows)
    if bacc != bacc:
        return bacc
    c = _label_chance(rows)
    return max((bacc - c) / (1 - c), 0.0) if c < 1 else 0.0


def nba_from_bacc(bacc: np.ndarray, c: float) -> np.ndarray:
    """`seahelm_nba` from balanced accuracies and the chance 1/K: normalised and clipped at 0."""
    return np.where(np.isnan(bacc), np.nan, np.maximum((bacc - c) / (1 - c), 0.0) if c < 1 else 0.0)


ACCURACY = register(MetricSpec(
    name="accuracy", display="Accuracy", item=accuracy_item, binary=True,
    description="Share of items whose extracted answer equals the gold; unparseable answers count as wrong.",
    reference="BHASA paper §3.5.1 (NLI, causal, LINDSEA)"))
MACRO_F1 = register(MetricSpec(
    name="macro_f1", display="Macro-F1", item=None, corpus=macro_f1, counted="f1",
    description="Unweighted mean of per-class F1 over the classes in gold or in parsed answers; "
                "unparseable answers are wrong predictions, not an extra class.",
    reference="scikit-learn f1_score(average='macro'); BHASA paper §3.5.1 (sentiment, toxicity)"))
BALANCED_ACCURACY = register(MetricSpec(
    name="balanced_accuracy", display="Balanced accuracy", item=None, corpus=balanced_accuracy, counted="recall",
    description="Mean recall over gold classes; robust to class imbalance (e.g. rare neutral in UIT-VSFC).",
    reference="scikit-learn balanced_accuracy_score"))
SEAHELM_NBA = register(MetricSpec(
    name="seahelm_nba", display="SEA-HELM view", item=None, corpus=seahelm_nba,
    counted="recall_over_chance", null_label=True,
    chance="zero",
    description="SEA-HELM's headline for classification: balanced accuracy normalised by the chance of the "
                "language's label set (1/K) and clipped at 0; unparsed answers are the extra label \"null\". Shown "
                "to compare with SEA-HELM's public board; Tanaw ranks the BHASA paper's metrics.",
    reference="SEA-HELM src/metrics/f1_acc_metric.py + SeaHelmMetric.normalize_score (seahelm_metric.py)"))
SEAHELM_MACRO_F1 = register(MetricSpec(
    name="seahelm_macro_f1", display="Macro-F1 (SEA-HELM, null class)", item=None, corpus=seahelm_macro_f1, counted="f1", null_label=True,
    description="Macro-F1 as SEA-HELM logs it: unparsed answers are the extra class \"null\" (F1 0), which lowers "
                "the mean; Tanaw's macro_f1 counts them as wrong without adding a class.",
    reference="SEA-HELM src/metrics/f1_acc_metric.py (f1_score(average='macro') with null_label)"))
