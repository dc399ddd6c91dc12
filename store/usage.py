"""Stored cost and speed per model (schema V10): the run groups the wiring summarises, and the writer of its rows.

services.usage_store sums a model's current runs with evaluator.usage.usage_summary whenever its roll-ups are
refreshed and calls `save_usage` inside the caller's transaction; the leaderboard only filters the stored rows
(store.queries.leaderboard.usage_table).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import duckdb
import pandas as pd

USAGE_COLUMNS = ("requests", "tokens_in", "tokens_out", "mean_latency_s", "cost")
"""Columns of model_usage after (model_id, prompt_lang, family): evaluator.usage.usage_summary's keys."""


def usage_groups(con: duckdb.DuckDBPyConnection, model_id: str) -> pd.DataFrame:
    """A model's current (not superseded) runs grouped by prompt language, task family (None for a task outside
    the registry) and operator prices (run settings `price_per_mtok`): prompt_lang, family, price_in, price_out,
    requests, tokens_in, tokens_out, latency_sum, latency_n. Runs without stored answers count 0 requests."""
    return con.execute("""
        SELECT r.prompt_lang, t.family,
               TRY_CAST(json_extract_string(r.settings, '$.price_per_mtok.input') AS DOUBLE) AS price_in,
               TRY_CAST(json_extract_string(r.settings, '$.price_per_mtok.output') AS DOUBLE) AS price_out,
               count(p.run_id) AS requests, sum(p.tokens_in) AS tokens_in, sum(p.tokens_out) AS tokens_out,
               sum(p.latency_s) AS latency_sum, count(p.latency_s) AS latency_n
        FROM runs r LEFT JOIN predictions p ON p.run_id = r.run_id LEFT JOIN tasks t ON t.task = r.task
        WHERE r.model_id = ? AND NOT r.superseded
        GROUP BY ALL ORDER BY ALL""", [model_id]).df()


def save_usage(con: duckdb.DuckDBPyConnection, model_id: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """Replace a model's stored usage with `rows` (prompt_lang, family ('' = all) and USAGE_COLUMNS)."""
    con.execute("DELETE FROM model_usage WHERE model_id = ?", [model_id])
    cols = ("model_id", "prompt_lang", "family", *USAGE_COLUMNS)
    if rows:
        con.executemany(f"INSERT INTO model_usage ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                        [[model_id, r["prompt_lang"], r["family"], *(r[c] for c in USAGE_COLUMNS)] for r in rows])


def models_without_usage(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Models with current runs but no stored usage (a store written before V10, an older export)."""
    return [r[0] for r in con.execute("""
        SELECT DISTINCT model_id FROM runs WHERE NOT superseded
          AND model_id NOT IN (SELECT model_id FROM model_usage) ORDER BY 1""").fetchall()]
