"""Label-count metrics of a cell from its columns: macro-F1, balanced accuracy, the SEA-HELM view, order
consistency (`MetricSpec.counted`), each run's value and the percentile bootstrap of the mean over runs: the one
implementation of these metrics' cell figures (their corpus functions in `evaluator.metrics` are the definitions it
is tested against, tests/unit/test_cell_counts.py).

Every run's per-item counts (true positives, predictions, golds per label; consistent pairs and pairs) are summed
over each resample's drawn items for all runs at once: one product of the resample multiplicity matrix with the
count columns (counts are integers, so the sums are exact in any order and in float32 while they stay below 2^24;
columns that are zero everywhere, and gold counts that every run shares, are summed once or not at all). The
metric is then finished from the sums in row blocks that stay in cache, and the runs are averaged in run order.
Runs whose integer counts are identical (repeated runs at temperature 0, the same answers) have identical values
on every resample: each distinct run is resampled and finished once and its row repeated in place of the others.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from evaluator.bulk import one_blas_thread, usual_blas
from evaluator.cell_columns import CellColumns, Layout, first_rows
from evaluator.metrics.base import MetricSpec, multiplicity, resample_sums
from evaluator.metrics.choice import FLIP
from evaluator.metrics.classification import NULL, _norm, nba_from_bacc
from evaluator.spec import TaskSpec

BLOCK = 16_384
"""Rows (resample × run) finished per block: small enough for the temporaries to stay in cache."""
_weights32: tuple = (None, None)


def _labels(cols: CellColumns, lay: Layout, null: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """Label codes per row (answer, -1 when unparsed and `null` is off; gold as the model saw it: flipped for
    order "ba"), codes in sorted label order, and the number of labels."""
    ba = cols.is_ba()
    a_vals = [_norm(a) for a in cols.answers]
    golds = []
    for item_id in lay.ids:
        gold = cols.items[item_id].gold
        flipped = FLIP[gold.upper()] if isinstance(gold, str) and gold.upper() in FLIP else gold
        golds += [_norm(gold), _norm(flipped)]
    used = np.flatnonzero(np.bincount(cols.answer_code[cols.parsed & (cols.answer_code >= 0)],
                                      minlength=len(a_vals)))
    labels = sorted({a_vals[k] for k in used.tolist()} | set(golds) | ({NULL} if null else set()))
    pos = {lab: k for k, lab in enumerate(labels)}
    a_map = np.array([pos.get(v, -1) for v in a_vals] + [pos[NULL] if null else -1], dtype=np.int64)
    ans = a_map[np.where(cols.parsed, cols.answer_code, -1)]  # -1 indexes the last entry: NULL or -1
    gold_code = np.array([pos[g] for g in golds], dtype=np.int64).reshape(-1, 2)[lay.code, ba.astype(np.int64)]
    return ans, gold_code, len(labels)


class LabelCounts:
    """Per run and item the (tp, predictions, golds) per label over the cell's sorted labels, the labels each run
    has (gold ∪ parsed answers), and each run's gold labels in the order they first appear."""

    def __init__(self, cols: CellColumns, lay: Layout, null: bool):
        a, g, width = _labels(cols, lay, null)
        n, n_runs = len(lay.ids), len(lay.runs)
        cell = (lay.run_code * n + lay.code) * width
        size = n_runs * n * width
        has = a >= 0
        hit = has & (a == g)
        self.width = width
        self.parts = [np.bincount(cell[hit] + a[hit], minlength=size).reshape(n_runs, n, width),
                      np.bincount(cell[has] + a[has], minlength=size).reshape(n_runs, n, width),
                      np.bincount(cell + g, minlength=size).reshape(n_runs, n, width)]
        run_label = lay.run_code * width  # (runs × labels) totals: the parts summed over items, counted directly
        totals = [np.bincount(run_label[m] + x[m], minlength=n_runs * width).reshape(n_runs, width)
                  for m, x in ((hit, a), (has, a), (slice(None), g))]
        self.totals = totals
        self.present = (totals[1] + totals[2]) > 0
        first = first_rows(lay.run_code * width + g, n_runs * width).reshape(n_runs, width)
        by_first = np.argsort(first, axis=1, kind="stable")
        seen = np.take_along_axis(first, by_first, axis=1) < len(g)
        self.gold_first = [order[keep].tolist() for order, keep in zip(by_first, seen)]


def order_counts(cols: CellColumns, lay: Layout) -> np.ndarray:
    """(runs × items × 2): (consistent pairs, pairs) of items asked in both orders (as `order_consistency`: in a run,
    an item's k-th answer in order "ab" pairs with its k-th answer in order "ba")."""
    n, n_runs = len(lay.ids), len(lay.runs)
    slot = (lay.run_code * n + lay.code) * 2 + cols.is_ba()
    by_slot = np.argsort(slot, kind="stable")
    k = np.empty(len(slot), dtype=np.int64)  # each answer's place among its run's answers to the item in its order
    k[by_slot] = np.arange(len(slot)) - np.searchsorted(slot[by_slot], slot[by_slot])
    depth = int(k.max(initial=0)) + 1
    upper = [a.upper() for a in cols.answers]
    flip = [FLIP.get(u, u) for u in upper]
    pos = {v: j for j, v in enumerate(sorted(set(upper) | set(flip)))}
    own_map = np.array([pos[u] for u in upper] + [-1], dtype=np.int64)
    flip_map = np.array([pos[f] for f in flip] + [-1], dtype=np.int64)
    code = np.where(cols.parsed, cols.answer_code, -1)
    at = ((slot >> 1) * depth + k) * 2 + (slot & 1)
    grid_own = np.full(n_runs * n * depth * 2, -2, dtype=np.int64)  # -2: not asked, -1: unparsed
    grid_flip = grid_own.copy()
    grid_own[at], grid_flip[at] = own_map[code], flip_map[code]
    ab_ans, ba_flip = grid_own[0::2], grid_flip[1::2]
    paired = (ab_ans != -2) & (ba_flip != -2)
    ok = paired & (ab_ans >= 0) & (ab_ans == ba_flip)
    return np.stack([ok, paired], axis=1).reshape(n_runs, n, depth, 2).sum(axis=2).astype(float)


def _weights(draws: np.ndarray, small: bool) -> np.ndarray | None:
    """The resample multiplicity matrix (`metrics.base.multiplicity`, None when too large to keep), as float32
    when `small`."""
    global _weights32
    w64 = multiplicity(draws)
    if w64 is None or not small:
        return w64
    if _weights32[0] is not draws:
        _weights32 = (draws, w64.astype(np.float32))
    return _weights32[1]


class Resampled:
    """(runs × items × labels) counts summed over each resample's drawn items, kept label by label as (resamples ×
    runs) blocks: a part the same in every run is summed once, a label without any count not at all."""

    def __init__(self, counts: np.ndarray, draws: np.ndarray):
        n_runs, n, _ = counts.shape
        self.n_boot, self.n_runs = draws.shape[0], n_runs
        self.shared = n_runs > 1 and bool((counts == counts[:1]).all())
        src = counts[:1] if self.shared else counts
        self.live = src.any(axis=(0, 1))
        self.pos = np.cumsum(self.live) - 1
        x = src[:, :, self.live].transpose(1, 2, 0).reshape(n, -1)  # items × (labels, runs)
        exact32 = bool((x == np.rint(x)).all()) and float(np.abs(x).max(initial=0)) * n < 2 ** 24
        w = _weights(draws, exact32)
        if w is None:
            with usual_blas():  # as outside `one_blas_thread`: the float64 sums' bits depend on BLAS's threads
                sums = resample_sums(x, draws)
        else:
            with one_blas_thread():
                sums = w @ x.astype(w.dtype)
        self.sums = sums.reshape(self.n_boot, int(self.live.sum()), src.shape[0])

    def block(self, start: int, stop: int, runs: Any, label: int) -> np.ndarray:
        """The sums of `label` for resamples start:stop and the picked runs, resample by resample, as float64."""
        rows = min(stop, self.n_boot) - start
        n_runs = len(range(self.n_runs)[runs]) if isinstance(runs, slice) else len(runs)
        if not self.live[label]:
            return np.zeros(rows * n_runs)
        part = self.sums[start:stop, self.pos[label], :]
        if self.shared:
            return np.repeat(part.astype(np.float64), n_runs, axis=1).reshape(-1)
        return np.ascontiguousarray(part[:, runs], dtype=np.float64).reshape(-1)


def row_sum(cols: list[np.ndarray]) -> np.ndarray:
    """`x.sum(axis=1)` of the matrix whose columns are `cols`, bit-identical: numpy adds up to 7 columns in order
    (more are summed pairwise by numpy itself)."""
    if not 0 < len(cols) <= 7:
        return np.stack(cols, axis=1).sum(axis=1) if cols else np.zeros(0)
    total = cols[0] + 0
    for c in cols[1:]:
        total += c
    return total


def finish(kind: str, sums: list[list[np.ndarray]], chance: float | None) -> np.ndarray:
    """The metric from summed counts given label by label (one value per row): macro-F1 over the labels present,
    mean recall over the gold labels (normalised by `nba_from_bacc` for the SEA-HELM view), or consistent pairs
    over pairs for order consistency."""
    if kind == "order":
        (ok,), (n,) = sums
        return np.where(n > 0, ok / np.maximum(n, 1), np.nan)
    tp, pred_n, gold_n = sums
    if kind == "f1":
        denom = [p + g for p, g in zip(pred_n, gold_n)]
        scores = [np.where(d > 0, 2 * t / np.maximum(d, 1), 0.0) for t, d in zip(tp, denom)]
        seen = [d > 0 for d in denom]
    else:
        scores = [np.where(g > 0, t / np.maximum(g, 1), 0.0) for t, g in zip(tp, gold_n)]
        seen = [g > 0 for g in gold_n]
    value = row_sum(scores) / np.maximum(row_sum([s.astype(np.int64) for s in seen]), 1)
    value = np.where(row_sum(gold_n) > 0, value, np.nan)
    return value if kind in ("f1", "recall") else nba_from_bacc(value, chance)


def _pick(n: int, wanted: np.ndarray) -> slice | np.ndarray:
    """`wanted` (sorted positions among n) as a slice when it is all of them, else as it is."""
    return slice(None) if len(wanted) == n else wanted


def _finished(kind: str, parts: list[Resampled], chance: float | None, runs: Any = slice(None),
              keep: Any = slice(None)) -> np.ndarray:
    """`finish` over the resampled sums (the `runs` and `keep` labels of them), in blocks of resamples whose rows
    stay in cache: (resamples × picked runs)."""
    n_boot = parts[0].n_boot
    n_runs = len(range(parts[0].n_runs)[runs]) if isinstance(runs, slice) else len(runs)
    labels = [range(len(p.live))[keep] if isinstance(keep, slice) else keep.tolist() for p in parts]
    step = max(1, BLOCK // max(n_runs, 1))
    out = np.empty((n_boot, n_runs))
    for start in range(0, n_boot, step):
        block = [[p.block(start, start + step, runs, j) for j in js] for p, js in zip(parts, labels)]
        out[start:start + step] = finish(kind, block, chance).reshape(-1, n_runs)
    return out


def distinct_runs(parts: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(first run of each distinct run, run → its distinct run) for (runs × …) count arrays: runs are the same when
    every part holds the same integers for them (non-integer counts: every run is its own). Runs are grouped by a
    fingerprint of their counts and each checked against its group's first run, so equal means equal."""
    n_runs = parts[0].shape[0]
    if n_runs < 2 or not all(p.dtype.kind in "iu" or bool((p == np.rint(p)).all()) for p in parts):
        return np.arange(n_runs), np.arange(n_runs)
    rows = np.concatenate([p.reshape(n_runs, -1).astype(np.int64, copy=False) for p in parts], axis=1)
    weights = np.random.default_rng(rows.shape[1]).integers(1, 2 ** 31, rows.shape[1])
    _, first, inverse = np.unique(rows @ weights, return_index=True, return_inverse=True)
    if not (rows == rows[first[inverse]]).all():  # two different runs share a fingerprint: compare them whole
        seen: dict[bytes, int] = {}
        inverse = np.array([seen.setdefault(row.tobytes(), len(seen)) for row in rows], dtype=np.int64)
        first = np.empty(len(seen), dtype=np.int64)
        first[inverse[::-1]] = np.arange(n_runs)[::-1]  # the last write per distinct run is its first run
    return first, inverse.reshape(-1)


def _label_stats(kind: str, present: np.ndarray, sums: list[Resampled], chance: float | None) -> np.ndarray:
    """(runs × resamples) metric values, each run over its own labels (`present`: runs × labels); runs with the
    same labels together."""
    n_runs, width = present.shape
    stacked = np.empty((n_runs, sums[0].n_boot))
    groups: dict[bytes, list[int]] = {}
    for k, row in enumerate(present):
        groups.setdefault(row.tobytes(), []).append(k)
    for runs in groups.values():
        keep = np.flatnonzero(present[runs[0]])
        picked = _pick(n_runs, np.asarray(runs))
        stacked[picked] = _finished(kind, sums, chance, picked, _pick(width, keep)).T
    return stacked


def run_value(kind: str, counts: LabelCounts | np.ndarray, k: int, chance: float | None) -> float:
    """The metric of run k from its summed counts, with Python floats in the order its corpus function adds
    them (sorted labels for F1; gold labels as they first appear for balanced accuracy)."""
    if kind == "order":
        ok, n = counts[k].sum(axis=0).tolist()
        return ok / n if n else float("nan")
    tp, pred_n, gold_n = (t[k].tolist() for t in counts.totals)
    if not sum(gold_n):
        return float("nan")
    if kind == "f1":
        f1s = [2 * t / (p + g) for t, p, g in zip(tp, pred_n, gold_n) if p + g]
        return sum(f1s) / len(f1s)
    bacc = sum(tp[j] / gold_n[j] for j in counts.gold_first[k]) / len(counts.gold_first[k])
    if kind == "recall":
        return bacc
    return max((bacc - chance) / (1 - chance), 0.0) if chance < 1 else 0.0


def _cached(lay: Layout, key: Any, make) -> Any:
    if key not in lay.cache:
        lay.cache[key] = make()
    return lay.cache[key]


def _resampled(parts: list[np.ndarray], draws: np.ndarray) -> list[Resampled]:
    """`Resampled` of each part, their products under one BLAS limit (`evaluator.bulk.one_blas_thread`)."""
    with one_blas_thread():
        return [Resampled(p, draws) for p in parts]


def counted_metric(spec: MetricSpec, task: TaskSpec, lang: str, cols: CellColumns, lay: Layout,
                   draws: np.ndarray) -> tuple[float, np.ndarray]:
    """(value, bootstrap statistics without NaN) of a label-count metric (`MetricSpec.counted`)."""
    value, _, stats = counted_runs(spec, task, lang, cols, lay, draws)
    return value, stats


def counted_runs(spec: MetricSpec, task: TaskSpec, lang: str, cols: CellColumns, lay: Layout,
                 draws: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """(value: the mean over runs, each run's value without NaN, bootstrap statistics without NaN) of a
    label-count metric."""
    chance = task.chance_level(lang)
    kind = spec.counted
    if kind == "order" and "ba" not in cols.orders:  # no answer in order "ba", so no pair: every run's value and
        return float("nan"), np.empty(0), np.empty(0)  # every resample's is NaN (as the counts below give)
    if kind == "order":
        counts = _cached(lay, "order", lambda: order_counts(cols, lay))
        first, inverse = _cached(lay, "order runs", lambda: distinct_runs([counts]))
        sums = _cached(lay, ("order", id(draws)),
                       lambda: _resampled([counts[first, :, j:j + 1] for j in (0, 1)], draws))
        stacked = np.ascontiguousarray(_finished(kind, sums, chance).T)
    else:
        counts = _cached(lay, ("labels", spec.null_label), lambda: LabelCounts(cols, lay, spec.null_label))
        if kind == "recall_over_chance" and not chance:  # no chance level for the language: 1/(gold labels)
            chance = 1 / max(int((counts.totals[2].sum(axis=0) > 0).sum()), 1)
        first, inverse = _cached(lay, ("label runs", spec.null_label), lambda: distinct_runs(counts.parts))
        sums = _cached(lay, ("labels", spec.null_label, id(draws)),
                       lambda: _resampled([p[first] for p in counts.parts], draws))
        stacked = _label_stats(kind, counts.present[first], sums, chance)
    values = np.array([run_value(kind, counts, k, chance) for k in range(len(lay.runs))], dtype=float)
    values = values[~np.isnan(values)]
    value = float(np.mean(values)) if len(values) else float("nan")
    stats = run_mean(stacked, inverse)
    return value, values, stats[~np.isnan(stats)]


def run_mean(distinct: np.ndarray, inverse: np.ndarray) -> np.ndarray:
    """Per resample the mean over runs without NaN of `distinct[inverse]` (runs × resamples), bit-identical to
    `np.nansum(x, axis=0) / (~np.isnan(x)).sum(axis=0)` of that matrix (NaN where no run has a value): the rows are
    added in run order from 0.0, as numpy's reduction over the first axis adds them, without building the matrix."""
    missing = np.isnan(distinct)
    clean = np.where(missing, 0.0, distinct)
    total = np.zeros(distinct.shape[1])
    for k in inverse.tolist():
        total += clean[k]
    counted = np.bincount(inverse, minlength=len(distinct)) @ (~missing).astype(np.int64)
    return np.where(counted > 0, total / np.maximum(counted, 1), np.nan)
