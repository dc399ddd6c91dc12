"""Results reported in the BHASA and PACUTE papers (data/reported_results.csv), loaded as marked reference rows.

Reported rows live in their own table: the leaderboard shows them beside evaluated models, visibly marked,
and never ranks them with evaluated ones.
"""
from __future__ import annotations

import csv
from pathlib import Path

import duckdb

from store.db import transaction

REPORTED_CSV = Path(__file__).resolve().parents[1] / "data" / "reported_results.csv"


def load_reported(con: duckdb.DuckDBPyConnection, path: Path = REPORTED_CSV) -> int:
    """Replace the `reported` table with the rows of `path`; returns the row count."""
    rows = []
    with path.open(encoding="utf-8", newline="") as f:
        for n, r in enumerate(csv.DictReader(f), start=2):
            try:
                value = float(r["value"])
            except (TypeError, ValueError):
                raise ValueError(f"{path}:{n}: value: {r.get('value')!r} is not a number") from None
            rows.append([r["benchmark"], r["citation"], r["task"], r["lang"], r["metric"], r["paper_metric"],
                         r["system"], r["prompt_lang"], value, r["note"] or None])
    with transaction(con):
        con.execute("DELETE FROM reported")
        con.executemany("INSERT INTO reported (source, citation, task, lang, metric, paper_metric, system, "
                        "prompt_lang, value, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    return len(rows)
