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
HUMAN_BASELINE_SOURCE = "PACUTE human baseline"
"""The `reported.source` of the PACUTE paper's human baseline (three native speakers), loaded by `results pull`."""


def load_reported(con: duckdb.DuckDBPyConnection, path: Path = REPORTED_CSV) -> int:
    """Replace the reported rows of the sources `path` holds (BHASA, PACUTE) with its rows, keeping rows of other
    sources (the human baseline `results pull` loads: `replace_reported_source`); returns the row count."""
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
        con.execute("DELETE FROM reported WHERE list_contains(?, source)", [sorted({r[0] for r in rows})])
        con.executemany("INSERT INTO reported (source, citation, task, lang, metric, paper_metric, system, "
                        "prompt_lang, value, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    return len(rows)


def replace_reported_source(con: duckdb.DuckDBPyConnection, source: str, rows: list[dict]) -> int:
    """Replace the reported rows of one `source` with `rows` (dicts with the table's columns but `source`), inside
    the caller's transaction; returns the row count."""
    con.execute("DELETE FROM reported WHERE source = ?", [source])
    con.executemany("INSERT INTO reported (source, citation, task, lang, metric, paper_metric, system, prompt_lang, "
                    "value, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [[source, r["citation"], r["task"], r["lang"], r["metric"], r["paper_metric"], r["system"],
                      r["prompt_lang"], r["value"], r["note"]] for r in rows])
    return len(rows)
