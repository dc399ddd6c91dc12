"""LINDSEA explorer queries: task scores, and the branch → phenomenon → category drilldown with its items.

The tree and the drilldown bars filter the stored levels (`drill_levels`: services.drill_levels pooled the node
counts and their Wilson intervals with evaluator.drill_levels, a few hundred rows per model); the item list reads the stored item outcomes of one model's cells (`item_outcomes`), the answers a handful of predictions.
"""
from __future__ import annotations

import pandas as pd

from store.queries import query
from store.queries.explore import BINARY_SQL, predictions_of, run_windows

BRANCH_SQL = """CASE WHEN {t} = 'lindsea-mp' THEN 'syntax'
    WHEN {t} LIKE 'lindsea-pragmatic%' THEN 'pragmatics' ELSE 'semantics' END"""
"""The paper's Figure 4 grouping of LINDSEA tasks: minimal pairs → syntax, coreference and translation →
semantics, pragmatic reasoning → pragmatics."""

LEVELS = ("branch", "phenomenon", "category", "subcategory")
"""Drill-down keys, coarse to fine."""


@query
def lindsea_cells(con, *, model: str, lang: str) -> pd.DataFrame:
    """Headline score of every LINDSEA task for one model and language, EN and native prompt side by side."""
    return con.execute(f"""
        SELECT {BRANCH_SQL.format(t='a.task')} AS branch, a.task, a.prompt_lang, a.metric,
               a.value, a.ci_low, a.ci_high, a.n, a.chance, a.parse_fail_rate * 100 AS parse_fail_pct,
               a.ci_high < a.chance AS below_chance, a.status, a.note
        FROM aggregates a
        WHERE a.task LIKE 'lindsea-%' AND a.model_id = ? AND a.lang = ? AND a.is_headline
        ORDER BY branch DESC, a.task, a.prompt_lang""", [model, lang]).df()


LEVELS_SQL = """
    SELECT * FROM drill_levels WHERE model_id = ? AND lang = ? AND scope = 'lindsea'"""
"""A model's stored LINDSEA levels in one language (services.drill_levels pooled them from the node counts of its
LINDSEA tasks on 0/1 metrics): depth 0-4 with the keys branch → phenomenon → category → subcategory, prompt_lang,
n (items), correct (sum of item scores 0-1), value (0-100), ci_low/ci_high (95% Wilson), chance (50 for binary
choices, 0 for open answers)."""


@query
def lindsea_answers(con, *, model: str, lang: str, prompt_lang: str, items: tuple[tuple[str, str], ...]
                    ) -> pd.DataFrame:
    """What the model answered to a few (task, item_id) pairs: task, item_id, ord, run_no, answer (NULL when
    unparseable), parsed, output."""
    windows = run_windows(
        con, "r.model_id = ? AND r.lang = ? AND r.prompt_lang = ? AND NOT r.superseded AND list_contains(?, r.task)",
        [model, lang, prompt_lang, sorted({t for t, _ in items})])
    preds, params = predictions_of(windows, "list_contains(?, p.item_id)", [sorted({i for _, i in items})])
    return con.execute(f"""
        SELECT r.task, p.item_id, p.ord, r.run_no, p.answer, p.parsed, p.output
        FROM ({preds}) p JOIN runs r ON r.run_id = p.run_id
        WHERE list_contains(?, r.task || '/' || p.item_id)
        ORDER BY r.task, p.item_id, p.ord, r.run_no""", [*params, [f"{t}/{i}" for t, i in items]]).df()


def _where(**filters) -> tuple[str, list]:
    conds, params = [], []
    for col, val in filters.items():
        if val is not None:
            conds.append(f"{col} = ?")
            params.append(val)
    return ("WHERE " + " AND ".join(conds)) if conds else "", params


@query
def lindsea_tree(con, *, model: str, lang: str, prompt_lang: str) -> pd.DataFrame:
    """Every node of LINDSEA → branch → phenomenon → category for a treemap: id, parent, label, n (items),
    value (0-100, items pooled), ci_low, ci_high. Parents' n equals the sum of their children's."""
    return con.execute(f"""
        SELECT concat_ws('/', 'LINDSEA', branch, phenomenon, category) AS id,
               CASE depth WHEN 0 THEN '' WHEN 1 THEN 'LINDSEA' WHEN 2 THEN 'LINDSEA/' || branch
                    ELSE concat_ws('/', 'LINDSEA', branch, phenomenon) END AS parent,
               coalesce(category, phenomenon, branch, 'LINDSEA') AS label, n, value, ci_low, ci_high
        FROM ({LEVELS_SQL}) WHERE prompt_lang = ? AND depth <= 3 ORDER BY id""", [model, lang, prompt_lang]).df()


@query
def lindsea_drill(con, *, model: str, lang: str, depth: int = 3, branch: str | None = None,
                  phenomenon: str | None = None, category: str | None = None) -> pd.DataFrame:
    """Accuracy by branch → phenomenon → category → subcategory (down to `depth`), per prompt language.

    Rows: the group keys, prompt_lang, n (items), correct (sum of item scores), value (0-100), ci_low, ci_high (95%
    Wilson), chance, below_chance, label (deepest key with its item count).
    """
    keys = ", ".join(LEVELS[:depth + 1])
    where, more = _where(branch=branch, phenomenon=phenomenon, category=category)
    return con.execute(f"""
        WITH grouped AS (
            SELECT {keys}, prompt_lang, n, correct, value, ci_low, ci_high, chance, ci_high < chance AS below_chance
            FROM ({LEVELS_SQL}) WHERE depth = ? {where.replace("WHERE ", "AND ", 1)})
        -- each node's rows (one per prompt language) rolled into a list beside their largest n, then unrolled:
        -- one scan and one grouping, where max(n) OVER (PARTITION BY the keys) scans the levels twice and joins
        , nodes AS (SELECT {keys}, max(n) AS n_max, list(grouped) AS node_rows FROM grouped GROUP BY ALL)
        SELECT unnest(node_rows, recursive := true), coalesce({LEVELS[depth]}, '(none)') || ' (n=' || n_max || ')'
               AS label
        FROM nodes ORDER BY ALL""", [model, lang, depth + 1, *more]).df()


@query
def lindsea_items(con, *, model: str, lang: str, prompt_lang: str | None = None, branch: str | None = None,
                  phenomenon: str | None = None, category: str | None = None, limit: int = 200) -> pd.DataFrame:
    """Items under a drill-down node, whether each option order was answered right, wrong ones first.

    Minimal pairs carry `correct_sentence`/`wrong_sentence`; other tasks their `text`. Reads the stored item
    outcomes of the model's LINDSEA cells only.
    """
    where, params = _where(prompt_lang=prompt_lang, branch=branch, phenomenon=phenomenon, category=category)
    return con.execute(f"""
        WITH cells AS (
            SELECT cell_no FROM drill_cells
            WHERE model_id = ? AND lang = ? AND task LIKE 'lindsea-%' AND prompt_lang = coalesce(?, prompt_lang)),
        outcomes AS MATERIALIZED (  -- the cells' rows first: joined to items as they come, the scan's whole row
            SELECT task, lang, item_id, prompt_lang, right_ab, right_ba, right_all  -- group would be probed
            FROM item_outcomes WHERE cell_no IN (SELECT cell_no FROM cells) AND metric IN {BINARY_SQL}),
        facts AS (
            SELECT {BRANCH_SQL.format(t='o.task')} AS branch,
                   coalesce(nullif(i.phenomenon, ''), 'translation') AS phenomenon,
                   coalesce(nullif(i.category, ''), '(none)') AS category,
                   o.task, o.item_id, o.prompt_lang, o.right_ab, o.right_ba, o.right_all, i.inputs, i.warnings
            FROM outcomes o JOIN items i ON i.task = o.task AND i.lang = o.lang AND i.item_id = o.item_id
            WHERE i.lang = ? AND i.task LIKE 'lindsea-%'),
        shown AS (SELECT * FROM facts {where} ORDER BY right_all, task, item_id, prompt_lang LIMIT ?)
        SELECT task, item_id, prompt_lang, inputs->>'correct' AS correct_sentence, inputs->>'wrong' AS wrong_sentence,
               coalesce(inputs->>'text', inputs->>'conclusion') AS text, right_ab, right_ba, right_all,
               array_to_string(warnings, '; ') AS warnings
        FROM shown ORDER BY right_all, task, item_id, prompt_lang""",
                       [model, lang, prompt_lang, lang, *params, limit]).df()
