"""Re-scored and self-reported values of the same cells of a model, with how many items the two score differently
(read by services.self_reported, which puts them on one scale and names the rule behind the difference)."""
from __future__ import annotations

import duckdb
import pandas as pd

from store.queries import query


@query
def rescored_and_reported(con: duckdb.DuckDBPyConnection, *, model: str) -> pd.DataFrame:
    """Per current run's cell and metric that the file scored per item: task, lang, prompt_lang, metric, harness,
    rescored (Tanaw's value, 0-100), reported (the mean of the file's own per-item scores, as the file gives
    them), items (items both scored), differing (items whose two scores differ)."""
    return con.execute("""
        WITH pairs AS (
            SELECT r.task, r.lang, r.prompt_lang, s.metric, r.harness, s.item_id, s.value AS theirs,
                   avg(o.value) AS ours
            FROM self_reported s JOIN runs r USING (run_id)
            JOIN scores o ON o.run_id = s.run_id AND o.item_id = s.item_id AND o.metric = s.metric
            WHERE r.model_id = ? AND NOT r.superseded
            GROUP BY ALL)
        SELECT p.task, p.lang, p.prompt_lang, p.metric, any_value(p.harness) AS harness,
               any_value(a.value) AS rescored, avg(p.theirs) AS reported, count(*) AS items,
               count(*) FILTER (WHERE p.ours IS DISTINCT FROM p.theirs) AS differing
        FROM pairs p LEFT JOIN aggregates a ON a.model_id = ? AND a.task = p.task AND a.lang = p.lang
             AND a.prompt_lang = p.prompt_lang AND a.metric = p.metric
        GROUP BY p.task, p.lang, p.prompt_lang, p.metric
        ORDER BY p.task, p.lang, p.prompt_lang, p.metric""", [model, model]).df()
