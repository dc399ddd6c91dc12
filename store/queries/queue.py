"""Queries of the submission queue page and the Hub sync status line."""
from __future__ import annotations

import duckdb
import pandas as pd

from store.queries import query


@query
def submissions(con: duckdb.DuckDBPyConnection, status: str | None = None) -> pd.DataFrame:
    """One row per request, newest first: status, model, what it asks (an evaluation or the leakage probes), where
    it is served, what it covers, times, outcome."""
    return con.execute(
        """SELECT status, model_id, coalesce(mode, 'evaluation') AS mode, backend, coalesce(base_url, hub_model || coalesce('@' || revision, '')) AS served_at,
                  coalesce(tasks, 'all') AS tasks, coalesce(langs, 'all') AS langs, prompt_langs, item_limit,
                  submitter, created_at, started_at, finished_at, n_results, error, request_id
           FROM submissions WHERE ? IS NULL OR status = ?
           ORDER BY created_at DESC, request_id""", [status, status]).df()


@query
def submission_counts(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Requests per status, every status listed (0 when none)."""
    return con.execute(
        """SELECT s.status, count(q.request_id) AS n
           FROM (VALUES ('PENDING', 1), ('RUNNING', 2), ('FINISHED', 3), ('FAILED', 4)) s(status, ord)
           LEFT JOIN submissions q USING (status) GROUP BY s.status, s.ord ORDER BY s.ord""").df()


@query
def hub_sync_log(con: duckdb.DuckDBPyConnection, limit: int = 10) -> pd.DataFrame:
    """The latest Hub pulls and pushes, newest first."""
    return con.execute(
        """SELECT synced_at, action, ok, repo_id, left(revision, 8) AS revision, message, pr_url
           FROM hub_sync ORDER BY rowid DESC LIMIT ?""", [limit]).df()


@query
def submission_choices(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Task families and their languages, for the request form: one row per (family, lang)."""
    return con.execute(
        """SELECT DISTINCT family, unnest(langs) AS lang FROM tasks WHERE family IS NOT NULL
           ORDER BY family, lang""").df()
