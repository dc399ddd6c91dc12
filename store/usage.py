"""Stored cost and speed per model (schema V10): the runs the wiring summarises, and the writer of its rows.

services.usage_store sums a model's current runs (`run_usage`) with evaluator.usage.usage_summary whenever its
roll-ups are refreshed and calls `save_usage` inside the caller's transaction; the leaderboard only filters the stored rows
(store.queries.leaderboard.usage_table).
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

import duckdb

from store.db import transaction
from store.schema_figures import RUN_USAGE_FILL

USAGE_COLUMNS = ("requests", "tokens_in", "tokens_out", "mean_latency_s", "cost")
"""Columns of model_usage after (model_id, prompt_lang, family): evaluator.usage.usage_summary's keys."""


RUN_COLUMNS = ("run_id", "prompt_lang", "family", "price_in", "price_out", "requests", "tokens_in", "tokens_out",
               "latency_sum", "latency_n")
"""Columns of `run_usage`'s rows."""

MODEL_RUN_COLUMNS = ("run_id", "prompt_lang", "family", "price_in", "price_out", "answers", "tokens_in", "tokens_out",
                     "latency_sum", "latency_n", "created_at", "task", "lang", "run_no", "unparsed")
"""Columns of `model_runs`' rows (tuples: a refresh reads a few to a thousand of them)."""


def model_runs(con: duckdb.DuckDBPyConnection, model_id: str, prompt_langs: Sequence[str] | None = None
               ) -> list[tuple]:
    """A model's current (not superseded) runs with their prompt language, task family (None for a task outside the
    registry), operator prices (run settings `price_per_mtok`) and stored counts (NULL where none: `run_counts`), as
    rows with MODEL_RUN_COLUMNS sorted by run id; `prompt_langs`: only runs in these prompt languages (the read a
    roll-up refresh computes cost and speed from, `run_usage`)."""
    return con.execute("""
        SELECT r.run_id, r.prompt_lang, t.family,
               TRY_CAST(json_extract_string(r.settings, '$.price_per_mtok.input') AS DOUBLE) AS price_in,
               TRY_CAST(json_extract_string(r.settings, '$.price_per_mtok.output') AS DOUBLE) AS price_out,
               c.answers, c.tokens_in, c.tokens_out, c.latency_sum, c.latency_n, r.created_at, r.task, r.lang,
               r.run_no, c.unparsed
        FROM runs r LEFT JOIN tasks t ON t.task = r.task LEFT JOIN run_counts c ON c.run_id = r.run_id
        WHERE r.model_id = ? AND NOT r.superseded AND (? IS NULL OR list_contains(?, r.prompt_lang))
        ORDER BY r.run_id""", [model_id, prompt_langs, prompt_langs]).fetchall()


def run_usage(con: duckdb.DuckDBPyConnection, model_id: str, prompt_langs: Sequence[str] | None = None,
              runs: Sequence[tuple] | None = None) -> list[dict[str, Any]]:
    """A model's current runs (`model_runs`; `runs`: its rows when the caller read them, all prompt languages) with
    their prompt language, family, prices, answers, tokens and latency, as rows with RUN_COLUMNS sorted by run id.
    `prompt_langs`: only runs in these prompt languages.

    A run's sums are the ones stored with its counts when its cell was last aggregated (`run_counts`, schema V15):
    no prediction row is read. Only runs without them are summed from their prediction rows: a run of a cell not
    aggregated since V15 or still being answered, and runs sharing a run number in their cell (counted together
    there). That scan starts at the earliest of those runs' creation times, since a run's prediction rows are written
    after it (V7): a run in progress skips the store's older row groups. A run without stored answers counts 0
    requests."""
    if runs is None:
        runs = model_runs(con, model_id, prompt_langs)
    elif prompt_langs is not None:
        wanted = set(prompt_langs)
        runs = [r for r in runs if r[1] in wanted]
    shared = Counter((r[11], r[12], r[1], r[13]) for r in runs)  # (task, lang, prompt language, run number)
    unsummed = [r for r in runs if r[9] is None or shared[(r[11], r[12], r[1], r[13])] > 1]
    summed: dict[str, tuple] = {}
    if unsummed:
        since = [r[10] for r in unsummed]
        bound, params = ("created_at >= ? AND ", [min(since)]) if None not in since else ("", [])
        summed = {r[0]: r[1:] for r in con.execute(f"""
            SELECT run_id, count(*), sum(tokens_in), sum(tokens_out), sum(latency_s), count(latency_s)
            FROM predictions WHERE {bound}list_contains(?, run_id) GROUP BY run_id""",
                                                   [*params, [r[0] for r in unsummed]]).fetchall()}
    lacking = {r[0] for r in unsummed}
    return [dict(zip(RUN_COLUMNS, (*r[:5], *(summed.get(r[0], (0, None, None, None, 0)) if r[0] in lacking
                                               else r[5:10])))) for r in runs]


def save_usage(con: duckdb.DuckDBPyConnection, model_id: str, rows: Sequence[Mapping[str, Any]],
               prompt_langs: Sequence[str] | None = None) -> None:
    """Replace a model's stored usage (only its rows in `prompt_langs` when given) with `rows` (prompt_lang, family
    ('' = all) and USAGE_COLUMNS)."""
    if prompt_langs is None:
        con.execute("DELETE FROM model_usage WHERE model_id = ?", [model_id])
    else:
        con.execute("DELETE FROM model_usage WHERE model_id = ? AND list_contains(?, prompt_lang)",
                    [model_id, list(prompt_langs)])
    if rows:  # one statement, each column one list (executemany pays a round trip per row), cast by the INSERT
        con.execute("INSERT INTO model_usage (model_id, prompt_lang, family, requests, tokens_in, tokens_out, "
                    "mean_latency_s, cost) SELECT ?, unnest(?), unnest(?), unnest(?), unnest(?), unnest(?), "
                    "unnest(?), unnest(?)",
                    [model_id, *([r[c] for r in rows] for c in ("prompt_lang", "family", *USAGE_COLUMNS))])


def fill_run_usage(con: duckdb.DuckDBPyConnection) -> None:
    """Give run count rows without tokens and latency (pulled from an export written before V15) theirs, from the
    runs' prediction rows, in one transaction; nothing to do (one count) on an up-to-date store."""
    if con.execute("SELECT count(*) FROM run_counts WHERE latency_n IS NULL").fetchone()[0]:
        with transaction(con):
            for stmt in RUN_USAGE_FILL:
                con.execute(stmt)


def models_without_usage(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Models with current runs but no stored usage (a store written before V10, an older export)."""
    return [r[0] for r in con.execute("""
        SELECT DISTINCT model_id FROM runs WHERE NOT superseded
          AND model_id NOT IN (SELECT model_id FROM model_usage) ORDER BY 1""").fetchall()]
