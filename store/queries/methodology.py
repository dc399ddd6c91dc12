"""Methodology page reads: sample-based figures the wiring computed and stored (`figures` table)."""
from __future__ import annotations

import json
from typing import Any

import duckdb

from store.queries import query


@query
def stored_figure(con: duckdb.DuckDBPyConnection, figure: str, source: str) -> Any:
    """The figure named `figure` computed from data folder `source` (parsed JSON), or None when not computed yet."""
    row = con.execute("SELECT body FROM figures WHERE name = ? AND source = ?", [figure, source]).fetchone()
    return None if row is None else json.loads(row[0])
