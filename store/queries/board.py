"""What the pages' defaults are chosen from: every visible model on every board (benchmark × prompt language) with
its origin, item count and overall, and one language's headline cells with the stored paired tests between them.

The choice itself (which board opens, who is preselected, what counts as a stub) is made from these frames by
`services.board_view`.
"""
from __future__ import annotations

import duckdb
import pandas as pd

from store.queries import query
from store.queries.leaderboard import RANKED_ORIGINS


@query
def board_models(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """One row per visible model and board (family, prompt_lang) with a scored headline cell: model, origin,
    baseline (a demo reference point such as "majority class"), items (answers scored over its headline cells),
    cells, overall (stored normalised overall, NULL when none)."""
    return con.execute("""
        WITH cells AS (
            SELECT a.model_id, t.family, a.prompt_lang, sum(a.n) AS items, count(*) AS cells
            FROM aggregates a JOIN tasks t ON t.task = a.task
            WHERE a.is_headline AND a.status = 'ok' AND a.value IS NOT NULL
            GROUP BY ALL)
        SELECT c.model_id AS model, c.family, c.prompt_lang, m.origin,
               coalesce(m.family = 'baseline', false) AS baseline, c.items::BIGINT AS items, c.cells,
               r.value AS overall
        FROM cells c JOIN models m ON m.model_id = c.model_id
        LEFT JOIN rollups r ON r.model_id = c.model_id AND r.family = c.family AND r.prompt_lang = c.prompt_lang
             AND r.score = 'normalized' AND r.level = 'overall' AND r.key = ''
        WHERE NOT coalesce(m.hidden, false)
        ORDER BY c.family, c.prompt_lang, c.model_id""").df()


@query
def language_cells(con: duckdb.DuckDBPyConnection, *, lang: str, prompt_lang: str,
                   models: tuple[str, ...] | None = None) -> pd.DataFrame:
    """Every scored headline cell of one language and prompt language: model, origin, task, lang, family, grp, metric,
    value, ci_low, ci_high, n, chance, normalized."""
    ids = list(models) if models is not None else None
    return con.execute("""
        SELECT a.model_id AS model, m.origin, a.task, a.lang, t.family, t.grp, a.metric, a.value, a.ci_low, a.ci_high,
               a.n, a.chance, a.normalized
        FROM aggregates a JOIN tasks t ON t.task = a.task JOIN models m ON m.model_id = a.model_id
        WHERE a.is_headline AND a.status = 'ok' AND a.value IS NOT NULL AND a.lang = ? AND a.prompt_lang = ?
          AND NOT coalesce(m.hidden, false) AND (? IS NULL OR list_contains(?, a.model_id))
        ORDER BY a.task, a.value DESC, a.model_id""", [lang, prompt_lang, ids, ids]).df()


@query
def language_pair_tests(con: duckdb.DuckDBPyConnection, *, lang: str, prompt_lang: str) -> pd.DataFrame:
    """The stored paired tests between two models on one language's headline cells, same prompt language: task,
    model_a, model_b, n, diff (A − B, points), ci_low, ci_high, p_value, method."""
    return con.execute("""
        SELECT p.task, p.model_a, p.model_b, p.n, p.diff, p.ci_low, p.ci_high, p.p_value, p.method
        FROM pair_tests p JOIN tasks t ON t.task = p.task
        WHERE p.lang = ? AND p.prompt_lang_a = ? AND p.prompt_lang_b = ? AND p.model_a <> p.model_b
          AND json_extract_string(t.headline, '$.' || p.lang) = p.metric
        ORDER BY p.task, p.model_a, p.model_b""", [lang, prompt_lang, prompt_lang]).df()


@query
def language_standing(con: duckdb.DuckDBPyConnection, *, lang: str, prompt_lang: str) -> pd.DataFrame:
    """Each visible model's stored language roll-up over every benchmark (normalised: the mean of its competency
    means in that language): model, origin, mean, tasks (headline cells behind it), best first."""
    return con.execute("""
        SELECT r.model_id AS model, m.origin, r.value AS mean, r.coverage AS tasks
        FROM rollups r JOIN models m ON m.model_id = r.model_id
        WHERE r.family = '' AND r.level = 'language' AND r.key = ? AND r.prompt_lang = ? AND r.score = 'normalized'
          AND r.value IS NOT NULL AND NOT coalesce(m.hidden, false)
        ORDER BY r.value DESC, r.model_id""", [lang, prompt_lang]).df()


@query
def cell_models(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every scored (task, lang) cell with the visible models scored on it: task, lang, models (sorted list)."""
    return con.execute("""
        SELECT a.task, a.lang, list_sort(list_distinct(list(a.model_id))) AS models
        FROM aggregates a JOIN models m ON m.model_id = a.model_id
        WHERE a.status = 'ok' AND a.value IS NOT NULL AND NOT coalesce(m.hidden, false)
        GROUP BY ALL ORDER BY a.task, a.lang""").df()


@query
def board_intervals(con: duckdb.DuckDBPyConnection, *, prompt_lang: str, family: str,
                    score: str = "normalized") -> pd.DataFrame:
    """The stored overall and its 95% interval of every visible evaluated or uploaded model on one board, with the
    answers scored over its headline cells there: model, items, overall, low, high (for rank ranges without
    stubs)."""
    return con.execute("""
        WITH items AS (
            SELECT a.model_id, sum(a.n) AS items FROM aggregates a JOIN tasks t ON t.task = a.task
            WHERE a.is_headline AND a.status = 'ok' AND a.value IS NOT NULL AND a.prompt_lang = ? AND t.family = ?
            GROUP BY ALL)
        SELECT r.model_id AS model, coalesce(i.items, 0)::BIGINT AS items,
               max(r.value) FILTER (WHERE r.level = 'overall') AS overall,
               max(r.value) FILTER (WHERE r.level = 'interval' AND r.key = 'low') AS low,
               max(r.value) FILTER (WHERE r.level = 'interval' AND r.key = 'high') AS high
        FROM rollups r JOIN models m ON m.model_id = r.model_id LEFT JOIN items i ON i.model_id = r.model_id
        WHERE r.prompt_lang = ? AND r.family = ? AND r.score = ? AND list_contains(?, m.origin)
          AND NOT coalesce(m.hidden, false)
        GROUP BY r.model_id, i.items ORDER BY r.model_id""",
                       [prompt_lang, family, prompt_lang, family, score, list(RANKED_ORIGINS)]).df()
