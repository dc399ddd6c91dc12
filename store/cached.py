"""The only store module that imports streamlit: a cached connection and cached query results for the pages."""
from __future__ import annotations

import os

import pandas as pd
import streamlit as st

from store import db
from store.queries import QUERIES, run_many


def parquet_root() -> str | None:
    """$TANAW_PARQUET: serve a Parquet export (a folder, `hf://datasets/...` or `s3://...`) instead of the file."""
    return os.environ.get("TANAW_PARQUET") or None


@st.cache_resource
def connection():
    """One connection per app process, a cursor per query: the DuckDB file the app owns (read-write), or, with
    $TANAW_PARQUET, an in-memory store over that export whose per-item tables stay Parquet views (read-only use:
    changes are not written back)."""
    root = parquet_root()
    if root:
        from store.scale import connect_parquet

        return connect_parquet(root)
    return db.connect()


@st.cache_data(ttl=600, show_spinner=False)
def q(name: str, **params) -> pd.DataFrame:
    """Run the registered query `name` with hashable filter params, cached for ten minutes."""
    return QUERIES[name](connection().cursor(), **params)


def q_many(*calls: tuple[str, dict]) -> tuple[pd.DataFrame, ...]:
    """Several registered queries `(name, params)` that do not depend on each other, run at the same time
    (`store.queries.run_many`) and cached together for ten minutes: their results, in order."""
    return _many(tuple((name, tuple(sorted(params.items()))) for name, params in calls))


@st.cache_data(ttl=600, show_spinner=False)
def _many(calls: tuple[tuple[str, tuple], ...]) -> tuple[pd.DataFrame, ...]:
    return tuple(run_many(connection(), [(name, dict(params)) for name, params in calls]))


def clear() -> None:
    """Drop cached results after a write (uploads, pulls)."""
    q.clear()
    _many.clear()
