"""The LLM judge's rows: its calls (the cache, private) and the judge scores of conversation turns (public), and
the conversations it judges. Judge scores are never written to `scores`: metric and judge scores stay apart."""
from __future__ import annotations

import json
from typing import Any, Iterable, Sequence

import duckdb
import pandas as pd

CALL_COLUMNS = ("call_key", "judge_model", "template", "sampling", "reply", "tokens_in", "tokens_out", "cost_usd")
SCORE_COLUMNS = ("run_id", "item_id", "ord", "judge_model", "template", "kind", "value", "verdict", "sampling",
                 "call_keys", "origin")


def conversation_rows(con: duckdb.DuckDBPyConnection, task: str, lang: str,
                      models: Sequence[str] | None = None) -> pd.DataFrame:
    """run_id, model_id, prompt_lang, item_id, inputs (JSON text), ord, output: every stored turn answer of the
    current runs of a conversation cell (of `models` when given)."""
    return con.execute("""
        SELECT r.run_id, r.model_id, r.prompt_lang, p.item_id, i.inputs::VARCHAR AS inputs, p.ord, p.output
        FROM runs r JOIN predictions p ON p.run_id = r.run_id
        JOIN items i ON i.task = r.task AND i.lang = r.lang AND i.item_id = p.item_id
        WHERE r.task = ? AND r.lang = ? AND NOT r.superseded AND regexp_full_match(p.ord, 't[0-9]+')
              AND (? IS NULL OR list_contains(?, r.model_id))
        ORDER BY r.run_id, p.item_id, p.ord""",
                       [task, lang, None if models is None else list(models), list(models or [])]).df()


def cached_calls(con: duckdb.DuckDBPyConnection, judge_model: str) -> list[tuple]:
    """Every stored call of a judge model (CALL_COLUMNS), for the cache."""
    return con.execute(f"SELECT {', '.join(CALL_COLUMNS)} FROM judge_calls WHERE judge_model = ?",
                       [judge_model]).fetchall()


def put(con: duckdb.DuckDBPyConnection, calls: Iterable[Sequence[Any]], scores: Iterable[Sequence[Any]]) -> None:
    """Store new calls (CALL_COLUMNS; a key stored before is kept) and turn scores (SCORE_COLUMNS; replacing a
    turn's earlier score by the same judge and template), in the caller's transaction."""
    calls, scores = list(calls), list(scores)
    if calls:
        con.executemany(f"INSERT OR IGNORE INTO judge_calls ({', '.join(CALL_COLUMNS)}) VALUES "
                        f"({', '.join('?' * len(CALL_COLUMNS))})",
                        [[*c[:3], json.dumps(c[3], sort_keys=True), *c[4:]] for c in calls])
    if scores:
        con.executemany(f"INSERT OR REPLACE INTO judge_scores ({', '.join(SCORE_COLUMNS)}) VALUES "
                        f"({', '.join('?' * len(SCORE_COLUMNS))})",
                        [[*s[:8], json.dumps(s[8], sort_keys=True), list(s[9]), s[10]] for s in scores])


def judged_items(con: duckdb.DuckDBPyConnection, task: str, lang: str) -> pd.DataFrame:
    """item_id, model_id, prompt_lang, judge_model, kind, origin, templates, value: each item's judge score (the
    mean over its judged turns, whose templates differ by turn) per model and judge, for the current runs of a
    cell."""
    return con.execute("""
        SELECT j.item_id, r.model_id, r.prompt_lang, j.judge_model, j.kind, j.origin,
               string_agg(DISTINCT j.template, ', ' ORDER BY j.template) AS templates, avg(j.value) AS value
        FROM judge_scores j JOIN runs r ON r.run_id = j.run_id
        WHERE r.task = ? AND r.lang = ? AND NOT r.superseded AND j.value IS NOT NULL
        GROUP BY j.item_id, r.model_id, r.prompt_lang, j.judge_model, j.kind, j.origin
        ORDER BY ALL""", [task, lang]).df()


def put_conversation_run(con: duckdb.DuckDBPyConnection, *, run: Sequence[Any], items: Iterable[Sequence[Any]],
                         turns: Iterable[Sequence[Any]]) -> None:
    """One imported conversation run, in the caller's transaction: `run` (run_id, model_id, task, lang, prompt_lang,
    settings JSON text, harness, source_file, source_hash), its `items` (task, lang, item_id, inputs JSON text,
    category; an item already stored is kept) and its turn answers (item_id, ord, prompt, output), which replace
    the run's earlier ones."""
    run_id = run[0]
    con.execute("INSERT OR IGNORE INTO models (model_id, origin) VALUES (?, 'uploaded')", [run[1]])
    con.execute("""INSERT OR REPLACE INTO runs (run_id, model_id, task, lang, prompt_lang, run_no, settings, source,
                   harness, source_file, source_hash) VALUES (?, ?, ?, ?, ?, 1, ?, 'upload', ?, ?, ?)""", list(run))
    con.executemany("INSERT OR IGNORE INTO items (task, lang, item_id, inputs, category) VALUES (?, ?, ?, ?, ?)",
                    [list(i) for i in items])
    con.execute("DELETE FROM predictions WHERE run_id = ?", [run_id])
    con.executemany("INSERT INTO predictions (run_id, item_id, ord, prompt, output) VALUES (?, ?, ?, ?, ?)",
                    [[run_id, *t] for t in turns])
