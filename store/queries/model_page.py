"""Model page queries: every cell with interval and rank range, strengths and weaknesses against the field
median, instruction-following failures per language, data-quality flags of failed items, provenance."""
from __future__ import annotations

import pandas as pd

from store.queries import query

_FIELD = """
    WITH ranked AS (
        SELECT a.task, a.lang, a.prompt_lang, a.metric, a.value, a.ci_low, a.ci_high, a.n, a.n_runs, a.note, a.chance,
               a.parse_fail_rate, f.rank_best, f.rank_worst, f.n_models, f.field_median, f.delta
        FROM aggregates a JOIN cell_field f USING (model_id, task, lang, prompt_lang, metric)
        WHERE a.model_id = ? AND a.is_headline AND a.status = 'ok' AND a.value IS NOT NULL)"""
"""A model's scored headline cells with their stored field (cell_field: rank range among the visible models,
their median and the model's difference to it, computed by services.page_figures when roll-ups are refreshed)."""


@query
def model_cells(con, *, model: str) -> pd.DataFrame:
    """Every headline cell of a model: value, 95% interval, n, runs, chance, rank range among n_models (by interval
    overlap), field median and the difference to it (delta), parse-failure percentage, and the cell's note (how the
    interval was made, the run-to-run spread, a low-class-support flag)."""
    return con.execute(f"""{_FIELD}
        SELECT task, lang, prompt_lang, value, ci_low, ci_high, n, n_runs, rank_best, rank_worst, n_models,
               field_median, delta, chance, ci_high < chance AS below_chance, metric,
               100 * parse_fail_rate AS parse_fail_pct, note
        FROM ranked ORDER BY task, lang, prompt_lang""", [model]).df()


@query
def model_extremes(con, *, model: str, side: str = "strength", k: int = 5) -> pd.DataFrame:
    """The k cells ("task · lang · prompt_lang") furthest above (side="strength") or below ("weakness") the field
    median, among cells with 2+ models whose 95% interval excludes that median (a difference inside the interval
    is noise, not a strength or weakness): cell, value, field_median, delta, n."""
    order = "DESC" if side == "strength" else "ASC"
    sign = ">" if side == "strength" else "<"
    return con.execute(f"""{_FIELD}
        SELECT task || ' · ' || lang || ' · ' || prompt_lang AS cell, value, field_median, delta, n
        FROM ranked WHERE n_models > 1 AND delta {sign} 0 AND (ci_low > field_median OR ci_high < field_median)
        ORDER BY delta {order}, task LIMIT ?""", [model, k]).df()


@query
def model_runs(con, *, model: str) -> pd.DataFrame:
    """Runs of a model (provenance): task, lang, prompt_lang, run_no, source, harness, source_file, settings,
    superseded, answers, unparsed (outputs that could not be parsed; both counted when the cell's aggregates were
    written, 0 before), created_at."""
    return con.execute("""
        SELECT r.task, r.lang, r.prompt_lang, r.run_no, r.source, r.harness, r.source_file,
               r.settings::VARCHAR AS settings, r.superseded, coalesce(c.answers, 0)::BIGINT AS answers,
               coalesce(c.unparsed, 0)::BIGINT AS unparsed, r.created_at
        FROM runs r LEFT JOIN run_counts c ON c.run_id = r.run_id
        WHERE r.model_id = ? ORDER BY r.task, r.lang, r.prompt_lang, r.run_no""", [model]).df()


@query
def model_parse_failures(con, *, model: str) -> pd.DataFrame:
    """Instruction-following failures per language and prompt language over the model's current runs (open-ended
    tasks left out), as stored by services.page_figures: lang, prompt_lang, answers, unparsed, fail_pct, share
    ("12/100")."""
    return con.execute("""
        SELECT lang, prompt_lang, answers, unparsed, fail_pct, unparsed::VARCHAR || '/' || answers::VARCHAR AS share
        FROM parse_failures WHERE model_id = ? ORDER BY lang, prompt_lang""", [model]).df()


@query
def model_failed_flags(con, *, model: str) -> pd.DataFrame:
    """Data-quality flags carried by items the model got wrong: flag, failed items carrying it, tasks."""
    return con.execute("""
        SELECT flag, count(DISTINCT (task, lang, item_id)) AS failed_items,
               string_agg(DISTINCT task || '/' || lang, ', ') AS cells
        FROM failed_flags WHERE model_id = ?
        GROUP BY flag ORDER BY failed_items DESC, flag""", [model]).df()


@query
def model_info(con, *, model: str) -> pd.DataFrame:
    """The models row of one model."""
    return con.execute("SELECT * EXCLUDE (hidden) FROM models WHERE model_id = ?", [model]).df()
