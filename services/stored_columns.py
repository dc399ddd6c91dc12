"""Cells' stored rows as `evaluator.cell_columns.CellColumns`: one query for every cell a refresh recomputes, text
columns dictionary-encoded by Arrow (no Python object per row), items parsed once per (task, lang)."""
from __future__ import annotations

import json
from typing import Callable, Sequence

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evaluator.cell_columns import CellColumns, sorted_codes
from evaluator.spec import Item
from store import writer


def parse_items(rows: Sequence[dict]) -> dict[tuple[str, str], dict[str, Item]]:
    """Stored item rows as Items by (task, lang) and id, each parsed once."""
    out: dict[tuple[str, str], dict[str, Item]] = {}
    for r in rows:
        out.setdefault((r["task"], r["lang"]), {})[r["item_id"]] = Item(
            task=r["task"], lang=r["lang"], item_id=r["item_id"], inputs=json.loads(r["inputs"] or "{}"),
            gold=json.loads(r["gold"]) if r["gold"] is not None else None,
            options=tuple(json.loads(r["options"])) if r["options"] else None,
            metadata=json.loads(r["metadata"] or "{}"), warnings=tuple(r["warnings"] or ()))
    return out


def _dictionary(column: pa.ChunkedArray) -> tuple[list, np.ndarray]:
    """(distinct values sorted, code per row with -1 for null) of a text column."""
    encoded = pc.dictionary_encode(column).combine_chunks()
    idx = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    return sorted_codes(encoded.dictionary.to_pylist(), idx)


def _compact(values: list, codes: np.ndarray) -> tuple[list, np.ndarray]:
    """The sorted values a slice uses and its codes into them (-1 stays -1), in one pass."""
    used = np.bincount(codes[codes >= 0], minlength=len(values)) > 0
    remap = np.append(np.cumsum(used) - 1, -1)  # code -1 indexes the appended -1
    return [values[k] for k in np.flatnonzero(used).tolist()], remap[codes]


def stored_columns(con: duckdb.DuckDBPyConnection, model_id: str, cells: Sequence[tuple[str, str, str]],
                   metrics: Callable[[str], Sequence[str]],
                   pairs: Callable[[tuple[str, str, str]], Callable[[], list]]) -> dict[tuple, CellColumns]:
    """Each cell's active rows as columns, in store order (run, item id, order). `metrics(task)`: the task's
    metrics (every metric with stored scores is read as well); `pairs(cell)`: the full (Item, ItemResult) pairs'
    builder, called only if a metric has no columnar form."""
    cells = list(cells)
    stored = writer.cells_metrics(con, model_id, cells)
    names = sorted(set(stored) | {m for c in cells for m in metrics(c[0])})
    table = writer.cells_columns(con, model_id, cells, names)
    items = parse_items(writer.items_of(con, sorted({c[:2] for c in cells})))
    cell = table["cell"].to_numpy()
    bounds = np.searchsorted(cell, np.arange(len(cells) + 1))
    run = table["run_no"].to_numpy().astype(np.int64)
    parsed = table["parsed"].fill_null(False).to_numpy(zero_copy_only=False).astype(bool)
    text = {c: _dictionary(table[c]) for c in ("item_id", "ord", "answer")}
    scores = {m: table[f"m{k}"].to_numpy(zero_copy_only=False).astype(float) for k, m in enumerate(names)}
    out = {}
    for k, key in enumerate(cells):
        rows = slice(bounds[k], bounds[k + 1])
        (ids, item_code), (orders, order_code), (answers, answer_code) = (
            _compact(values, idx[rows]) for values, idx in text.values())
        keep = set(stored) | set(metrics(key[0]))
        out[key] = CellColumns(items=items.get(key[:2], {}), ids=ids, item_code=item_code, run=run[rows],
                               orders=orders, order_code=order_code, parsed=parsed[rows], answers=answers,
                               answer_code=answer_code,
                               scores={m: v[rows] for m, v in scores.items()
                                       if m in keep and (m in metrics(key[0]) or not np.isnan(v[rows]).all())},
                               pairs=pairs(key))
    return out
