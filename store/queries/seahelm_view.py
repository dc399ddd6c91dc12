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
