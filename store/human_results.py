"""Stored human-evaluation figures (schema V9): plain frames in, rows out, inside the caller's transaction.

services.human_results computes them (evaluator.human.results) whenever judgements are written and calls these
under the writer lock; the Human evaluation page only reads them (store.queries.human). `campaign_computed` records
the judgements and status each campaign's figures came from, so `stale_campaigns` finds the ones a store upgrade or
a Hub pull left behind.
"""
from __future__ import annotations

import duckdb
import pandas as pd

from store.campaigns import RESULT_COLUMNS, judgements

QUALITY_COLUMNS = ("annotator", "repeat_agreement", "repeats", "caught_corrupted")
"""Columns of campaign_quality after campaign_id (evaluator.human.results.quality)."""
ALPHA_COLUMNS = ("protocol", "lang", "criterion", "campaigns", "level", "alpha", "units", "annotators")
"""Columns of language_alphas (evaluator.human.results.alphas_by_language)."""


def _cell(value):
    """A frame cell as a store value: NaN and pandas' missing values become NULL."""
    return None if value is None or (not isinstance(value, str) and pd.isna(value)) else value


def _insert(con: duckdb.DuckDBPyConnection, table: str, columns: tuple[str, ...], rows: list[list]) -> None:
    if rows:
        con.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                        [[_cell(v) for v in row] for row in rows])


def put_provisional(con: duckdb.DuckDBPyConnection, campaign_id: str, results: pd.DataFrame | None) -> None:
    """Replace an open campaign's provisional results (a frame with RESULT_COLUMNS; None removes them)."""
    con.execute("DELETE FROM campaign_provisional WHERE campaign_id = ?", [campaign_id])
    if results is not None:
        _insert(con, "campaign_provisional", ("campaign_id", *RESULT_COLUMNS),
                [[campaign_id, *row] for row in results[list(RESULT_COLUMNS)].itertuples(index=False)])


def put_quality(con: duckdb.DuckDBPyConnection, campaign_id: str, quality: pd.DataFrame) -> None:
    """Replace a campaign's quality checks per annotator (a frame with QUALITY_COLUMNS)."""
    con.execute("DELETE FROM campaign_quality WHERE campaign_id = ?", [campaign_id])
    _insert(con, "campaign_quality", ("campaign_id", *QUALITY_COLUMNS),
            [[campaign_id, *row] for row in quality[list(QUALITY_COLUMNS)].itertuples(index=False)])


def put_language_alphas(con: duckdb.DuckDBPyConnection, protocol: str, lang: str, alphas: pd.DataFrame) -> None:
    """Replace the alphas of one protocol and language (a frame with ALPHA_COLUMNS, across campaigns)."""
    con.execute("DELETE FROM language_alphas WHERE protocol = ? AND lang = ?", [protocol, lang])
    _insert(con, "language_alphas", ALPHA_COLUMNS, [list(row) for row in alphas[list(ALPHA_COLUMNS)].itertuples(
        index=False)])


def language_judgements(con: duckdb.DuckDBPyConnection, protocol: str, lang: str) -> pd.DataFrame:
    """Every judgement of the campaigns of one protocol and language (store.campaigns.JUDGEMENT_COLUMNS)."""
    return judgements(con, None, protocol=protocol, lang=lang)


_FINGERPRINT = """
    SELECT c.campaign_id, c.status, count(j.campaign_id) AS judgements, max(j.created_at) AS last_judged
    FROM campaigns c LEFT JOIN judgements j USING (campaign_id) GROUP BY c.campaign_id, c.status"""


def mark_computed(con: duckdb.DuckDBPyConnection, campaign_id: str) -> None:
    """Record the judgements and status the campaign's stored figures were just computed from."""
    con.execute("DELETE FROM campaign_computed WHERE campaign_id = ?", [campaign_id])
    con.execute(f"INSERT INTO campaign_computed (campaign_id, status, judgements, last_judged) "
                f"SELECT * FROM ({_FINGERPRINT}) WHERE campaign_id = ?", [campaign_id])


def stale_campaigns(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Campaigns whose stored figures are missing or were computed from other judgements or another status."""
    return [r[0] for r in con.execute(f"""
        SELECT f.campaign_id FROM ({_FINGERPRINT}) f LEFT JOIN campaign_computed k USING (campaign_id)
        WHERE k.campaign_id IS NULL OR k.status IS DISTINCT FROM f.status
              OR k.judgements IS DISTINCT FROM f.judgements OR k.last_judged IS DISTINCT FROM f.last_judged
        ORDER BY f.campaign_id""").fetchall()]


def has_results(con: duckdb.DuckDBPyConnection, campaign_id: str) -> bool:
    """Whether a campaign has final stored results (campaign_results)."""
    return con.execute("SELECT count(*) FROM campaign_results WHERE campaign_id = ?", [campaign_id]).fetchone()[0] > 0
