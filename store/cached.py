"""The only store module that imports streamlit: a cached connection and cached query results for the pages."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from store import db
from store.queries import QUERIES


@st.cache_resource
def connection():
    """One read-write connection per app process (the app owns the database); a cursor per query."""
    return db.connect()


@st.cache_data(ttl=600, show_spinner=False)
def q(name: str, **params) -> pd.DataFrame:
    """Run the registered query `name` with hashable filter params, cached for ten minutes."""
    return QUERIES[name](connection().cursor(), **params)


def clear() -> None:
    """Drop cached results after a write (uploads, pulls)."""
    q.clear()
