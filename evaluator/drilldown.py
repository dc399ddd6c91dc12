"""Drill-down pre-aggregates of one cell (model, task, lang, prompt language), computed when its aggregates are.

The explorer pages group a cell's items by the item's own node columns (LINDSEA phenomenon / category /
subcategory, PACUTE hierarchy level) and list items right or wrong; reading millions of per-item rows for that on
every view is what made them slow. `cell_drilldown` turns the cell's (Item, ItemResult) pairs, the same ones
`evaluator.aggregate.aggregate_cell` gets, into:

- item outcomes, one per (metric, item): its score (0-1, the mean over runs and option orders, as the pages have
  always pooled them), whether it was right in every answer of order "ab", of order "ba", of both, whether every
  answer parsed, and each answer's (run, order, score);
- node counts, one per (metric, node): items n, `correct` (sum of item scores), `wrong` (items not right in every
  answer), so any grouping of nodes is exact (sums of sums);
- per run number: answers and unparsed answers; per cell: answers, unparsed, items scored.

The failed items' data-quality flags are a view over the outcomes (store/schema.sql `failed_flags`).

Vectorised with numpy (one pass over the pairs, then grouped sums), so it costs a small share of an ingest.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from evaluator.cell_columns import CellColumns, sorted_distinct
from evaluator.spec import Item, ItemResult
from evaluator.usage import run_usage

NODE_KEYS = ("phenomenon", "category", "subcategory", "level")
"""An item's node: its own grouping columns as the store keeps them (None when the item has none)."""
OUTCOME_COLUMNS = ("metric", "item_id", "value", "right_ab", "right_ba", "right_all", "parsed")
"""Columns of `CellDrilldown.items` (besides the answers)."""


@dataclass
class CellDrilldown:
    """Everything the explorer pages read about one cell besides its aggregates."""

    items: dict[str, list] = field(default_factory=lambda: {c: [] for c in OUTCOME_COLUMNS})
    """Item outcomes as columns (OUTCOME_COLUMNS), one row per (metric, item_id), sorted by metric then item; right_ab
    and right_ba are None when no answer was given in that order."""
    answers: dict[str, list] = field(default_factory=lambda: {"offsets": [0], "run_no": [], "ord": [], "value": []})
    """Each outcome's answers, flattened in outcome order (by run, then order): outcome i owns
    run_no/ord/value[offsets[i]:offsets[i + 1]]; from columns each answer's order as ord_code (its position in
    `orders`) instead of ord."""
    nodes: list[dict[str, Any]] = field(default_factory=list)
    """Per (metric, phenomenon, category, subcategory, level): n, correct, wrong."""
    runs: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Run number -> (answers, unparsed answers)."""
    run_usage: dict[int, tuple[int, int, float, int]] = field(default_factory=dict)
    """Run number -> (tokens in, tokens out, latency sum, timed answers) (`evaluator.usage.run_usage`; empty when
    the rows came without them)."""
    n_answers: int = 0
    n_unparsed: int = 0
    n_items: int = 0
    """Distinct items with a per-item score."""

    def outcomes(self) -> list[dict[str, Any]]:
        """The item outcomes as one dict per row, each with its `answers` [{run_no, ord, value}]."""
        a = {k: np.asarray(v).tolist() for k, v in self.answers.items() if k in ("offsets", "run_no", "ord", "value")}
        if "ord" not in a:  # from columns: each answer's order as its code in `orders`
            a["ord"] = [self.answers["orders"][k] for k in np.asarray(self.answers["ord_code"]).tolist()]
        off = a["offsets"]
        return [{**{c: self.items[c][i] for c in OUTCOME_COLUMNS},
                 "answers": [{"run_no": a["run_no"][j], "ord": a["ord"][j], "value": a["value"][j]}
                             for j in range(off[i], off[i + 1])]} for i in range(len(self.items["item_id"]))]


def node_of(item: Item) -> tuple:
    """The item's node columns as the store writes them: text or None (empty is None), level an integer."""
    meta = item.metadata or {}
    p, c, s, level = meta.get("phenomenon"), meta.get("category"), meta.get("subcategory"), meta.get("level")
    return (None if p is None or p == "" else str(p), None if c is None or c == "" else str(c),
            None if s is None or s == "" else str(s), None if level is None or level == "" else int(level))


def _all_true(ok: np.ndarray, group: np.ndarray, mask: np.ndarray, n: int) -> list:
    """Per group: every masked row ok (True/False), or None when the group has no masked row."""
    asked = np.bincount(group[mask], minlength=n)
    good = np.bincount(group[mask & ok], minlength=n)
    return [None if a == 0 else bool(g == a) for a, g in zip(asked.tolist(), good.tolist())]


def cell_drilldown(pairs: Sequence[tuple[Item, ItemResult]]) -> CellDrilldown:
    """The drill-down pre-aggregates of one cell from its scored (Item, ItemResult) pairs (one per stored answer)."""
    return columns_drilldown(CellColumns.from_pairs(list(pairs)))


def columns_drilldown(cols: CellColumns) -> CellDrilldown:
    """The drill-down pre-aggregates of one cell from its rows as columns (one row per stored answer)."""
    out = CellDrilldown()
    parsed = cols.parsed
    runs, run_rows = sorted_distinct(cols.run)
    answers = np.bincount(run_rows, minlength=len(runs))
    unparsed = np.bincount(run_rows, weights=~parsed, minlength=len(runs)).astype(np.int64)
    out.runs = {int(r): (int(a), int(u)) for r, a, u in zip(runs.tolist(), answers.tolist(), unparsed.tolist())}
    if cols.usage is not None:
        out.run_usage = run_usage(runs, run_rows, cols.usage)
    out.n_answers, out.n_unparsed = cols.n_rows, int((~parsed).sum())
    metrics = [m for m in sorted(cols.scores) if not np.isnan(cols.scores[m]).all()]
    if not metrics:
        return out
    n_ids = len(cols.ids)
    ids = np.asarray(cols.ids, dtype=str)
    item_parsed = np.bincount(cols.item_code, weights=~parsed, minlength=n_ids) == 0
    picked = [np.flatnonzero(~np.isnan(cols.scores[m])) for m in metrics]
    rp = np.concatenate(picked)
    metric_code = np.repeat(np.arange(len(metrics)), [len(p) for p in picked])
    values = np.concatenate([cols.scores[m][p] for m, p in zip(metrics, picked)])
    key = metric_code * n_ids + cols.item_code[rp]
    order = np.lexsort((cols.order_code[rp], cols.run[rp], key))  # by outcome, then run, then option order
    key, r_ord, values, r_run = key[order], cols.order_code[rp][order], values[order], cols.run[rp][order]
    keys, group = sorted_distinct(key)
    counts = np.bincount(group, minlength=len(keys))
    n_out = len(keys)
    mean = np.bincount(group, weights=values, minlength=n_out) / counts
    ok = values >= 1
    ab, ba = (r_ord == (cols.orders.index(o) if o in cols.orders else -2) for o in ("ab", "ba"))
    o_metric, o_item = keys // n_ids, keys % n_ids
    out.items = {"metric": [metrics[k] for k in o_metric.tolist()], "item_id": ids[o_item].tolist(),
                 "value": mean.tolist(), "right_ab": _all_true(ok, group, ab, n_out),
                 "right_ba": _all_true(ok, group, ba, n_out),
                 "right_all": _all_true(ok, group, np.ones(len(values), dtype=bool), n_out),
                 "parsed": item_parsed[o_item].tolist()}
    out.answers = {"offsets": np.concatenate([[0], np.cumsum(counts)]), "run_no": r_run,
                   "ord_code": r_ord, "orders": list(cols.orders), "value": values}  # no text per answer: codes
    out.n_items = len(np.unique(o_item))
    first = {i: cols.items[i] for i in cols.ids}
    _nodes(out, first, ids, o_metric, o_item, np.asarray(metrics, dtype=str))
    return out


def _nodes(out: CellDrilldown, first: dict[str, Item], ids: np.ndarray, o_metric: np.ndarray,
                     o_item: np.ndarray, metrics: np.ndarray) -> None:
    """Node counts from the outcomes already in `out`."""
    node_keys = [node_of(first[i]) for i in ids.tolist()]
    nodes, node_code = {}, np.empty(len(ids), dtype=np.int64)
    for j, nk in enumerate(node_keys):
        node_code[j] = nodes.setdefault(nk, len(nodes))
    gkey = o_metric * len(nodes) + node_code[o_item]
    gkeys, g = np.unique(gkey, return_inverse=True)
    wrong_rows = np.asarray([r is False for r in out.items["right_all"]])
    n = np.bincount(g, minlength=len(gkeys))
    correct = np.bincount(g, weights=np.asarray(out.items["value"]), minlength=len(gkeys))
    wrong = np.bincount(g, weights=wrong_rows, minlength=len(gkeys))
    by_code = list(nodes)
    rows = [{"metric": str(metrics[k // len(nodes)]), **dict(zip(NODE_KEYS, by_code[k % len(nodes)])),
             "n": int(n[x]), "correct": float(correct[x]), "wrong": int(wrong[x])} for x, k in enumerate(gkeys.tolist())]
    out.nodes = sorted(rows, key=lambda r: (r["metric"], *(str(r[k]) for k in NODE_KEYS)))
