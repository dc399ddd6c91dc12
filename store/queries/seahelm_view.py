"""The "SEA-HELM view": SEA-HELM's own classification scores per cell, read beside the paper's headline metrics.

The numbers are computed by the evaluator (`evaluator.metrics.classification.seahelm_nba`, `seahelm_macro_f1`)
and stored as secondary aggregates; this only reads them. Never ranked.
"""
from __future__ import annotations

import duckdb
import pandas as pd

from store.queries import query

VIEW_METRICS = ("seahelm_nba", "seahelm_macro_f1")
"""Stored metric keys of the SEA-HELM view, in column order."""
COLUMNS = {"seahelm_nba": "SEA-HELM view", "seahelm_macro_f1": "SEA-HELM macro-F1 (null class)"}


@query
def seahelm_view_cells(con: duckdb.DuckDBPyConnection, prompt_lang: str = "en", family: str | None = None,
                       models: tuple[str, ...] | None = None) -> pd.DataFrame:
    """One row per (model, task, lang) with the SEA-HELM view metrics as columns (0-100), where computed."""
    ids = list(models) if models is not None else None
    df = con.execute("""
        SELECT a.model_id AS model, a.task, a.lang, a.metric, a.value
        FROM aggregates a JOIN models m ON m.model_id = a.model_id LEFT JOIN tasks t ON t.task = a.task
        WHERE list_contains(?, a.metric) AND a.status = 'ok' AND a.prompt_lang = ?
          AND NOT coalesce(m.hidden, false) AND (? IS NULL OR t.family = ?)
          AND (? IS NULL OR list_contains(?, a.model_id))""",
                     [list(VIEW_METRICS), prompt_lang, family, family, ids, ids]).df()
    if df.empty:
        return pd.DataFrame(columns=["model", "task", "lang", *COLUMNS.values()])
    wide = df.pivot_table(index=["model", "task", "lang"], columns="metric", values="value", aggfunc="first")
    wide = wide.reindex(columns=[m for m in VIEW_METRICS if m in wide.columns]).rename(columns=COLUMNS)
    return wide.reset_index()


@query
def seahelm_rescored(con: duckdb.DuckDBPyConnection, prompt_lang: str = "native",
                     models: tuple[str, ...] | None = None) -> pd.DataFrame:
    """Inputs of the SEA-HELM roll-up from Tanaw's own scoring: one row per scored (model, task, lang) with the
    headline `value` and `chance` (0-100) and SEA-HELM's classification score `seahelm_nba` where computed."""
    ids = list(models) if models is not None else None
    return con.execute("""
        SELECT a.model_id AS model, a.task, a.lang,
               max(a.value) FILTER (WHERE a.is_headline) AS value, max(a.chance) FILTER (WHERE a.is_headline) AS chance,
               max(a.value) FILTER (WHERE a.metric = 'seahelm_nba') AS seahelm_nba
        FROM aggregates a JOIN models m ON m.model_id = a.model_id
        WHERE a.status = 'ok' AND a.prompt_lang = ? AND NOT coalesce(m.hidden, false)
          AND (? IS NULL OR list_contains(?, a.model_id))
        GROUP BY ALL HAVING max(a.value) FILTER (WHERE a.is_headline) IS NOT NULL
        ORDER BY model, a.task, a.lang""", [prompt_lang, ids, ids]).df()


@query
def seahelm_reported(con: duckdb.DuckDBPyConnection, models: tuple[str, ...] | None = None) -> pd.DataFrame:
    """Self-reported scores of visible uploads (SEA-HELM files keep theirs under SEA-HELM's names, and the
    file's totals): one row per (model, task, lang, metric), the newest upload's value (the file's own scale)."""
    ids = list(models) if models is not None else None
    return con.execute("""
        SELECT c.model_id AS model, c.task, c.lang, c.metric, arg_max(c.value, u.created_at) AS value
        FROM self_reported_cells c JOIN uploads u USING (source_hash) JOIN models m ON m.model_id = c.model_id
        WHERE u.status = 'visible' AND NOT coalesce(m.hidden, false) AND (? IS NULL OR list_contains(?, c.model_id))
        GROUP BY ALL ORDER BY model, c.task, c.lang, c.metric""", [ids, ids]).df()
