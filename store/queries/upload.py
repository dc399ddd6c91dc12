"""Queries of the upload page: accepted uploads, the audit trail and self-reported scores."""
from __future__ import annotations

import duckdb
import pandas as pd

from store.queries import query


@query
def uploads(con: duckdb.DuckDBPyConnection, *, include_hidden: bool = False, limit: int = 200) -> pd.DataFrame:
    """Accepted uploads, newest first: model, file, formats, status, counts, who, when, hash."""
    return con.execute(
        """SELECT model_id, file_name, formats, status, n_predictions, n_summary, n_warnings, actor, created_at,
                  source_hash FROM uploads WHERE ? OR status = 'visible' ORDER BY created_at DESC LIMIT ?""",
        [include_hidden, limit]).df()


@query
def audit_log(con: duckdb.DuckDBPyConnection, *, limit: int = 200) -> pd.DataFrame:
    """The newest audit rows: when, who, what, which upload and model, details."""
    return con.execute("""SELECT happened_at, actor, action, model_id, file_name, source_hash, detail
                          FROM audit ORDER BY happened_at DESC LIMIT ?""", [limit]).df()


@query
def self_reported_summary(con: duckdb.DuckDBPyConnection, *, model: str) -> pd.DataFrame:
    """Self-reported scores of a model, never ranked: each summary file's own figure per cell, and the mean of a
    file's per-item scores per current run (stored at ingest by services.page_figures): task, lang, prompt_lang,
    metric, value, origin, file (the summary file's hash prefix, or the run number), items (NULL for summaries)."""
    return con.execute(
        """SELECT task, lang, prompt_lang, metric, value, 'summary file' AS origin, left(source_hash, 12) AS file,
                  NULL::BIGINT AS items
           FROM self_reported_cells WHERE model_id = ?
           UNION ALL
           SELECT r.task, r.lang, r.prompt_lang, s.metric, s.value, 'per-item scores in file',
                  'run ' || r.run_no, s.items
           FROM run_self_reported s JOIN runs r USING (run_id)
           WHERE r.model_id = ? AND NOT r.superseded
           ORDER BY task, lang, prompt_lang, metric, origin, file""", [model, model]).df()
