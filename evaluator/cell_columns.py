"""A cell's scored rows as columns, and the metrics computed from them with numpy (issue 14).

`aggregate.aggregate_cell` recomputes a cell from its per-item rows. Item metrics (mean of stored 0-1 or graded
item scores) and the label-count metrics (macro-F1, balanced accuracy, the SEA-HELM view, order consistency) are
computed here from arrays: per run in one pass, their bootstraps by summing per-(item, run) counts over one
multiplicity matrix for every run at once, with the same draws, the same formulas
(`metrics.classification.*_from_counts`, chosen by `MetricSpec.counted`) and the same percentile as the row-by-row path. Metrics without a columnar
form (n-gram, NER, QA, MCQ, phenomena, COMET) are computed from the rows by `aggregate`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable, Sequence

import numpy as np

from evaluator.metrics.base import MetricSpec, resample_sums
from evaluator.metrics.choice import FLIP
from evaluator.metrics.classification import (NULL, _norm, balanced_accuracy_from_counts, macro_f1_from_counts,
                                              nba_from_bacc)
from evaluator.spec import Item, TaskSpec



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


class _Answer:
    """One stored answer as `evaluator.drilldown` reads it: prediction (run, order), parsed, scores."""

    __slots__ = ("prediction", "parsed", "scores")

    def __init__(self, prediction: SimpleNamespace, parsed: bool, scores: dict[str, float]):
        self.prediction, self.parsed, self.scores = prediction, parsed, scores


def light_pairs(cols: CellColumns) -> list[tuple[Item, Any]]:
    """The rows as (Item, answer) pairs carrying what `evaluator.drilldown` reads (run, order, parsed, the stored
    scores), without rebuilding full ItemResults."""
    names = list(cols.scores)
    table = np.column_stack([cols.scores[m] for m in names]) if names else np.zeros((len(cols.item_id), 0))
    complete = not np.isnan(table).any()
    asked: dict[tuple[int, str], SimpleNamespace] = {}
    out = []
    for item_id, run, order, parsed, row in zip(cols.item_id, cols.run.tolist(), cols.order,
                                                cols.parsed.tolist(), table.tolist()):
        key = (run, order)
        if key not in asked:
            asked[key] = SimpleNamespace(run=run, order=order)
        scores = dict(zip(names, row)) if complete else {m: v for m, v in zip(names, row) if v == v}  # NaN: none
        out.append((cols.items[item_id], _Answer(asked[key], parsed, scores)))
    return out


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


def _codes(texts: Sequence[Any], norm: Callable[[Any], Any]) -> tuple[list, np.ndarray]:
    """(distinct normalised values, code per entry): each distinct text normalised once; None → -1."""
    seen = {t: norm(t) for t in set(texts) if t is not None}
    values = sorted(set(seen.values()))
    pos = {v: k for k, v in enumerate(values)}
    code = {t: pos[v] for t, v in seen.items()}
    return values, np.array([code[t] if t is not None else -1 for t in texts], dtype=np.int64)


def _labels(cols: CellColumns, lay: Layout, null: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """Label codes per row (answer, -1 when unparsed and `null` is off; gold as the model saw it: flipped for
    order "ba"), codes in sorted label order, and the number of labels."""
    ba = np.array([o == "ba" for o in cols.order], dtype=bool)
    answers = [a if p else None for a, p in zip(cols.answer, cols.parsed.tolist())]
    golds = []
    for item_id in lay.ids:
        gold = cols.items[item_id].gold
        flipped = FLIP[gold.upper()] if isinstance(gold, str) and gold.upper() in FLIP else gold
        golds += [_norm(gold), _norm(flipped)]
    a_vals, a_code = _codes(answers, _norm)
    labels = sorted(set(a_vals) | set(golds) | ({NULL} if null else set()))
    pos = {lab: k for k, lab in enumerate(labels)}
    a_map = np.array([pos[v] for v in a_vals] + [pos[NULL] if null else -1], dtype=np.int64)
    ans = a_map[a_code]  # -1 indexes the last entry: NULL or -1
    gold_code = np.array([pos[g] for g in golds], dtype=np.int64).reshape(-1, 2)[lay.code, ba.astype(np.int64)]
    return ans, gold_code, len(labels)


def label_counts(task: TaskSpec, cols: CellColumns, lay: Layout, null: bool) -> list[tuple]:
    """Per run: (tp, predictions, golds) as (items × labels) counts over the run's own label set (gold ∪ parsed
    answers, sorted), items in `lay.ids` order, and the gold labels' columns in the order they first appear."""
    a, g, width = _labels(cols, lay, null)
    n, n_runs = len(lay.ids), len(lay.runs)
    cell = (lay.run_code * n + lay.code) * width
    size = n_runs * n * width
    has = a >= 0
    gold_n = np.bincount(cell + g, minlength=size).reshape(n_runs, n, width).astype(float)
    pred_n = np.bincount(cell[has] + a[has], minlength=size).reshape(n_runs, n, width).astype(float)
    hit = has & (a == g)
    tp = np.bincount(cell[hit] + a[hit], minlength=size).reshape(n_runs, n, width).astype(float)
    present = (gold_n.sum(axis=1) + pred_n.sum(axis=1)) > 0
    out = []
    for k in range(n_runs):
        keep = np.flatnonzero(present[k])
        local = np.full(width, -1, dtype=np.int64)
        local[keep] = np.arange(len(keep))
        first = list(dict.fromkeys(local[g[lay.run_code == k]].tolist()))
        out.append((tp[k][:, keep], pred_n[k][:, keep], gold_n[k][:, keep], first))
    return out


def order_counts(cols: CellColumns, lay: Layout) -> list[np.ndarray]:
    """Per run: (items × 2) (consistent pairs, pairs) of items asked in both orders (as `order_consistency`)."""
    n, n_runs = len(lay.ids), len(lay.runs)
    ba = np.array([o == "ba" for o in cols.order], dtype=bool)
    slot = (lay.run_code * n + lay.code) * 2 + ba
    if len(np.unique(slot)) < len(slot):  # an order asked twice in a run: pair the k-th rows row by row
        return _order_counts_rows(cols, lay)
    upper = {a: a.upper() for a in set(cols.answer) if a is not None}
    answers = [upper[a] if p and a is not None else None for a, p in zip(cols.answer, cols.parsed.tolist())]
    vals, code = _codes(answers + [FLIP.get(x, x) for x in answers if x is not None], lambda x: x)
    own = code[:len(answers)]
    flipped = np.full(len(answers), -1, dtype=np.int64)
    flipped[own >= 0] = code[len(answers):]
    grid_own = np.full(n_runs * n * 2, -2, dtype=np.int64)  # -2: not asked, -1: unparsed
    grid_flip = np.full(n_runs * n * 2, -2, dtype=np.int64)
    grid_own[slot], grid_flip[slot] = own, flipped
    ab_ans, ba_flip = grid_own[0::2], grid_flip[1::2]
    paired = (ab_ans != -2) & (ba_flip != -2)
    ok = paired & (ab_ans >= 0) & (ab_ans == ba_flip)
    counts = np.stack([ok.astype(float), paired.astype(float)], axis=1).reshape(n_runs, n, 2)
    return list(counts)


def _order_counts_rows(cols: CellColumns, lay: Layout) -> list[np.ndarray]:
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


def finish(kind: str, sums: Sequence[np.ndarray], chance: float | None) -> np.ndarray:
    """The metric from summed counts (one value per row of the sums)."""
    if kind == "order":
        ok, n = sums[0][:, 0], sums[0][:, 1]
        return np.where(n > 0, ok / np.maximum(n, 1), np.nan)
    tp, pred_n, gold_n = sums
    if kind == "f1":
        return macro_f1_from_counts(tp, pred_n, gold_n)
    bacc = balanced_accuracy_from_counts(tp, gold_n)
    return bacc if kind == "recall" else nba_from_bacc(bacc, chance)


def run_value(kind: str, counts: tuple, chance: float | None) -> float:
    """The metric of one whole run from its summed counts, with Python floats in the order the row-by-row
    functions add them (sorted labels for F1; gold labels as they first appear for balanced accuracy)."""
    if kind == "order":
        ok, n = counts[0].sum(axis=0).tolist()
        return ok / n if n else float("nan")
    tp, pred_n, gold_n = (m.sum(axis=0).tolist() for m in counts[:3])
    if not sum(gold_n):
        return float("nan")
    if kind == "f1":
        f1s = [2 * t / (p + g) for t, p, g in zip(tp, pred_n, gold_n) if p + g]
        return sum(f1s) / len(f1s)
    bacc = sum(tp[j] / gold_n[j] for j in counts[3]) / len(counts[3])
    if kind == "recall":
        return bacc
    return max((bacc - chance) / (1 - chance), 0.0) if chance < 1 else 0.0


def counted_metric(spec: MetricSpec, task: TaskSpec, lang: str, cols: CellColumns, lay: Layout,
                   draws: np.ndarray) -> tuple[float, np.ndarray] | None:
    """(value, bootstrap statistics without NaN) of a label-count metric, or None when it has no columnar form."""
    chance = task.chance_level(lang)
    kind = spec.counted
    if kind == "order":
        per_run = [(c,) for c in order_counts(cols, lay)]
    elif kind in ("f1", "recall") or (kind == "recall_over_chance" and chance):
        per_run = label_counts(task, cols, lay, null=spec.null_label)
    else:
        return None
    values = [v for v in (run_value(kind, mats, chance) for mats in per_run) if not np.isnan(v)]
    value = float(np.mean(values)) if values else float("nan")
    per_run = [[m for m in mats if isinstance(m, np.ndarray)] for mats in per_run]
    summed = resample_sums(np.hstack([m for mats in per_run for m in mats]), draws)
    stacked = _per_run_stats(kind, per_run, summed, chance)
    counted = (~np.isnan(stacked)).sum(axis=0)
    stats = np.where(counted > 0, np.nansum(stacked, axis=0) / np.maximum(counted, 1), np.nan)
    return value, stats[~np.isnan(stats)]


def _per_run_stats(kind: str, per_run: list[list[np.ndarray]], summed: np.ndarray,
                   chance: float | None) -> np.ndarray:
    """(runs × resamples) metric values from the resampled sums laid out run after run; runs whose matrices have
    the same widths are finished in one call (the same element-wise arithmetic as one call per run)."""
    n_boot = summed.shape[0]
    widths = [[m.shape[1] for m in mats] for mats in per_run]
    if all(w == widths[0] for w in widths) and len(set(widths[0])) == 1:
        n_runs, parts, width = len(per_run), len(widths[0]), widths[0][0]
        grid = summed.reshape(n_boot, n_runs, parts, width)
        flat = [np.ascontiguousarray(grid[:, :, j, :]).reshape(n_boot * n_runs, width) for j in range(parts)]
        return np.ascontiguousarray(finish(kind, flat, chance).reshape(n_boot, n_runs).T)
    stacked, col = [], 0
    for ws in widths:
        parts = []
        for w in ws:
            parts.append(summed[:, col:col + w])
            col += w
        stacked.append(finish(kind, parts, chance))
    return np.vstack(stacked)
