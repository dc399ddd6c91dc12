"""Stored cost and speed per model (schema V10): the run groups the wiring summarises, and the writer of its rows.

services.usage_store sums a model's current runs with evaluator.usage.usage_summary whenever its roll-ups are
refreshed and calls `save_usage` inside the caller's transaction; the leaderboard only filters the stored rows
(store.queries.leaderboard.usage_table).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import duckdb

USAGE_COLUMNS = ("requests", "tokens_in", "tokens_out", "mean_latency_s", "cost")
"""Columns of model_usage after (model_id, prompt_lang, family): evaluator.usage.usage_summary's keys."""


GROUP_COLUMNS = ("prompt_lang", "family", "price_in", "price_out", "requests", "tokens_in", "tokens_out",
                 "latency_sum", "latency_n")
"""Columns of `usage_groups`' rows."""


def usage_groups(con: duckdb.DuckDBPyConnection, model_id: str,
                 prompt_langs: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """A model's current (not superseded) runs grouped by prompt language, task family (None for a task outside
    the registry) and operator prices (run settings `price_per_mtok`), as rows with GROUP_COLUMNS sorted by them.
    Runs without stored answers count 0 requests. `prompt_langs`: only runs in these prompt languages."""
    rows = con.execute("""
        WITH r AS (  -- prices read once per run, not once per answer
            SELECT r.run_id, r.prompt_lang, t.family,
                   TRY_CAST(json_extract_string(r.settings, '$.price_per_mtok.input') AS DOUBLE) AS price_in,
                   TRY_CAST(json_extract_string(r.settings, '$.price_per_mtok.output') AS DOUBLE) AS price_out
            FROM runs r LEFT JOIN tasks t ON t.task = r.task
            WHERE r.model_id = ? AND NOT r.superseded AND (? IS NULL OR list_contains(?, r.prompt_lang)))
        SELECT r.prompt_lang, r.family, r.price_in, r.price_out,
               count(p.run_id) AS requests, sum(p.tokens_in) AS tokens_in, sum(p.tokens_out) AS tokens_out,
               sum(p.latency_s) AS latency_sum, count(p.latency_s) AS latency_n
        FROM r LEFT JOIN predictions p ON p.run_id = r.run_id
        GROUP BY ALL ORDER BY ALL""", [model_id, prompt_langs, prompt_langs]).fetchall()
    return [dict(zip(GROUP_COLUMNS, r)) for r in rows]


def save_usage(con: duckdb.DuckDBPyConnection, model_id: str, rows: Sequence[Mapping[str, Any]],
               prompt_langs: Sequence[str] | None = None) -> None:
    """Replace a model's stored usage (only its rows in `prompt_langs` when given) with `rows` (prompt_lang, family
    ('' = all) and USAGE_COLUMNS)."""
    if prompt_langs is None:
        con.execute("DELETE FROM model_usage WHERE model_id = ?", [model_id])
    else:
        con.execute("DELETE FROM model_usage WHERE model_id = ? AND list_contains(?, prompt_lang)",
                    [model_id, list(prompt_langs)])
    if rows:  # one statement, each column one list (executemany pays a round trip per row), cast by the INSERT
        con.execute("INSERT INTO model_usage (model_id, prompt_lang, family, requests, tokens_in, tokens_out, "
                    "mean_latency_s, cost) SELECT ?, unnest(?), unnest(?), unnest(?), unnest(?), unnest(?), "
                    "unnest(?), unnest(?)",
                    [model_id, *([r[c] for r in rows] for c in ("prompt_lang", "family", *USAGE_COLUMNS))])


def models_without_usage(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Models with current runs but no stored usage (a store written before V10, an older export)."""
    return [r[0] for r in con.execute("""
        SELECT DISTINCT model_id FROM runs WHERE NOT superseded
          AND model_id NOT IN (SELECT model_id FROM model_usage) ORDER BY 1""").fetchall()]
