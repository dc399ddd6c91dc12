"""Cells' stored rows as `evaluator.cell_columns.CellColumns`: two scans for every cell a refresh recomputes (the
predictions and the item scores of the active runs), joined and put in store order here on integer codes (item ids
coded by the scans against the cells' stored items, other text columns dictionary-encoded by Arrow, no Python
object per row), items parsed once per (task, lang)."""
from __future__ import annotations

import json
from typing import Callable, Sequence

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evaluator.cell_columns import USAGE_FIELDS, CellColumns, sorted_codes
from evaluator.spec import Item, ItemResult, Prediction, TaskSpec
from store import cell_rows


USUAL_ORDER = "ab"
"""The option order nearly every answer has (the only one of a task not asked in both orders)."""
_PARSED: dict[tuple, Item] = {}
"""Items already parsed, by their stored row (equal text, equal item): a refresh re-reads the same items."""


def parse_items(rows: Sequence[dict]) -> dict[tuple[str, str], dict[str, Item]]:
    """Stored item rows as Items by (task, lang) and id, each row's JSON parsed once per process."""
    if len(_PARSED) > 50_000:  # more than every task and language holds; bounds the memory
        _PARSED.clear()
    out: dict[tuple[str, str], dict[str, Item]] = {}
    for r in rows:
        key = (r["task"], r["lang"], r["item_id"], r["inputs"], r["gold"], r["options"], r["metadata"],
               tuple(r["warnings"] or ()))
        item = _PARSED.get(key)
        if item is None:
            item = _PARSED[key] = Item(
                task=r["task"], lang=r["lang"], item_id=r["item_id"], inputs=json.loads(r["inputs"] or "{}"),
                gold=json.loads(r["gold"]) if r["gold"] is not None else None,
                options=tuple(json.loads(r["options"])) if r["options"] else None,
                metadata=json.loads(r["metadata"] or "{}"), warnings=tuple(r["warnings"] or ()))
        out.setdefault((r["task"], r["lang"]), {})[r["item_id"]] = item
    return out


def _dictionary(column: pa.ChunkedArray) -> tuple[list, np.ndarray]:
    """(distinct values sorted, code per row with -1 for null) of a text column."""
    return sorted_codes(*_encoded(column))


def _encoded(column: pa.ChunkedArray, often_one: bool = False) -> tuple[list, np.ndarray]:
    """(distinct values as Arrow found them, code per row with -1 for null) of a text column. `often_one`: the
    column usually holds one value (a task's one option order, its one metric scored), checked with one comparison
    before hashing."""
    if often_one and _constant(column):
        return [column[0].as_py()], np.zeros(len(column), dtype=np.int64)
    encoded = pc.dictionary_encode(column).combine_chunks()
    return encoded.dictionary.to_pylist(), encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


def _ranks(values: list) -> tuple[list, np.ndarray]:
    """(`values` sorted, the sorted position of each value with one more entry, -1, for code -1)."""
    ordered, rank = sorted_codes(values, np.arange(len(values)))
    return ordered, np.append(rank, -1)


def _constant(column: pa.ChunkedArray) -> bool:
    """Whether every row holds the same value, none null (first and last row compared first)."""
    n = len(column)
    return (n > 0 and column.null_count == 0 and column[0] == column[n - 1]
            and pc.all(pc.equal(column, column[0])).as_py())


def _lookup(column: pa.ChunkedArray, values: list) -> np.ndarray:
    """Each row's position in `values` (-1 where absent or null)."""
    if len(values) == 1:  # one comparison instead of a hash lookup
        same = pc.equal(column, pa.scalar(values[0], pa.string())).fill_null(False)
        return np.where(same.to_numpy(zero_copy_only=False), 0, -1).astype(np.int64)
    found = pc.index_in(column, value_set=pa.array(values, pa.string()))
    return found.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


def _compact(values: list, codes: np.ndarray) -> tuple[list, np.ndarray]:
    """The sorted values a slice uses and its codes into them (-1 stays -1), in one pass."""
    used = np.bincount(codes[codes >= 0], minlength=len(values)) > 0
    remap = np.append(np.cumsum(used) - 1, -1)  # code -1 indexes the appended -1
    return [values[k] for k in np.flatnonzero(used).tolist()], remap[codes]


def _sorting(key: np.ndarray) -> np.ndarray | None:
    """The permutation sorting `key`, or None when it is sorted (rows come nearly in order: a stable sort of
    sorted stretches is close to one pass)."""
    return None if bool((key[1:] >= key[:-1]).all()) else np.argsort(key, kind="stable")


class _Keys:
    """Row keys in store order (cell, run number, item id, order, then run id) as one integer: the store's slot
    (cell, run number) and dup (run id among runs sharing it), item ids (`ids`, sorted: the scans' item codes) and
    orders coded in sorted order."""

    def __init__(self, preds: pa.Table, runs: dict[str, np.ndarray], ids: list[str], usual_order: str):
        orders, order = _with_usual(preds["ord"], usual_order)
        self.ids, self.orders, self.runs = ids, orders, runs
        self.sorted_orders, self.order_rank = _ranks(orders)
        self.item, self.order = _codes(preds["item"]), self.order_rank[order]
        self.dups = int(runs["dup"].max(initial=0)) + 1
        self.run = _codes(preds["run"])
        self.key = self.of(self.run, self.item, self.order)
        self.perm: np.ndarray | None = None
        """The permutation putting the rows in key order (None: they are), once the caller sorted them."""

    def of(self, run: np.ndarray, item: np.ndarray, order: np.ndarray) -> np.ndarray:
        """Each row's key from its run (position among the active runs), item and order codes."""
        slot, dup = self.runs["slot"][run], self.runs["dup"][run]
        return ((slot * len(self.ids) + item) * max(len(self.orders), 1) + order) * self.dups + dup


def _codes(column: pa.ChunkedArray) -> np.ndarray:
    """A scan's position column (run or item) as int64."""
    return column.to_numpy().astype(np.int64)


def _with_usual(column: pa.ChunkedArray, usual: str) -> tuple[list, np.ndarray]:
    """`_encoded` of a text column the scan gave with NULL for `usual` (a column of the store's key: never NULL)."""
    if column.null_count == len(column):
        return [usual], np.zeros(len(column), dtype=np.int64)
    values, codes = _encoded(column, often_one=True)
    return ([*values, usual], _usual(codes, column, len(values))) if column.null_count else (values, codes)


def _usual(codes: np.ndarray, column: pa.ChunkedArray, code: int) -> np.ndarray:
    """`codes` with `code` where `column` is NULL (the scan's stand-in for the usual value)."""
    if not column.null_count:
        return codes
    return np.where(column.is_null().to_numpy(zero_copy_only=False), code, codes)


def _scores(scores: pa.Table, keys: _Keys, row_key: np.ndarray, usual: tuple[str, str]) -> dict[str, np.ndarray]:
    """Metric -> each row's stored score (rows sorted by `row_key`; NaN where none), every metric with a stored
    score: scores matched to rows on (run, item, order), both sorted by key (scores come in nearly the rows'
    order, written together), so a metric scoring every row matches with one comparison. `usual`: the (order,
    metric) the scan gave as NULL."""
    usual_order, usual_metric = usual
    usual_code = keys.orders.index(usual_order) if usual_order in keys.orders else -1
    if scores["ord"].null_count == len(scores["ord"]):  # every score row in the usual order
        order = np.full(len(scores["ord"]), keys.order_rank[usual_code], dtype=np.int64)
    else:
        order = keys.order_rank[_usual(_lookup(scores["ord"], keys.orders), scores["ord"], usual_code)]
    key = keys.of(_codes(scores["run"]), _codes(scores["item"]), order)
    known = order >= 0
    names, metric = _with_usual(scores["metric"], usual_metric)
    value = scores["value"].fill_null(np.nan).to_numpy(zero_copy_only=False).astype(float)
    out = {}
    same_rows = len(key) == len(keys.key) and np.array_equal(key, keys.key)  # stored in the predictions' order
    for k, name in sorted(enumerate(names), key=lambda x: x[1]):
        pick = np.flatnonzero(known & (metric == k))
        if same_rows and len(pick) == len(key):  # a metric scoring every row: the rows' own order
            pick = pick[keys.perm] if keys.perm is not None else pick
        elif (perm := _sorting(key[pick])) is not None:
            pick = pick[perm]
        if np.array_equal(key[pick], row_key):
            out[name] = value[pick]
            continue
        pos = np.minimum(np.searchsorted(row_key, key[pick]), max(len(row_key) - 1, 0))
        hit = row_key[pos] == key[pick] if len(row_key) else np.zeros(len(pick), dtype=bool)
        out[name] = np.full(len(row_key), np.nan)
        out[name][pos[hit]] = value[pick[hit]]
    return out


def stored_columns(con: duckdb.DuckDBPyConnection, model_id: str, cells: Sequence[tuple[str, str, str]],
                   metrics: Callable[[str], Sequence[str]],
                   pairs: Callable[[tuple[str, str, str]], Callable[[], list]],
                   active: Sequence[cell_rows.RunRow] | None = None) -> dict[tuple, CellColumns]:
    """Each cell's active rows as columns, in store order (run, item id, order), rows whose item is not stored
    left out. `metrics(task)`: the task's metrics (every metric with stored scores is read as well);
    `pairs(cell)`: the full (Item, ItemResult) pairs' builder, called only if a metric has no columnar form;
    `active`: the cells' active runs, when the caller read them (`cell_rows.refresh_state`)."""
    cells = list(cells)
    items = parse_items(cell_rows.items_of(con, sorted({c[:2] for c in cells})))
    ids = sorted({i for cell_items in items.values() for i in cell_items})
    usual = (USUAL_ORDER, next(iter(metrics(cells[0][0])), "") if cells else "")
    preds, score_rows, runs = cell_rows.cells_rows(con, model_id, cells, ids, usual, active)
    keys = _Keys(preds, runs, ids, usual[0])
    answers, answer_code = _dictionary(preds["answer"])
    columns = {"cell": runs["cell"][keys.run], "run": runs["run_no"][keys.run],
               "item": keys.item, "order": keys.order, "key": keys.key, "answer": answer_code,
               "parsed": preds["parsed"].fill_null(False).to_numpy(zero_copy_only=False).astype(bool),
               **{f"u:{f}": np.asarray(preds[f].to_numpy(zero_copy_only=False), dtype=float) for f in USAGE_FIELDS}}
    perm = keys.perm = _sorting(keys.key)
    if perm is not None:
        columns = {k: v[perm] for k, v in columns.items()}
    columns |= {f"m:{m}": v for m, v in _scores(score_rows, keys, columns["key"], usual).items()}
    bounds = np.searchsorted(columns["cell"], np.arange(len(cells) + 1))
    return {key: _cell(columns, slice(bounds[k], bounds[k + 1]), items.get(key[:2], {}), keys.ids,
                       keys.sorted_orders, answers, set(metrics(key[0])), pairs(key)) for k, key in enumerate(cells)}


def _cell(columns: dict[str, np.ndarray], rows: slice | np.ndarray, items: dict, ids: list, orders: list,
          answers: list, task_metrics: set[str], pairs: Callable[[], list]) -> CellColumns:
    """One cell's CellColumns from its rows of the store-ordered columns; rows of items not stored are dropped."""
    cell_ids, item_code = _compact(ids, columns["item"][rows])
    known = np.array([i in items for i in cell_ids], dtype=bool)
    if not known.all():
        start = rows.start if isinstance(rows, slice) else 0
        rows = np.flatnonzero(known[item_code]) + start
        cell_ids, item_code = _compact(ids, columns["item"][rows])
    (cell_orders, order_code), (cell_answers, answer_code) = (
        _compact(values, columns[name][rows]) for name, values in (("order", orders), ("answer", answers)))
    n = len(item_code)
    scores = {}
    for m in sorted({name[2:] for name in columns if name.startswith("m:")} | task_metrics):
        values = columns[f"m:{m}"][rows] if f"m:{m}" in columns else np.full(n, np.nan)
        if m in task_metrics or not np.isnan(values).all():
            scores[m] = values
    return CellColumns(items=items, ids=cell_ids, item_code=item_code, run=columns["run"][rows], orders=cell_orders,
                       order_code=order_code, parsed=columns["parsed"][rows], answers=cell_answers,
                       answer_code=answer_code, scores=scores, pairs=pairs,
                       usage={f: columns[f"u:{f}"][rows] for f in USAGE_FIELDS})


def cell_pairs(con: duckdb.DuckDBPyConnection, model_id: str, task: TaskSpec, lang: str,
             prompt_lang: str) -> list[tuple[Item, ItemResult]]:
    """(Item, ItemResult) pairs of a cell as stored, for aggregation over every active run: items parsed once per
    cell, predictions with their per-item scores read in one pass."""
    items = parse_items(cell_rows.items_of(con, [(task.name, lang)])).get((task.name, lang), {})
    pairs = []
    for r in cell_rows.cell_predictions(con, model_id, task.name, lang, prompt_lang):
        item = items.get(r["item_id"])
        if item is None:  # a prediction without its item row is not part of the cell (as the stored join had it)
            continue
        lps = r["option_logprobs"]
        pred = Prediction(task=task.name, lang=lang, item_id=r["item_id"], prompt_lang="", output=r["output"],
                          run=int(r["run_no"]), order=r["ord"],
                          option_logprobs=tuple(lps) if lps is not None else None)
        result = ItemResult(prediction=pred, answer=r["answer"], parsed=bool(r["parsed"]), reasoning=r["reasoning"],
                            scores=dict(r["scores"] or {}), extras=json.loads(r["extras"]) if r["extras"] else {})
        pairs.append((item, result))
    return pairs
