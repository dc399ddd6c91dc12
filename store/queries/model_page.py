"""Model page queries: every cell with interval and rank range, strengths and weaknesses against the field
median, instruction-following failures per language, data-quality flags of failed items, provenance."""
from __future__ import annotations

import pandas as pd

from store.queries import query

_FIELD = """
    WITH cell AS (
        SELECT a.* FROM aggregates a JOIN models m ON m.model_id = a.model_id
        WHERE a.is_headline AND a.status = 'ok' AND a.value IS NOT NULL AND NOT coalesce(m.hidden, false)),
    ranked AS (
        SELECT c.task, c.lang, c.prompt_lang, c.metric, any_value(c.value) AS value,
               any_value(c.ci_low) AS ci_low, any_value(c.ci_high) AS ci_high, any_value(c.n) AS n,
               any_value(c.chance) AS chance, any_value(c.parse_fail_rate) AS parse_fail_rate,
               1 + count(*) FILTER (WHERE o.ci_low > c.ci_high) AS rank_best,
               count(*) FILTER (WHERE o.ci_high >= c.ci_low) AS rank_worst,
               count(*) AS n_models, median(o.value) AS field_median
        FROM cell c JOIN cell o ON o.task = c.task AND o.lang = c.lang AND o.prompt_lang = c.prompt_lang
                                AND o.metric = c.metric
        WHERE c.model_id = ?
        GROUP BY c.task, c.lang, c.prompt_lang, c.metric)"""


@query
def model_cells(con, *, model: str) -> pd.DataFrame:
    """Every headline cell of a model: value, 95% interval, n, chance, rank range among n_models (by interval
    overlap), field median and the difference to it (delta), parse-failure percentage."""
    return con.execute(f"""{_FIELD}
        SELECT task, lang, prompt_lang, value, ci_low, ci_high, n, rank_best, rank_worst, n_models, field_median,
               value - field_median AS delta, chance, value < chance AS below_chance, metric,
               100 * parse_fail_rate AS parse_fail_pct
        FROM ranked ORDER BY task, lang, prompt_lang""", [model]).df()


@query
def model_extremes(con, *, model: str, side: str = "strength", k: int = 5) -> pd.DataFrame:
    """The k cells ("task · lang · prompt_lang") furthest above (side="strength") or below ("weakness") the field
    median, among cells with 2+ models: cell, value, field_median, delta, n."""
    order = "DESC" if side == "strength" else "ASC"
    sign = ">" if side == "strength" else "<"
    return con.execute(f"""{_FIELD}
        SELECT task || ' · ' || lang || ' · ' || prompt_lang AS cell, value, field_median,
               value - field_median AS delta, n
        FROM ranked WHERE n_models > 1 AND value - field_median {sign} 0
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
def model_parse_failures(con, *, runs: pd.DataFrame) -> pd.DataFrame:
    """Instruction-following failures per language and prompt language from `model_runs` (current runs, open-ended
    tasks left out): lang, prompt_lang, answers, unparsed, fail_pct, share ("12/100")."""
    per_run = runs  # noqa: F841  (read by DuckDB by name; `runs` is also a table)
    return con.execute("""
        SELECT lang, prompt_lang, sum(answers)::BIGINT AS answers, sum(unparsed)::BIGINT AS unparsed,
               100.0 * sum(unparsed) / sum(answers) AS fail_pct,
               sum(unparsed)::BIGINT::VARCHAR || '/' || sum(answers)::BIGINT::VARCHAR AS share
        FROM per_run WHERE NOT superseded AND task NOT LIKE 'cultural-%' AND answers > 0
        GROUP BY ALL ORDER BY lang, prompt_lang""").df()


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
