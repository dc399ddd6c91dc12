"""Stored page figures (schema V12): the rows the wiring computes them from, and their writers.

services.page_figures computes each figure with the evaluator (normalised reported rows, a cell's field, PACUTE
control ceilings) and writes it here inside the caller's transaction; store.queries only filter and join the tables.
Parse failures and the means of a file's own scores are views (store/schema.sql).
"""
from __future__ import annotations

from functools import reduce
from hashlib import blake2b
from operator import xor
from typing import Any, Mapping, Sequence

import duckdb
import pandas as pd


CELL_KEY = ("task", "lang", "prompt_lang", "metric")
"""A headline cell, as cell_field keys it (with model_id)."""


def _insert(con: duckdb.DuckDBPyConnection, table: str, cols: Sequence[str], rows: Sequence[Mapping[str, Any]]):
    """One INSERT of every row, a list parameter per column (`table` and `cols` are this module's own names)."""
    if not rows:
        return
    values = [[None if (v := r[c]) is None or v != v else v for r in rows] for c in cols]  # NaN -> NULL
    con.execute(f"INSERT INTO {table} ({', '.join(cols)}) SELECT {', '.join('unnest(?)' for _ in cols)}", values)


def reported_rows(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every reported row's key and value: source, task, lang, prompt_lang, metric, system, value."""
    return con.execute("SELECT source, task, lang, prompt_lang, metric, system, value FROM reported").df()


def save_reported_normalized(con: duckdb.DuckDBPyConnection, rows: Sequence[Mapping[str, Any]]) -> None:
    """Replace every stored normalised reported row with `rows` (reported_rows' columns, chance, normalized)."""
    con.execute("DELETE FROM reported_normalized")
    _insert(con, "reported_normalized",
            ("source", "task", "lang", "prompt_lang", "metric", "system", "value", "chance", "normalized"), rows)


def reported_stale(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether some reported row has no stored normalised row with its key and value (a store written before V12,
    a Hub pull that replaced the reported rows)."""
    return bool(con.execute("""
        SELECT count(*) FROM reported r WHERE NOT EXISTS (
            SELECT 1 FROM reported_normalized n
            WHERE n.source IS NOT DISTINCT FROM r.source AND n.task IS NOT DISTINCT FROM r.task
              AND n.lang IS NOT DISTINCT FROM r.lang AND n.prompt_lang IS NOT DISTINCT FROM r.prompt_lang
              AND n.metric IS NOT DISTINCT FROM r.metric AND n.system IS NOT DISTINCT FROM r.system
              AND n.value IS NOT DISTINCT FROM r.value)""").fetchone()[0])


def row_hash(model_id: str, value: float, ci_low: float | None, ci_high: float | None) -> int:
    """A scored headline row's 64-bit fingerprint (the same in every process): a cell's inputs_hash is the XOR of its
    visible scored rows' fingerprints, as text."""
    key = repr((model_id, value, ci_low, ci_high)).encode("utf-8")
    return int.from_bytes(blake2b(key, digest_size=8).digest(), "big")


def field_scan(con: duckdb.DuckDBPyConnection, model_ids: Sequence[str], cells: Sequence[Sequence[str]] | None = None,
               *, others_only: bool = False) -> list[tuple]:
    """What `stale_field_cells` reads, as rows (True, task, lang, prompt_lang, metric, mine, ok, model_id, value,
    ci_low, ci_high, NULL) per headline aggregate among `cells` and (False, task, lang, prompt_lang, metric, mine,
    NULL x 5, inputs_hash) per stored field row: two plain scans in one statement (UNION ALL). `others_only`: without
    these models' own headline rows (a refresh about to replace them adds its own: `services.refresh_inputs`)."""
    among, only = ("true", []) if cells is None else ("list_contains(?, [task, lang, prompt_lang])",
                                                      [[list(c) for c in cells]])
    others, skip = ("AND NOT list_contains(?, a.model_id)", [list(model_ids)]) if others_only else ("", [])
    return con.execute(f"""
        SELECT true, a.task, a.lang, a.prompt_lang, a.metric, list_contains(?, a.model_id) AS mine,
               a.status = 'ok' AND a.value IS NOT NULL AND m.model_id IS NOT NULL AND NOT coalesce(m.hidden, false),
               a.model_id, a.value, a.ci_low, a.ci_high, NULL
        FROM aggregates a LEFT JOIN models m ON m.model_id = a.model_id
        WHERE a.is_headline AND {among} {others}
        UNION ALL
        SELECT false, task, lang, prompt_lang, metric, list_contains(?, model_id), NULL, NULL, NULL, NULL, NULL,
               inputs_hash
        FROM cell_field WHERE {among}""", [list(model_ids), *only, *skip, list(model_ids), *only]).fetchall()


def stale_field_cells(con: duckdb.DuckDBPyConnection, model_ids: Sequence[str],
                      cells: Sequence[Sequence[str]] | None = None, stored_keys: set | None = None) -> list[tuple]:
    """The headline cells these models have (or had a stored field on), among `cells` ([task, lang, prompt_lang];
    None = all), whose visible scored rows changed since their field was stored (or that have none stored), with
    every visible model's scored value on them, sorted:
    (task, lang, prompt_lang, metric, inputs_hash, model_id, value, ci_low, ci_high); model_id NULL when nobody
    is left on a cell. A cell's inputs_hash is the XOR of its scored rows' `row_hash`, as text (NULL for none).
    One read (`field_scan`), combined here (`stale_from`): one query joining, grouping and comparing them cost ~5 ms
    of planning per refresh. `stored_keys`: filled with the keys of the returned cells that have stored field rows
    (the others have nothing to delete)."""
    return stale_from(field_scan(con, model_ids, cells), stored_keys)


def stale_from(scanned: Sequence[tuple], stored_keys: set | None = None) -> list[tuple]:
    """`stale_field_cells` from its read's rows (`field_scan`'s, or those merged with a refresh's own)."""
    headline = [r[1:11] for r in scanned if r[0]]
    fields = [(*r[1:6], r[11]) for r in scanned if not r[0]]
    keys = {r[:4] for r in headline if r[4]} | {r[:4] for r in fields if r[4]}
    stored: dict[tuple, str | None] = {}
    for *key, _, inputs_hash in fields:  # any_value: the first non-NULL hash of the cell's rows
        if tuple(key) in keys and stored.get(tuple(key)) is None:
            stored[tuple(key)] = inputs_hash
    if stored_keys is not None:
        stored_keys.update(stored)
    scored: dict[tuple, list[tuple]] = {key: [] for key in keys}
    for *key, _, ok, model_id, value, lo, hi in headline:
        if ok and tuple(key) in keys:
            scored[tuple(key)].append((model_id, value, lo, hi))
    out = []
    for key, rows in scored.items():
        now = str(reduce(xor, (row_hash(*r) for r in rows))) if rows else None
        if now != stored.get(key):
            out += [(*key, now, *r) for r in rows] if rows else [(*key, now, None, None, None, None)]
    return sorted(out, key=_field_order)


def _field_order(row: tuple) -> tuple:
    """ORDER BY ALL of stale_field_cells' rows (NULLs last; one row per model in a cell)."""
    return (*row[:4], row[5] is None, row[5] or "")


def save_field(con: duckdb.DuckDBPyConnection, keys: Sequence[Sequence[str]], rows: Sequence[Mapping[str, Any]]):
    """Replace the stored field of these cells ([task, lang, prompt_lang, metric]: those with stored rows; a new
    cell has none to delete) with `rows` (model_id, the key, rank_best, rank_worst, n_models, field_median, delta,
    inputs_hash)."""
    if keys:
        con.execute("DELETE FROM cell_field WHERE list_contains(?, [task, lang, prompt_lang, metric])",
                    [[list(k) for k in keys]])
    _insert(con, "cell_field", ("model_id", *CELL_KEY, "rank_best", "rank_worst", "n_models", "field_median",
                                "delta", "inputs_hash"), rows)


def english_cells(con: duckdb.DuckDBPyConnection, model_id: str) -> pd.DataFrame:
    """A model's English-prompt aggregates: task, metric, value, n."""
    return con.execute("SELECT task, metric, value, n FROM aggregates WHERE model_id = ? AND prompt_lang = 'en' "
                       "ORDER BY task, metric", [model_id]).df()


def save_ceilings(con: duckdb.DuckDBPyConnection, model_id: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """Replace a model's stored control ceilings with `rows` (fmt, metric, ceiling, controls, n)."""
    con.execute("DELETE FROM control_ceilings WHERE model_id = ?", [model_id])
    _insert(con, "control_ceilings", ("model_id", "fmt", "metric", "ceiling", "controls", "n"),
            [{**r, "model_id": model_id} for r in rows])


def models_without_figures(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Models with aggregates but no stored field or ceiling (a store written before V12, an export without them)."""
    return [r[0] for r in con.execute("""
        SELECT DISTINCT model_id FROM aggregates WHERE model_id NOT IN (
            SELECT model_id FROM cell_field UNION SELECT model_id FROM control_ceilings) ORDER BY 1""").fetchall()]
