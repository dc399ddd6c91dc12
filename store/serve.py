"""The store the app serves: its DuckDB file, or a Parquet export in its place (`$TANAW_PARQUET`). The pages cache
the connection and their query results (`pages._cached`); this module knows nothing of Streamlit."""
from __future__ import annotations

import os

import duckdb

from store import db
from store.scale import connect_parquet


def parquet_root() -> str | None:
    """$TANAW_PARQUET: serve a Parquet export (a folder, `hf://datasets/...` or `s3://...`) instead of the file."""
    return os.environ.get("TANAW_PARQUET") or None


def open_store() -> duckdb.DuckDBPyConnection:
    """The DuckDB file the app owns (read-write), or, with $TANAW_PARQUET, an in-memory store over that export whose
    per-item tables stay Parquet views (read-only use: changes are not written back)."""
    root = parquet_root()
    return connect_parquet(root) if root else db.connect()
