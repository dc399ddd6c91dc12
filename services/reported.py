"""The papers' reported rows (BHASA, PACUTE, the human baselines they report; data/reported_results.csv) are part
of every store: loaded with the store's schema whatever created it (an ingest, a run, the demo, the app: the open
hook below) and reloaded at every app start, normalised like the aggregates (services.page_figures)."""
from __future__ import annotations

import duckdb

from services.page_figures import refresh_reported
from store.db import transaction
from store.reference import load_reported


def ensure_reported(con: duckdb.DuckDBPyConnection, *, refresh: bool = False) -> int:
    """Load the reported rows into a store that has none (every row, with `refresh`) and normalise them; returns
    the rows loaded (0 when the store had them and `refresh` is off)."""
    if not refresh and con.execute("SELECT count(*) FROM reported").fetchone()[0]:
        return 0
    n = load_reported(con)
    with transaction(con):
        refresh_reported(con)
    return n
