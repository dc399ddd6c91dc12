"""Conversation (multi-turn chat) queries for the Compare page: the cells, their items and each system's answers
turn by turn (a turn's answer is a prediction whose order field is "t1", "t2", ...)."""
from __future__ import annotations

import pandas as pd

from store.queries import query


@query
def chat_cells(con) -> pd.DataFrame:
    """task, lang, n_models: every conversation cell (task mode chat) with current runs."""
    return con.execute("""
        SELECT r.task, r.lang, count(DISTINCT r.model_id) AS n_models
        FROM runs r JOIN tasks t ON t.task = r.task AND t.mode = 'chat'
        WHERE NOT r.superseded GROUP BY ALL ORDER BY r.task, r.lang""").df()


@query
def chat_items(con, *, task: str, lang: str) -> pd.DataFrame:
    """item_id, category, turns (the user's messages as a JSON list) of a conversation cell, in id order."""
    return con.execute("""
        SELECT item_id, category, (inputs -> '$.turns')::VARCHAR AS turns FROM items
        WHERE task = ? AND lang = ? ORDER BY try_cast(item_id AS INTEGER) NULLS LAST, item_id""", [task, lang]).df()


@query
def chat_turns(con, *, task: str, lang: str, item_id: str, systems: tuple[str, ...]) -> pd.DataFrame:
    """system, turn, prompt, output, finish_reason, tokens_out: each chosen system's answer to every turn of one
    conversation (the system's first current run)."""
    return con.execute("""
        WITH first AS (
            SELECT model_id || '|' || prompt_lang AS system, arg_min(run_id, run_no) AS run_id
            FROM runs WHERE task = ? AND lang = ? AND NOT superseded
                  AND list_contains(?, model_id || '|' || prompt_lang)
            GROUP BY ALL)
        SELECT f.system, CAST(substr(p.ord, 2) AS INTEGER) AS turn, p.prompt, p.output, p.finish_reason,
               p.tokens_out
        FROM first f JOIN predictions p ON p.run_id = f.run_id
        WHERE p.item_id = ? AND regexp_full_match(p.ord, 't[0-9]+')
        ORDER BY turn, f.system""", [task, lang, list(systems), item_id]).df()
