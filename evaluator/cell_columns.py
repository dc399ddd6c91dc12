"""A cell's scored rows as columns, and the metrics computed from them with numpy (issue 14).

`aggregate.aggregate_cell` recomputes a cell from its per-item rows. Item metrics (mean of stored 0-1 or graded
item scores) and the label-count metrics (macro-F1, balanced accuracy, the SEA-HELM view, order consistency) are
computed here from arrays: per run in one pass, their bootstraps by summing per-(item, run) counts over one
multiplicity matrix for every run at once, with the same draws, the same formulas
(`metrics.classification.*_from_counts`) and the same percentile as the row-by-row path. Metrics without a columnar
form (n-gram, NER, QA, MCQ, phenomena, COMET) are computed from the rows by `aggregate`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from evaluator.metrics.base import MetricSpec, resample_sums
from evaluator.metrics.choice import FLIP
from evaluator.metrics.classification import (NULL, _norm, balanced_accuracy_from_counts, macro_f1_from_counts,
                                              nba_from_bacc)
from evaluator.spec import Item, TaskSpec

LABEL_METRICS = ("macro_f1", "balanced_accuracy", "seahelm_nba", "seahelm_macro_f1")
"""Corpus metrics computed from per-item label counts."""


@dataclass
class CellColumns:
    """One cell's rows in store order (run, item id, order): one entry per row in each array."""

    items: dict[str, Item]
    item_id: list[str]
    run: np.ndarray
    order: list[str]
    parsed: np.ndarray
    answer: list[str | None]
    scores: dict[str, np.ndarray]
    """Metric -> stored item score per row (NaN where a row has none)."""
    pairs: Callable[[], list] = field(repr=False, default=list)
    """The (Item, ItemResult) pairs, built only for metrics computed row by row."""

    @classmethod
    def from_pairs(cls, pairs: Sequence[tuple[Any, Any]]) -> "CellColumns":
        metrics = sorted({m for _, res in pairs for m in res.scores})
        return cls(items={it.item_id: it for it, _ in pairs}, item_id=[it.item_id for it, _ in pairs],
                   run=np.array([res.prediction.run for _, res in pairs], dtype=np.int64),
                   order=[res.prediction.order for _, res in pairs],
                   parsed=np.array([bool(res.parsed) for _, res in pairs], dtype=bool),
                   answer=[res.answer for _, res in pairs],
                   scores={m: np.array([res.scores.get(m, np.nan) for _, res in pairs], dtype=float)
                           for m in metrics}, pairs=lambda: list(pairs))


@dataclass
class Layout:
    """Positions derived once per cell: items in first appearance and sorted by id, runs, row → (run, item)."""

    first: list[str]
    """Item ids in the order they first appear."""
    ids: list[str]
    """Item ids sorted (the bootstrap's order)."""
    code: np.ndarray
    """Row → index into `ids`."""
    runs: list[int]
    """Runs in the order they first appear."""
    run_code: np.ndarray
    """Row → index into `runs`."""

    @classmethod
    def of(cls, cols: CellColumns) -> "Layout":
        first = list(dict.fromkeys(cols.item_id))
        ids = sorted(first)
        pos = {i: k for k, i in enumerate(ids)}
        runs = list(dict.fromkeys(cols.run.tolist()))
        rpos = {r: k for k, r in enumerate(runs)}
        return cls(first, ids, np.array([pos[i] for i in cols.item_id], dtype=np.int64), runs,
                   np.array([rpos[r] for r in cols.run.tolist()], dtype=np.int64))


def item_scores(spec: MetricSpec, cols: CellColumns) -> np.ndarray | None:
    """The stored item scores of `spec` for every row, or None when some row has none (scored before the metric
    existed: computed row by row then)."""
    if spec.corpus is not None or spec.interval is not None or spec.name not in cols.scores:
        return None
    values = cols.scores[spec.name]
    return None if np.isnan(values).any() else values


def item_value(values: np.ndarray, lay: Layout) -> float:
    """Mean per run, then the mean over runs (as `aggregate._value`)."""
    per_run = [float(np.mean(values[lay.run_code == k])) for k in range(len(lay.runs))]
    return float(np.mean(per_run)) if per_run else float("nan")


def item_means(values: np.ndarray, codes: np.ndarray, n: int) -> np.ndarray:
    """Mean of each item's rows (rows kept in their order within an item), items in code order."""
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(n + 1))
    grouped = values[order]
    return np.array([np.mean(grouped[bounds[k]:bounds[k + 1]]) for k in range(n)])


def item_bootstrap(values: np.ndarray, lay: Layout, draws: np.ndarray) -> np.ndarray:
    """Bootstrap statistics of an item metric: the mean of the drawn items' means."""
    return item_means(values, lay.code, len(lay.ids))[draws].mean(axis=1)


def clustered_se(values: np.ndarray, lay: Layout) -> float | None:
    """Standard error with rows clustered by item (items in first appearance, as `aggregate._clustered_se`)."""
    first_pos = {i: k for k, i in enumerate(lay.first)}
    remap = np.array([first_pos[i] for i in lay.ids], dtype=np.int64)
    means = item_means(values, remap[lay.code], len(lay.first))
    return float(means.std(ddof=1) / np.sqrt(len(means))) if len(means) > 1 else None


def _labels(task: TaskSpec, cols: CellColumns, null: bool) -> tuple[list, list]:
    """Normalised (answer or None/NULL, gold) per row, each distinct text normalised once."""
    golds: dict[tuple[str, str], str] = {}
    answers, gold_out = [], []
    for item_id, order, parsed, answer in zip(cols.item_id, cols.order, cols.parsed.tolist(), cols.answer):
        key = (item_id, order)
        if key not in golds:
            gold = cols.items[item_id].gold
            if order == "ba" and isinstance(gold, str) and gold.upper() in FLIP:
                gold = FLIP[gold.upper()]
            golds[key] = _norm(gold)
        a = _norm(answer) if parsed and answer is not None else None
        answers.append(NULL if a is None and null else a)
        gold_out.append(golds[key])
    return answers, gold_out


def label_counts(task: TaskSpec, cols: CellColumns, lay: Layout, null: bool) -> list[tuple[np.ndarray, ...]]:
    """Per run: (tp, predictions, golds) as (items × labels) counts over the run's own label set (gold ∪ parsed
    answers, sorted), items in `lay.ids` order."""
    answers, golds = _labels(task, cols, null)
    out = []
    for k in range(len(lay.runs)):
        rows = np.flatnonzero(lay.run_code == k)
        labels = sorted({golds[r] for r in rows} | {answers[r] for r in rows if answers[r] is not None})
        pos = {lab: j for j, lab in enumerate(labels)}
        n, width = len(lay.ids), len(labels)
        g = np.array([pos[golds[r]] for r in rows], dtype=np.int64)
        a = np.array([pos[answers[r]] if answers[r] is not None else -1 for r in rows], dtype=np.int64)
        items = lay.code[rows]
        gold_n = np.bincount(items * width + g, minlength=n * width).reshape(n, width).astype(float)
        has = a >= 0
        pred_n = np.bincount(items[has] * width + a[has], minlength=n * width).reshape(n, width).astype(float)
        hit = has & (a == g)
        tp = np.bincount(items[hit] * width + a[hit], minlength=n * width).reshape(n, width).astype(float)
        out.append((tp, pred_n, gold_n))
    return out


def order_counts(cols: CellColumns, lay: Layout) -> list[np.ndarray]:
    """Per run: (items × 2) (consistent pairs, pairs) of items asked in both orders (as `order_consistency`)."""
    out = []
    for k in range(len(lay.runs)):
        ab: dict[int, list] = {}
        ba: dict[int, list] = {}
        for r in np.flatnonzero(lay.run_code == k).tolist():
            a = cols.answer[r] if cols.parsed[r] else None
            (ba if cols.order[r] == "ba" else ab).setdefault(int(lay.code[r]), []).append(a)
        counts = np.zeros((len(lay.ids), 2))
        for i, firsts in ab.items():
            pairs = list(zip(firsts, ba.get(i, [])))
            ok = sum(1 for x, y in pairs if x is not None and y is not None
                     and x.upper() == FLIP.get(y.upper(), y.upper()))
            if pairs:
                counts[i] = (ok / len(pairs) * len(pairs), len(pairs))
        out.append(counts)
    return out


def finish(spec_name: str, sums: Sequence[np.ndarray], chance: float | None) -> np.ndarray:
    """The metric from summed counts (one value per row of the sums)."""
    if spec_name == "order_consistency":
        ok, n = sums[0][:, 0], sums[0][:, 1]
        return np.where(n > 0, ok / np.maximum(n, 1), np.nan)
    tp, pred_n, gold_n = sums
    if spec_name in ("macro_f1", "seahelm_macro_f1"):
        return macro_f1_from_counts(tp, pred_n, gold_n)
    bacc = balanced_accuracy_from_counts(tp, gold_n)
    return bacc if spec_name == "balanced_accuracy" else nba_from_bacc(bacc, chance)


def counted_metric(spec: MetricSpec, task: TaskSpec, lang: str, cols: CellColumns, lay: Layout,
                   draws: np.ndarray) -> tuple[float, np.ndarray] | None:
    """(value, bootstrap statistics without NaN) of a label-count metric, or None when it has no columnar form."""
    chance = task.chance_level(lang)
    if spec.name == "order_consistency":
        per_run = [(c,) for c in order_counts(cols, lay)]
    elif spec.name in LABEL_METRICS and (spec.name != "seahelm_nba" or chance):
        per_run = label_counts(task, cols, lay, null=spec.name.startswith("seahelm"))
    else:
        return None
    values = [finish(spec.name, [m.sum(axis=0, keepdims=True) for m in mats], chance)[0] for mats in per_run]
    values = [float(v) for v in values if not np.isnan(v)]
    value = float(np.mean(values)) if values else float("nan")
    widths = [[m.shape[1] for m in mats] for mats in per_run]
    summed = resample_sums(np.hstack([m for mats in per_run for m in mats]), draws)
    stacked, col = [], 0
    for mats, ws in zip(per_run, widths):
        parts = []
        for w in ws:
            parts.append(summed[:, col:col + w])
            col += w
        stacked.append(finish(spec.name, parts, chance))
    stacked = np.vstack(stacked)
    counted = (~np.isnan(stacked)).sum(axis=0)
    stats = np.where(counted > 0, np.nansum(stacked, axis=0) / np.maximum(counted, 1), np.nan)
    return value, stats[~np.isnan(stats)]
