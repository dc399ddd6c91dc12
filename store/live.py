"""Appends for live runs: one group of answers per transaction, each table written by one insert.

A live run commits every ≤ 200 ms (see `evaluator.run`), so what matters is the cost per commit, not per row.
DuckDB's `executemany` pays its prepared statement per row (about 0.5 ms a row for `scores`, 12 ms a row for
`predictions` with its primary key); one `INSERT … SELECT` pays its fixed cost once. A small group goes in with each
column as one list parameter (`unnest`), a large one from an Arrow table (see `LIST_VALUES`). Rows are plain values
(the caller flattens its records); nothing here opens or commits a transaction.
"""
from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

import duckdb
import pyarrow as pa

_TEXT, _INT, _REAL, _BOOL = pa.string(), pa.int32(), pa.float64(), pa.bool_()

PREDICTION_COLUMNS: Mapping[str, pa.DataType] = {
    "run_id": _TEXT, "item_id": _TEXT, "ord": _TEXT, "prompt": _TEXT, "output": _TEXT, "answer": _TEXT,
    "parsed": _BOOL, "reasoning": _TEXT, "tokens_in": _INT, "tokens_out": _INT, "latency_s": _REAL,
    "finish_reason": _TEXT, "option_logprobs": pa.list_(_REAL), "extras": _TEXT}
"""Columns of `predictions` written live (`extras` is JSON text, cast on insert)."""

SCORE_COLUMNS: Mapping[str, pa.DataType] = {"run_id": _TEXT, "item_id": _TEXT, "ord": _TEXT, "metric": _TEXT,
                                            "value": _REAL}
SELF_REPORTED_COLUMNS: Mapping[str, pa.DataType] = {"run_id": _TEXT, "item_id": _TEXT, "metric": _TEXT,
                                                    "value": _REAL}
ITEM_COLUMNS: Mapping[str, pa.DataType] = {
    "task": _TEXT, "lang": _TEXT, "item_id": _TEXT, "inputs": _TEXT, "gold": _TEXT, "options": _TEXT,
    "metadata": _TEXT, "warnings": pa.list_(_TEXT), "phenomenon": _TEXT, "category": _TEXT, "subcategory": _TEXT,
    "level": _INT, "content_hash": _TEXT}
"""Columns of `items` (`inputs`, `gold`, `options`, `metadata` are JSON text, cast on insert)."""

RUN_COUNT_COLUMNS: Mapping[str, pa.DataType] = {
    "run_id": _TEXT, "answers": pa.int64(), "unparsed": pa.int64(), "tokens_in": pa.int64(), "tokens_out": pa.int64(),
    "latency_sum": _REAL, "latency_n": pa.int64()}
"""Columns of `run_counts` a refresh writes (`store.drilldown`, from many runs on; computed_at by its default)."""

JSON_COLUMNS = frozenset({"extras", "inputs", "gold", "options", "metadata"})

TABLES: Mapping[str, Mapping[str, pa.DataType]] = {
    "predictions": PREDICTION_COLUMNS, "scores": SCORE_COLUMNS, "self_reported": SELF_REPORTED_COLUMNS,
    "items": ITEM_COLUMNS, "run_counts": RUN_COUNT_COLUMNS}
"""The tables appended to by one Arrow insert (a live run's groups; a refresh's run counts), with the columns
written (names are this module's, never the data's)."""


LIST_VALUES = 2048
"""An append of fewer values than this (rows x columns) passes each column as one list parameter; from this many
on, one Arrow table. A list parameter converts each value on its own, an Arrow table costs about 2 ms to build and
register whatever its size: on the 2-core machine (`benchmarks/bench_appends.py`) `predictions`
(14 columns) took 2.6 ms as lists against 3.9 ms as Arrow for 8 rows, 3.8 against 4.2 for 128, 5.0 against 5.1 for
256 and 16.9 against 7.4 for 1,000; `scores` (5 columns) 1.0 against 2.1 for 8 rows, 2.2 against 3.3 for 256, 5.9
against 4.2 for 1,000."""


def append(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[Sequence[Any]], *, replace: bool = True
           ) -> None:
    """INSERT OR REPLACE `rows` (tuples in the order of `TABLES[table]`) into `table` in one statement; a plain
    INSERT (half the cost) with `replace=False`, for rows whose keys cannot be stored yet. Fewer than `LIST_VALUES`
    values go in as one list parameter per column, more from one Arrow table; both store the same values (the
    INSERT casts each column to the table's type)."""
    if not rows:
        return
    columns = TABLES[table]
    names = list(columns)
    quoted = ", ".join(f'"{n}"' for n in names)
    insert = f'INSERT {"OR REPLACE " if replace else ""}INTO "{table}" ({quoted})'
    if len(rows) * len(names) < LIST_VALUES:
        select = ", ".join("CAST(unnest(?) AS JSON)" if n in JSON_COLUMNS else "unnest(?)" for n in names)
        con.execute(f"{insert} SELECT {select}", [[r[i] for r in rows] for i in range(len(names))])
        return
    arrays = [pa.array([r[i] for r in rows], type=t) for i, t in enumerate(columns.values())]
    frame = pa.Table.from_arrays(arrays, names=names)
    view = f"_tanaw_live_{table}"
    select = ", ".join(f'CAST("{n}" AS JSON) AS "{n}"' if n in JSON_COLUMNS else f'"{n}"' for n in names)
    con.register(view, frame)
    try:
        con.execute(f"{insert} SELECT {select} FROM {view}")
    finally:
        con.unregister(view)


def stored_keys(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]) -> dict[str, set[tuple[str, str]]]:
    """(item_id, order) pairs already stored per run, for every run of a plan in one query (a resumed run asks only
    what is missing); runs without rows are absent."""
    out: dict[str, set[tuple[str, str]]] = {}
    if not run_ids:
        return out
    marks = ", ".join("?" * len(run_ids))
    for rid, item_id, order in con.execute(f"SELECT run_id, item_id, ord FROM predictions WHERE run_id IN ({marks})",
                                           list(run_ids)).fetchall():
        out.setdefault(rid, set()).add((item_id, order))
    return out


def stored_turns(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]) -> dict[str, dict[tuple[str, str], Any]]:
    """The stored answers of conversation turns (order "t1", "t2", ...) per run: (item_id, order) -> output, for
    the turns of a resumed conversation that follow them."""
    out: dict[str, dict[tuple[str, str], Any]] = {}
    if not run_ids:
        return out
    marks = ", ".join("?" * len(run_ids))
    for rid, item_id, order, output in con.execute(
            f"SELECT run_id, item_id, ord, output FROM predictions WHERE run_id IN ({marks}) "
            "AND regexp_full_match(ord, 't[0-9]+')", list(run_ids)).fetchall():
        out.setdefault(rid, {})[(item_id, order)] = output
    return out


def json_text(value: Any) -> str | None:
    """A value as stored in a JSON column (the same spelling as `store.writer`'s bulk writes)."""
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def result_rows(run_id: str, results: Sequence[Any]) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """(predictions, scores, self_reported) rows of duck-typed `ItemResult`s of one run."""
    preds, scores, self_rep = [], [], []
    for r in results:
        p = r.prediction
        preds.append((run_id, p.item_id, p.order, p.prompt, p.output, r.answer, bool(r.parsed), r.reasoning,
                      p.tokens_in, p.tokens_out, p.latency_s, p.finish_reason,
                      list(p.option_logprobs) if p.option_logprobs is not None else None,
                      json_text(dict(r.extras) if r.extras else None)))
        scores.extend((run_id, p.item_id, p.order, m, float(v)) for m, v in r.scores.items())
        self_rep.extend((run_id, p.item_id, m, float(v)) for m, v in (p.self_reported or {}).items())
    return preds, scores, self_rep


def item_rows(items: Sequence[Any], content_hash) -> list[tuple]:
    """`items` rows of duck-typed `Item`s; `content_hash(item) -> str` keys foreign-id matching."""
    def text(v: Any) -> str | None:
        return None if v is None or v == "" else str(v)

    rows = []
    for it in items:
        meta = dict(it.metadata)
        level = meta.get("level")
        rows.append((it.task, it.lang, it.item_id, json_text(dict(it.inputs)), json_text(it.gold),
                     json_text(list(it.options) if it.options is not None else None), json_text(meta),
                     list(it.warnings), text(meta.get("phenomenon")), text(meta.get("category")),
                     text(meta.get("subcategory")), None if level is None else int(level), content_hash(it)))
    return rows
