"""The pages' cache: one store connection per app process and query results kept for ten minutes (the store itself
knows nothing of Streamlit)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from store.queries import QUERIES, run_many
from store.serve import open_store, parquet_root

__all__ = ["clear", "connection", "parquet_root", "q", "q_many"]


@st.cache_resource
def connection():
    """One connection per app process, a cursor per query: `store.serve.open_store` (the DuckDB file, or the
    Parquet export named by $TANAW_PARQUET)."""
    return open_store()


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
