"""A cell's scored rows as columns, and the item metrics' cell figures computed from them with numpy.

`aggregate.aggregate_cell` recomputes a cell from its per-item rows. The rows arrive as columns with their text
fields coded (item ids, option orders and answers as positions in sorted lists), so a cell is read and aggregated
without one Python object per row. Item metrics (mean of 0-1 or graded item scores: value, bootstrap, clustered
SE) are computed here, the label-count metrics in `evaluator.cell_counts`; corpus metrics without a count form
(n-gram, NER, MCQ F1, phenomena, COMET) from the rows by `aggregate`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Callable, Sequence

import numpy as np

from evaluator.spec import Item


def sorted_codes(values: Sequence[Any], codes: np.ndarray) -> tuple[list, np.ndarray]:
    """(`values` sorted, `codes` re-pointed at the sorted list); a negative code (no value) stays -1."""
    perm = sorted(range(len(values)), key=values.__getitem__)
    rank = np.empty(len(values) + 1, dtype=np.int64)
    rank[perm] = np.arange(len(values))
    rank[-1] = -1
    codes = np.asarray(codes, dtype=np.int64)
    return [values[k] for k in perm], rank[np.where(codes < 0, -1, codes)]


def encode(texts: Sequence[Any]) -> tuple[list, np.ndarray]:
    """(distinct values sorted, code per entry): None → -1."""
    values = [t for t in dict.fromkeys(texts) if t is not None]
    pos: dict[Any, int] = {t: k for k, t in enumerate(values)}
    pos[None] = -1
    return sorted_codes(values, np.fromiter(map(pos.__getitem__, texts), dtype=np.int64, count=len(texts)))


USAGE_FIELDS = ("tokens_in", "tokens_out", "latency_s")
"""The prediction fields `CellColumns.usage` holds."""


@dataclass
class CellColumns:
    """One cell's rows in store order (run, item id, order): one entry per row in each array; text as codes."""

    items: dict[str, Item]
    ids: list[str]
    """Distinct item ids of the rows, sorted (the bootstrap's order)."""
    item_code: np.ndarray
    """Row → index into `ids`."""
    run: np.ndarray
    orders: list[str]
    """Distinct option orders, sorted ("ab" before "ba")."""
    order_code: np.ndarray
    parsed: np.ndarray
    answers: list[str]
    """Distinct answers, sorted."""
    answer_code: np.ndarray
    """Row → index into `answers`; -1 where the row has no answer."""
    scores: dict[str, np.ndarray]
    """Metric -> stored item score per row (NaN where a row has none)."""
    pairs: Callable[[], list] = field(repr=False, default=list)
    """The (Item, ItemResult) pairs, built only for metrics computed row by row."""
    usage: dict[str, np.ndarray] | None = None
    """Each row's reported "tokens_in", "tokens_out" and "latency_s" (float, NaN where not reported), for the runs'
    cost and speed (`evaluator.usage.run_usage`); None when they were not read."""

    @property
    def n_rows(self) -> int:
        return len(self.item_code)

    def is_ba(self) -> np.ndarray:
        """Rows asked in option order "ba"."""
        return self.order_code == (self.orders.index("ba") if "ba" in self.orders else -2)

    @classmethod
    def from_pairs(cls, pairs: Sequence[tuple[Any, Any]]) -> "CellColumns":
        results = [res for _, res in pairs]
        preds = list(map(attrgetter("prediction"), results))
        scores = list(map(attrgetter("scores"), results))
        ids, item_code = encode([it.item_id for it, _ in pairs])
        orders, order_code = encode(list(map(attrgetter("order"), preds)))
        answers, answer_code = encode(list(map(attrgetter("answer"), results)))
        return cls(items={it.item_id: it for it, _ in pairs}, ids=ids, item_code=item_code,
                   run=np.fromiter(map(attrgetter("run"), preds), dtype=np.int64, count=len(preds)),
                   orders=orders, order_code=order_code,
                   parsed=np.array([bool(res.parsed) for res in results], dtype=bool),
                   answers=answers, answer_code=answer_code,
                   scores={m: np.array([s.get(m, np.nan) for s in scores], dtype=float)
                           for m in sorted(set().union(*scores))}, pairs=lambda: list(pairs),
                   usage={f: np.array(list(map(attrgetter(f), preds)), dtype=float) for f in USAGE_FIELDS})  # None: NaN


def first_rows(codes: np.ndarray, n: int) -> np.ndarray:
    """The first row of each code 0..n-1 (len(codes) where a code does not occur)."""
    first = np.full(n, len(codes), dtype=np.int64)
    np.minimum.at(first, codes, np.arange(len(codes), dtype=np.int64))
    return first


def _first_seen(codes: np.ndarray, n: int) -> np.ndarray:
    """The codes that occur, in the order they first appear."""
    first = first_rows(codes, n)
    seen = np.flatnonzero(first < len(codes))
    return seen[np.argsort(first[seen], kind="stable")]


def sorted_distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct values sorted, position of each entry's value among them), in one pass when already sorted."""
    if len(values) and bool((values[1:] >= values[:-1]).all()):
        change = np.empty(len(values), dtype=bool)
        change[0] = True
        np.not_equal(values[1:], values[:-1], out=change[1:])
        return values[change], np.cumsum(change) - 1
    distinct, inverse = np.unique(values, return_inverse=True)
    return distinct, inverse.reshape(-1)


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
    cache: dict = field(default_factory=dict, repr=False)
    """Per-cell results shared by metrics (e.g. the resampled label counts of two SEA-HELM metrics)."""

    @classmethod
    def of(cls, cols: CellColumns) -> "Layout":
        first = [cols.ids[c] for c in _first_seen(cols.item_code, len(cols.ids)).tolist()]
        distinct, inverse = sorted_distinct(cols.run)
        by_first = _first_seen(inverse, len(distinct))
        rank = np.empty(len(distinct), dtype=np.int64)
        rank[by_first] = np.arange(len(distinct))
        return cls(first, cols.ids, cols.item_code, distinct[by_first].tolist(), rank[inverse])


def item_scores(spec: Any, cols: CellColumns) -> np.ndarray | None:
    """The stored item scores of `spec` for every row, or None when some row has none (scored before the metric
    existed: computed row by row then)."""
    if spec.corpus is not None or spec.interval is not None or spec.name not in cols.scores:
        return None
    values = cols.scores[spec.name]
    return None if np.isnan(values).any() else values


def _zero_one(values: np.ndarray) -> bool:
    """Every value is 0 or 1, so sums in any order are exact."""
    return bool(((values == 0) | (values == 1)).all())


def group_means(values: np.ndarray, codes: np.ndarray, n: int) -> np.ndarray:
    """Mean of each group's rows (rows kept in their order within a group, as `np.mean` of that group's slice),
    groups in code order."""
    if _zero_one(values):
        return np.bincount(codes, weights=values, minlength=n) / np.bincount(codes, minlength=n)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(n + 1))
    grouped = values[order]
    return np.array([np.mean(grouped[bounds[k]:bounds[k + 1]]) for k in range(n)])


def run_means(values: np.ndarray, lay: Layout) -> np.ndarray:
    """Each run's mean of its rows (the run's score), runs in first appearance."""
    return group_means(values, lay.run_code, len(lay.runs))


def item_value(values: np.ndarray, lay: Layout) -> float:
    """The cell's value by SEA-HELM's multi-run rule: each question's mean over the runs that answered it (a run's
    answer to a question: the mean of its rows, e.g. both option orders), then the mean over questions.

    When every run answered every question (one run, or complete repeated runs) that equals the mean of the
    runs' scores, and is computed that way, as the figures were before multi-run cells."""
    per_run = run_means(values, lay)
    if not len(per_run):
        return float("nan")
    n_ids, n_runs = len(lay.ids), len(lay.runs)
    answered = np.bincount(lay.run_code * n_ids + lay.code, minlength=n_runs * n_ids).reshape(n_runs, n_ids) > 0
    if answered.all():
        return float(np.mean(per_run))
    cell = lay.run_code * n_ids + lay.code
    sums = np.bincount(cell, weights=values, minlength=n_runs * n_ids).reshape(n_runs, n_ids)
    counts = np.bincount(cell, minlength=n_runs * n_ids).reshape(n_runs, n_ids)
    per_answer = np.where(answered, sums / np.maximum(counts, 1), 0.0)
    per_question = per_answer.sum(axis=0) / answered.sum(axis=0)
    return float(np.mean(per_question))


def item_means(values: np.ndarray, codes: np.ndarray, n: int) -> np.ndarray:
    """Mean of each item's rows, items in code order."""
    return group_means(values, codes, n)


def item_bootstrap(values: np.ndarray, lay: Layout, draws: np.ndarray) -> np.ndarray:
    """Bootstrap statistics of an item metric: the mean of the drawn items' means."""
    return item_means(values, lay.code, len(lay.ids))[draws].mean(axis=1)


def clustered_se(values: np.ndarray, lay: Layout) -> float | None:
    """Standard error with rows clustered by item (items in first appearance)."""
    first_pos = {i: k for k, i in enumerate(lay.first)}
    remap = np.array([first_pos[i] for i in lay.ids], dtype=np.int64)
    means = item_means(values, remap[lay.code], len(lay.first))
    return float(means.std(ddof=1) / np.sqrt(len(means))) if len(means) > 1 else None
