"""Cultural probe queries: items, each model's responses side by side, and human ratings (the judgements of the
'ratings' campaigns a ratings CSV is written to: store.campaigns.RATINGS_SQL, and their stored results)."""
from __future__ import annotations

import pandas as pd

from store import campaigns
from store.queries import query

TASK = "cultural-representation"


@query
def cultural_items(con, *, lang: str, category: str | None = None) -> pd.DataFrame:
    """Probe items of a language: item_id, category, aspect, target, prompt (template filled when stored so)."""
    return con.execute("""
        SELECT item_id, category, coalesce(metadata->>'aspect', inputs->>'aspect') AS aspect,
               inputs->>'target' AS target, inputs->>'prompt' AS prompt,
               (SELECT count(DISTINCT r.model_id) FROM runs r JOIN predictions p ON p.run_id = r.run_id
                WHERE r.task = items.task AND r.lang = items.lang AND p.item_id = items.item_id) AS n_models
        FROM items WHERE task = ? AND lang = ? AND (? IS NULL OR category = ?)
        ORDER BY TRY_CAST(item_id AS INTEGER) NULLS LAST, item_id""", [TASK, lang, category, category]).df()


@query
def cultural_responses(con, *, lang: str, item_id: str, models: tuple[str, ...]) -> pd.DataFrame:
    """Each chosen model's responses to one probe: model_id, prompt_lang, run_no, prompt, output, tokens_out."""
    return con.execute("""
        SELECT r.model_id, r.prompt_lang, r.run_no, p.prompt, p.output, p.tokens_out, p.finish_reason
        FROM runs r JOIN predictions p ON p.run_id = r.run_id
        WHERE r.task = ? AND r.lang = ? AND p.item_id = ? AND list_contains(?, r.model_id) AND NOT r.superseded
        ORDER BY list_position(?, r.model_id), r.prompt_lang, r.run_no""",
                       [TASK, lang, item_id, list(models), list(models)]).df()


@query
def cultural_rating_summary(con, *, lang: str) -> pd.DataFrame:
    """Human ratings per model and criterion as stored for the language's ratings campaign (computed by
    evaluator.human.results when the ratings were written): mean with its 95% interval, ratings, items."""
    return con.execute("""
        SELECT r.system AS model_id, r.criterion, r.value AS mean, r.low, r.high, r.n AS ratings, r.items
        FROM campaign_results r JOIN campaigns c USING (campaign_id)
        WHERE c.protocol = 'ratings' AND c.task = ? AND c.lang = ? AND r.kind = 'mean'
        ORDER BY model_id, criterion""", [TASK, lang]).df()


@query
def cultural_item_ratings(con, *, lang: str, item_id: str) -> pd.DataFrame:
    """Every rating of one probe: model_id, rater, criterion, value."""
    return con.execute(f"""
        SELECT model_id, rater, criterion, value FROM ({campaigns.RATINGS_SQL})
        WHERE task = ? AND lang = ? AND item_id = ? ORDER BY model_id, rater, criterion""",
                       [TASK, lang, item_id]).df()
